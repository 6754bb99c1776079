import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSecretStore, MemorySecretStore, SecretStoreError } from '../../src-main/core/secrets'
import { KnownHosts, SshError, SshPool, cmd, type SshTarget } from '../../src-main/core/ssh'
import { liveProcessesMatching, startSshd, type Sshd } from '../helpers/sshd'

let sshd: Sshd
let dir: string
let knownHosts: KnownHosts
let pool: SshPool

beforeAll(async () => {
  sshd = await startSshd()
  dir = mkdtempSync(join(tmpdir(), 'p4lab-exec-'))
  knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
  pool = new SshPool({ knownHosts, secrets: new MemorySecretStore() })
})
afterAll(async () => {
  pool?.closeAll()
  await sshd?.stop()
})

const target = (auth: SshTarget['auth'] = { kind: 'key', path: sshd.plainKey }): SshTarget => ({
  host: sshd.host,
  port: sshd.port,
  user: sshd.user,
  auth,
})

describe('exec through a real sshd', () => {
  it('streams stdout and stderr line by line and returns exit codes', async () => {
    const h = pool.host(target())
    const lines: [string, string][] = []
    const script = 'echo one; echo two >&2; printf "three\\nfour"; printf "err-tail" >&2; exit 3'
    const r = await h.run(['sh', '-c', script], { onLine: (l, s) => lines.push([s, l]) })
    expect(r.code).toBe(3)
    expect(r.signal).toBeNull()
    expect(lines.filter(([s]) => s === 'stdout').map(([, l]) => l)).toEqual(['one', 'three', 'four'])
    expect(lines.filter(([s]) => s === 'stderr').map(([, l]) => l)).toEqual(['two', 'err-tail'])
    expect(r.stdout.toString()).toBe('one\nthree\nfour')
    expect(r.stderr.toString()).toBe('two\nerr-tail')

    expect((await h.run(['true'])).code).toBe(0)
    expect((await h.run(['false'])).code).toBe(1)
    const killed = await h.run(['sh', '-c', 'kill -TERM $$'])
    expect(killed.code).toBeNull()
    expect(killed.signal).toBe('SIGTERM')
    expect(await h.check(['echo', 'hi'])).toBe('hi\n')
    await expect(h.check(['sh', '-c', 'echo boom >&2; exit 7'])).rejects.toThrow(/exited with 7: boom/)
  })

  it('passes stdin, a cwd and environment values', async () => {
    const h = pool.host(target())
    const r = await h.run(['sh', '-c', 'cat; printf "|%s|%s|" "$PWD" "$P4LAB_X"'], {
      stdin: 'in put',
      cwd: '/tmp',
      env: { P4LAB_X: "a 'b' $(c)" },
    })
    expect(r.stdout.toString()).toBe("in put|/tmp|a 'b' $(c)|")
  })

  it('delivers a hostile argument list byte for byte and executes nothing', async () => {
    const h = pool.host(target())
    const pwned = join(dir, 'pwned')
    const hostile = [
      'two words',
      "single ' quote",
      'double " quote',
      `$(touch ${pwned})`,
      `\`touch ${pwned}\``,
      `\${IFS}$(touch\${IFS}${pwned})`,
      'line\nbreak\n',
      `; touch ${pwned}`,
      `&& touch ${pwned} ||`,
      `| touch ${pwned}`,
      `> ${pwned}`,
      '*',
      '/*',
      '-n',
      '--help',
      '',
      ' ',
      '\t',
      '~',
      '~root',
      '#not a comment',
      '{a,b}',
      '!!',
      '$HOME',
      "'$HOME'",
      'back\\slash\\',
      '%s%d',
      'é ünïcødé ✓',
      '\x01\x7f',
    ]
    const r = await h.run(['printf', '%s\\0', ...hostile])
    expect(r.code).toBe(0)
    const expected = Buffer.concat(hostile.map((a) => Buffer.from(a + '\0', 'utf8')))
    expect(r.stdout.equals(expected)).toBe(true)
    expect(r.stderr.toString()).toBe('')
    // The same with the hostile strings as cwd and env values, and as the program's $0.
    const weird = join(dir, `d 'q' "dq" $(touch ${pwned}) ;*`)
    const mk = await h.run(['mkdir', '-p', '--', weird])
    expect(mk.code).toBe(0)
    expect(existsSync(weird)).toBe(true)
    const r2 = await h.run(['sh', '-c', 'printf "%s\\0%s\\0%s\\0" "$PWD" "$V" "$0"', `-$(touch ${pwned})`], {
      cwd: weird,
      env: { V: `"; touch ${pwned}; echo "` },
    })
    expect(r2.stdout.toString().split('\0')).toEqual([weird, `"; touch ${pwned}; echo "`, `-$(touch ${pwned})`, ''])
    expect(existsSync(pwned)).toBe(false)
    expect(() => cmd(['echo', 'nul\0byte'])).toThrow(/NUL/)
    expect(() => cmd(['echo'], { env: { 'A;B': 'x' } })).toThrow(/not a valid environment variable name/)
  })

  it('cancels a running command with an AbortSignal', async () => {
    const h = pool.host(target())
    const ac = new AbortController()
    const marker = `${Date.now() % 100000}.5`
    const lines: string[] = []
    const p = h.run(['sh', '-c', 'echo started; exec sleep "$0"', marker], {
      signal: ac.signal,
      onLine: (l) => {
        lines.push(l)
        if (l === 'started') ac.abort()
      },
    })
    await expect(p).rejects.toMatchObject({ code: 'aborted' })
    // The remote sleep is gone: the session's process group was killed (checked in /proc;
    // a zombie left for init to reap does not count).
    expect(lines).toEqual(['started'])
    for (let i = 0; i < 100 && liveProcessesMatching(`sleep ${marker}`).length; i++) await new Promise((r) => setTimeout(r, 100))
    expect(liveProcessesMatching(`sleep ${marker}`)).toEqual([])
    // The wrapper's stderr line never shows, and a cancellable command still streams stderr.
    const errLines: string[] = []
    const r = await h.run(['sh', '-c', 'echo to-err >&2; exit 4'], { signal: new AbortController().signal, onLine: (l, s) => errLines.push(`${s}:${l}`) })
    expect(r.code).toBe(4)
    expect(r.stderr.toString()).toBe('to-err\n')
    expect(errLines).toEqual(['stderr:to-err'])
    await expect(h.run(['true'], { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'aborted' })
  })
})

describe('authentication', () => {
  it('logs in with an encrypted key whose passphrase is in the SecretStore (a 0600 file)', async () => {
    const secretsPath = join(dir, 'secrets.json')
    const secrets = new FileSecretStore(secretsPath)
    await secrets.set('ssh:passphrase:test', sshd.keyPassphrase)
    expect(statSync(secretsPath).mode & 0o777).toBe(0o600)
    const p = new SshPool({ knownHosts, secrets })
    try {
      const h = p.host(target({ kind: 'key', path: sshd.secretKey, passphraseSecret: 'ssh:passphrase:test' }))
      expect(await h.check(['echo', 'in'])).toBe('in\n')
    } finally {
      p.closeAll()
    }

    // A wrong passphrase: a clear error that does not quote it.
    const bad = new MemorySecretStore()
    await bad.set('pp', 'wrong-passphrase-xyz')
    const p2 = new SshPool({ knownHosts, secrets: bad })
    const err = await p2
      .host(target({ kind: 'key', path: sshd.secretKey, passphraseSecret: 'pp' }))
      .run(['true'])
      .catch((e) => e)
    expect(err).toBeInstanceOf(SshError)
    expect(err.code).toBe('auth')
    expect(err.message).toContain(sshd.secretKey)
    expect(err.message).not.toContain('wrong-passphrase-xyz')
    // No passphrase stored at all.
    const err2 = await p2
      .host(target({ kind: 'key', path: sshd.secretKey }))
      .run(['true'])
      .catch((e) => e)
    expect(err2.code).toBe('auth')
    expect(err2.message).toMatch(/encrypted/)
    p2.closeAll()

    // The secret file's mode is checked before it is read.
    chmodSync(secretsPath, 0o644)
    const err3 = await new FileSecretStore(secretsPath).get('ssh:passphrase:test').catch((e) => e)
    expect(err3).toBeInstanceOf(SecretStoreError)
    expect(err3.message).toContain('mode 0644')
    expect(err3.message).toContain(`chmod 600 ${secretsPath}`)
    expect(err3.message).not.toContain(sshd.keyPassphrase)
    const p3 = new SshPool({ knownHosts, secrets: new FileSecretStore(secretsPath) })
    await expect(p3.host(target({ kind: 'key', path: sshd.secretKey, passphraseSecret: 'ssh:passphrase:test' })).run(['true'])).rejects.toThrow(
      /mode 0644/,
    )
    p3.closeAll()
    chmodSync(secretsPath, 0o600)
    expect(readFileSync(secretsPath, 'utf8')).toContain('ssh:passphrase:test')
  })

  it('refuses a key that is not authorized, clearly', async () => {
    const other = join(dir, 'id_other')
    writeFileSync(other, readFileSync(sshd.plainKey)) // same format, then replace by a fresh key
    const { execFileSync } = await import('node:child_process')
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other], { input: 'y\n', stdio: ['pipe', 'ignore', 'ignore'] })
    const p = new SshPool({ knownHosts, secrets: new MemorySecretStore() })
    const err = await p
      .host(target({ kind: 'key', path: other }))
      .run(['true'])
      .catch((e) => e)
    p.closeAll()
    expect(err.code).toBe('auth')
    expect(err.message).toContain(`authentication failed with the key file ${other}`)
  })

  it('logs in through ssh-agent', async () => {
    const { execFileSync, spawn } = await import('node:child_process')
    const sock = join(dir, 'agent.sock')
    const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' })
    try {
      for (let i = 0; i < 100 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 50))
      execFileSync('ssh-add', [sshd.plainKey], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' })
      const p = new SshPool({ knownHosts, secrets: new MemorySecretStore(), env: { SSH_AUTH_SOCK: sock } })
      try {
        expect(await p.host(target({ kind: 'agent' })).check(['echo', 'agent'])).toBe('agent\n')
      } finally {
        p.closeAll()
      }
      const p2 = new SshPool({ knownHosts, secrets: new MemorySecretStore(), env: {} })
      await expect(p2.host(target({ kind: 'agent' })).run(['true'])).rejects.toThrow(/SSH_AUTH_SOCK is not set/)
      p2.closeAll()
    } finally {
      agent.kill()
    }
  })
})

import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src-main/core/secrets'
import {
  HostKeyChangedError,
  HostKeyRevokedError,
  HostKeyUnknownError,
  KnownHosts,
  SshPool,
  connect,
  fingerprint,
  hostLabel,
  type SshTarget,
} from '../../src-main/core/ssh'
import { startSshd, type Sshd } from '../helpers/sshd'

let sshd: Sshd
let dir: string

beforeAll(async () => {
  sshd = await startSshd()
  dir = mkdtempSync(join(tmpdir(), 'p4lab-kh-'))
})
afterAll(async () => {
  await sshd?.stop()
})

const target = (): SshTarget => ({ host: sshd.host, port: sshd.port, user: sshd.user, auth: { kind: 'key', path: sshd.plainKey } })
let n = 0
const khFile = () => join(dir, `known_hosts.${++n}`)

async function tryConnect(kh: KnownHosts): Promise<void> {
  const { client } = await connect(target(), { knownHosts: kh, secrets: new MemorySecretStore() })
  client.end()
}

describe('host keys against a real sshd', () => {
  it('accepts a key listed in a plain [host]:port entry', async () => {
    const f = khFile()
    writeFileSync(f, `# comment\n\n[127.0.0.1]:${sshd.port} ${sshd.hostPublicLine()}\n`)
    await tryConnect(new KnownHosts({ file: f }))
  })

  it('does not take a port-22 entry for another port', async () => {
    const f = khFile()
    writeFileSync(f, `127.0.0.1 ${sshd.hostPublicLine()}\n`)
    await expect(tryConnect(new KnownHosts({ file: f }))).rejects.toBeInstanceOf(HostKeyUnknownError)
  })

  it('accepts a hashed entry written by ssh-keygen -H, and a comma-separated host list', async () => {
    const f = khFile()
    writeFileSync(f, `[127.0.0.1]:${sshd.port} ${sshd.hostPublicLine()}\n`)
    execFileSync('ssh-keygen', ['-H', '-f', f], { stdio: 'ignore' })
    expect(readFileSync(f, 'utf8')).toMatch(/^\|1\|/)
    expect(readFileSync(f, 'utf8')).not.toContain('127.0.0.1')
    await tryConnect(new KnownHosts({ file: f }))

    const g = khFile()
    writeFileSync(g, `otherhost,[localhost]:${sshd.port},[127.0.0.1]:${sshd.port} ${sshd.hostPublicLine()}\n`)
    await tryConnect(new KnownHosts({ file: g }))
  })

  it('refuses an unknown key with its fingerprint and type until trusted, then accepts it (hashed line)', async () => {
    const f = khFile()
    const kh = new KnownHosts({ file: f })
    const err = await tryConnect(kh).then(
      () => undefined,
      (e) => e,
    )
    expect(err).toBeInstanceOf(HostKeyUnknownError)
    const u = err as HostKeyUnknownError
    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(sshd.dir, 'host_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1]
    expect(u.fingerprint).toBe(fp)
    expect(u.fingerprint).toBe(fingerprint(sshd.hostKey()))
    expect(u.keyType).toBe('ssh-ed25519')
    expect(u.hostLabel).toBe(`[127.0.0.1]:${sshd.port}`)
    expect(u.message).toContain(fp)
    expect(u.message).toContain('ssh-ed25519')

    // The user confirmed: pin it, and the next attempt goes through.
    await kh.trust(u.host, u.port, u.key)
    const text = readFileSync(f, 'utf8')
    expect(text).toMatch(/^\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+ ssh-ed25519 /)
    expect(text).not.toContain('127.0.0.1')
    await tryConnect(kh)
    // OpenSSH itself finds our hashed line.
    const found = execFileSync('ssh-keygen', ['-F', `[127.0.0.1]:${sshd.port}`, '-f', f], { encoding: 'utf8' })
    expect(found).toContain('ssh-ed25519')
    // Trusting again does not write a second line.
    await kh.trust(u.host, u.port, u.key)
    expect(readFileSync(f, 'utf8')).toBe(text)
  })

  it('consults a read-only file (like ~/.ssh/known_hosts) without writing to it', async () => {
    const ro = khFile()
    writeFileSync(ro, `[127.0.0.1]:${sshd.port} ${sshd.hostPublicLine()}\n`)
    const own = khFile()
    await tryConnect(new KnownHosts({ file: own, readOnlyFiles: [ro] }))
  })

  it('refuses a @revoked key, and ignores @cert-authority lines as host keys', async () => {
    const f = khFile()
    writeFileSync(f, `@cert-authority [127.0.0.1]:${sshd.port} ${sshd.hostPublicLine()}\n`)
    await expect(tryConnect(new KnownHosts({ file: f }))).rejects.toBeInstanceOf(HostKeyUnknownError)
    writeFileSync(f, `[127.0.0.1]:${sshd.port} ${sshd.hostPublicLine()}\n@revoked * ${sshd.hostPublicLine()}\n`)
    const err = await tryConnect(new KnownHosts({ file: f })).catch((e) => e)
    expect(err).toBeInstanceOf(HostKeyRevokedError)
    expect(err.message).toContain('line 2')
  })

  it('refuses a changed key with a clear error naming the line to remove', async () => {
    const f = khFile()
    writeFileSync(f, `# pinned\n[127.0.0.1]:${sshd.port} ${sshd.hostPublicLine()}\n`)
    const kh = new KnownHosts({ file: f })
    const pool = new SshPool({ knownHosts: kh, secrets: new MemorySecretStore() })
    const h = pool.host(target())
    expect((await h.run(['echo', 'ok'])).stdout.toString()).toBe('ok\n')
    const old = fingerprint(sshd.hostKey())
    pool.closeAll()

    await sshd.restart({ newHostKey: true })
    const now = fingerprint(sshd.hostKey())
    expect(now).not.toBe(old)
    const err = await tryConnect(kh).catch((e) => e)
    expect(err).toBeInstanceOf(HostKeyChangedError)
    expect(err.message).toBe(
      `the host key of [127.0.0.1]:${sshd.port} has changed: expected ${old}, got ${now}; ` +
        `if this is expected, remove line 2 of ${f} (if it is not, someone may be intercepting the connection)`,
    )

    // The user removes the line (forget), trusts the new key, and is back in.
    expect(await kh.forget(sshd.host, sshd.port)).toBe(1)
    expect(readFileSync(f, 'utf8')).toBe('# pinned\n')
    const unknown = await tryConnect(kh).catch((e) => e)
    expect(unknown).toBeInstanceOf(HostKeyUnknownError)
    await kh.trust(sshd.host, sshd.port, unknown.key)
    await tryConnect(kh)
    expect(hostLabel(sshd.host, sshd.port)).toBe(`[127.0.0.1]:${sshd.port}`)
  })
})

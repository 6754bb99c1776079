// The testbed model against real parts: SQLite in a temp dir, the file secret store, and
// a real OpenSSH sshd on 127.0.0.1 (test/helpers/sshd.ts). No mocks.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatch } from '../../src-main/core'
import { CoreError } from '../../src-main/core/errors'
import { FileSecretStore } from '../../src-main/core/secrets'
import { KnownHosts, fingerprint } from '../../src-main/core/ssh'
import { openStore, type Store } from '../../src-main/core/store'
import { TestbedService, parseIperf3Version, parseIpVersion, passphraseSecretId } from '../../src-main/core/testbeds'
import { startSshd, type Sshd } from '../helpers/sshd'
import { TINY_YAML } from '../helpers/core'
import { createNodeCore } from '../../src-main/core'

let sshd: Sshd
let dir: string
let n = 0

beforeAll(async () => {
  sshd = await startSshd()
  dir = mkdtempSync(join(tmpdir(), 'p4lab-testbeds-'))
})
afterAll(async () => {
  await sshd?.stop()
})

function fresh(): { svc: TestbedService; store: Store; dbPath: string; secretsPath: string; khPath: string } {
  const d = join(dir, `case${++n}`)
  const dbPath = join(d, 'p4lab.db')
  const store = openStore(dbPath)
  const secretsPath = join(d, 'secrets.json')
  const khPath = join(d, 'known_hosts')
  const svc = new TestbedService({
    store,
    knownHosts: new KnownHosts({ file: khPath }),
    secrets: new FileSecretStore(secretsPath),
    runnableKinds: () => ['sim'],
    baseDir: d,
  })
  return { svc, store, dbPath, secretsPath, khPath }
}

const host = (over: Record<string, unknown> = {}) => ({
  name: 'sw1',
  address: sshd.host,
  port: sshd.port,
  user: sshd.user,
  auth: 'key',
  keyFile: sshd.plainKey,
  ...over,
})

async function refusal(p: Promise<unknown>): Promise<CoreError> {
  const e = await p.then(
    () => undefined,
    (err) => err,
  )
  expect(e).toBeInstanceOf(CoreError)
  return e as CoreError
}

describe('testbed model', () => {
  it('round-trips through SQLite, and the passphrase goes only to the secret store', async () => {
    const { svc, store, dbPath, secretsPath } = fresh()
    const tb = await svc.create({
      name: 'lab1',
      kind: 'bmv2',
      settings: { bringUp: 'netns', rateCeilingBps: 5e8 },
      hosts: [host({ keyFile: sshd.secretKey, passphrase: sshd.keyPassphrase }), host({ name: 'gen', auth: 'agent', keyFile: undefined, role: 'traffic' })],
    })
    expect(tb).toMatchObject({ name: 'lab1', kind: 'bmv2', builtin: false, settings: { rateCeilingBps: 5e8 } })
    // A bring-up choice (stored by earlier versions, never used by the driver) is read and dropped.
    expect(tb.settings).not.toHaveProperty('bringUp')
    expect(tb.hosts.map((h) => [h.name, h.role, h.auth, h.hasPassphrase])).toEqual([
      ['sw1', 'switch-host', 'key', true],
      ['gen', 'traffic', 'agent', false],
    ])
    expect(tb.hosts[0].keyFile).toBe(sshd.secretKey)
    expect((await svc.list()).map((t) => t.name)).toEqual(['lab1', 'sim'])
    expect(svc.names().sort()).toEqual(['lab1', 'sim'])

    // A reopened store reads the same thing back.
    store.close()
    const again = openStore(dbPath)
    const row = again.getTestbed('lab1')!
    expect(row.hosts[0]).toMatchObject({ address: sshd.host, port: sshd.port, user: sshd.user, auth: 'key', role: 'switch-host', hostKey: null })

    // The secret is in secrets.json (0600) and nowhere in the database files.
    expect(JSON.parse(readFileSync(secretsPath, 'utf8'))[passphraseSecretId(row.hosts[0].id)]).toBe(sshd.keyPassphrase)
    expect(statSync(secretsPath).mode & 0o777).toBe(0o600)
    const needle = Buffer.from(sshd.keyPassphrase, 'utf8')
    for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
      if (existsSync(f)) expect(readFileSync(f).includes(needle), `${f} holds the passphrase`).toBe(false)
    }
    again.close()
  })

  it('refuses bad input with a clear message', async () => {
    const { svc } = fresh()
    await svc.create({ name: 'lab', kind: 'bmv2', hosts: [host()] })
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'lab', kind: 'bmv2', hosts: [host()] }, /a testbed named 'lab' already exists/],
      [{ name: 'sim', kind: 'bmv2', hosts: [host()] }, /'sim' is the built-in/],
      [{ name: 'bad name', kind: 'bmv2', hosts: [host()] }, /name: a testbed name is/],
      [{ name: 'x', kind: 'sim', hosts: [host()] }, /kind 'bmv2' or 'tofino'/],
      [{ name: 'x', kind: 'bmv2', hosts: [] }, /at least one host/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ address: 'not an address' })] }, /hosts\[0\]\.address: "not an address" is not a host name or an IP address/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ address: '300.1.2.3' })] }, /hosts\[0\]\.address/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ port: 70000 })] }, /hosts\[0\]\.port: a port is 1-65535/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ port: 0 })] }, /hosts\[0\]\.port: a port is 1-65535/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ user: '-oProxyCommand=x' })] }, /hosts\[0\]\.user/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ keyFile: join(dir, 'nope', 'id_missing') })] }, /key file .*id_missing does not exist/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ keyFile: sshd.plainKey + '.pub' })] }, /is a public key/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ keyFile: sshd.secretKey })] }, /is encrypted: give its passphrase/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ keyFile: sshd.secretKey, passphrase: 'wrong' })] }, /the passphrase does not open it/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ auth: 'key', keyFile: undefined })] }, /auth 'key' needs a key file/],
      [{ name: 'x', kind: 'bmv2', hosts: [host(), host()] }, /two hosts are named 'sw1'/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ role: 'sde' })] }, /a bmv2 host is 'switch-host' or 'traffic', not 'sde'/],
      [{ name: 'x', kind: 'bmv2', hosts: [host({ role: 'traffic' })] }, /needs a 'switch-host' host/],
      [{ name: 'x', kind: 'tofino', settings: { sde: 'relative/sde' }, hosts: [host()] }, /settings\.sde: expected an absolute path/],
    ]
    for (const [input, message] of cases) {
      const e = await refusal(svc.create(input))
      expect(e.message, JSON.stringify(input)).toMatch(message)
    }
    expect(svc.names().sort()).toEqual(['lab', 'sim'])
  })

  it('gives the same errors through the contract', async () => {
    const { core, dir: d } = (() => {
      const d = mkdtempSync(join(tmpdir(), 'p4lab-tbcore-'))
      return { core: createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d }), dir: d }
    })()
    const dispatch = createDispatch(core.handlers)
    const bad = await dispatch('testbeds.create', { testbed: { name: 'x', kind: 'bmv2', hosts: [host({ port: 99999 })] } })
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid-request' } })
    expect(JSON.stringify(bad)).toMatch(/a port is 1-65535/)
    const ok = await dispatch('testbeds.create', { testbed: { name: 'lab2', kind: 'bmv2', hosts: [host()] } })
    expect(ok).toMatchObject({ ok: true, result: { name: 'lab2', hosts: [{ name: 'sw1', port: sshd.port }] } })
    const dup = await dispatch('testbeds.create', { testbed: { name: 'lab2', kind: 'bmv2', hosts: [host()] } })
    expect(dup).toMatchObject({ ok: false, error: { code: 'conflict' } })
    expect(existsSync(join(d, 'p4lab.db'))).toBe(true)
    core.opts.store.close()
  })

  it('keeps host ids, pinned keys and passphrases across an edit; moving a host unpins it; removal drops secrets', async () => {
    const { svc, store, secretsPath } = fresh()
    const tb = await svc.create({ name: 'lab', kind: 'bmv2', hosts: [host({ keyFile: sshd.secretKey, passphrase: sshd.keyPassphrase })] })
    const id = tb.hosts[0].id
    store.setHostKey(id, `ssh-ed25519 ${sshd.hostKey().toString('base64')}`)
    const renamed = await svc.update('lab', {
      name: 'lab-renamed',
      kind: 'bmv2',
      hosts: [host({ id, name: 'switch', keyFile: sshd.secretKey }), host({ name: 'gen', role: 'traffic' })],
    })
    expect(renamed.name).toBe('lab-renamed')
    expect(renamed.hosts[0]).toMatchObject({ id, name: 'switch', hasPassphrase: true, hostKey: { keyType: 'ssh-ed25519', fingerprint: fingerprint(sshd.hostKey()) } })
    const moved = await svc.update('lab-renamed', { name: 'lab-renamed', kind: 'bmv2', hosts: [host({ id, name: 'switch', keyFile: sshd.secretKey, port: 2222 }), host({ id: renamed.hosts[1].id, name: 'gen', role: 'traffic' })] })
    expect(moved.hosts[0].hostKey).toBeNull()
    expect(moved.hosts[0].hasPassphrase).toBe(true)
    const e = await refusal(svc.update('lab-renamed', { name: 'lab-renamed', kind: 'bmv2', hosts: [host({ id: 9999 })] }))
    expect(e.message).toMatch(/host id 9999 .* is not a host of testbed/)
    expect(await svc.delete('lab-renamed')).toBe(true)
    expect(await svc.delete('lab-renamed')).toBe(false)
    expect(JSON.parse(readFileSync(secretsPath, 'utf8'))).toEqual({})
    await expect(svc.delete('sim')).rejects.toThrow(/built in/)
  })
})

/** What the tool prints when run here (the sshd is this machine), parsed the same way; null when absent. */
function localVersion(argv: string[], parse: (s: string) => string | null): string | null {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' } })
  if (r.error) return null
  return parse(r.stdout + r.stderr)
}
function locallyPresent(tool: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', tool], { env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' } }).status === 0
}

describe('check and trust against a real sshd', () => {
  it('stops at an unknown key with its fingerprint; trust pins it; then check reports the tools', async () => {
    const { svc, khPath } = fresh()
    await svc.create({ name: 'lab', kind: 'bmv2', hosts: [host({ keyFile: sshd.secretKey, passphrase: sshd.keyPassphrase })] })
    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(sshd.dir, 'host_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1]

    const first = await svc.check('lab')
    expect(first.ready).toBe(false)
    expect(first.hosts).toHaveLength(1)
    expect(first.hosts[0]).toMatchObject({ host: 'sw1', status: 'unknown-key', hostKey: { keyType: 'ssh-ed25519', fingerprint: fp }, tools: [] })
    expect(first.hosts[0].message).toContain(fp)
    expect(existsSync(khPath)).toBe(false)

    // A fingerprint the user did not see is refused, and nothing is written.
    const wrong = await refusal(svc.trust('lab', 'sw1', 'SHA256:' + 'A'.repeat(43)))
    expect(wrong.code).toBe('conflict')
    expect(wrong.message).toContain(fp)
    expect(existsSync(khPath)).toBe(false)

    const t = await svc.trust('lab', 'sw1', fp)
    expect(t).toEqual({ host: 'sw1', keyType: 'ssh-ed25519', fingerprint: fp, alreadyTrusted: false })
    expect(readFileSync(khPath, 'utf8')).toMatch(/^\|1\|/) // hashed, as ssh(1) writes
    expect((await svc.get('lab')).hosts[0].hostKey).toEqual({ keyType: 'ssh-ed25519', fingerprint: fp })
    expect((await svc.trust('lab', 'sw1', fp)).alreadyTrusted).toBe(true)

    const second = await svc.check('lab')
    const h = second.hosts[0]
    expect(h.status, h.message ?? '').toBe('ok')
    expect(h.hostKey).toEqual({ keyType: 'ssh-ed25519', fingerprint: fp })
    const tool = (name: string) => h.tools.find((x) => x.name === name)!
    expect(h.tools.map((x) => x.name)).toEqual(['p4c', 'p4c-bm2-ss', 'simple_switch', 'simple_switch_CLI', 'ethtool', 'mn', 'python3', 'iperf3', 'ip'])
    // Each says what a run does with it and where it comes from.
    for (const x of h.tools) expect(x.why && x.install, x.name).toBeTruthy()
    // What exists on this machine is found with its version; the rest is reported missing.
    expect(tool('python3')).toMatchObject({ found: true, required: true })
    expect(tool('python3').version).toMatch(/^3\.\d+\.\d+/)
    expect(tool('iperf3')).toMatchObject({ found: true, version: localVersion(['iperf3', '--version'], parseIperf3Version) })
    expect(tool('ip')).toMatchObject({ found: true, version: localVersion(['ip', '-V'], parseIpVersion) })
    expect(tool('ip').version).toMatch(/^\d/)
    for (const name of ['p4c', 'p4c-bm2-ss', 'simple_switch', 'simple_switch_CLI', 'ethtool', 'mn']) {
      expect(tool(name).found, name).toBe(locallyPresent(name))
      if (!tool(name).found) expect(tool(name).detail).toBe('not found on PATH')
    }
    // Mininet is not required: the driver makes the namespaces itself, whatever bringUp says.
    expect(h.missing).toEqual(['p4c-bm2-ss', 'simple_switch', 'simple_switch_CLI', 'ethtool'].filter((x) => !locallyPresent(x)))
    expect(second.ready).toBe(h.missing.length === 0)
  })

  it('checks a Tofino SDE host: $SDE from the settings, the SDE scripts found there', async () => {
    const { svc } = fresh()
    // A hostile folder name: it must reach the host as data, never as shell.
    // (A command there would run in the login directory, the home folder: the marker would land there.)
    const markerName = `p4lab-pwned-${process.pid}`
    const marker = join(homedir(), markerName)
    const sde = mkdtempSync(join(tmpdir(), `bf-sde-9.7.0 $(touch ${markerName}) 'q' \`touch ${markerName}\`;`))
    // A stand-in SDE folder: the scripts exist (Check only looks for them), bf-p4c answers --version.
    execFileSync('sh', ['-c', `mkdir -p "$1/install/bin" && for s in run_switchd.sh run_bfshell.sh run_tofino_model.sh; do printf '#!/bin/sh\\nexit 1\\n' > "$1/$s"; chmod +x "$1/$s"; done && printf '#!/bin/sh\\necho "bf-p4c 9.7.0 (SHA: 0c3c4b5 BUILD: release)"\\n' > "$1/install/bin/bf-p4c" && chmod +x "$1/install/bin/bf-p4c"`, 'sh', sde])
    await svc.create({ name: 'tof', kind: 'tofino', settings: { sde, target: 'model' }, hosts: [host({ name: 'sde1' })] })
    const first = await svc.check('tof')
    await svc.trust('tof', 'sde1', first.hosts[0].hostKey!.fingerprint)
    const r = (await svc.check('tof')).hosts[0]
    expect(r.status, r.message ?? '').toBe('ok')
    const tool = (name: string) => r.tools.find((x) => x.name === name)!
    expect(tool('$SDE')).toMatchObject({ found: true, path: sde, version: '9.7.0', detail: 'from the testbed settings' })
    expect(tool('$SDE_INSTALL')).toMatchObject({ found: true, path: `${sde}/install`, detail: 'default' })
    expect(tool('bf-p4c')).toMatchObject({ found: true, version: '9.7.0', path: `${sde}/install/bin/bf-p4c` })
    for (const s of ['run_switchd.sh', 'run_bfshell.sh', 'run_tofino_model.sh']) expect(tool(s)).toMatchObject({ found: true, path: `${sde}/${s}` })
    expect(r.missing).toEqual([])
    expect(existsSync(marker)).toBe(false)

    // A missing SDE folder is reported, not fatal.
    await svc.update('tof', { name: 'tof', kind: 'tofino', settings: { sde: '/nonexistent/bf-sde' }, hosts: [host({ id: (await svc.get('tof')).hosts[0].id, name: 'sde1' })] })
    const m = (await svc.check('tof')).hosts[0]
    expect(m.status).toBe('ok')
    expect(m.tools.find((x) => x.name === '$SDE')).toMatchObject({ found: false, detail: expect.stringMatching(/is not a directory/) })
    expect(m.missing).toContain('$SDE')
  })

  it('refuses a changed host key with the layer\'s error, and trust does not replace it', async () => {
    const { svc, khPath } = fresh()
    await svc.create({ name: 'lab', kind: 'bmv2', hosts: [host({ role: 'switch-host' })] })
    const oldFp = fingerprint(sshd.hostKey())
    await svc.trust('lab', 'sw1', oldFp)
    const before = readFileSync(khPath, 'utf8')
    await sshd.restart({ newHostKey: true })
    const newFp = fingerprint(sshd.hostKey())
    expect(newFp).not.toBe(oldFp)
    const r = (await svc.check('lab')).hosts[0]
    expect(r).toMatchObject({ status: 'changed-key', hostKey: { fingerprint: newFp }, expected: [oldFp] })
    expect(r.message).toMatch(/has changed/)
    expect(r.message).toContain(khPath)
    const e = await refusal(svc.trust('lab', 'sw1', newFp))
    expect(e.message).toMatch(/has changed.*does not replace a pinned key/)
    expect(readFileSync(khPath, 'utf8')).toBe(before)
  })

  it('reports a login failure per host without stopping the others', async () => {
    const { svc } = fresh()
    const stranger = join(dir, 'id_stranger')
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger], { stdio: 'ignore' })
    await svc.create({ name: 'lab', kind: 'bmv2', hosts: [host(), host({ name: 'gen', role: 'traffic', keyFile: stranger })] })
    const fp = fingerprint(sshd.hostKey())
    await svc.trust('lab', 'sw1', fp)
    const r = await svc.check('lab')
    expect(r.hosts.map((h) => h.status)).toEqual(['ok', 'error'])
    expect(r.hosts[1].message).toMatch(/authentication failed/)
    expect(r.hosts[1].tools).toEqual([])
  })
})

describe('the core with stored testbeds', () => {
  it('accepts their names in experiment files and runs on them through the driver of their kind', async () => {
    const d = mkdtempSync(join(tmpdir(), 'p4lab-tbrun-'))
    const core = createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d })
    const yaml = TINY_YAML.replace('testbed: sim', 'testbed: lab1')
    expect((await core.handlers['experiments.validate']({ yaml })).ok).toBe(false)
    await core.testbeds.create({ name: 'lab1', kind: 'bmv2', hosts: [host()] })
    expect((await core.handlers['experiments.validate']({ yaml })).ok).toBe(true)
    const exp = await core.handlers['experiments.create']({ yaml })
    // The bmv2 driver takes the run; its check step stops at the host key nobody trusted yet.
    const { runIds } = await core.handlers['experiments.run']({ id: exp.id })
    await core.orchestrator.wait(runIds)
    const run = core.opts.store.getRun(runIds[0])!
    expect(run.status).toBe('failed')
    expect(run.error).toMatch(/^sw1: the host key SHA256:\S+ is not trusted yet; compare it and run: p4lab testbed trust lab1$/)
    core.opts.store.close()
  })
})

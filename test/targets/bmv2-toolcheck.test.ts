// Check means ready (issue 11): a BMv2 switch host that lacks a tool the run needs is not
// ready, the tool named with why the run needs it and where it comes from, and a run there
// stops at its check step with nothing deployed. The hosts are this machine through real
// sshds whose sessions see changed command folders (SshdImage in test/helpers/sshd.ts):
// - BMv2's and p4c's commands added as stand-ins that answer --version with the real tools'
//   recorded output (test/fixtures/bmv2/versions.txt): there is no BMv2 or p4c here, and
//   Check only finds them and asks their version;
// - one of the two hosts also has ethtool removed.
// ethtool itself must be installed on this machine (.ci/run installs it).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeCore } from '../../src-main/core'
import { p4labKnownHosts } from '../../src-main/core/ssh'
import { openStore } from '../../src-main/core/store'
import { ToolMissingError } from '../../src-main/core/targets/shared/remote'
import { firstVersion } from '../../src-main/core/testbeds'
import { BMV2_FIXTURES, ROOT, labSession, startBmv2Lab, stopBmv2Lab, type Bmv2Lab } from '../helpers/bmv2'
import { netnsList, probeNetns } from '../helpers/netns'

const probe = probeNetns()
const root = process.getuid?.() === 0

/** The sections of versions.txt: `# command` then its output. */
function recorded(): Record<string, string> {
  const out: Record<string, string> = {}
  let current = ''
  for (const line of readFileSync(join(BMV2_FIXTURES, 'versions.txt'), 'utf8').split('\n')) {
    if (line.startsWith('# ')) out[(current = line.slice(2).trim())] = ''
    else if (current) out[current] += line + '\n'
  }
  return out
}

/** A command that answers --version with `versionText` and refuses anything else. */
function standIn(name: string, versionText: string): string {
  return `#!/bin/sh
if [ "$1" = --version ]; then
cat <<'P4LAB_EOF'
${versionText}P4LAB_EOF
exit 0
fi
echo "${name}: a p4lab test stand-in (there is no BMv2 or p4c on this machine)" >&2
exit 1
`
}

const REC = recorded()
const ADD = {
  'p4c-bm2-ss': standIn('p4c-bm2-ss', REC['p4c-bm2-ss --version']),
  simple_switch: standIn('simple_switch', REC['simple_switch --version']),
  simple_switch_CLI: standIn('simple_switch_CLI', ''),
}

const SMALL = `name: toolcheck
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`

const localEthtool = spawnSync('ethtool', ['--version'], { encoding: 'utf8', env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' } })

let full: Bmv2Lab
let noEthtool: Bmv2Lab
let cwd: string
let home: string

beforeAll(async () => {
  if (!root) return
  if (localEthtool.error) throw new Error('ethtool is not installed on this machine: these tests need it (Debian/Ubuntu: apt-get install ethtool; .ci/run installs it)')
  full = await startBmv2Lab('tcfull', 9601, { image: { add: ADD } })
  noEthtool = await startBmv2Lab('tcnoeth', 9651, { image: { add: ADD, hide: ['ethtool'] } })
  cwd = mkdtempSync(join(tmpdir(), 'p4lab-toolcheck-'))
  home = join(cwd, 'home')
  writeFileSync(join(cwd, 'small.yaml'), SMALL)
}, 60_000)

afterAll(async () => {
  await stopBmv2Lab(full)
  await stopBmv2Lab(noEthtool)
  if (cwd) rmSync(cwd, { recursive: true, force: true })
})

/** The built bin, as a user runs it, without blocking the event loop (the sshds live in this process). */
function p4lab(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [join(ROOT, 'bin', 'p4lab.cjs'), ...args], { cwd, env: { ...process.env, P4LAB_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    c.stdout.on('data', (d) => (stdout += d))
    c.stderr.on('data', (d) => (stderr += d))
    c.on('error', reject)
    c.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

async function addTestbed(name: string, lab: Bmv2Lab): Promise<void> {
  const { sshd } = lab
  const add = await p4lab(['testbed', 'add', name, '--kind', 'bmv2', '--host', `${sshd.user}@${sshd.host}:${sshd.port}`, '--key', sshd.plainKey, '--name', 'sw1'])
  expect(add.code, add.stderr).toBe(0)
  const trust = await p4lab(['testbed', 'trust', name, '--yes'])
  expect(trust.code, trust.stderr).toBe(0)
}

interface ToolRow {
  name: string
  found: boolean
  checked: boolean
  required: boolean
  version: string | null
  detail: string | null
  why: string
  install: string
}

describe('testbed check on a BMv2 switch host', () => {
  it('every tool there: ready, with the versions of the real tools', async (t) => {
    t.skip(!root, 'the test sshd images need root')
    await addTestbed('full', full)
    const r = await p4lab(['testbed', 'check', 'full', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const c = JSON.parse(r.stdout)
    const h = c.hosts[0]
    expect(h.status, h.message).toBe('ok')
    expect(h.missing).toEqual([])
    expect(c.ready).toBe(true)
    const tool = (n: string) => (h.tools as ToolRow[]).find((x) => x.name === n)!
    expect(tool('ethtool')).toMatchObject({ found: true, checked: true, required: true, version: firstVersion(localEthtool.stdout) })
    expect(tool('simple_switch')).toMatchObject({ found: true, version: '1.15.5' })
    expect(tool('p4c-bm2-ss')).toMatchObject({ found: true, version: '1.2.5.16' })
    expect(tool('simple_switch_CLI')).toMatchObject({ found: true })
    for (const n of ['ip', 'python3']) expect(tool(n), n).toMatchObject({ found: true, required: true })
    // Mininet is never used (the driver makes the namespaces itself): never required.
    expect(tool('mn').required).toBe(false)

    // The run's check step agrees.
    const { session } = labSession(full, SMALL)
    const facts = await session.check()
    expect(facts).toMatchObject({ 'sw1.ethtool': firstVersion(localEthtool.stdout), 'sw1.simple_switch': '1.15.5', 'sw1.p4c-bm2-ss': '1.2.5.16' })
    await session.teardown()
  }, 120_000)

  it('ethtool hidden: not ready, naming ethtool, why the run needs it and its package', async (t) => {
    t.skip(!root, 'the test sshd images need root')
    await addTestbed('noeth', noEthtool)
    const r = await p4lab(['testbed', 'check', 'noeth', '--json'])
    expect(r.code).toBe(1)
    const c = JSON.parse(r.stdout)
    const h = c.hosts[0]
    expect(c.ready).toBe(false)
    expect(h.status).toBe('ok')
    expect(h.missing).toEqual(['ethtool'])
    expect((h.tools as ToolRow[]).find((x) => x.name === 'ethtool')).toMatchObject({
      found: false,
      checked: true,
      required: true,
      detail: 'not found on PATH',
      why: expect.stringMatching(/checksum offloads off on the veths.*every TCP flow through the fabric fails/),
      install: 'Debian/Ubuntu package ethtool',
    })

    const text = await p4lab(['testbed', 'check', 'noeth'])
    expect(text.code).toBe(1)
    expect(text.stdout).toContain('testbed noeth (bmv2): not ready')
    expect(text.stdout).toMatch(/^\s+ethtool\s+MISSING\b/m)
    expect(text.stdout).toMatch(/^ {2}ethtool turns checksum offloads off on the veths; .*every TCP flow through the fabric fails\n {4}install: Debian\/Ubuntu package ethtool$/m)
    expect(text.stdout).toContain('missing: sw1: ethtool')
  }, 120_000)

  it('a run on the host without ethtool stops at its check step: nothing deployed, nothing left there', async (t) => {
    t.skip(!root, 'the test sshd images need root')
    const run = await p4lab(['run', 'small.yaml', '--testbed', 'noeth'])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/run \d+ ecmp load=0.3 seed=1: failed \(ethtool is not installed on sw1 \(.*\) \(not found on PATH\)\. ethtool turns checksum offloads off/)
    expect(run.stderr).toContain('install: Debian/Ubuntu package ethtool')
    const id = Number(/run (\d+) ecmp/.exec(run.stderr)![1])
    const shown = JSON.parse((await p4lab(['show', String(id), '--json'])).stdout)
    expect(shown.status).toBe('failed')
    const kinds = shown.events.map((e: { kind: string }) => e.kind)
    const steps = shown.events.filter((e: { kind: string }) => e.kind === 'step').map((e: { detail: { step: string; state: string } }) => `${e.detail.step}:${e.detail.state}`)
    expect(steps).toEqual(['check:started', 'check:failed', 'teardown:started', 'teardown:done'])
    // No deploy part was recorded, and teardown had no host to visit: the run made nothing there.
    expect(kinds).not.toContain('deploy')
    expect(kinds).not.toContain('teardown')
    // The driver logs every command it runs on a host (`$ …`); here only Check's findings are logged.
    const store = openStore(join(home, 'p4lab.db'))
    try {
      const hostLines = store
        .listLogs(id)
        .filter((l) => l.source === 'sw1')
        .map((l) => l.line)
      expect(hostLines.filter((l) => l.startsWith('$ '))).toEqual([])
      expect(hostLines).toContain('check: ethtool: missing (required): not found on PATH')
      expect(hostLines.every((l) => l.startsWith('check: '))).toBe(true)
    } finally {
      store.close()
    }
  }, 120_000)

  it('deploy on a host without ethtool fails before making any namespace, naming ethtool', async (t) => {
    t.skip(!root || !probe.ok, probe.reason || 'the test sshd images need root')
    const { session, logs, events, runDirBase } = labSession(noEthtool, SMALL)
    await session.build()
    const err = await session.deploy().then(
      () => null,
      (e: Error) => e,
    )
    expect(err).toBeInstanceOf(ToolMissingError)
    expect(err!.message).toMatch(/^ethtool is not installed on sw1 \(.*\) \(not found on PATH\)\. ethtool turns checksum offloads off on the veths; .*; install: Debian\/Ubuntu package ethtool\. /)
    expect(logs.some((l) => /topology: /.test(l))).toBe(false)
    expect(netnsList().filter((n) => n.startsWith(session.prefix))).toEqual([])
    await session.teardown()
    expect(events.find((e) => e.kind === 'teardown')?.detail).toMatchObject({ host: 'sw1', clean: true })
    expect(existsSync(join(runDirBase, session.run.key))).toBe(false)
  }, 120_000)
})

describe('a check that could not look is not ready (Tofino SDE host)', () => {
  /** A stand-in SDE folder: the scripts exist (Check only finds them), bf-p4c is `bfP4c`. */
  function sdeFolder(bfP4c: string): string {
    const sde = mkdtempSync(join(tmpdir(), 'bf-sde-9.7.0-'))
    mkdirSync(join(sde, 'install', 'bin'), { recursive: true })
    for (const s of ['run_switchd.sh', 'run_bfshell.sh', 'run_tofino_model.sh']) writeFileSync(join(sde, s), '#!/bin/sh\nexit 1\n', { mode: 0o755 })
    writeFileSync(join(sde, 'install', 'bin', 'bf-p4c'), bfP4c, { mode: 0o755 })
    return sde
  }

  it('a probe with no answer makes the host an error, and a tool that does not run is missing', async (t) => {
    t.skip(!root, 'the test sshd images need root')
    const d = mkdtempSync(join(tmpdir(), 'p4lab-tccore-'))
    const core = createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d })
    const hung = sdeFolder('#!/bin/sh\nexec sleep 120\n')
    const broken = sdeFolder('#!/nonexistent/interpreter\n')
    try {
      const { sshd } = full
      await p4labKnownHosts(d).trust(sshd.host, sshd.port, sshd.hostKey())
      const host = { name: 'sde1', address: sshd.host, port: sshd.port, user: sshd.user, auth: 'key' as const, keyFile: sshd.plainKey, role: 'sde' as const }
      await core.testbeds.create({ name: 'tf', kind: 'tofino', settings: { sde: hung, target: 'model' }, hosts: [host] })
      // bf-p4c never answers. (The other probes answer within the limit on a machine that is not
      // overloaded; which of them did is not what this test is about.)
      const c = await core.testbeds.check('tf', { toolTimeoutMs: 10_000 })
      const h = c.hosts[0]
      expect(c.ready).toBe(false)
      expect(h.status).toBe('error')
      expect(h.message).toMatch(/^could not look for bf-p4c\b.* \(no answer within 10 s\), so the host is not known to be ready$/)
      expect(h.tools.find((x) => x.name === 'bf-p4c')).toMatchObject({ found: false, checked: false, detail: 'could not look: no answer within 10 s' })
      // Not claimed missing either: nothing is known of it.
      expect(h.missing).not.toContain('bf-p4c')

      const id = (await core.testbeds.get('tf')).hosts[0].id
      await core.testbeds.update('tf', { name: 'tf', kind: 'tofino', settings: { sde: broken, target: 'model' }, hosts: [{ ...host, id }] })
      const b = await core.testbeds.check('tf')
      expect(b.ready).toBe(false)
      expect(b.hosts[0].status).toBe('ok')
      expect(b.hosts[0].missing).toEqual(['bf-p4c'])
      expect(b.hosts[0].tools.find((x) => x.name === 'bf-p4c')).toMatchObject({
        found: false,
        checked: true,
        path: join(broken, 'install', 'bin', 'bf-p4c'),
        detail: expect.stringMatching(/^on PATH but does not run: .* \(exit 12[67]\)$/),
      })
    } finally {
      core.opts.store.close()
      for (const x of [d, hung, broken]) rmSync(x, { recursive: true, force: true })
    }
  }, 120_000)
})

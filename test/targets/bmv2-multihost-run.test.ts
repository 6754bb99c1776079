// Runs through the core on a BMv2 testbed of two hosts (two namespaces on this machine, each
// with its own sshd, home folder and /run/netns, joined by a veth: helpers/twohost.ts), with the
// fabric mapped across both: leaf0 and spine0 on hostA, leaf1 and spine1 on hostB.
// - Well cabled: the check sends a frame over every link (two through VXLAN), then each host
//   starts its own switches on its own interfaces and gets their tables, the agents start on
//   both, and teardown leaves nothing on either host.
// - hostB's simple_switch does not start: the run fails at deploy naming hostB, and teardown
//   cleans both hosts.
// - hostB's sshd goes away once deploy is done: the run fails naming hostB, and its teardown is
//   not clean, naming hostB, while hostA's is.
// There is no BMv2 here: the switches and CLIs are stand-ins (helpers/bmv2.ts) that forward
// nothing, so no flow can finish; what is asserted is where things ran and what was left.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeCore } from '../../src-main/core'
import { p4labKnownHosts } from '../../src-main/core/ssh'
import { HostProgress } from '../../src-main/contract/testbed-mapping'
import { probeNetns } from '../helpers/netns'
import { liveProcessesMatching } from '../helpers/sshd'
import { startTwoHostLab, type TwoHostLab, type TwoHostSide } from '../helpers/twohost'

const probe = probeNetns()
if (!probe.ok) throw new Error(`the two-host tests need network namespaces: ${probe.reason}`)

const YAML = `name: multihost-run
testbed: two
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 4 }
seeds: [1]
`

/** What one host has of a run, seen from inside it (its sshd's mount and network namespaces). */
function onHost(side: TwoHostSide, prefix: string): { namespaces: string[]; links: string[] } {
  const pid = String(side.sshd.pid())
  const list = (argv: string[]) => spawnSync('nsenter', ['-t', pid, '-m', '-n', ...argv], { encoding: 'utf8' })
  const ns = list(['ip', 'netns', 'list'])
  const links = list(['ip', '-o', 'link', 'show'])
  if (ns.status !== 0 || links.status !== 0) throw new Error(`cannot look into ${side.ns}: ${ns.stderr}${links.stderr}`)
  return {
    namespaces: ns.stdout.split('\n').map((l) => l.split(' ')[0]).filter((n) => n.startsWith(prefix)),
    links: links.stdout.split('\n').map((l) => (l.split(': ')[1] ?? '').split('@')[0]).filter((n) => n.startsWith(prefix)),
  }
}

async function runOn(lab: TwoHostLab, o: { settings?: Record<string, unknown>; onEvent?: (kind: string, detail: unknown) => void } = {}) {
  const d = mkdtempSync(join(tmpdir(), 'p4lab-multihost-run-'))
  const core = createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d })
  const seen: string[] = []
  try {
    for (const s of [lab.a.sshd, lab.b.sshd]) await p4labKnownHosts(d).trust(s.host, s.port, s.hostKey())
    const host = (name: string, s: TwoHostLab['a']['sshd']) => ({ name, address: s.host, port: s.port, user: s.user, auth: 'key' as const, keyFile: s.plainKey })
    await core.testbeds.create({ name: 'two', kind: 'bmv2', settings: { bringUp: 'netns', calibrate: false, ...o.settings }, hosts: [host('hostA', lab.a.sshd), host('hostB', lab.b.sshd)] })
    await core.testbeds.setMapping('two', {
      yaml: `mapping:
  kind: bmv2
  hosts:
    - { host: hostA, switches: [leaf0, spine0], tunnelAddress: ${lab.a.underlay} }
    - { host: hostB, switches: [leaf1, spine1], tunnelAddress: ${lab.b.underlay} }
`,
    })
    core.bus.subscribe((event, p) => {
      if (event !== 'run.event') return
      const e = (p as { event: { kind: string; detail: unknown } }).event
      seen.push(e.kind)
      o.onEvent?.(e.kind, e.detail)
    })
    const exp = core.findOrCreateExperiment(YAML, null)
    const runs = core.runExperiment(exp.id)
    await core.orchestrator.wait(runs.map((r) => r.id))
    const store = core.opts.store
    const row = store.getRun(runs[0].id)!
    const events = store.listEvents(row.id)
    const steps = events.filter((e) => e.kind === 'step').map((e) => e.detail as { step: string; state: string; error?: string })
    const logs = store.listLogs(row.id).map((l) => `${l.source}: ${l.line}`)
    const progress = events.filter((e) => e.kind === 'host.progress').map((e) => HostProgress.parse(e.detail))
    // The hosts are torn down at once: in the order they finish.
    const teardown = events
      .filter((e) => e.kind === 'teardown')
      .map((e) => e.detail as { host: string; clean: boolean })
      .sort((x, y) => x.host.localeCompare(y.host))
    const prefix = events.map((e) => (e.detail as { prefix?: string } | null)?.prefix).find((x) => typeof x === 'string')
    return { row, steps, logs, progress, teardown, prefix, seen, why: `error ${row.error}; ${logs.slice(-60).join('\n')}` }
  } finally {
    core.opts.store.close()
    rmSync(d, { recursive: true, force: true })
  }
}

/** `host phase step` of every step a host finished. */
const done = (progress: HostProgress[]) => progress.filter((p) => p.state === 'done').map((p) => `${p.host} ${p.phase} ${p.step}`)

describe('a run on a fabric spread over two hosts', () => {
  let lab: TwoHostLab
  beforeAll(async () => {
    lab = await startTwoHostLab('mhr', { standIn: true })
  }, 60_000)
  afterAll(async () => {
    const left = await lab?.stop()
    expect(left).toEqual({ namespaces: [], links: [] })
  }, 60_000)

  it('starts each host its own switches on its own interfaces, pushes their tables there, runs agents on both, and tears both down clean', async () => {
    const r = await runOn(lab)
    const states = r.steps.map((s) => `${s.step}:${s.state}`)
    expect(states, r.why).toEqual(['check:started', 'check:done', 'build:started', 'build:done', 'deploy:started', 'deploy:done', 'traffic:started', 'traffic:done', 'collect:started', 'collect:done', 'teardown:started', 'teardown:done'])
    expect(r.logs.some((l) => l.includes('all 6 links carried a frame end to end (2 of them through VXLAN between hosts)'))).toBe(true)
    const p = r.prefix!
    expect(p).toMatch(/^p4\w+-$/)

    // Each host's stand-ins: its own two switches, in its switch namespace, on its interfaces
    // (leaf0 is switch 0, leaf1 1, spine0 2, spine1 3; a port's interface is P<switch><port>).
    const ran = (side: TwoHostSide) => readFileSync(side.standInLog, 'utf8').trim().split('\n')
    const a = ran(lab.a)
    const b = ran(lab.b)
    expect(a.filter((l) => l.startsWith('switch ')).sort()).toEqual([
      `switch 0 thrift 9090 netns ${p}s0 ifaces 0@${p}0000,1@${p}0001,2@${p}0002`,
      `switch 2 thrift 9092 netns ${p}s0 ifaces 0@${p}0200,1@${p}0201`,
    ])
    expect(b.filter((l) => l.startsWith('switch ')).sort()).toEqual([
      `switch 1 thrift 9091 netns ${p}s1 ifaces 0@${p}0100,1@${p}0101,2@${p}0102`,
      `switch 3 thrift 9093 netns ${p}s1 ifaces 0@${p}0300,1@${p}0301`,
    ])
    // The tables reached each switch on its host: its first CLI session is its command file.
    const tables = (lines: string[], thrift: number) => Number(/table_add (\d+)$/.exec(lines.find((l) => l.startsWith(`cli thrift ${thrift} `))!)![1])
    for (const [lines, ns, ports] of [
      [a, `${p}s0`, [9090, 9092]],
      [b, `${p}s1`, [9091, 9093]],
    ] as const) {
      for (const port of ports) expect(tables(lines, port), `switch on thrift ${port}`).toBeGreaterThan(0)
      expect(lines.filter((l) => l.startsWith('cli ')).every((l) => l.includes(` netns ${ns} `))).toBe(true)
    }
    // Neither host's CLI reached a switch of the other.
    expect(a.some((l) => / thrift 909[13] /.test(l))).toBe(false)
    expect(b.some((l) => / thrift 909[02] /.test(l))).toBe(false)

    // Progress per host, in the run's events (and on the bus, which the UI listens to).
    for (const host of ['hostA', 'hostB']) {
      expect(done(r.progress)).toEqual(
        expect.arrayContaining([
          `${host} cabling links`,
          `${host} deploy files`,
          `${host} deploy switches`,
          `${host} deploy tables`,
          `${host} deploy rates`,
          `${host} traffic servers`,
          `${host} traffic clients`,
          `${host} teardown clean`,
        ]),
      )
    }
    expect(r.progress.filter((x) => x.state === 'failed')).toEqual([])
    expect(r.seen).toContain('host.progress')
    expect(r.logs.some((l) => l.startsWith('hostB: deploy: switches done'))).toBe(true)

    // The stand-ins forward nothing: no flow finished, and the run does not say done. Every flow
    // of both hosts' clients (2 each) was collected, from the flow file on its own host.
    expect(r.row.status).not.toBe('done')
    const c = r.row.counters as Record<string, number>
    expect(c.flowsFinished).toBe(0)
    expect(c.flowsFailed + c.flowsUnfinished, r.why).toBe(4)
    expect(r.teardown).toEqual([expect.objectContaining({ host: 'hostA', clean: true }), expect.objectContaining({ host: 'hostB', clean: true })])
    for (const side of [lab.a, lab.b]) expect(onHost(side, p)).toEqual({ namespaces: [], links: [] })
    expect(liveProcessesMatching(p)).toEqual([])
  }, 240_000)
})

describe('a run whose switches do not start on one of its two hosts', () => {
  let lab: TwoHostLab
  beforeAll(async () => {
    // hostB's simple_switch answers the check's --version, and fails to start.
    const failing = `#!/bin/sh
if [ "$1" = "--version" ]; then PATH=\${PATH#*:} exec simple_switch --version; fi
echo "simple_switch: cannot open the device (a p4lab test: hostB's switch does not start)" >&2
exit 1
`
    lab = await startTwoHostLab('mhf', { standIn: true, binB: { simple_switch: failing } })
  }, 60_000)
  afterAll(async () => {
    const left = await lab?.stop()
    expect(left).toEqual({ namespaces: [], links: [] })
  }, 60_000)

  it('fails at deploy naming hostB, and tears both hosts down clean', async () => {
    const r = await runOn(lab)
    expect(r.row.status).toBe('failed')
    expect(r.row.error, r.why).toMatch(/^deploy failed on hostB: hostB: simple_switch for leaf1 exited right after it started: .*hostB's switch does not start/)
    expect(r.steps.map((s) => `${s.step}:${s.state}`)).toEqual(['check:started', 'check:done', 'build:started', 'build:done', 'deploy:started', 'deploy:failed', 'teardown:started', 'teardown:done'])
    expect(r.progress).toContainEqual(expect.objectContaining({ host: 'hostB', phase: 'deploy', step: 'switches', state: 'failed' }))
    expect(r.teardown).toEqual([expect.objectContaining({ host: 'hostA', clean: true }), expect.objectContaining({ host: 'hostB', clean: true })])
    const p = r.prefix!
    for (const side of [lab.a, lab.b]) expect(onHost(side, p)).toEqual({ namespaces: [], links: [] })
    expect(liveProcessesMatching(p)).toEqual([])
  }, 240_000)
})

describe("a run whose second host's sshd goes away after deploy", () => {
  let lab: TwoHostLab
  beforeAll(async () => {
    lab = await startTwoHostLab('mhd', { standIn: true })
  }, 60_000)
  afterAll(async () => {
    const left = await lab?.stop()
    expect(left).toEqual({ namespaces: [], links: [] })
  }, 60_000)

  it("fails naming hostB; its teardown is not clean and names hostB, hostA's is clean", async () => {
    let prefix = ''
    try {
      const r = await runOn(lab, {
        settings: { reconnectWindowS: 1 },
        onEvent: (kind, detail) => {
          const d = detail as { host?: string; phase?: string; step?: string; state?: string; prefix?: string }
          if (kind === 'deploy' && d.prefix) prefix = d.prefix
          // hostB has its switches configured at the run's rate scale: deploy is done there.
          if (kind === 'host.progress' && d.host === 'hostB' && d.phase === 'deploy' && d.step === 'rates' && d.state === 'done') void lab.b.sshd.down()
        },
      })
      expect(r.row.status).toBe('failed')
      expect(r.row.error, r.why).toMatch(/^traffic failed on hostB: /)
      const teardown = r.steps.find((s) => s.step === 'teardown' && s.state === 'failed')
      expect(teardown?.error, r.why).toMatch(/^teardown left things behind: hostB: /)
      expect(teardown?.error).not.toContain('hostA')
      expect(r.teardown).toEqual([expect.objectContaining({ host: 'hostA', clean: true }), expect.objectContaining({ host: 'hostB', clean: false })])
      expect(done(r.progress)).toContain('hostA teardown clean')
      expect(r.progress).toContainEqual(expect.objectContaining({ host: 'hostB', phase: 'teardown', step: 'clean', state: 'failed', error: expect.stringMatching(/^hostB: /) }))
      expect(onHost(lab.a, prefix)).toEqual({ namespaces: [], links: [] })
      // What hostB still runs of the run: its two switches.
      expect(readFileSync(lab.b.standInLog, 'utf8')).toContain(`netns ${prefix}s1`)
      expect(liveProcessesMatching(`ipc:///tmp/${prefix}`).length).toBe(2)
      expect(existsSync(join(lab.b.home, '.p4lab'))).toBe(true)
    } finally {
      // hostB's leftovers, ended by pid (its sshd, which would have let a later run clean them, is gone).
      if (prefix) for (const pid of liveProcessesMatching(prefix)) process.kill(pid, 'SIGKILL')
    }
  }, 240_000)
})

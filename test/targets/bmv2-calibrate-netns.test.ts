// The BMv2 rate calibration on a real forwarder of known capacity: namespaces A and B joined
// through a Linux bridge in a middle namespace M, whose port toward B is shaped by `tc tbf` to
// 200 Mbit/s. The measurement runs through the driver's own code (measure.ts: a RemoteRun to
// the test's sshd, iperf3 server and client in the namespaces, as it runs between two fabric
// hosts in a run), and the switch host's load sampler (hostload.ts) reads M as the "switch".
// There is no simple_switch here: what stands in for the switches is the shaped bridge.
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CALIBRATION_HEADROOM, offeredLoad } from '../../src-main/core/targets/bmv2/calibrate'
import { hostLoadPlan, sampleHost } from '../../src-main/core/targets/bmv2/hostload'
import { calibrate, measureThroughput } from '../../src-main/core/targets/bmv2/measure'
import type { NetnsPlan } from '../../src-main/core/targets/remote/netns'
import { splitFlows } from '../../src-main/core/targets/remote/remote'
import type { RunTestbedHost } from '../../src-main/core/targets/driver'
import { labSession, startBmv2Lab, stopBmv2Lab, type Bmv2Lab, type LabSession } from '../helpers/bmv2'
import { netnsList, netnsPids, probeNetns } from '../helpers/netns'

const probe = probeNetns()
if (!probe.ok) console.warn(`[bmv2-calibrate-netns] skipping: ${probe.reason}`)
const hasTc = spawnSync('tc', ['-V']).status === 0
const hasIperf3 = spawnSync('iperf3', ['--version']).status === 0

const CAP_BPS = 200e6
// The quickstart: 16 hosts at load 0.3 of 10 Gb/s links, 20 Gb/s fabric links, ceiling 1 Gb/s (scale 0.05).
const QUICKSTART = `name: quickstart-cal
testbed: sim
topology: { kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 600 }
seeds: [1]
`

const tag = process.pid.toString(36)
const ns = { a: `p4lab-${process.pid}-cal-a`, m: `p4lab-${process.pid}-cal-m`, b: `p4lab-${process.pid}-cal-b` }
const ifs = { a: `p4k${tag}a`, ma: `p4k${tag}ma`, b: `p4k${tag}b`, mb: `p4k${tag}mb` }
const IP_A = '10.203.0.1'
const IP_B = '10.203.0.2'

function sh(...argv: string[]): string {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stdout}${r.stderr}`)
  return r.stdout
}

function destroyForwarder(): void {
  for (const n of Object.values(ns)) {
    for (const pid of netnsPids(n)) spawnSync('kill', ['-KILL', String(pid)])
    spawnSync('ip', ['netns', 'del', n])
  }
  for (const i of [ifs.a, ifs.b]) spawnSync('ip', ['link', 'del', i])
}

/** A -- [ma  M: bridge  mb -tbf 200mbit->] -- B */
function buildForwarder(): void {
  for (const n of Object.values(ns)) sh('ip', 'netns', 'add', n)
  sh('ip', 'link', 'add', ifs.a, 'type', 'veth', 'peer', 'name', ifs.ma)
  sh('ip', 'link', 'add', ifs.b, 'type', 'veth', 'peer', 'name', ifs.mb)
  sh('ip', 'link', 'set', ifs.a, 'netns', ns.a)
  sh('ip', 'link', 'set', ifs.b, 'netns', ns.b)
  sh('ip', 'link', 'set', ifs.ma, 'netns', ns.m)
  sh('ip', 'link', 'set', ifs.mb, 'netns', ns.m)
  sh('ip', '-n', ns.m, 'link', 'add', 'br0', 'type', 'bridge')
  for (const i of [ifs.ma, ifs.mb]) sh('ip', '-n', ns.m, 'link', 'set', i, 'master', 'br0', 'up')
  sh('ip', '-n', ns.m, 'link', 'set', 'br0', 'up')
  sh('ip', 'netns', 'exec', ns.m, 'tc', 'qdisc', 'add', 'dev', ifs.mb, 'root', 'tbf', 'rate', '200mbit', 'burst', '64kb', 'latency', '50ms')
  for (const [n, i, ip] of [
    [ns.a, ifs.a, IP_A],
    [ns.b, ifs.b, IP_B],
  ] as const) {
    sh('ip', '-n', n, 'addr', 'add', `${ip}/24`, 'dev', i)
    sh('ip', '-n', n, 'link', 'set', i, 'up')
    sh('ip', '-n', n, 'link', 'set', 'lo', 'up')
  }
}

/** The forwarder as a one-switch "fabric", for the load sampler: M's two bridge ports, A and B on them. */
const forwarderPlan = (): NetnsPlan => ({
  prefix: 'p4zz00-',
  switchNs: ns.m,
  switches: [{ name: 'br', index: 0, deviceId: 0, thriftPort: 0, ports: [{ port: 0, ifname: ifs.ma, facing: 'host', peer: 'A' }, { port: 1, ifname: ifs.mb, facing: 'host', peer: 'B' }] }],
  hosts: [
    { index: 0, name: 'A', ns: ns.a, ifname: 'eth0', ip: IP_A, mac: '', gatewayMac: '', tor: 'br', torPort: 0 },
    { index: 1, name: 'B', ns: ns.b, ifname: 'eth0', ip: IP_B, mac: '', gatewayMac: '', tor: 'br', torPort: 1 },
  ],
  links: [
    { a: ifs.ma, b: ifs.a, hostNs: ns.a },
    { a: ifs.mb, b: ifs.b, hostNs: ns.b },
  ],
})

const ready = probe.ok && hasTc && hasIperf3
const why = !probe.ok ? probe.reason : !hasTc ? 'tc (iproute2) is not installed' : 'iperf3 is not installed'

let lab: Bmv2Lab
let s: LabSession
let h: RunTestbedHost
const measureAB = { src: { name: 'A', ns: ns.a }, dst: { name: 'B', ns: ns.b, ip: IP_B } }

beforeAll(async () => {
  if (!ready) return
  destroyForwarder()
  buildForwarder()
  lab = await startBmv2Lab('bmv2cal', 9701)
  s = labSession(lab, QUICKSTART)
  h = s.ctx.testbed!.hosts[0]
})

afterAll(async () => {
  s?.session.run.close()
  await stopBmv2Lab(lab)
  if (ready) destroyForwarder()
})

describe('rate calibration on a bridge shaped to 200 Mbit/s', () => {
  it('measures within 20 % of the cap, and the scale chosen keeps the offered load under it', { timeout: 120_000 }, async (t) => {
    t.skip(!ready, why)
    const spec = s.ctx.plan.spec
    const offered = offeredLoad(spec, 0.3, splitFlows(600, 16))
    expect(offered.totalBps).toBe(48e9)
    const run = s.session.run
    // The load sampler reads M while a low-priority busy loop stands in for a switch process.
    const procs = await run.processes(h)
    await procs.start('ss-br', ['nice', '-n', '19', 'sh', '-c', 'while :; do :; done'])
    const plan = forwarderPlan()
    const lp = hostLoadPlan(plan, (sw) => `ss-${sw}`)
    const before = await sampleHost(run, h, plan, lp)

    const { choice, measurement: m } = await calibrate(run, h, { fastestBps: 20e9, ceilingBps: 1e9, offeredBps: offered.totalBps }, measureAB)

    const after = await sampleHost(run, h, plan, lp)
    await procs.stop('ss-br')
    console.log(`[bmv2-calibrate-netns] measured ${(m!.bps / 1e6).toFixed(1)} Mb/s through the 200 Mbit/s bridge (${m!.iperf.retransmits} retransmits); scale ${choice.scale}: ${choice.why}`)
    expect(m!.bps).toBeGreaterThanOrEqual(0.8 * CAP_BPS)
    expect(m!.bps).toBeLessThanOrEqual(1.2 * CAP_BPS)
    expect(choice.reason).toBe('capacity')
    expect(choice.scale).toBeLessThan(choice.ceilingScale)
    expect(choice.offeredBps).toBeLessThanOrEqual(CALIBRATION_HEADROOM * m!.bps)
    expect(choice.offeredBps).toBeLessThan(CAP_BPS)
    expect(choice.offeredBps).toBeCloseTo(offered.totalBps * choice.scale)

    // What the sampler read of the same transfer: every byte iperf3 counted crossed both bridge ports.
    const load = lp.values(after!, before!)!
    expect(load).not.toBeNull()
    const sentBits = load.values[lp.defs.findIndex((d) => d.kind === 'host.sent' && d.entity.host === 'A')] * load.round.dtS
    const deliveredBits = load.values[lp.defs.findIndex((d) => d.kind === 'host.received' && d.entity.host === 'B')] * load.round.dtS
    expect(sentBits).toBeGreaterThanOrEqual(m!.iperf.receivedBytes * 8)
    expect(deliveredBits).toBeGreaterThanOrEqual(m!.iperf.receivedBytes * 8)
    expect(load.values[lp.defs.findIndex((d) => d.kind === 'switch.cpu')]).toBeGreaterThan(0)
    expect(load.values[lp.defs.findIndex((d) => d.kind === 'switch.drops')]).toBeGreaterThanOrEqual(0)
    // Nothing of the measurement is left running.
    expect((await procs.status('cal-iperf3')).members).toEqual([])
  })

  it('a fixed scale is kept, with a warning when its offered load is more than the bridge carried', { timeout: 120_000 }, async (t) => {
    t.skip(!ready, why)
    const { choice, measurement: m } = await calibrate(s.session.run, h, { fastestBps: 20e9, ceilingBps: 1e9, offeredBps: 48e9, fixedScale: 0.05 }, measureAB)
    expect(choice).toMatchObject({ scale: 0.05, reason: 'fixed' })
    expect(m!.bps).toBeLessThanOrEqual(1.2 * CAP_BPS)
    console.log(`[bmv2-calibrate-netns] fixed scale: measured ${(m!.bps / 1e6).toFixed(1)} Mb/s; ${choice.warning}`)
    expect(choice.warning).toMatch(/^the fixed rate scale 0.05 offers 2400 Mb\/s, more than 80 % of the \d+ Mb\/s the switches forwarded/)
  })

  it('a forwarder that carries nothing fails the measurement with both ends named, within its time limit', { timeout: 120_000 }, async (t) => {
    t.skip(!ready, why)
    sh('ip', '-n', ns.m, 'link', 'set', ifs.mb, 'down')
    try {
      const err = await measureThroughput(s.session.run, h, { ...measureAB, seconds: 1, omitSeconds: 0, timeoutS: 8 }).then(
        () => null,
        (e: Error) => e,
      )
      console.log(`[bmv2-calibrate-netns] a dead forwarder: ${err?.message}`)
      expect(err?.message).toMatch(/^iperf3 from A to B (failed: iperf3: unable to connect|did not finish within 8 s: the fabric did not carry its TCP connection)/)
    } finally {
      sh('ip', '-n', ns.m, 'link', 'set', ifs.mb, 'up')
    }
    expect((await (await s.session.run.processes(h)).status('cal-iperf3')).members).toEqual([])
    expect(netnsList()).toEqual(expect.arrayContaining(Object.values(ns)))
  })
})

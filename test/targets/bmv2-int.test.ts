// INT on a BMv2 run (telemetry.int), against a real OpenSSH sshd on this machine as the switch
// host; tests run as root, so namespaces, veths and raw sockets are real.
//
// There is no simple_switch (nor p4c) here, so the one hop that cannot run is the switch itself:
// a BMv2 egress pipeline cloning a packet and writing the postcard. In its place the test writes
// the very frames intEncap would (the control plane's addresses, int.p4's layout built with the
// INT tests' spec encoder) with a raw socket onto each switch's collector port, in the switch
// namespace. Everything after that is the real path: the veth into the run's collector
// namespace, the kernel accepting the frame there (MAC, address, route), the agent's relay
// mode started by the driver as a detached process, its output read back over SSH as it grows,
// decoding, the IntCollector, the telemetry stream, the ingest and a real SQLite store. The
// compile step uses a stand-in p4c-bm2-ss (as test/targets/bmv2-driver.test.ts does) that
// records its arguments, so the -DP4LAB_INT flag and the artifact keys are checked for real.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeControlPlane, intPlan } from '../../src-main/core/controlplane'
import type { Store } from '../../src-main/core/store'
import { Ingest } from '../../src-main/core/telemetry/ingest'
import { seriesProblem } from '../../src-main/schemes'
import type { Bmv2Session } from '../../src-main/core/targets/bmv2/driver'
import { planNetns, type NetnsPlan } from '../../src-main/core/targets/shared/netns'
import { ToolMissingError, teardownHost } from '../../src-main/core/targets/shared/remote'
import { bringUpTopology } from '../../src-main/core/targets/bmv2/steps'
import type { RunContext, TargetMessage } from '../../src-main/core/targets/driver'
import { buildFabric } from '../../src-main/model/topology'
import { postcard, reportFrame } from '../int/postcard'
import { netnsList, netnsPids, probeNetns, processesMatching } from '../helpers/netns'
import { labSession, startBmv2Lab, stopBmv2Lab, type Bmv2Lab, type LabSession } from '../helpers/bmv2'
import { liveProcessesMatching } from '../helpers/sshd'

const probe = probeNetns()
if (!probe.ok) console.warn(`[bmv2-int] skipping the namespace tests: ${probe.reason}`)

const YAML = (telemetry: string, name = 'bmv2-int') => `name: ${name}
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 40Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 4 }
${telemetry}
`
const INT_ON = YAML('telemetry: { int: true }')

let lab: Bmv2Lab
let dir: string
let store: Store
let argvLog: string

beforeAll(async () => {
  lab = await startBmv2Lab('bmv2int', 9501)
  ;({ dir, store, argvLog } = lab)
})

afterAll(() => stopBmv2Lab(lab))

const makeSession = (yaml: string, dataDir = dir): LabSession => labSession(lab, yaml, { dataDir })

/** The plan the driver makes for the session (a pure function of the fabric, the prefix and the INT option). */
function planOf(session: Bmv2Session, ctx: RunContext): NetnsPlan {
  const state = computeControlPlane(buildFabric(ctx.plan.spec.topology), 'ecmp')
  return planNetns(state, session.prefix, intPlan(state, ctx.plan.spec.int!))
}

function ip(args: string[]): string {
  const r = spawnSync('ip', args, { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

function ifnames(ns: string): string[] {
  return ip(['-n', ns, '-o', 'link', 'show'])
    .split('\n')
    .map((l) => (l.split(': ')[1] ?? '').split('@')[0])
    .filter(Boolean)
    .sort()
}

function leftovers(prefix: string, marker: string) {
  const links = ip(['-o', 'link', 'show'])
    .split('\n')
    .map((l) => (l.split(': ')[1] ?? '').split('@')[0])
    .filter((n) => n.startsWith(prefix))
  return { namespaces: netnsList().filter((n) => n.startsWith(prefix)), links, processes: processesMatching(marker).map((p) => p.cmdline) }
}

/** Raw frames out of interfaces of a namespace (AF_PACKET), as simple_switch writes to its ports. */
const SEND_RAW = `import socket, sys
for arg in sys.argv[1:]:
    ifname, frames = arg.split("=", 1)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    for f in frames.split(","):
        s.send(bytes.fromhex(f))
    s.close()
`
function sendRaw(ns: string, frames: Map<string, Buffer[]>): void {
  const args = [...frames].map(([ifname, list]) => `${ifname}=${list.map((f) => f.toString('hex')).join(',')}`)
  const r = spawnSync('ip', ['netns', 'exec', ns, 'python3', '-c', SEND_RAW, ...args], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`raw send in ${ns}: ${r.stderr}`)
}

describe('BMv2 + INT: build', () => {
  it('-DP4LAB_INT reaches the compiler only with INT on, and the two builds are different artifacts (each a cache hit the second time)', async () => {
    const data = mkdtempSync(join(dir, 'build-'))
    rmSync(argvLog, { force: true })
    const on = makeSession(INT_ON, data)
    await on.session.build()
    const off = makeSession(YAML(''), data)
    await off.session.build()
    const calls = readFileSync(argvLog, 'utf8').trim().split('\n')
    expect(calls).toHaveLength(2)
    expect(calls[0]).toMatch(/^--p4v 16 -DP4LAB_INT --p4runtime-files \S+ -o \S+ ecmp\/v1model\/ecmp\.p4$/)
    expect(calls[1]).toMatch(/^--p4v 16 --p4runtime-files \S+ -o \S+ ecmp\/v1model\/ecmp\.p4$/)
    const keyOf = (logs: string[]) => /artifact ([0-9a-f]{12})/.exec(logs.join('\n'))?.[1]
    expect(keyOf(on.logs)).toBeDefined()
    expect(keyOf(on.logs)).not.toBe(keyOf(off.logs))
    expect(on.logs).toContain('build: INT on: postcards from every port of every switch to udp 10.255.255.254:32766, mirror session 500; Node ID = switch id')
    expect(off.logs.some((l) => /INT/.test(l))).toBe(false)
    // Again: both hit the cache, nothing compiles.
    const again = makeSession(INT_ON, data)
    await again.session.build()
    expect(again.logs.some((l) => l.includes(`cache hit: artifact ${keyOf(on.logs)}`))).toBe(true)
    expect(readFileSync(argvLog, 'utf8').trim().split('\n')).toHaveLength(2)
    for (const s of [on, off, again]) s.session.run.close()
  })
})

describe('BMv2 + INT: the netns plan with the collector ports', () => {
  it('makes the collector namespace, a veth per switch into it with the addresses the reports use, and teardown removes it all', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { session, ctx, logs } = makeSession(INT_ON)
    await session.build()
    const h = ctx.testbed!.hosts[0]
    const plan = planOf(session, ctx)
    const c = plan.collector!
    await bringUpTopology(session.run, h, plan)
    expect(logs).toContain(`sw1: topology: 6 namespaces, 12 veth pairs, prefix ${plan.prefix} (INT collector namespace ${plan.prefix}col, 4 of the pairs)`)

    expect(netnsList().filter((n) => n.startsWith(session.prefix)).sort()).toEqual([plan.switchNs, ...plan.hosts.map((x) => x.ns), `${plan.prefix}col`].sort())
    // The switch namespace: every fabric port and one collector port per switch (port 4 on a leaf, 2 on a spine).
    const p = plan.prefix
    expect(plan.switches.map((s) => [s.name, s.intPort])).toEqual([
      ['leaf0', { port: 4, ifname: `${p}0004` }],
      ['leaf1', { port: 4, ifname: `${p}0104` }],
      ['spine0', { port: 2, ifname: `${p}0202` }],
      ['spine1', { port: 2, ifname: `${p}0302` }],
    ])
    expect(ifnames(plan.switchNs).filter((n) => n.startsWith(p))).toEqual(
      [...plan.switches.flatMap((s) => s.ports.map((x) => x.ifname)), ...plan.switches.map((s) => s.intPort!.ifname)].sort(),
    )
    // The collector namespace: lo with the collector address, one end per switch with the MAC
    // the switch writes as the destination, a route and a permanent neighbour for its source.
    expect(ifnames(c.ns)).toEqual(['lo', `${p}c00`, `${p}c01`, `${p}c02`, `${p}c03`])
    expect(ip(['-n', c.ns, '-o', 'addr', 'show', 'dev', 'lo'])).toContain('inet 10.255.255.254/32')
    expect(c.links.map((l) => [l.switch, l.mac, l.switchIp, l.switchMac])).toEqual([
      ['leaf0', '02:c0:00:00:00:01', '10.255.0.1', '02:53:00:00:00:04'],
      ['leaf1', '02:c0:00:01:00:01', '10.255.0.2', '02:53:00:01:00:04'],
      ['spine0', '02:c0:00:02:00:01', '10.255.0.3', '02:53:00:02:00:02'],
      ['spine1', '02:c0:00:03:00:01', '10.255.0.4', '02:53:00:03:00:02'],
    ])
    for (const l of c.links) {
      const link = ip(['-n', c.ns, '-o', 'link', 'show', 'dev', l.ifname])
      expect(link).toContain(`link/ether ${l.mac}`)
      expect(link).toMatch(/state UP|LOWER_UP/)
      expect(ip(['-n', c.ns, 'route', 'show', `${l.switchIp}/32`])).toMatch(new RegExp(`^${l.switchIp.replace(/\./g, '\\.')} dev ${l.ifname}`))
      expect(ip(['-n', c.ns, 'neigh', 'show', 'dev', l.ifname])).toContain(`${l.switchIp} lladdr ${l.switchMac} PERMANENT`)
    }
    const v6 = spawnSync('ip', ['netns', 'exec', c.ns, 'sysctl', '-n', 'net.ipv6.conf.all.disable_ipv6'], { encoding: 'utf8' }).stdout.trim()
    expect(v6).toBe('1')
    expect(leftovers(p, session.run.key).links).toEqual([])

    const problem = await teardownHost(session.run, h, session.prefix)
    session.run.close()
    expect(problem).toBeNull()
    expect(leftovers(p, session.run.key)).toEqual({ namespaces: [], links: [], processes: [] })
  })
})

describe('BMv2 + INT: reports through the collector namespace into the store', () => {
  it('the relay the driver starts receives the switches’ frames, the driver decodes them into int.* samples of the run, counts malformed ones, and teardown leaves nothing', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { session, ctx, logs, events, runDirBase } = makeSession(INT_ON)
    const marker = join(runDirBase, session.run.key)
    const exp = store.createExperiment({ name: 'bmv2-int', yaml: INT_ON, spec: {}, file: null, tags: [] })
    const [row] = store.createRuns(exp.id, 'lab', 'test:1', [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
    try {
      await session.build()
      // Deploy gets as far as simple_switch (not installed here): the topology is up and the relay listens.
      await expect(session.deploy()).rejects.toBeInstanceOf(ToolMissingError)
      const plan = planOf(session, ctx)
      const c = plan.collector!
      const relays = processesMatching(`${marker}/p4lab_agent.py relay`)
      expect(relays).toHaveLength(1)
      // `ip netns exec` execs the agent: the process is the relay itself, inside the collector namespace.
      expect(relays[0].cmdline).toMatch(new RegExp(`python3 ${marker}/p4lab_agent\\.py relay --port 32766 --bind 0\\.0\\.0\\.0 --rcvbuf ${8 << 20}$`))
      expect(netnsPids(c.ns)).toEqual([relays[0].pid])
      expect(logs).toContain(`int: relay listening on 0.0.0.0:32766 in ${c.ns} (socket buffer ${16 << 20} bytes)`)
      // The command files carry the INT entries (uploaded before the topology came up).
      const leaf0 = readFileSync(join(marker, 'cli', 'leaf0.cli'), 'utf8').split('\n')
      expect(leaf0).toContain('mirroring_add 500 4')
      expect(leaf0).toContain('table_set_default MyEgress.intReport MyEgress.intEncap 02:53:00:00:00:04 02:c0:00:00:00:01 10.255.0.1 10.255.255.254 32766 0')

      // What the switches would send: per switch seq 0..9 now, 10..19 once traffic has started
      // (spine1 skips seq 15: one report lost), latency 1000 × (switch + 1) + seq, queue seq % 5.
      const latency = (sw: number, seq: number) => 1000 * (sw + 1) + seq
      const frames = (from: number, to: number) => {
        const m = new Map<string, Buffer[]>()
        plan.switches.forEach((s, i) => {
          const l = c.links[i]
          const list: Buffer[] = []
          for (let seq = from; seq < to; seq++) {
            if (s.name === 'spine1' && seq === 15) continue
            const payload = postcard({ seq, nodeId: i, ingressPort: 0, egressPort: 1, latencyNs: latency(i, seq), queuePackets: seq % 5, ingressTsNs: BigInt(seq) * 1000n })
            list.push(reportFrame({ srcMac: l.switchMac, dstMac: l.mac, srcIp: l.switchIp, dstIp: c.ip, udpPort: c.udpPort }, payload))
          }
          m.set(s.intPort!.ifname, list)
        })
        return m
      }
      const first = frames(0, 10)
      // Two malformed reports (Ver 1; a group header alone) and one from a Node ID no switch has, on leaf0's link.
      const l0 = c.links[0]
      const addr = { srcMac: l0.switchMac, dstMac: l0.mac, srcIp: l0.switchIp, dstIp: c.ip, udpPort: c.udpPort }
      first.get(plan.switches[0].intPort!.ifname)!.push(
        reportFrame(addr, new Uint8Array([0x10, 0, 0, 1, 0, 0, 0, 0, 1, 2, 3, 4])),
        reportFrame(addr, new Uint8Array([0x20, 0, 0, 2, 0, 0, 0, 0])),
        reportFrame(addr, postcard({ seq: 0, nodeId: 99, ingressPort: 0, egressPort: 1, latencyNs: 7, queuePackets: 0, ingressTsNs: 0n })),
      )
      sendRaw(plan.switchNs, first)

      await session.startTraffic()
      const ingest = new Ingest({ store, runId: row.id })
      let sentSecond = false
      let points = 0
      const messages: TargetMessage['type'][] = []
      // The orchestrator's ingest loop.
      for await (const msg of session.telemetry()) {
        messages.push(msg.type)
        if (msg.type === 'series') ingest.defineSeries(msg.defs)
        else if (msg.type === 'telemetry') {
          ingest.pushFrame(msg.t, msg.values)
          // Once the traffic clock is past its start, the second half of the reports.
          if (!sentSecond && msg.t[0] > 0) {
            sendRaw(plan.switchNs, frames(10, 20))
            sentSecond = true
          }
        } else if (msg.type === 'points') {
          ingest.pushPoints(msg.series, msg.t, msg.values)
          points += msg.series.length
        }
        await ingest.ready()
      }
      await ingest.close()
      expect(sentSecond).toBe(true)
      // The poller's series first, then INT's.
      expect(messages[0]).toBe('series')
      expect(messages.filter((m) => m === 'series').length).toBeGreaterThan(1)

      // The store: vocabulary series named by switch, no e2eDelay for postcards, exact values.
      const series = store.listSeries(row.id)
      expect(series.map((s) => seriesProblem(s)).filter(Boolean)).toEqual([])
      const intSeries = series.filter((s) => s.kind.startsWith('int.')).map((s) => `${s.kind}${JSON.stringify(s.entity)}`).sort()
      expect(intSeries).toEqual([
        'int.hopLatency{"switch":"99"}',
        'int.hopLatency{"switch":"leaf0"}',
        'int.hopLatency{"switch":"leaf1"}',
        'int.hopLatency{"switch":"spine0"}',
        'int.hopLatency{"switch":"spine1"}',
        'int.queue{"switch":"99","queue":0}',
        'int.queue{"switch":"leaf0","queue":0}',
        'int.queue{"switch":"leaf1","queue":0}',
        'int.queue{"switch":"spine0","queue":0}',
        'int.queue{"switch":"spine1","queue":0}',
      ])
      const lat = store.readSamples(row.id, ['int.hopLatency'])
      plan.switches.forEach((s, i) => {
        const k = lat.defs.findIndex((d) => d.entity.switch === s.name)
        const got: Array<[number, number]> = []
        lat.values[k].forEach((v, j) => !Number.isNaN(v) && got.push([lat.t[j], v]))
        const seqs = Array.from({ length: 20 }, (_, seq) => seq).filter((seq) => !(s.name === 'spine1' && seq === 15))
        expect(got.map(([, v]) => v), s.name).toEqual(seqs.map((seq) => latency(i, seq)))
        // Times: the first half arrived before the clients started (clamped to 0, 1, 2, ... ns);
        // the second after, on the traffic clock (ns since the clients' start), within the run.
        const times = got.map(([tt]) => tt)
        expect(times.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, j) => j))
        for (const tt of times.slice(10)) expect(tt > 0 && tt < 120e9, `${s.name} t ${tt}`).toBe(true)
      })
      const queue = store.readSamples(row.id, ['int.queue'])
      const qLeaf1 = queue.values[queue.defs.findIndex((d) => d.entity.switch === 'leaf1')].filter((v) => !Number.isNaN(v))
      expect(qLeaf1).toEqual(Array.from({ length: 20 }, (_, seq) => seq % 5))
      expect(points).toBe(2 * (20 * 4 - 1 + 1))

      // Counts: facts, the 'int' event, the log.
      const out = await session.collect()
      expect(out.facts).toMatchObject({ int: true, intPort: 32766, intWatch: 'all', intDatagrams: 82, intReports: 80, intMalformed: 2, intLost: 1, intSamples: 160, intKernelDrops: 0, intUnknownNode: 1 })
      const ev = events.find((e) => e.kind === 'int')?.detail as Record<string, unknown>
      expect(ev).toMatchObject({
        datagrams: 82,
        decoded: 80,
        malformed: 2,
        reports: 80,
        perSwitch: { leaf0: 20, leaf1: 20, spine0: 20, spine1: 19 },
        unknownNode: 1,
        lost: 1,
        otherLines: 0,
        readErrors: 0,
        relay: { datagrams: 82, errors: 0, kernelDrops: 0, noPort: 0 },
      })
      expect(Object.keys(ev.malformedReasons as object)).toHaveLength(2)
      // Some reports, as `p4lab int listen --json` prints them, for the INT view's raw table: at
      // most REPORT_EVENTS_PER_S a second, each one decoded report of one hop.
      const kept = events.filter((e) => e.kind === 'int.report').map((e) => JSON.parse(e.detail as string) as { 'Node ID': number; hops: unknown[] })
      expect(kept.length).toBeGreaterThan(0)
      expect(kept.length).toBeLessThan(80)
      for (const r of kept) expect(r.hops).toHaveLength(1)
      expect(logs).toContain(
        'int: INT: 82 datagrams: 80 reports (leaf0 20, leaf1 20, spine0 20, spine1 19), 2 malformed, 1 lost by sequence number; the relay received 82, kernel drops 0; 1 from unknown Node IDs',
      )
      expect(logs.filter((l) => l.startsWith('int: malformed report'))).toHaveLength(2)
      expect(processesMatching(`${marker}/p4lab_agent.py relay`)).toEqual([])
    } finally {
      await session.teardown()
    }
    expect(leftovers(session.prefix, marker)).toEqual({ namespaces: [], links: [], processes: [] })
    expect(liveProcessesMatching(session.run.key)).toEqual([])
    expect(existsSync(marker)).toBe(false)
  }, 180_000) // real namespaces, SSH and an agent: 25–35 s on a loaded 2-core machine
})

describe('BMv2 + INT: cancel', () => {
  it('cancelled while the relay is read: the reading loop ends with the run, and teardown leaves nothing', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { session, ctx, abort, logs, runDirBase } = makeSession(INT_ON)
    const marker = join(runDirBase, session.run.key)
    await session.build()
    await expect(session.deploy()).rejects.toBeInstanceOf(ToolMissingError)
    const plan = planOf(session, ctx)
    await session.startTraffic()
    let messages = 0
    const traffic = (async () => {
      for await (const msg of session.telemetry()) {
        messages++
        // One postcard from leaf0 once the stream runs, so the cancel comes while reports are read.
        if (messages === 1) {
          const l = plan.collector!.links[0]
          const frame = reportFrame({ srcMac: l.switchMac, dstMac: l.mac, srcIp: l.switchIp, dstIp: plan.collector!.ip, udpPort: plan.collector!.udpPort }, postcard({ seq: 0, nodeId: 0, ingressPort: 0, egressPort: 1, latencyNs: 5, queuePackets: 0, ingressTsNs: 0n }))
          sendRaw(plan.switchNs, new Map([[plan.switches[0].intPort!.ifname, [frame]]]))
        }
        if (msg.type === 'points') abort.abort()
      }
    })()
    await expect(traffic).rejects.toMatchObject({ name: 'CancelledError' })
    await session.teardown()
    expect(leftovers(session.prefix, marker)).toEqual({ namespaces: [], links: [], processes: [] })
    // Nothing reads on after the run: no new log line from the INT side.
    const n = logs.length
    await new Promise((r) => setTimeout(r, 1000))
    expect(logs.slice(n)).toEqual([])
    expect(logs.some((l) => l.startsWith('int: reading the relay'))).toBe(false)
  }, 180_000) // real namespaces, SSH and an agent: 25–35 s on a loaded 2-core machine
})

// A BMv2 fabric mapped across two switch hosts, for real: two network namespaces on this
// machine, each with its own sshd and its own /run/netns, joined by a veth (the hosts' own
// network). The fabric's namespaces, veths and VXLAN tunnels are made over SSH on both, every
// link carries a test frame (the cross-host ones through VXLAN), and a swapped veth pair is
// caught and named. There is no simple_switch here: none of this needs one.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeControlPlane } from '../../src-main/core/controlplane'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { parseExperiment } from '../../src-main/core/spec'
import { workloadsDir } from '../../src-main/core/paths'
import { bringUpMultiHost, checkCabling } from '../../src-main/core/targets/bmv2/cabling'
import { planMultiHost } from '../../src-main/core/targets/bmv2/multihost'
import type { RunContext, RunTestbedHost } from '../../src-main/core/targets/driver'
import { runPrefix } from '../../src-main/core/targets/shared/netns'
import { RemoteRun, teardownHost } from '../../src-main/core/targets/shared/remote'
import { Bmv2Mapping } from '../../src-main/contract/testbed-mapping'
import { buildFabric } from '../../src-main/model/topology'
import type { FabricSpec } from '../../src-main/model/topology'
import { probeNetns } from '../helpers/netns'
import { startTwoHostLab, type TwoHostLab } from '../helpers/twohost'

const probe = probeNetns()
if (!probe.ok) throw new Error(`the two-host tests need network namespaces: ${probe.reason}`)

const YAML = `name: cabling
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`

let lab: TwoHostLab

beforeAll(async () => {
  lab = await startTwoHostLab('cab')
}, 60_000)

afterAll(async () => {
  const left = await lab?.stop()
  expect(left?.namespaces ?? []).toEqual([])
  expect(left?.links ?? []).toEqual([])
}, 60_000)

function session(runId: number) {
  const parsed = parseExperiment(YAML, { file: 'x.yaml', baseDir: lab.dir, workloadsDir: workloadsDir(), testbeds: ['sim'] })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  const spec = parsed.spec
  const logs: string[] = []
  const events: Array<{ kind: string; detail: unknown }> = []
  const tb = lab.testbed()
  const ctx: RunContext = {
    plan: { runId, spec, scheme: 'ecmp', load: 0.3, seed: 1 },
    signal: new AbortController().signal,
    log: (s, l) => logs.push(`${s}: ${l}`),
    event: (kind, detail) => events.push({ kind, detail }),
    testbed: tb,
  }
  const run = new RemoteRun(ctx, { knownHosts: lab.knownHosts, secrets: new MemorySecretStore(), remoteBase: join(lab.dir, 'runs'), graceMs: 500 }, 'cb')
  const state = computeControlPlane(buildFabric(spec.topology as FabricSpec), 'ecmp')
  const mapping = Bmv2Mapping.parse({
    kind: 'bmv2',
    hosts: [
      { host: 'hostA', switches: ['leaf0', 'spine0'], tunnelAddress: lab.a.underlay },
      { host: 'hostB', switches: ['leaf1', 'spine1'], tunnelAddress: lab.b.underlay },
    ],
  })
  const prefix = runPrefix(runId, 'cb')
  const plan = planMultiHost(state, prefix, mapping, tb.hosts)
  const hostOf = (n: string): RunTestbedHost => tb.hosts.find((h) => h.name === n)!
  const teardown = async () => {
    const r = await Promise.all(tb.hosts.map((h) => teardownHost(run, h, prefix)))
    run.close()
    return r
  }
  return { run, plan, hostOf, logs, events, teardown, prefix }
}

describe('a fabric mapped across two hosts', () => {
  it('is brought up on both hosts in parallel, and every link carries a frame, the cross-host ones through VXLAN', async () => {
    const s = session(7101)
    try {
      const progress: string[] = []
      await bringUpMultiHost(s.run, s.plan, s.hostOf, (h, step) => progress.push(`${h} ${step}`))
      expect(progress).toContain('hostA up')
      expect(progress).toContain('hostB up')
      // leaf0-spine1 and leaf1-spine0 cross between the hosts.
      const tunnels = s.plan.cables.filter((c) => c.tunnel)
      expect(tunnels.map((c) => c.name).sort()).toEqual(['spine0-leaf1', 'spine1-leaf0'])
      const a = s.plan.parts[0]
      const t = a.tunnels[0]
      const shown = await s.run.run(s.hostOf('hostA'), ['ip', '-d', '-n', a.switchNs, 'link', 'show', t.ifname], { logOutput: false })
      expect(shown.stdout.toString()).toMatch(new RegExp(`vxlan id ${t.vni} remote ${lab.b.underlay.replace(/\./g, '\\.')} local ${lab.a.underlay.replace(/\./g, '\\.')}`))

      const report = await checkCabling(s.run, s.plan, s.hostOf, { dir: (h) => s.run.runDir(h) })
      if (!report.ok) console.log(s.logs.filter((l) => /cabling/.test(l)).join('\n'))
      expect(report.problems).toEqual([])
      expect(report.looked).toBe(true)
      expect(report.ok).toBe(true)
      expect(report.cables).toHaveLength(6)
      // The frame crossed the tunnel: host B's end of it received packets from the hosts' network.
      const bEnd = s.plan.parts[1].tunnels.find((x) => x.vni === t.vni)!
      const stats = await s.run.run(s.hostOf('hostB'), ['ip', '-s', '-j', '-n', s.plan.parts[1].switchNs, 'link', 'show', bEnd.ifname], { logOutput: false })
      const rx = (JSON.parse(stats.stdout.toString()) as Array<{ stats64: { rx: { packets: number } } }>)[0].stats64.rx.packets
      expect(rx).toBeGreaterThanOrEqual(3)
    } finally {
      expect(await s.teardown()).toEqual([null, null])
    }
  }, 120_000)

  it('names a swapped veth pair: each end reaches the other cable', async () => {
    const s = session(7102)
    try {
      await bringUpMultiHost(s.run, s.plan, s.hostOf)
      // On host A, leaf0's uplinks: port 1 to spine0 (a veth on A), port 2 to spine1 (VXLAN to B). Swap their cables.
      const a = s.plan.parts[0]
      const leaf0 = a.switches.find((x) => x.name === 'leaf0')!
      const p1 = leaf0.ports.find((p) => p.port === 1)!.ifname
      const p2 = leaf0.ports.find((p) => p.port === 2)!.ifname
      const swap = `ns=$1; x=$2; y=$3
ip -n "$ns" link set "$x" down && ip -n "$ns" link set "$y" down &&
ip -n "$ns" link set "$x" name p4lab-swap && ip -n "$ns" link set "$y" name "$x" && ip -n "$ns" link set p4lab-swap name "$y" &&
ip -n "$ns" link set "$x" up && ip -n "$ns" link set "$y" up`
      await s.run.run(s.hostOf('hostA'), ['sh', '-c', swap, 'swap', a.switchNs, p1, p2])
      const report = await checkCabling(s.run, s.plan, s.hostOf, { dir: (h) => s.run.runDir(h) })
      expect(report.ok).toBe(false)
      expect(report.looked).toBe(true)
      expect(report.problems).toContain('leaf0 port 1 reaches spine1 port 0, expected spine0 port 0')
      expect(report.problems).toContain('leaf0 port 2 reaches spine0 port 0, expected spine1 port 0')
      expect(report.problems).toContain('spine0 port 0 reaches leaf0 port 2, expected leaf0 port 1')
      expect(report.cables.filter((c) => !c.ok).map((c) => c.cable.name).sort()).toEqual(['spine0-leaf0', 'spine1-leaf0'])
    } finally {
      expect(await s.teardown()).toEqual([null, null])
    }
  }, 120_000)
})

// The simulator on every fabric the topology module builds, with routes computed or given
// as data: every byte arrives, ECMP keeps flows in order, runs are deterministic.
import { describe, expect, test } from 'vitest'
import { computeRoutes, type SimConfig, type SimResult } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { buildFabric, nodeByName, type FabricSpec } from '../../src-main/model/topology'
import { config, FAT_TREE, THREE_TIER, topo, webSearch } from './helpers'

function expectAllDelivered(r: SimResult): void {
  for (let i = 0; i < r.flows.finishNs.length; i++) expect(r.flows.finishNs[i]).toBeGreaterThan(r.flows.startNs[i])
  expect(r.counters.payloadBytesDelivered).toBe(r.flows.sizeBytes.reduce((s, x) => s + x, 0))
  expect(Array.from(r.flows.deliveredBytes)).toEqual(Array.from(r.flows.sizeBytes))
}

describe.each([
  ['k=4 fat-tree', FAT_TREE],
  ['HULA 3-tier', THREE_TIER],
])('%s', (_name, topology) => {
  const cfg = (scheme: 'ecmp' | 'rps', seed = 1): SimConfig =>
    config({ kind: 'poisson', cdf: webSearch, load: 0.5, flows: 150 }, { topology, scheme, seed })

  test('delivers every byte, and ECMP never reorders', () => {
    const r = runSim(cfg('ecmp'))
    expectAllDelivered(r)
    expect(r.counters.reorderedPackets).toBe(0)
    expect(r.events).toEqual([])
  })

  test('RPS delivers every byte too, and does reorder', () => {
    const r = runSim(cfg('rps'))
    expectAllDelivered(r)
    expect(r.counters.reorderedPackets).toBeGreaterThan(0)
  })

  test('is deterministic: same seed, same bytes; another seed, another run', () => {
    const run = (seed: number) => {
      const telemetry: number[][] = []
      const result = runSim(cfg('rps', seed), { onTelemetry: (t, v) => telemetry.push([...t], [...v]) })
      return { result, telemetry }
    }
    const a = run(5)
    const b = run(5)
    expect(b.result).toEqual(a.result)
    expect(b.telemetry).toEqual(a.telemetry)
    expect(JSON.stringify(b.result.counters)).toBe(JSON.stringify(a.result.counters))
    expect(run(6).result.counters.events).not.toBe(a.result.counters.events)
  })

  test('routes given as data (the computed ones) give the same run as none', () => {
    const routes = computeRoutes(buildFabric(topology as FabricSpec))
    const a = runSim(cfg('ecmp'))
    const b = runSim({ ...cfg('ecmp'), routes: JSON.parse(JSON.stringify(routes)) })
    expect(b).toEqual(a)
  })
})

test('the forwarding tables decide the paths: a leaf told to use one spine never uses the other', () => {
  const t = topo({ leaves: 2, spines: 2, hostsPerLeaf: 4 })
  const f = buildFabric(t)
  const routes = computeRoutes(f)
  // Leaf ports: 4 hosts, then spine0 (4) and spine1 (5). Keep only spine0 on both leaves.
  for (const leaf of ['leaf0', 'leaf1']) {
    const r = routes.switches[nodeByName(f, leaf)]
    r.toTor = r.toTor.map((g) => g.filter((p) => p === 4))
  }
  let defs: Array<{ kind: string; entity: Record<string, string | number> }> = []
  const util = new Map<string, number>()
  const r = runSim(config({ kind: 'poisson', cdf: webSearch, load: 0.3, flows: 60 }, { topology: t, routes }), {
    onSeries: (d) => (defs = d),
    onTelemetry: (tt, values) => {
      defs.forEach((d, i) => {
        if (d.kind !== 'link.util') return
        const key = `${d.entity.switch}:${d.entity.port}`
        for (let j = 0; j < tt.length; j++) util.set(key, (util.get(key) ?? 0) + values[i * tt.length + j])
      })
    },
  })
  expectAllDelivered(r)
  expect(util.get('spine1:0')).toBe(0)
  expect(util.get('spine1:1')).toBe(0)
  expect(util.get('leaf0:5')).toBe(0)
  expect(util.get('spine0:0')).toBeGreaterThan(0)
})

test('routes that do not fit the fabric are refused with a message naming the switch', () => {
  const t = topo()
  const routes = computeRoutes(buildFabric(t))
  const leaf0 = nodeByName(buildFabric(t), 'leaf0')
  routes.switches[leaf0].toTor[1] = [9]
  expect(() => runSim(config({ kind: 'explicit', flows: [] }, { routes }))).toThrow(/leaf0.*port 9/)
})

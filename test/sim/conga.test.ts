// CONGA and CONGA′ mechanism tests (issue 3): real packets on small fabrics, no timing asserts.
import { expect, test } from 'vitest'
import { type SimConfig, type SimResult } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { simulate } from '../../src-main/sim'
import { CongaStage } from '../../src-main/schemes/conga/stage'
import { ASYMMETRIC, config, findSeries, mean, runWithSeries, slowShare, THREE_TIER, topo, webSearch } from './helpers'





test('the DRE tracks a constant rate R: X peaks at R·τ before each decay and is (1−α)·R·τ after it', () => {
  // One long-lived flow from leaf0 to leaf1: 10G host links, 40G fabric, so leaf0's uplink
  // carries a steady 10G (a quarter of its rate). T_dre = 50 us, α = 0.2, τ = 250 us.
  const cfg = config(
    { kind: 'long-lived', pairs: [[0, 4]] },
    { scheme: 'conga', topology: topo({ spines: 1 }), telemetryIntervalNs: 25_000, maxSimTimeNs: 5_000_000 },
  )
  const { series } = runWithSeries(cfg)
  const uplink = 4 // leaf0: ports 0-3 face hosts, port 4 faces spine0
  const dre = findSeries(series, 'conga.dre', { switch: 'leaf0', port: uplink })
  const util = findSeries(series, 'link.util', { switch: 'leaf0', port: uplink })
  // Steady state: from 1 ms (4 τ) on.
  const from = series.t.findIndex((t) => t >= 1_000_000)
  const post: number[] = [] // samples at k·T_dre: right after a decay
  const mid: number[] = [] // samples half way between decays
  for (let j = from; j < series.t.length; j++) (Math.round(series.t[j]) % 50_000 === 0 ? post : mid).push(dre[j])
  const rate = mean(util.slice(from)) // R / C, measured by the link itself
  expect(rate).toBeGreaterThan(0.2)
  const alpha = 0.2
  // X/(C·τ) right after a decay is (1 − α)·R/C; so the peak R·τ is within a few %.
  expect(Math.abs(mean(post) / (1 - alpha) / rate - 1)).toBeLessThan(0.03)
  // Half way, X has regained half the decayed amount: (1 − α/2)·R·τ.
  expect(Math.abs(mean(mid) / (1 - alpha / 2) / rate - 1)).toBeLessThan(0.03)
})

function asymmetric(scheme: 'ecmp' | 'conga', seed = 1): SimConfig {
  // 2 leaves × 2 spines, 4 hosts of 10G per leaf, 40G fabric, but spine1–leaf1 runs at 10G.
  // All traffic crosses leaves, so leaf0 → leaf1 through spine1 meets the slow link on the
  // spine's side: only feedback from leaf1 can tell leaf0 about it.
  return config(
    { kind: 'poisson', cdf: webSearch, load: 0.4, flows: 300 },
    {
      scheme,
      seed,
      topology: ASYMMETRIC,
      telemetryIntervalNs: 100_000,
    },
  )
}


test('on an asymmetric leaf-spine CONGA puts less traffic on the slow link than ECMP, from feedback', () => {
  const ecmp = runWithSeries(asymmetric('ecmp'))
  const conga = runWithSeries(asymmetric('conga'))
  // ECMP splits flows evenly whatever the rates (more than half of the bytes end up on the
  // slow link: its flows last longer and lose more); CONGA sends little there.
  expect(slowShare(ecmp.series)).toBeGreaterThan(0.4)
  expect(slowShare(conga.series)).toBeLessThan(slowShare(ecmp.series) / 2)
  // leaf0's own uplinks are both 40G, so the only way it learns spine1–leaf1 is slow is
  // leaf1's feedback: Congestion-To-Leaf[leaf1][uplink to spine1] is non-zero, and higher
  // than through spine0.
  const metric = (tag: number): number[] => findSeries(conga.series, 'conga.metric', { leaf: 'leaf0', dstLeaf: 'leaf1', uplink: tag })
  expect(Math.max(...metric(1))).toBeGreaterThan(0)
  expect(mean(metric(1))).toBeGreaterThan(mean(metric(0)))
  expect(conga.result.flows.finishNs.every((f) => f > 0)).toBe(true)
})

test('feedback reaches the source leaf: Congestion-To-Leaf is set for a congested path and ages toward 0', () => {
  // Two long-lived flows leaf0 → leaf1 over one spine whose downlink to leaf1 is 10G: the
  // spine's DRE saturates, CE = 7 reaches leaf1, and leaf1's ACKs carry it back to leaf0.
  let stage: CongaStage | null = null
  simulate(
    config(
      { kind: 'long-lived', pairs: [[0, 4], [1, 5]] },
      { scheme: 'conga', topology: topo({ spines: 1, rates: { 'spine0-leaf1': 10e9 } }), maxSimTimeNs: 2_000_000 },
    ),
    (env) => (stage = new CongaStage(env)),
  )
  const s = stage as unknown as CongaStage
  const at = 2_000_000_000 // ps, the end of the run
  expect(s.remoteMetric(0, 1, 0, at)).toBe(7)
  // No feedback after the run: 1 ms later the metric has halved once, 3 ms later it is gone.
  expect(s.remoteMetric(0, 1, 0, at + 1_000_000_000)).toBe(3)
  expect(s.remoteMetric(0, 1, 0, at + 3_000_000_000)).toBe(0)
})

function reorderRun(flowletGapNs: number): SimResult {
  // 10G everywhere and 100-packet queues: a path's queueing delay is at most 2 hops × 100 ×
  // 1.2 us = 240 us (the destination's host port is common to both paths), so two paths'
  // delays differ by less than that.
  return runSim(
    config(
      { kind: 'poisson', cdf: webSearch, load: 0.5, flows: 200 },
      {
        scheme: 'conga',
        schemeParams: { flowletGapNs },
        topology: topo({ fabricLinkBps: 10e9, queuePackets: 100 }),
      },
    ),
  )
}

test('flowlets: no reordering when the flowlet gap exceeds the spread of path delays', () => {
  const wide = reorderRun(500_000)
  expect(wide.counters.reorderedPackets).toBe(0)
  expect(wide.flows.finishNs.every((f) => f > 0)).toBe(true)
  // The control: a gap far below the spread moves flows between paths mid-burst.
  const narrow = reorderRun(2_000)
  expect(narrow.counters.reorderedPackets).toBeGreaterThan(0)
})

test('CONGA′ on HULA\'s 3-tier: CONGA inside a pod, flowlet ECMP across pods over all 8 paths', () => {
  const cfg = config({ kind: 'poisson', cdf: webSearch, load: 0.5, flows: 300 }, { scheme: 'conga-prime', topology: THREE_TIER })
  const { result, series } = runWithSeries(cfg)
  expect(result.flows.finishNs.every((f) => f > 0)).toBe(true)
  // Congestion-To-Leaf exists only within a pod (tor0 and tor1 are pod 0).
  const pairs = series.defs.filter((d) => d.kind === 'conga.metric').map((d) => `${d.entity.leaf}>${d.entity.dstLeaf}`)
  expect(new Set(pairs)).toEqual(new Set(['tor0>tor1', 'tor1>tor0', 'tor2>tor3', 'tor3>tor2']))
  // Across pods every agg uses both spines and every spine both aggs of the far pod.
  for (const sw of ['agg0', 'agg1', 'agg2', 'agg3']) {
    for (const port of [2, 3]) expect(mean(findSeries(series, 'link.util', { switch: sw, port }))).toBeGreaterThan(0.01)
  }
  for (const sw of ['spine0', 'spine1']) {
    for (const port of [0, 1, 2, 3]) expect(mean(findSeries(series, 'link.util', { switch: sw, port }))).toBeGreaterThan(0.01)
  }
  expect(() => runSim({ ...cfg, scheme: 'conga' })).toThrow(/leaf-spine.*conga-prime/)
})

test('CONGA and CONGA′ are deterministic: the same seed gives the same FCTs and telemetry', () => {
  for (const scheme of ['conga', 'conga-prime'] as const) {
    const cfg = config({ kind: 'poisson', cdf: webSearch, load: 0.6, flows: 150 }, {
      scheme,
      seed: 5,
      topology: scheme === 'conga' ? topo({ rates: { 'spine1-leaf1': 10e9 } }) : THREE_TIER,
    })
    const a = runWithSeries(cfg)
    const b = runWithSeries(cfg)
    expect(Buffer.from(b.result.flows.finishNs.buffer).equals(Buffer.from(a.result.flows.finishNs.buffer))).toBe(true)
    expect(b.result.counters).toEqual(a.result.counters)
    expect(b.series.values).toEqual(a.series.values)
  }
})

// DHLB's mechanism (the DHLB paper): the proportional split over 10^4 flowlets, load degrees
// that follow link loads on real physics, the adaptive probe period F = σ/θ with
// T_probe ≥ 2δ, flowlets without reordering, and determinism.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseExperiment } from '../../src-main/core/spec'
import { type SimConfig } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { SimContext } from '../../src-main/sim/engine/context'
import { Rng } from '../../src-main/sim/engine/rng'
import { DhlbStage, loadDegree } from '../../src-main/schemes/dhlb/stage'
import { createStageEnv } from '../../src-main/sim/routing/env'
import { hash5Tuple } from '../../src-main/sim/tcp/flows'
import { buildSimFabric } from '../../src-main/sim/topo/build'
import { buildFlows } from '../../src-main/sim/workload'
import { HostLayout } from '../../src-main/sim/workload/layout'
import { buildFabric, isUpPort, nodeByName } from '../../src-main/model/topology'
import { config, THREE_TIER, topo, webSearch } from './helpers'
import { FABRIC, linkUtils, pathMetric, pinnedConfig, runCollect, series } from './probe-fixtures'

const GAP_NS = 100_000

/** A DHLB stage on a 4-spine leaf-spine, outside a run: the choice function through the env. */
function standalone() {
  const t = topo({ leaves: 2, spines: 4 })
  const f = buildFabric(t)
  const ctx = new SimContext()
  const transport = { kind: 'newreno' as const, mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1e6 }
  const fab = buildSimFabric(ctx, f, { ...t }, transport)
  const flows = buildFlows({ kind: 'explicit', flows: [] }, new HostLayout(f, t.hostLinkBps), 1460, 1)
  const env = createStageEnv(ctx, fab, flows, new Rng(1, 2), { flowletGapNs: GAP_NS }, [])
  const stage = new DhlbStage(env)
  const leaf0 = nodeByName(f, 'leaf0')
  const s = f.switches.indexOf(leaf0)
  const ups = Int32Array.from(f.nodes[leaf0].ports.map((_, p) => p).filter((p) => isUpPort(f, leaf0, p)))
  const dstHost = f.torOfHost.findIndex((tor) => tor === nodeByName(f, 'leaf1'))
  /** n new flowlets (distinct 5-tuples, each after a gap) from leaf0 toward leaf1: picks per port. */
  let degrees: number[] = []
  /** Sets leaf0's degrees toward leaf1, per uplink, as probes of each round would. */
  const setDegrees = (d: number[]): void => {
    degrees = d
    ups.forEach((port, i) => stage.setDegree(s, 1, port, d[i]))
  }
  const draw = (n: number, cand: Int32Array = ups): Map<number, number> => {
    const count = new Map<number, number>()
    const p = ctx.pkts.alloc()
    ctx.pkts.dst[p] = dstHost
    for (let i = 0; i < n; i++) {
      ctx.now += (GAP_NS + 1) * 1000
      ctx.pkts.hash[p] = hash5Tuple(0, dstHost, 1024 + i, 5001, 6)
      setDegrees(degrees) // refreshed by this round's probes
      const port = stage.select(s, 0, p, cand, 0, cand.length)
      count.set(port, (count.get(port) ?? 0) + 1)
    }
    ctx.pkts.release(p)
    return count
  }
  return { stage, s, ups, draw, ctx, dstHost, setDegrees }
}

describe('the proportional split', () => {
  const N = 10_000

  test('over 10^4 flowlets follows the load degrees within 5 %', () => {
    const { ups, draw, setDegrees } = standalone()
    const degrees = [5, 3, 2, 0]
    setDegrees(degrees)
    const count = draw(N)
    const sum = degrees.reduce((a, b) => a + b, 0)
    ups.forEach((port, i) => {
      const share = (count.get(port) ?? 0) / N
      const want = degrees[i] / sum
      if (want === 0) expect(share).toBe(0)
      else expect(Math.abs(share / want - 1), `port ${port}: ${share} vs ${want}`).toBeLessThan(0.05)
    })
  })

  test('over the live candidates only, when one is gone', () => {
    const { ups, draw, setDegrees } = standalone()
    setDegrees([5, 1, 3, 3])
    const count = draw(N, ups.subarray(0, 2))
    expect(Math.abs((count.get(ups[0]) ?? 0) / N / (5 / 6) - 1)).toBeLessThan(0.05)
    expect(Math.abs((count.get(ups[1]) ?? 0) / N / (1 / 6) - 1)).toBeLessThan(0.05)
    expect(count.size).toBe(2)
  })

  test('falls back to uniform when every degree is 0', () => {
    const { ups, draw, setDegrees } = standalone()
    setDegrees([0, 0, 0, 0])
    const count = draw(N)
    for (const port of ups) expect(Math.abs((count.get(port) ?? 0) / N / 0.25 - 1)).toBeLessThan(0.05)
  })

  test('keeps a running flowlet on its port, and re-draws after a gap', () => {
    const { stage, s, ups, ctx, dstHost, setDegrees } = standalone()
    setDegrees([5, 5, 5, 5])
    const p = ctx.pkts.alloc()
    ctx.pkts.dst[p] = dstHost
    ctx.pkts.hash[p] = hash5Tuple(0, dstHost, 4242, 5001, 6)
    const ports = new Set<number>()
    for (let round = 0; round < 20; round++) {
      ctx.now += (GAP_NS + 1) * 1000
      const first = stage.select(s, 0, p, ups, 0, ups.length)
      ports.add(first)
      for (let i = 0; i < 50; i++) {
        ctx.now += GAP_NS * 500 // half a gap: the flowlet goes on
        expect(stage.select(s, 0, p, ups, 0, ups.length)).toBe(first)
      }
    }
    expect(ports.size).toBeGreaterThan(1)
  })
})

test('load degrees follow the bands of the DHLB paper', () => {
  expect([0, 0.1, 0.249, 0.25, 0.49, 0.5, 0.69, 0.7, 0.89, 0.9, 1].map(loadDegree)).toEqual([5, 5, 5, 3, 3, 2, 2, 1, 1, 0, 0])
})

describe('with background load pinned to known links', () => {
  // On 50G fabric links: path A (agg0-spine0-agg2) at 60 % (degree 2), path B
  // (agg1-spine1-agg3) at 40 % (degree 3), every other link nearly idle (5): no link sits
  // at a band edge, where the estimator's noise could fall either side.
  const c = runCollect(pinnedConfig('dhlb', { topology: { ...THREE_TIER, fabricLinkBps: 50e9 } }, 3, 2))
  const util = linkUtils(c, 2_500_000)
  const u = (node: number, port: number): number => util.get(`${FABRIC.nodes[node].name}:${port}`)!

  test('the pinned links are clear of the band edges', () => {
    for (const [port, x] of util) {
      if (FABRIC.nodes[nodeByName(FABRIC, port.split(':')[0])].role === 'tor' && x > 0.9) continue // host ports
      expect([0.25, 0.5, 0.7, 0.9].every((b) => Math.abs(x - b) > 0.05), `${port} at ${x}`).toBe(true)
    }
  })

  test('each entry holds the best degree of the paths behind its port', () => {
    let checked = 0
    const seen = new Set<number>()
    for (const dstNode of FABRIC.tors) {
      const dst = FABRIC.nodes[dstNode].name
      // Degree of a path: the smallest along it; through a port: the best path behind it.
      const { viaPort } = pathMetric(FABRIC, dst, (n, p) => loadDegree(u(n, p)), Math.min, (a, b) => a > b, 5)
      for (const d of c.defs) {
        if (d.kind !== 'dhlb.loadDegree' || d.entity.dstTor !== dst) continue
        const got = series(c, 'dhlb.loadDegree', d.entity).at(-1)
        const key = `${nodeByName(FABRIC, String(d.entity.switch))}:${d.entity.port}`
        expect(got, `${d.entity.switch} → ${dst} port ${d.entity.port}`).toBe(viaPort.get(key))
        seen.add(got!)
        checked++
      }
    }
    // Every switch with a choice, toward every ToR, through every candidate.
    expect(checked).toBe(c.defs.filter((d) => d.kind === 'dhlb.loadDegree').length)
    expect(checked).toBeGreaterThan(40)
    expect([...seen].sort()).toEqual([2, 3, 5])
  })
})

describe('the adaptive probe period', () => {
  const idle = (scheme: 'hula' | 'dhlb'): SimConfig =>
    config({ kind: 'long-lived', pairs: [[0, 1]] }, { topology: THREE_TIER, scheme, maxSimTimeNs: 20_000_000 })

  test('is F = σ/θ, clamped to [2δ, max], and 2δ or more throughout', () => {
    const c = runCollect(pinnedConfig('dhlb', { maxSimTimeNs: 6_000_000 }))
    const period = series(c, 'dhlb.probePeriod', {})
    const sigma = series(c, 'dhlb.meanLoad', {})
    expect(Math.min(...period)).toBeGreaterThanOrEqual(2 * GAP_NS)
    const THETA = 200_000
    c.t.forEach((t, j) => {
      if (t <= 1_000_000) return
      const want = Math.min(10 * THETA, Math.max(THETA, THETA / sigma[j]))
      expect(Math.abs(period[j] - want), `at ${t} ns`).toBeLessThan(1)
    })
    // The pinned flows load the fabric's links to about 1/8 on average: probes slow down.
    expect(sigma.at(-1)!).toBeGreaterThan(0.05)
    expect(period.at(-1)!).toBeGreaterThan(THETA)
  })

  test('costs fewer probe bytes than HULA when the fabric is idle (the DHLB paper)', () => {
    const d = runSim(idle('dhlb'))
    const h = runSim(idle('hula'))
    expect(d.counters.controlBytes).toBeGreaterThan(0)
    expect(d.counters.controlBytes).toBeLessThan(h.counters.controlBytes / 2)
  })

  test('is fixed at probePeriod with adaptiveProbes: 0', () => {
    const c = runCollect({ ...idle('dhlb'), maxSimTimeNs: 3_000_000, schemeParams: { adaptiveProbes: 0 } })
    expect(new Set(series(c, 'dhlb.probePeriod', {}))).toEqual(new Set([200_000]))
  })

  test('refuses T_probe < 2δ', () => {
    expect(() => runSim({ ...idle('dhlb'), schemeParams: { flowletGapNs: 150_000, probePeriodNs: 200_000 } })).toThrow(/2 × flowletGapNs/)
  })
})

describe('flowlets', () => {
  const poisson = (gapNs: number, seed = 1): SimConfig =>
    config(
      { kind: 'poisson', cdf: webSearch, load: 0.6, flows: 300 },
      { topology: THREE_TIER, scheme: 'dhlb', seed, schemeParams: { flowletGapNs: gapNs, probePeriodNs: Math.max(200_000, 2 * gapNs) } },
    )

  test('do not reorder when the gap exceeds the spread of path delays', () => {
    const r = runSim(poisson(500_000))
    expect(r.counters.reorderedPackets).toBe(0)
    expect(r.flows.finishNs.every((x) => x > 0)).toBe(true)
  })

  test('do reorder when the gap is far below it (the check above can fail)', () => {
    expect(runSim(poisson(1_000)).counters.reorderedPackets).toBeGreaterThan(0)
  })

  test('the same seed gives the same result, byte for byte', () => {
    const a = runCollect(poisson(GAP_NS, 5))
    const b = runCollect(poisson(GAP_NS, 5))
    expect(b.r).toEqual(a.r)
    expect(b.v).toEqual(a.v)
  })
})

describe('templates', () => {
  const dir = join(__dirname, '../../resources/experiments')
  test.each(['dhlb-fig4-probe-overhead', 'dhlb-fig5-fct'])("%s parses on DHLB's fat-tree with T_probe ≥ 2δ", (name) => {
    const text = readFileSync(join(dir, `${name}.yaml`), 'utf8')
    expect(text).toMatch(/^# DHLB, Fig\. \d: .*\n/)
    expect(text).toMatch(/The paper's claim/)
    const r = parseExperiment(text, { file: name, baseDir: dir, workloadsDir: join(__dirname, '../../resources/workloads') })
    if (!r.ok) throw new Error(JSON.stringify(r.errors))
    // 4 spines (cores), 8 leaves (aggregation), 8 ToRs (edge): the k=4 fat-tree.
    const f = buildFabric(r.spec.topology)
    expect(f.nodes.filter((n) => n.role === 'spine')).toHaveLength(4)
    expect(f.nodes.filter((n) => n.role === 'agg')).toHaveLength(8)
    expect(f.tors).toHaveLength(8)
    expect(r.spec.topology).toMatchObject({ hostLinkBps: 100e6, fabricLinkBps: 200e6 })
    expect(r.spec.schemes).toContain('dhlb')
    expect(r.spec.params.probePeriodNs).toBeGreaterThanOrEqual(2 * r.spec.params.flowletGapNs)
  })
})

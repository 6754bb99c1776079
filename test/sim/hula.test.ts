// HULA's mechanism on real physics (the HULA paper): probes converge to the min-max-utilization
// path, keep-alive moves best hops off a failed link, probe overhead is the HULA paper's (§4.5)
// formula, flowlets do not reorder, and a seed gives one result.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseExperiment } from '../../src-main/core/spec'
import { probeEgress, probeReplication } from '../../src-main/model/controlplane/replication'
import { type SimConfig } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { buildFabric, nodeByName } from '../../src-main/model/topology'
import type { Fabric } from '../../src-main/model/topology/types'
import { config, FAT_TREE, meanFct, THREE_TIER, topo, webSearch } from './helpers'
import { FABRIC, linkUtils, pathMetric, pinnedConfig, portTo, runCollect, series } from './probe-fixtures'

const T_P = 200_000
const KEEPALIVE = 1_000_000

describe('probe replication', () => {
  const fabrics: Array<[string, Fabric]> = [
    ['3-tier', FABRIC],
    ['3-tier without spine1-agg3', buildFabric({ ...THREE_TIER, remove: ['spine1-agg3'] })],
    ['fat-tree k=4', buildFabric(FAT_TREE)],
    ['leaf-spine', buildFabric(topo({ leaves: 4, spines: 3 }))],
  ]
  test.each(fabrics)('is the control plane rule on a %s', (_, f) => {
    for (const node of f.switches) {
      const plan = probeReplication(f, node, 'hula')
      for (const r of plan.perPort) {
        const cp = r.group === 0 ? [] : plan.groups.find((g) => g.id === r.group)!.ports
        expect(probeEgress(f, node, r.ingressPort).ports, `${f.nodes[node].name} port ${r.ingressPort}`).toEqual(cp)
      }
    }
  })
})

describe('with background load pinned to known links', () => {
  // tor1 → tor3 over agg0-spine0-agg2 at 75 %, tor1 → tor2 over agg1-spine1-agg3 at 25 %.
  const c = runCollect(pinnedConfig('hula'))
  const util = linkUtils(c, 3_000_000)
  const u = (node: number, port: number): number => util.get(`${FABRIC.nodes[node].name}:${port}`)!

  test('the pinned links carry the load they were given', () => {
    expect(u(nodeByName(FABRIC, 'agg0'), portTo(FABRIC, 'agg0', 'spine0'))).toBeGreaterThan(0.7)
    expect(u(nodeByName(FABRIC, 'spine1'), portTo(FABRIC, 'spine1', 'agg3'))).toBeGreaterThan(0.22)
    expect(u(nodeByName(FABRIC, 'spine1'), portTo(FABRIC, 'spine1', 'agg3'))).toBeLessThan(0.3)
  })

  test("every switch's best hop lies on a min-max-utilization path", () => {
    const EPS = 0.05
    let checked = 0
    let forced = 0
    for (const dstNode of FABRIC.tors) {
      const dst = FABRIC.nodes[dstNode].name
      const { best, viaPort } = pathMetric(FABRIC, dst, u, Math.max, (a, b) => a < b, 0)
      for (const s of FABRIC.switches) {
        if (s === dstNode) continue
        const name = FABRIC.nodes[s].name
        const hop = series(c, 'hula.bestHop', { switch: name, dstTor: dst }).at(-1)!
        const pathUtil = series(c, 'hula.pathUtil', { switch: name, dstTor: dst }).at(-1)!
        const optimum = best.get(s)!
        const via = viaPort.get(`${s}:${hop}`)
        expect(via, `${name} → ${dst}: best hop ${hop} is not a candidate`).toBeDefined()
        expect(via!, `${name} → ${dst} via port ${hop}`).toBeLessThanOrEqual(optimum + EPS)
        expect(Math.abs(pathUtil - optimum), `${name} → ${dst} pathUtil`).toBeLessThan(EPS)
        checked++
        // An entry where some candidate is clearly worse: a wrong choice would have failed.
        if ([...viaPort].some(([k, x]) => k.startsWith(`${s}:`) && x > optimum + 0.2)) forced++
      }
    }
    expect(checked).toBe(FABRIC.switches.length * FABRIC.tors.length - FABRIC.tors.length)
    expect(forced).toBeGreaterThanOrEqual(6)
  })

  test('the cases worked out by hand', () => {
    const hop = (sw: string, dst: string): number => series(c, 'hula.bestHop', { switch: sw, dstTor: dst }).at(-1)!
    // agg0 → tor3: spine0 leads over the 75 % links, spine1 over idle ones to agg3.
    expect(hop('agg0', 'tor3')).toBe(portTo(FABRIC, 'agg0', 'spine1'))
    // agg1 → tor3: its own link to spine1 is at 25 %, spine0 then agg3 is idle.
    expect(hop('agg1', 'tor3')).toBe(portTo(FABRIC, 'agg1', 'spine0'))
    for (const sp of ['spine0', 'spine1']) expect(hop(sp, 'tor3')).toBe(portTo(FABRIC, sp, 'agg3'))
    expect(hop('spine1', 'tor2')).toBe(portTo(FABRIC, 'spine1', 'agg2'))
  })
})

describe('a failed link', () => {
  // Before the failure, both spines reach tor3 through agg3 (agg2's side carries 75 %).
  const FAIL = 2_000_000
  const c = runCollect(pinnedConfig('hula', { linkEvents: [{ link: 'agg3-tor3', atNs: FAIL, up: false }] }))
  const events = c.r.events.filter((e) => e.kind === 'hula.bestHop')

  test('best hops move off it within the keep-alive threshold', () => {
    for (const sp of ['spine0', 'spine1']) {
      const dead = portTo(FABRIC, sp, 'agg3')
      const alive = portTo(FABRIC, sp, 'agg2')
      const hops = series(c, 'hula.bestHop', { switch: sp, dstTor: 'tor3' })
      expect(hops[c.t.findIndex((t) => t >= FAIL) - 1]).toBe(dead)
      // The spine does not see the failure: agg3 just stops relaying tor3's probes, and the
      // entry ages out after keep-alive; the next probe (from agg2) takes over.
      const moved = events.find((e) => e.tNs > FAIL && e.detail.startsWith(`${sp} dst tor3: ${dead} -> ${alive}`))
      expect(moved, `${sp} moved`).toBeDefined()
      expect(moved!.detail).toContain('keepalive')
      expect(moved!.tNs).toBeLessThanOrEqual(FAIL + KEEPALIVE + 2 * T_P)
      c.t.forEach((t, j) => {
        if (t > FAIL + KEEPALIVE + 2 * T_P) expect(hops[j], `${sp} at ${t} ns`).toBe(alive)
      })
    }
  })

  test('the switches at its ends drop it at once', () => {
    const agg3 = events.find((e) => e.detail.startsWith(`agg3 dst tor3: ${portTo(FABRIC, 'agg3', 'tor3')} -> -1 (linkdown)`))
    expect(agg3?.tNs).toBe(FAIL / 1)
    const tor3 = series(c, 'hula.bestHop', { switch: 'tor3', dstTor: 'tor0' })
    c.t.forEach((t, j) => {
      if (t > FAIL + T_P) expect(tor3[j]).toBe(portTo(FABRIC, 'tor3', 'agg2'))
    })
  })
})

describe('probe overhead (the HULA paper, §4.5)', () => {
  /** Probe bytes per link per second: one probe per ToR per link per period. */
  const formula = (probeBytes: number, tors: number, periodNs: number): number => (probeBytes * tors) / (periodNs / 1e9)

  test("the seed's example: 1000 ToRs, 1 ms, 40G gives 1.28 %", () => {
    expect((formula(64, 1000, 1e6) * 8) / 40e9).toBeCloseTo(0.0128, 6)
  })

  const idle = (topology: SimConfig['topology'], periodNs: number): SimConfig =>
    // One flow inside a rack keeps the run going without touching the fabric.
    config({ kind: 'long-lived', pairs: [[0, 1]] }, { topology, scheme: 'hula', maxSimTimeNs: 20_000_000, schemeParams: { probePeriodNs: periodNs, utilTauNs: 2 * periodNs } })

  test.each([
    ['3-tier', THREE_TIER, T_P],
    ['3-tier, S2-A4 removed', { ...THREE_TIER, remove: ['spine1-agg3'] }, T_P],
    ['fat-tree k=4', FAT_TREE, 100_000],
    ['leaf-spine 6x3', topo({ leaves: 6, spines: 3 }), 500_000],
  ] as Array<[string, SimConfig['topology'], number]>)('matches on a %s', (_, topology, periodNs) => {
    const f = buildFabric(topology)
    const r = runSim(idle(topology, periodNs))
    const fabricLinks = f.links.filter((l) => f.nodes[l.b].role !== 'host').length
    const perLinkPerSec = r.counters.controlBytes / fabricLinks / (r.counters.simTimeNs / 1e9)
    const want = formula(64, f.tors.length, periodNs)
    expect(Math.abs(perLinkPerSec / want - 1)).toBeLessThan(0.02)
    expect(r.counters.drops).toBe(0)
  })
})

describe('flowlets', () => {
  const poisson = (gapNs: number, seed = 1): SimConfig =>
    config(
      { kind: 'poisson', cdf: webSearch, load: 0.6, flows: 300 },
      { topology: THREE_TIER, scheme: 'hula', seed, schemeParams: { flowletGapNs: gapNs } },
    )

  test('do not reorder when the gap exceeds the spread of path delays', () => {
    // Path delays differ by queueing only: at most 3 fabric queues of 100 packets at 40G, 90 us.
    const r = runSim(poisson(500_000))
    expect(r.counters.reorderedPackets).toBe(0)
    expect(r.flows.finishNs.every((x) => x > 0)).toBe(true)
  })

  test('do reorder when the gap is far below it (the check above can fail)', () => {
    expect(runSim(poisson(1_000)).counters.reorderedPackets).toBeGreaterThan(0)
  })

  test('the same seed gives the same result, byte for byte', () => {
    const a = runCollect(poisson(100_000, 5))
    const b = runCollect(poisson(100_000, 5))
    expect(b.r).toEqual(a.r)
    expect(b.v).toEqual(a.v)
    expect(meanFct(a.r)).toBeGreaterThan(0)
  })
})

test('the stage rejects a time constant below 2 probe periods', () => {
  expect(() =>
    runSim(config({ kind: 'long-lived', pairs: [[0, 1]] }, { scheme: 'hula', maxSimTimeNs: 1e6, schemeParams: { probePeriodNs: 200_000, utilTauNs: 300_000 } })),
  ).toThrow(/utilTauNs .* at least 2 × probePeriodNs/)
})

describe('templates', () => {
  const dir = join(__dirname, '../../resources/experiments')
  const parse = (name: string) => {
    const r = parseExperiment(readFileSync(join(dir, name), 'utf8'), { file: name, baseDir: dir, workloadsDir: join(__dirname, '../../resources/workloads') })
    if (!r.ok) throw new Error(r.errors.map((e) => `${e.file}:${e.line}: ${e.path}: ${e.message}`).join('\n'))
    return r.spec
  }
  test.each(['hula-fig5a-websearch', 'hula-fig5b-datamining', 'hula-fig6-asymmetric', 'hula-fig7-datamining-asymmetric', 'hula-fig8-queues', 'hula-fig9-failure'])('%s parses on Fig. 4 fabric with HULA', (name) => {
    const text = readFileSync(join(dir, `${name}.yaml`), 'utf8')
    expect(text).toMatch(/^# HULA \(ACM SOSR 2016\), Fig\. \d\w?: .*\n/)
    expect(text).toMatch(/The paper's claim/)
    const spec = parse(`${name}.yaml`)
    expect(spec.topology).toMatchObject({ kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLinkBps: 10e9, fabricLinkBps: 40e9 })
    expect(spec.schemes).toEqual(['ecmp', 'conga-prime', 'hula'])
    expect(spec.params).toMatchObject({ flowletGapNs: 100_000, probePeriodNs: 200_000 })
  })
  test('the asymmetric ones remove S2-A4, Fig. 9 fails the bottleneck mid-run', () => {
    expect(parse('hula-fig6-asymmetric.yaml').topology.remove).toEqual(['spine1-agg3'])
    expect(parse('hula-fig7-datamining-asymmetric.yaml').topology.remove).toEqual(['spine1-agg3'])
    expect(parse('hula-fig7-datamining-asymmetric.yaml').workload).toMatchObject({ kind: 'data-mining', flows: 20000, destinations: 'other-pods', connections: { perServer: 3 } })
    expect(parse('hula-fig8-queues.yaml').topology.remove).toEqual(['spine1-agg3'])
    // Fig. 9: on the Fig. 6 fabric, its bottleneck S2-A3 fails and comes back, with data-plane failover.
    expect(parse('hula-fig9-failure.yaml').topology.remove).toEqual(['spine1-agg3'])
    expect(parse('hula-fig9-failure.yaml').failures).toEqual([{ link: 'spine1-agg2', atNs: 20_000_000, recoverNs: 45_000_000 }])
    expect(parse('hula-fig9-failure.yaml').failover).toBe('local')
    expect(parse('hula-fig5a-websearch.yaml').workload).toMatchObject({ loads: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] })
  })
})

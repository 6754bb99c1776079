// The workload generators' shapes: incast fan-in and sizes over a Poisson background,
// permutations, long-lived flows; all deterministic under the seed.
import { describe, expect, test } from 'vitest'
import { type IncastWorkload, type SimResult } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { Rng } from '../../src-main/sim/engine/rng'
import { DestinationPicker, HostLayout } from '../../src-main/sim/workload/layout'
import { derangement } from '../../src-main/sim/workload/longlived'
import { buildFabric } from '../../src-main/model/topology'
import { config, FAT_TREE, THREE_TIER, topo, webSearch } from './helpers'

const bg = { cdf: webSearch, load: 0.3, flows: 60 }
const flowsOf = (r: SimResult) =>
  Array.from(r.flows.src, (src, i) => ({
    src, dst: r.flows.dst[i], size: r.flows.sizeBytes[i], start: r.flows.startNs[i], group: r.flows.group[i],
  }))
/** Generates the workload only: a run stopped at once still reports every flow. */
const generate = (workload: Parameters<typeof config>[0], topology = THREE_TIER) =>
  flowsOf(runSim(config(workload, { topology, maxSimTimeNs: 1, telemetryIntervalNs: 0 })))

describe('incast over a Poisson background', () => {
  const w = (fanIn: IncastWorkload['incast']['fanIn'], events = 40): IncastWorkload => ({
    kind: 'incast',
    background: bg,
    incast: { events, ratePerSec: 2000, flowBytes: 64_000, fanIn },
  })

  test('each event is N distinct senders on other racks to one receiver, at one instant, sized flowBytes', () => {
    const flows = generate(w(10))
    const groups = new Map<number, typeof flows>()
    for (const f of flows) if (f.group >= 0) groups.set(f.group, [...(groups.get(f.group) ?? []), f])
    expect([...groups.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i))
    for (const g of groups.values()) {
      expect(g).toHaveLength(10)
      expect(new Set(g.map((f) => f.dst)).size).toBe(1)
      expect(new Set(g.map((f) => f.start)).size).toBe(1)
      expect(new Set(g.map((f) => f.src)).size).toBe(10)
      // 3-tier: 8 hosts per ToR, so senders on other racks are hosts outside dst's block of 8.
      for (const f of g) {
        expect(f.size).toBe(64_000)
        expect(Math.floor(f.src / 8)).not.toBe(Math.floor(f.dst / 8))
      }
    }
    // Flow ids follow start times.
    for (let i = 1; i < flows.length; i++) expect(flows[i].start).toBeGreaterThanOrEqual(flows[i - 1].start)
  })

  test('the background is exactly the Poisson workload of the same settings and seed', () => {
    const background = generate(w(5)).filter((f) => f.group < 0)
    const poisson = generate({ kind: 'poisson', ...bg })
    expect(background).toEqual(poisson)
  })

  test("fan-in draws follow the weights (1: 10, 5: 60, 10: 30)", () => {
    const flows = generate(
      w(
        [
          [1, 10],
          [5, 60],
          [10, 30],
        ],
        2000,
      ),
    )
    const size = new Map<number, number>()
    for (const f of flows) if (f.group >= 0) size.set(f.group, (size.get(f.group) ?? 0) + 1)
    const count = (n: number) => [...size.values()].filter((s) => s === n).length / 2000
    expect([...size.values()].every((s) => s === 1 || s === 5 || s === 10)).toBe(true)
    expect(Math.abs(count(1) - 0.1)).toBeLessThan(0.025)
    expect(Math.abs(count(5) - 0.6)).toBeLessThan(0.04)
    expect(Math.abs(count(10) - 0.3)).toBeLessThan(0.04)
  })

  test('runs to completion and is deterministic', () => {
    const cfg = config(w(5, 10), { topology: THREE_TIER })
    const a = runSim(cfg)
    expect(runSim(cfg)).toEqual(a)
    for (let i = 0; i < a.flows.finishNs.length; i++) expect(a.flows.finishNs[i]).toBeGreaterThan(a.flows.startNs[i])
  })

  test('a fan-in larger than the other hosts is refused', () => {
    expect(() => generate(w(32))).toThrow(/fanIn: 32 must be an integer in 1..31/)
  })
})

describe('Poisson destinations', () => {
  const many = { cdf: webSearch, load: 0.5, flows: 2000 }
  // 3-tier: 2 pods of 2 ToRs of 8 hosts, so pod = floor(host / 16), rack = floor(host / 8).
  test('other-racks (the default) keeps every flow off its own rack, and reaches the own pod too', () => {
    const flows = generate({ kind: 'poisson', ...many })
    expect(generate({ kind: 'poisson', ...many, destinations: 'other-racks' })).toEqual(flows)
    for (const f of flows) expect(Math.floor(f.dst / 8)).not.toBe(Math.floor(f.src / 8))
    expect(flows.some((f) => Math.floor(f.dst / 16) === Math.floor(f.src / 16))).toBe(true)
  })

  test('other-pods sends every flow across pods, to every host of the other pod, with the same arrivals and sizes', () => {
    const racks = generate({ kind: 'poisson', ...many })
    const pods = generate({ kind: 'poisson', ...many, destinations: 'other-pods' })
    for (const f of pods) expect(Math.floor(f.dst / 16)).not.toBe(Math.floor(f.src / 16))
    expect(new Set(pods.filter((f) => f.src < 16).map((f) => f.dst))).toEqual(new Set(Array.from({ length: 16 }, (_, i) => 16 + i)))
    // Only the destination draw differs: sources, sizes and instants are the same flows.
    expect(pods.map(({ src, size, start }) => ({ src, size, start }))).toEqual(racks.map(({ src, size, start }) => ({ src, size, start })))
  })

  test("other-racks picks exactly the hosts HostLayout.otherHost counts, in its order (so flows drawn before the option stay the same)", () => {
    for (const t of [THREE_TIER, FAT_TREE, topo()]) {
      const layout = new HostLayout(buildFabric(t), 10e9)
      const picker = new DestinationPicker(layout)
      for (let src = 0; src < layout.hosts; src++) {
        expect(picker.count(src)).toBe(layout.othersCount(src))
        for (let r = 0; r < picker.count(src); r++) expect(picker.pick(src, r)).toBe(layout.otherHost(src, r))
      }
    }
  })

  test('other-pods on a leaf-spine is refused, naming the problem', () => {
    expect(() => generate({ kind: 'poisson', ...bg, destinations: 'other-pods' }, topo())).toThrow(/other-pods needs a fabric with at least 2 pods .* a leaf-spine has none/)
  })
})

describe('permutation', () => {
  test('every host sends exactly one flow and receives exactly one, never to itself', () => {
    for (const seed of [1, 2, 3]) {
      const flows = flowsOf(runSim(config({ kind: 'permutation', sizeBytes: 10_000 }, { topology: FAT_TREE, seed, maxSimTimeNs: 1 })))
      expect(flows.map((f) => f.src)).toEqual(Array.from({ length: 16 }, (_, i) => i))
      expect([...flows.map((f) => f.dst)].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i))
      for (const f of flows) expect(f.dst).not.toBe(f.src)
    }
    const p = derangement(1000, new Rng(9))
    expect(new Set(p).size).toBe(1000)
    expect(p.every((x, i) => x !== i)).toBe(true)
  })

  test('the seed decides the permutation', () => {
    const dsts = (seed: number) => Array.from(runSim(config({ kind: 'permutation' }, { topology: FAT_TREE, seed, maxSimTimeNs: 1 })).flows.dst)
    expect(dsts(4)).toEqual(dsts(4))
    expect(dsts(4)).not.toEqual(dsts(5))
  })

  test('sized flows finish; unbounded ones run to the limit and report what they delivered', () => {
    const sized = runSim(config({ kind: 'permutation', sizeBytes: 200_000 }, { topology: FAT_TREE }))
    expect(sized.flows.finishNs.every((x) => x > 0)).toBe(true)
    expect(sized.counters.payloadBytesDelivered).toBe(16 * 200_000)
    const open = runSim(config({ kind: 'permutation' }, { topology: FAT_TREE, maxSimTimeNs: 2_000_000 }))
    expect(open.flows.finishNs.every((x) => x === -1)).toBe(true)
    expect(open.flows.sizeBytes.every((x) => x === -1)).toBe(true)
    expect(open.flows.deliveredBytes.every((x) => x > 0)).toBe(true)
    expect(open.counters.simTimeNs).toBe(2_000_000)
  })

  test('unbounded flows under RPS reorder without trouble (the receiver window is a ring)', () => {
    const r = runSim(config({ kind: 'permutation' }, { topology: { ...FAT_TREE, fabricLinkBps: 10e9 }, scheme: 'rps', maxSimTimeNs: 3_000_000 }))
    expect(r.counters.reorderedPackets).toBeGreaterThan(0)
    expect(r.flows.deliveredBytes.reduce((s, x) => s + x, 0)).toBe(r.counters.payloadBytesDelivered)
  })
})

describe('long-lived flows', () => {
  test('random pairs cross racks; a size makes them finish', () => {
    const flows = generate({ kind: 'long-lived', flows: 12 }, topo({ leaves: 3 }))
    expect(flows).toHaveLength(12)
    for (const f of flows) {
      expect(Math.floor(f.src / 4)).not.toBe(Math.floor(f.dst / 4))
      expect(f.size).toBe(-1)
    }
    const r = runSim(config({ kind: 'long-lived', pairs: [[0, 5], [1, 6]], sizeBytes: 1e6, startNs: 1000 }))
    expect(Array.from(r.flows.startNs)).toEqual([1000, 1000])
    expect(r.flows.finishNs.every((x) => x > 1000)).toBe(true)
  })

  test('bad pairs are refused with their index', () => {
    expect(() => generate({ kind: 'long-lived', pairs: [[0, 1], [3, 3]] })).toThrow(/workload.pairs\[1\]/)
  })
})

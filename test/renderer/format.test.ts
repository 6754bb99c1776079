import { describe, expect, it } from 'vitest'
import {
  DROP_COUNTERS,
  RETRANSMIT_COUNTERS,
  formatCount,
  formatElapsed,
  formatLoad,
  formatNs,
  formatPackets,
  niceTicks,
  formatPercent,
  formatNsShort,
  pickCounter,
  plural,
  sig3,
} from '../../src-renderer/src/lib/format'
import { RunSeries, entityLabel, queueChartModel, queueChartSub, utilChartModel } from '../../src-renderer/src/lib/series'
import { downsampleMean, downsampleMinMax } from '../../src-renderer/src/lib/downsample'
import { backoffDelayMs } from '../../src-renderer/src/lib/backoff'

describe('formatNs', () => {
  it('picks ns/µs/ms/s with 3 significant digits', () => {
    expect(formatNs(0)).toBe('0 ns')
    expect(formatNs(850)).toBe('850 ns')
    expect(formatNs(1234)).toBe('1.23 µs')
    expect(formatNs(12_345)).toBe('12.3 µs')
    expect(formatNs(123_456)).toBe('123 µs')
    expect(formatNs(1_530_000)).toBe('1.53 ms')
    expect(formatNs(92_800_000)).toBe('92.8 ms')
    expect(formatNs(2_500_000_000)).toBe('2.50 s')
  })
  it('carries into the next unit when rounding reaches 1000', () => {
    expect(formatNs(999_700)).toBe('1.00 ms')
    expect(formatNs(999.7)).toBe('1.00 µs')
  })
  it('shows a dash for missing values', () => {
    expect(formatNs(null)).toBe('—')
    expect(formatNs(undefined)).toBe('—')
    expect(formatNs(NaN)).toBe('—')
  })
  it('keeps seconds readable past 1000 s', () => {
    expect(formatNs(1_234_000_000_000)).toBe('1234 s')
  })
})

describe('small formatters', () => {
  it('sig3 never uses exponent notation', () => {
    expect(sig3(0.000123)).toBe('0.000123')
    expect(sig3(50)).toBe('50.0')
    expect(sig3(4321)).toBe('4321')
  })
  it('formats counts, loads, percentages and plurals', () => {
    expect(formatCount(1_234_567)).toBe('1\u2009234\u2009567')
    expect(formatCount(12)).toBe('12')
    expect(formatCount(null)).toBe('—')
    expect(formatLoad(0.3)).toBe('0.3')
    expect(formatLoad(0.30000000000000004)).toBe('0.3')
    expect(formatPercent(0.4567)).toBe('45.7%')
    expect(plural(1, 'run')).toBe('1 run')
    expect(plural(4, 'run')).toBe('4 runs')
    expect(plural(0, 'problem')).toBe('0 problems')
    expect(plural(1_200, 'flow')).toBe('1\u2009200 flows')
  })
  it('formats queue depths in packets: whole counts as they are, means with 3 digits', () => {
    expect(formatPackets(33)).toBe('33 pkt')
    expect(formatPackets(1)).toBe('1 pkt')
    expect(formatPackets(0)).toBe('0 pkt')
    expect(formatPackets(1.25)).toBe('1.25 pkt')
    expect(formatPackets(NaN)).toBe('—')
  })
  it('formats a duration short, without trailing zeros (bucket widths)', () => {
    expect([1e6, 1e7, 1e8, 1e5, 2.5e9, 500, 12_345].map((ns) => formatNsShort(ns))).toEqual(['1 ms', '10 ms', '100 ms', '100 µs', '2.5 s', '500 ns', '12.3 µs'])
    expect(formatNsShort(NaN)).toBe('—')
    expect(formatNsShort(null, '-')).toBe('-')
  })
  it('formats elapsed wall time', () => {
    expect(formatElapsed('2025-01-01T00:00:00Z', '2025-01-01T00:00:03.2Z')).toBe('3.2 s')
    expect(formatElapsed('2025-01-01T00:00:00Z', '2025-01-01T00:04:05Z')).toBe('4 m 05 s')
    expect(formatElapsed(null, null)).toBe('—')
  })
})

describe('niceTicks', () => {
  it('gives round ticks inside the range, never past either end', () => {
    expect(niceTicks(0, 249)).toEqual([0, 50, 100, 150, 200])
    expect(niceTicks(0, 250)).toEqual([0, 50, 100, 150, 200, 250])
    expect(niceTicks(0, 4)).toEqual([0, 1, 2, 3, 4])
    expect(niceTicks(0, 0.7)).toEqual([0, 0.2, 0.4, 0.6])
    expect(niceTicks(0, 12000)).toEqual([0, 2000, 4000, 6000, 8000, 10000, 12000])
    expect(niceTicks(37.5, 299)).toEqual([50, 100, 150, 200, 250])
    expect(niceTicks(3, 3)).toEqual([3])
    expect(niceTicks(0, NaN)).toEqual([0])
  })
})

describe('pickCounter', () => {
  const counters = { drops: 12, retransmits: 30, fastRetransmits: 25, timeouts: 5 }
  it('takes the named counter, not every counter that looks alike', () => {
    expect(pickCounter(counters, DROP_COUNTERS)).toBe(12)
    expect(pickCounter(counters, RETRANSMIT_COUNTERS)).toBe(30)
  })
  it('falls back to other names and tells "absent" from zero', () => {
    expect(pickCounter({ queueDrops: 0 }, DROP_COUNTERS)).toBe(0)
    expect(pickCounter({ events: 3 }, DROP_COUNTERS)).toBeNull()
    expect(pickCounter(null, DROP_COUNTERS)).toBeNull()
  })
})

describe('backoffDelayMs', () => {
  it('doubles from 0.5 s and caps at 10 s, plus up to 20% jitter', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelayMs(a))).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000])
    expect(backoffDelayMs(6, 0.99)).toBeLessThanOrEqual(12_000)
  })
})

const defs = [
  { kind: 'link.util', entity: { switch: 'leaf0', port: 0 }, unit: 'ratio' },
  { kind: 'link.util', entity: { switch: 'leaf0', port: 1 }, unit: 'ratio' },
  { kind: 'link.util', entity: { switch: 'spine0', port: 0 }, unit: 'ratio' },
  { kind: 'queue.depth', entity: { switch: 'leaf0', port: 0 }, unit: 'packets' },
  { kind: 'queue.depth', entity: { switch: 'leaf0', port: 1 }, unit: 'packets' },
  { kind: 'queue.depth', entity: { switch: 'spine0', port: 0 }, unit: 'packets' },
]

describe('RunSeries', () => {
  it('grows past its initial capacity and converts t to ms', () => {
    const s = new RunSeries(defs)
    const t = Array.from({ length: 1000 }, (_, j) => (j + 1) * 100_000)
    s.append({ t, values: defs.map((_, i) => t.map((_, j) => i + j / 1000)) })
    expect(s.length).toBe(1000)
    expect(s.xMs.view()[999]).toBeCloseTo(100)
    expect(s.cols[2].view()[500]).toBeCloseTo(2.5)
  })
  it('skips samples it already has, so a stored backfill can overlap the live stream', () => {
    const s = new RunSeries(defs)
    s.append({ t: [1, 2, 3], values: defs.map(() => [1, 2, 3]) })
    expect(s.append({ t: [2, 3, 4, 5], values: defs.map(() => [2, 3, 4, 5]) })).toBe(2)
    expect(Array.from(s.cols[0].view())).toEqual([1, 2, 3, 4, 5])
  })
  it('labels entities', () => {
    expect(entityLabel({ switch: 'leaf1', port: 3 })).toBe('leaf1:3')
    expect(entityLabel({ dstTor: 2 })).toBe('2')
  })
})

describe('chart models', () => {
  function series(): RunSeries {
    const s = new RunSeries(defs)
    // leaf0:1 is the busiest link; spine0 has the deepest queue.
    s.append({
      t: [1e6, 2e6, 3e6],
      values: [
        [0.1, 0.2, 0.3],
        [0.9, 0.8, 0.7],
        [0.5, 0.5, 0.5],
        [1, 2, 3],
        [4, 0, 6],
        [10, 10, 10],
      ],
    })
    return s
  }

  it('util: the mean of all links, then the busiest ports in name order', () => {
    const m = utilChartModel(series())
    expect(m.labels()).toEqual(['mean (all links)', 'leaf0:0', 'leaf0:1', 'spine0:0'])
    const [x, mean] = m.data()
    expect(Array.from(x)).toEqual([1, 2, 3])
    expect(mean[0]).toBeCloseTo(0.5)
  })

  it('queue: the deepest queue of each switch, updated incrementally', () => {
    const s = series()
    const m = queueChartModel(s)
    expect(m.labels()).toEqual(['leaf0', 'spine0'])
    expect(Array.from(m.data()[1])).toEqual([4, 2, 6])
    s.append({ t: [4e6], values: [[0], [0], [0], [7], [1], [0]] })
    m.update()
    expect(Array.from(m.data()[1])).toEqual([4, 2, 6, 7])
  })

  it('queue: the subtitle says when only the 8 busiest of the switches are shown', () => {
    expect(queueChartSub(series().defs)).toBe('deepest queue of each switch, packets')
    const ten = Array.from({ length: 10 }, (_, i) => ({ kind: 'queue.depth', entity: { switch: `sw${i}`, port: 0 }, unit: 'packets' }))
    expect(queueChartSub(ten)).toBe('deepest queue of the 8 busiest of 10 switches, packets')
  })

  it('keeps only the 8 busiest candidates and reports when the pick changes', () => {
    const many = Array.from({ length: 12 }, (_, p) => ({ kind: 'link.util', entity: { switch: 's', port: p }, unit: 'ratio' }))
    const s = new RunSeries(many)
    s.append({ t: [1], values: many.map((_, p) => [p / 12]) })
    const m = utilChartModel(s)
    expect(m.picked.map((l) => l.label)).toEqual(['s:4', 's:5', 's:6', 's:7', 's:8', 's:9', 's:10', 's:11'])
    expect(m.repick()).toBe(false)
    s.append({ t: [2], values: many.map((_, p) => [p === 0 ? 100 : 0]) })
    m.update()
    expect(m.repick()).toBe(true)
    expect(m.picked[0].label).toBe('s:0')
  })
})

describe('downsampling', () => {
  const x = Array.from({ length: 100 }, (_, j) => j)
  const y = x.map((j) => (j === 37 ? 100 : j === 71 ? -5 : 1))

  it('min/max keeps spikes and the order they happened in', () => {
    const ds = downsampleMinMax(x, [y], 10)
    expect(ds.x.length).toBe(20)
    const out = Array.from(ds.ys[0])
    expect(Math.max(...out)).toBe(100)
    expect(Math.min(...out)).toBe(-5)
    // bucket 3 covers 30..39: the minimum (1, at 30) comes before the spike
    expect(out.slice(6, 8)).toEqual([1, 100])
  })

  it('mean gives one point per bucket at its middle', () => {
    const flat = x.map((j) => (j < 50 ? 0 : 1))
    const ds = downsampleMean(x, [flat], 4)
    expect(Array.from(ds.x)).toEqual([12, 37, 62, 87])
    expect(Array.from(ds.ys[0])).toEqual([0, 0, 1, 1])
  })

  it('returns data that already fits unchanged', () => {
    expect(downsampleMean(x, [y], 200).x).toBe(x)
    expect(downsampleMinMax(x, [y], 50).ys[0]).toBe(y)
  })
})

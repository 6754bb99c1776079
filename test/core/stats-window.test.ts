// The FCT statistics' measurement window and their flow counts: warm-up flows (the first
// share in arrival order) stay out of the mean and percentiles, and flows that did not finish
// are counted, never silently dropped.
import { describe, expect, test } from 'vitest'
import { fctStats, warmupEndNs, warmupShare } from '../../src-main/core/stats'
import { countFlows } from '../../src-main/core/completion'

// Ten flows, one every 1 ms; the first two take 100 ms (an empty fabric would not, but they
// stand for warm-up outliers), the rest 1 ms; flow 9 never finishes.
const startNs = Float64Array.from({ length: 10 }, (_, i) => i * 1e6)
const finishNs = Float64Array.from(startNs, (s, i) => (i === 9 ? -1 : s + (i < 2 ? 100e6 : 1e6)))
const flows = { sizeBytes: new Float64Array(10).fill(1000), startNs, finishNs }

describe('fctStats', () => {
  test('without a window, every finished flow counts and the unfinished one is counted apart', () => {
    const s = fctStats(flows)
    expect(s.flows).toBe(10)
    expect(s.finished).toBe(9)
    expect(s.warmup).toBeUndefined()
    expect(s.meanNs).toBeCloseTo((2 * 100e6 + 7 * 1e6) / 9)
    const c = countFlows({ flows, counters: { simTimeNs: 20e6 } })
    expect(c.unfinished).toBe(1)
  })

  test('a 20 % warm-up leaves the first two arrivals out of the statistics, not out of the counts', () => {
    expect(warmupEndNs(startNs, 0.2)).toBe(2e6)
    const s = fctStats(flows, 0.2)
    expect(s.flows).toBe(10)
    expect(s.finished).toBe(9)
    expect(s.warmup).toBe(2)
    expect(s.meanNs).toBe(1e6)
    expect(s.p99Ns).toBe(1e6)
  })

  test('the share comes from the spec workload, 0 when it gives none', () => {
    expect(warmupShare({ workload: { kind: 'web-search', warmup: 0.1 } })).toBe(0.1)
    expect(warmupShare({ workload: { kind: 'web-search' } })).toBe(0)
  })
})

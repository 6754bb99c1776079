// The INT tab's rows: which table a series goes to, and the live totals built from
// 'run.points' summaries.
import { describe, expect, it } from 'vitest'
import { addPointStats, intRows, totalsItems, type PointTotals } from '../../src-renderer/src/lib/intRows'

const hop = { kind: 'int.hopLatency', entity: { switch: 'leaf0' }, unit: 'ns' }
const queue = { kind: 'int.queue', entity: { switch: 'leaf0', queue: 3 }, unit: 'packets' }
const flow = { kind: 'int.e2eDelay', entity: { src: 'h1', dst: 'h2' }, unit: 'ns' }
const util = { kind: 'link.util', entity: { switch: 'leaf0', port: 1 }, unit: 'ratio' }

describe('intRows', () => {
  it('sorts int.* series into hops, queues and flows, and leaves other kinds out', () => {
    const r = intRows([hop, queue, flow, util].map((def, i) => ({ def, now: i, mean: i + 0.5, max: i + 1 })))
    expect(r.any).toBe(true)
    expect(r.hops).toEqual([{ key: 'switch=leaf0', kind: 'int.hopLatency', unit: 'ns', now: 0, mean: 0.5, max: 1 }])
    expect(r.queues.map((q) => q.key)).toEqual(['switch=leaf0 queue=3'])
    expect(r.flows.map((f) => f.key)).toEqual(['src=h1 dst=h2'])
    expect(intRows([{ def: util, now: 1, mean: 1, max: 1 }]).any).toBe(false)
  })
})

describe('live INT totals', () => {
  it('add up summaries: counts and sums add, min and max hold, the latest instant wins', () => {
    const totals = new Map<number, PointTotals>()
    addPointStats(totals, [{ seriesId: 7, count: 2, sum: 30, min: 10, max: 20, lastTNs: 500, last: 20 }])
    addPointStats(totals, [
      { seriesId: 7, count: 1, sum: 5, min: 5, max: 5, lastTNs: 400, last: 5 },
      { seriesId: 9, count: 1, sum: 3, min: 3, max: 3, lastTNs: 450, last: 3 },
    ])
    expect(totals.get(9)).toEqual({ count: 1, sum: 3, min: 3, max: 3, lastTNs: 450, last: 3 })
    expect(totals.get(7)).toEqual({ count: 3, sum: 35, min: 5, max: 20, lastTNs: 500, last: 20 })
    addPointStats(totals, [{ seriesId: 7, count: 1, sum: 40, min: 40, max: 40, lastTNs: 600, last: 40 }])
    expect(totals.get(7)).toEqual({ count: 4, sum: 75, min: 5, max: 40, lastTNs: 600, last: 40 })
  })

  it('become rows for the series whose defs are known; unknown ids wait for theirs', () => {
    const totals = new Map<number, PointTotals>([
      [7, { count: 4, sum: 100, min: 10, max: 40, lastTNs: 600, last: 30 }],
      [8, { count: 1, sum: 2, min: 2, max: 2, lastTNs: 10, last: 2 }],
    ])
    const r = intRows(totalsItems(new Map([[7, hop]]), totals))
    expect(r.hops).toEqual([{ key: 'switch=leaf0', kind: 'int.hopLatency', unit: 'ns', now: 30, mean: 25, max: 40 }])
    expect(r.queues).toEqual([])
  })
})

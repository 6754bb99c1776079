import { describe, expect, it } from 'vitest'
import { downsampleMean, downsampleMinMax, downsampleRange, lowerBound, MinMaxBlocks, upperBound } from '../../src-renderer/src/lib/series'

const ramp = (n: number) => Float64Array.from({ length: n }, (_, i) => i)

describe('downsampleRange', () => {
  it('returns the range itself when it fits', () => {
    const x = ramp(10)
    const y = Float32Array.from(x, (v) => v * 2)
    const ds = downsampleRange(x, [y], 2, 8, 100, 'minmax')
    expect(Array.from(ds.x)).toEqual([2, 3, 4, 5, 6, 7])
    expect(Array.from(ds.ys[0])).toEqual([4, 6, 8, 10, 12, 14])
  })

  it('min/max keeps a one-sample spike and a dip at any reduction, in time order', () => {
    const n = 1_000_000
    const x = ramp(n)
    const y = new Float32Array(n).fill(1)
    y[123_457] = 50 // spike
    y[700_001] = -3 // dip
    const ds = downsampleRange(x, [y], 0, n, 500, 'minmax')
    expect(ds.x.length).toBe(1000)
    const out = Array.from(ds.ys[0])
    expect(Math.max(...out)).toBe(50)
    expect(Math.min(...out)).toBe(-3)
    expect(out.indexOf(50)).toBeLessThan(out.indexOf(-3))
    // Every bucket's x pair spans that bucket, in order.
    for (let i = 1; i < ds.x.length; i++) expect(ds.x[i]).toBeGreaterThanOrEqual(ds.x[i - 1])
  })

  it('min/max orders each bucket min-first or max-first as they occurred', () => {
    const x = ramp(8)
    const y = [5, 1, 9, 2, 3, 8, 0, 4]
    const ds = downsampleRange(x, [y], 0, 8, 2, 'minmax')
    // bucket [5,1,9,2]: min 1 at 1 before max 9 at 2; bucket [3,8,0,4]: max 8 at 5 before min 0 at 6
    expect(Array.from(ds.ys[0])).toEqual([1, 9, 8, 0])
    expect(Array.from(ds.x)).toEqual([0, 3, 4, 7])
  })

  it('mean averages each bucket, skips NaN, and gives NaN for an empty bucket', () => {
    const x = ramp(6)
    const y = [1, 3, NaN, NaN, 2, 4]
    const ds = downsampleRange(x, [y], 0, 6, 3, 'mean')
    expect(Array.from(ds.x)).toEqual([0.5, 2.5, 4.5])
    const out = Array.from(ds.ys[0])
    expect(out[0]).toBe(2)
    expect(out[1]).toBeNaN()
    expect(out[2]).toBe(3)
  })

  it('min/max of a bucket of NaN is a gap, not a zero', () => {
    const ds = downsampleRange(ramp(8), [[NaN, NaN, NaN, NaN, 1, 2, 3, 4]], 0, 8, 2, 'minmax')
    const out = Array.from(ds.ys[0])
    expect(out[0]).toBeNaN()
    expect(out[1]).toBeNaN()
    expect(out.slice(2)).toEqual([1, 4])
  })

  it('works on a sub-range only', () => {
    const x = ramp(1000)
    const y = Float32Array.from(x)
    const ds = downsampleRange(x, [y], 100, 300, 10, 'minmax')
    expect(ds.x[0]).toBe(100)
    expect(ds.x[ds.x.length - 1]).toBe(299)
    expect(Math.min(...Array.from(ds.ys[0]))).toBe(100)
    expect(Math.max(...Array.from(ds.ys[0]))).toBe(299)
  })

  it('the whole-series wrappers agree with the range form', () => {
    const x = ramp(1000)
    const y = Float32Array.from(x, (v) => Math.sin(v / 10))
    expect(Array.from(downsampleMinMax(x, [y], 50).ys[0])).toEqual(Array.from(downsampleRange(x, [y], 0, 1000, 50, 'minmax').ys[0]))
    expect(Array.from(downsampleMean(x, [y], 50).ys[0])).toEqual(Array.from(downsampleRange(x, [y], 0, 1000, 50, 'mean').ys[0]))
  })
})

describe('block summaries', () => {
  it('give the same points as scanning every sample, for any range and bucket count', () => {
    let seed = 7
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
    const n = 20_000
    const x = ramp(n)
    const y = Float32Array.from({ length: n }, () => (rand() < 0.01 ? NaN : rand() * 100))
    const blocks = new MinMaxBlocks().update(y, n - 37) // the tail is not summarised yet
    for (const [lo, hi, buckets] of [
      [0, n, 300],
      [0, n, 7],
      [1234, 17_001, 101],
      [63, 65, 1],
      [5000, 5300, 2],
    ]) {
      for (const mode of ['minmax', 'mean'] as const) {
        const plain = downsampleRange(x, [y], lo, hi, buckets, mode)
        const fast = downsampleRange(x, [y], lo, hi, buckets, mode, [blocks])
        expect(Array.from(fast.x)).toEqual(Array.from(plain.x))
        const a = Array.from(fast.ys[0])
        const b = Array.from(plain.ys[0])
        expect(a.length).toBe(b.length)
        // Sums of blocks round differently from one running sum: equal to float precision.
        a.forEach((v, i) => (mode === 'mean' && Number.isFinite(v) ? expect(v).toBeCloseTo(b[i], 6) : expect(v).toEqual(b[i])))
      }
    }
  })

  it('extend as samples arrive', () => {
    const y = new Float32Array(300).map((_, i) => i % 50)
    const b = new MinMaxBlocks().update(y, 100)
    expect(b.count).toBe(1)
    b.update(y, 300)
    expect(b.count).toBe(4)
    expect(b.max[3]).toBe(49)
    expect(b.finite[3]).toBe(64)
  })
})

describe('binary search on the time axis', () => {
  const x = [1, 2, 2, 2, 5, 8]
  it('lowerBound is the first index at or after v, upperBound the first after', () => {
    expect(lowerBound(x, 2)).toBe(1)
    expect(upperBound(x, 2)).toBe(4)
    expect(lowerBound(x, 0)).toBe(0)
    expect(upperBound(x, 9)).toBe(6)
    expect(lowerBound(x, 6)).toBe(5)
  })
})

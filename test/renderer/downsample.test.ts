import { describe, expect, it } from 'vitest'
import { MinMaxBlocks } from '../../src-renderer/src/lib/blockIndex'
import { bucketBounds, DownsampleBuffers, downsampleRange, lowerBound, upperBound } from '../../src-renderer/src/lib/downsample'

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
})

let seed = 7
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)

/** A random walk with NaN holes, runs of equal values (clamped at 0 and 1), spikes and a rare infinity. */
function walk(n: number, make: (n: number) => Float32Array | Float64Array = (k) => new Float32Array(k)) {
  const y = make(n)
  let v = 0.5
  for (let i = 0; i < n; i++) {
    v = Math.min(1, Math.max(0, v + (rand() - 0.5) * 0.2))
    const r = rand()
    y[i] = r < 0.005 ? NaN : r < 0.006 ? 5 : r < 0.0062 ? Infinity : v
  }
  return y
}

/**
 * What a bucket must become, straight from its samples: its extremes in the order they
 * occurred (NaN skipped), or the mean of its finite values.
 */
function oracle(y: ArrayLike<number>, a: number, e: number, mode: 'minmax' | 'mean'): number[] {
  const all = Array.from({ length: e - a }, (_, k) => y[a + k])
  if (mode === 'mean') {
    const finite = all.filter((v) => Number.isFinite(v))
    return [finite.length === 0 ? NaN : finite.reduce((p, q) => p + q, 0) / finite.length]
  }
  const values = all.filter((v) => !Number.isNaN(v))
  if (values.length === 0) return [NaN, NaN]
  const min = Math.min(...values)
  const max = Math.max(...values)
  let iMin = -1
  let iMax = -1
  for (let j = a; j < e; j++) {
    if (iMin < 0 && y[j] === min) iMin = j
    if (iMax < 0 && y[j] === max) iMax = j
  }
  return iMin <= iMax ? [min, max] : [max, min]
}

describe('block index', () => {
  it('gives the same points as scanning every sample, for any range and bucket count', () => {
    const n = 300_000
    const x = ramp(n)
    for (const make of [(k: number) => new Float32Array(k), (k: number) => new Float64Array(k)]) {
      const y = walk(n, make)
      const blocks = new MinMaxBlocks().update(y, n - 37) // the tail is not indexed yet
      for (const [lo, hi, buckets] of [
        [0, n, 1200],
        [0, n, 300],
        [0, n, 7],
        [1234, 170_001, 101],
        [12_345, 290_000, 1000],
        [63, 65, 1],
        [5000, 5300, 2],
        [n - 5000, n, 100],
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
    }
  })

  it('answers a query over any range with its min, max (first occurrences), sum and count', () => {
    const n = 50_000
    const y = walk(n)
    const b = new MinMaxBlocks().update(y, n)
    for (let q = 0; q < 300; q++) {
      const a = Math.floor(rand() * n)
      const e = Math.min(n, a + 1 + Math.floor(rand() * (q % 3 === 0 ? 20 : 20_000)))
      b.query(y, a, e, false)
      const [first, second] = oracle(y, a, e, 'minmax')
      if (Number.isNaN(first)) {
        expect(b.iMin).toBe(-1)
        continue
      }
      expect([b.min, b.max]).toEqual([Math.min(first, second), Math.max(first, second)])
      expect(y[b.iMin]).toBe(b.min)
      expect(y[b.iMax]).toBe(b.max)
      // The first occurrences in the range.
      expect(a + y.subarray(a, e).indexOf(b.min)).toBe(b.iMin)
      expect(a + y.subarray(a, e).indexOf(b.max)).toBe(b.iMax)
      b.query(y, a, e, true)
      const finite = Array.from(y.subarray(a, e)).filter((v) => Number.isFinite(v))
      expect(b.finite).toBe(finite.length)
      expect(b.sum).toBeCloseTo(finite.reduce((p, v) => p + v, 0), 6)
    }
  })

  it('extends as samples arrive, level by level', () => {
    const y = new Float32Array(3000).map((_, i) => i % 50)
    const b = new MinMaxBlocks().update(y, 100)
    expect(b.count).toBe(6) // blocks of 16
    expect(b.levels.length).toBe(1)
    b.update(y, 3000)
    expect(b.count).toBe(187)
    expect(b.levels.map((l) => l.count)).toEqual([187, 23, 2])
    // Block 3 holds samples 48..63: 48, 49, 0, ..., 13.
    expect(b.levels[0].max[3]).toBe(49)
    expect(b.levels[0].maxIdx[3]).toBe(49)
    expect(b.levels[0].min[3]).toBe(0)
    expect(b.levels[0].finite[3]).toBe(16)
    // Level 1, block 1: samples 128..255.
    expect(b.levels[1].minIdx[1]).toBe(150)
    expect(b.levels[1].sum[1]).toBe(Array.from(y.subarray(128, 256)).reduce((p, v) => p + v, 0))
    // A smaller n later (a paused chart) keeps what was indexed.
    b.update(y, 500)
    expect(b.count).toBe(187)
  })
})

describe('bucket bounds', () => {
  it('put every sample in exactly one bucket, in order', () => {
    for (const [lo, hi, buckets] of [
      [0, 1_000_000, 1200],
      [17, 999_983, 1199],
      [0, 100_000, 1200],
      [5, 2405, 1200],
      [0, 10_000_000, 1500],
    ]) {
      const bounds = new Int32Array(buckets + 1)
      bucketBounds(lo, hi, buckets, bounds)
      expect(bounds[0]).toBe(lo)
      expect(bounds[buckets]).toBe(hi)
      const exact = (hi - lo) / buckets
      const lens = Array.from({ length: buckets }, (_, b) => bounds[b + 1] - bounds[b])
      // Snapping moves an edge by at most 1/8 of a bucket.
      expect(Math.min(...lens)).toBeGreaterThanOrEqual(Math.max(1, Math.floor(exact * 0.75)))
      expect(Math.max(...lens)).toBeLessThanOrEqual(Math.ceil(exact * 1.25))
    }
  })

  it('snap inner edges to the largest index block that is at most a quarter of a bucket', () => {
    const bounds = new Int32Array(1201)
    bucketBounds(3, 1_000_003, 1200, bounds) // 833 samples a bucket: blocks of 128
    for (let b = 1; b < 1200; b++) expect(bounds[b] % 128).toBe(0)
    bucketBounds(3, 100_003, 1200, bounds) // 83: blocks of 16
    for (let b = 1; b < 1200; b++) expect(bounds[b] % 16).toBe(0)
    bucketBounds(3, 60_003, 1200, bounds) // 50: exact shares
    for (let b = 1; b < 1200; b++) expect(bounds[b]).toBe(3 + Math.floor((b * 60_000) / 1200))
  })

  it('every bucket keeps its true min and max, in order, and its mean', () => {
    const n = 400_000
    const x = ramp(n)
    const y = walk(n)
    const index = new MinMaxBlocks().update(y, n)
    for (const [lo, hi, buckets] of [
      [0, n, 1200],
      [999, 123_456, 700],
    ]) {
      const bounds = new Int32Array(buckets + 1)
      bucketBounds(lo, hi, buckets, bounds)
      for (const mode of ['minmax', 'mean'] as const) {
        const ds = downsampleRange(x, [y], lo, hi, buckets, mode, [index])
        const per = mode === 'minmax' ? 2 : 1
        for (let b = 0; b < buckets; b++) {
          const want = oracle(y, bounds[b], bounds[b + 1], mode)
          const got = Array.from(ds.ys[0]).slice(b * per, b * per + per)
          if (mode === 'minmax') {
            expect(got).toEqual(want)
            expect([ds.x[2 * b], ds.x[2 * b + 1]]).toEqual([x[bounds[b]], x[bounds[b + 1] - 1]])
          } else if (Number.isNaN(want[0])) expect(got[0]).toBeNaN()
          else expect(got[0]).toBeCloseTo(want[0], 9)
        }
      }
    }
  })
})

describe('reused buffers', () => {
  it('give the same points as fresh arrays, in the same memory frame after frame', () => {
    const n = 100_000
    const x = ramp(n)
    const ys = [walk(n), walk(n)]
    const index = ys.map((y) => new MinMaxBlocks().update(y, n))
    const buf = new DownsampleBuffers()
    const first = downsampleRange(x, ys, 0, n, 500, 'minmax', index, buf)
    const memory = [(first.x as Float64Array).buffer, ...first.ys.map((y) => (y as Float64Array).buffer)]
    for (const [lo, hi, buckets, mode] of [
      [100, 90_000, 400, 'minmax'],
      [0, n, 500, 'mean'],
      [5, 60_000, 300, 'minmax'],
    ] as const) {
      const fresh = downsampleRange(x, ys, lo, hi, buckets, mode, index)
      const reused = downsampleRange(x, ys, lo, hi, buckets, mode, index, buf)
      expect(reused.x.length).toBe(fresh.x.length)
      expect(Array.from(reused.x)).toEqual(Array.from(fresh.x))
      reused.ys.forEach((y, i) => expect(Array.from(y)).toEqual(Array.from(fresh.ys[i])))
      const now = [(reused.x as Float64Array).buffer, ...reused.ys.map((y) => (y as Float64Array).buffer)]
      now.forEach((m, i) => expect(m).toBe(memory[i]))
    }
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

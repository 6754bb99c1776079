// Downsampling of the telemetry lines to the chart's pixel width: binary search on the time
// axis, and the reduction of a visible range to one bucket per pixel, from each line's block
// index (blockIndex.ts) when it has one. A frame costs about the pixel width, not the run's
// length, and with reused buffers allocates no sample storage (only the small result: its
// arrays and typed-array views on the buffers). No DOM: tested in node.
import { MinMaxBlocks } from './blockIndex'

export type DownsampleMode = 'minmax' | 'mean'

/** First index i in [lo, hi) with x[i] >= v (hi when none): x is sorted ascending. */
export function lowerBound(x: ArrayLike<number>, v: number, lo = 0, hi = x.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (x[mid] < v) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index i in [lo, hi) with x[i] > v (hi when none). */
export function upperBound(x: ArrayLike<number>, v: number, lo = 0, hi = x.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (x[mid] <= v) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Output arrays reused from frame to frame (a frame then allocates only views on them and the
 * small result object, not the samples); they grow to the largest frame. What downsampleRange returns with them are views, valid until the next call.
 */
export class DownsampleBuffers {
  bounds = new Int32Array(0)
  x = new Float64Array(0)
  ys: Float64Array[] = []

  reserve(lines: number, buckets: number, size: number): void {
    if (this.bounds.length < buckets + 1) this.bounds = new Int32Array(buckets + 1)
    if (this.x.length < size) {
      this.x = new Float64Array(size)
      this.ys = []
    }
    while (this.ys.length < lines) this.ys.push(new Float64Array(this.x.length))
  }
}

/** Whether n samples are shown as they are, without downsampling to `buckets`. */
export function fits(n: number, buckets: number, mode: DownsampleMode): boolean {
  return buckets < 1 || n <= buckets * (mode === 'minmax' ? 2 : 1)
}

/** A bucket's edges snap to index blocks of at most this share of the bucket. */
const SNAP = 4

/**
 * Splits samples [lo, hi) into `buckets` runs of about equal length: bounds[b] is the first
 * sample of bucket b, bounds[buckets] = hi. When a bucket spans at least 4 blocks of the block
 * index (see MinMaxBlocks.blockSize), its inner edges snap to the nearest edge of the largest
 * such block, so the bucket is read from whole blocks only: each edge moves by at most half a
 * block, 1/8 of a bucket. Every sample still falls in exactly one bucket, and a bucket's points
 * are drawn at its own first and last instants, so nothing is misplaced: buckets just differ a
 * little in width (by at most a quarter, at the first sizes that snap; less above).
 */
export function bucketBounds(lo: number, hi: number, buckets: number, bounds: Int32Array): void {
  const n = hi - lo
  let grid = 1
  for (let k = 0; SNAP * MinMaxBlocks.blockSize(k) <= n / buckets; k++) grid = MinMaxBlocks.blockSize(k)
  bounds[0] = lo
  for (let b = 1; b < buckets; b++) {
    const at = lo + Math.floor((b * n) / buckets)
    bounds[b] = grid === 1 ? at : Math.min(hi, Math.max(lo, Math.round(at / grid) * grid))
  }
  bounds[buckets] = hi
}

/**
 * Samples [lo, hi) of each line reduced to `buckets` runs of samples (see bucketBounds), for
 * drawing at one bucket per pixel. 'minmax' keeps each bucket's extremes in the order they
 * occurred (2 points per bucket, at the bucket's first and last instants), so a one-sample
 * spike survives at any zoom; 'mean' keeps one averaged point per bucket, the honest picture
 * of utilization (min/max turns a busy port into a 0/100% square wave). Samples are evenly
 * spaced in time, so equal runs of samples are equal spans of time. A range that already
 * fits is returned as views, uncopied. Non-finite values are skipped (a bucket of them only
 * yields NaN, a gap).
 */
export function downsampleRange(
  x: ArrayLike<number>,
  ys: readonly ArrayLike<number>[],
  lo: number,
  hi: number,
  buckets: number,
  mode: DownsampleMode,
  /** Block indexes of each line (see MinMaxBlocks), or null to scan every sample. */
  blocks?: ReadonlyArray<MinMaxBlocks | null>,
  /** Reused output arrays; without them the output is freshly allocated. */
  buffers?: DownsampleBuffers,
): { x: ArrayLike<number>; ys: ArrayLike<number>[] } {
  if (fits(hi - lo, buckets, mode)) {
    const cut = (a: ArrayLike<number>) => (ArrayBuffer.isView(a) ? (a as Float64Array).subarray(lo, hi) : Array.prototype.slice.call(a, lo, hi))
    return { x: cut(x), ys: ys.map(cut) }
  }
  const size = buckets * (mode === 'minmax' ? 2 : 1)
  const buf = buffers ?? new DownsampleBuffers()
  buf.reserve(ys.length, buckets, size)
  const bounds = buf.bounds
  bucketBounds(lo, hi, buckets, bounds)
  const outX = buf.x
  for (let b = 0; b < buckets; b++) {
    const a = bounds[b]
    const z = bounds[b + 1] - 1
    if (mode === 'mean') {
      outX[b] = (x[a] + x[z]) / 2
    } else {
      outX[2 * b] = x[a]
      outX[2 * b + 1] = x[z]
    }
  }
  const outYs: Float64Array[] = []
  for (let s = 0; s < ys.length; s++) {
    const y = ys[s]
    const out = buf.ys[s]
    const bl = blocks?.[s] ?? SCAN
    if (mode === 'mean') meanBlocks(y, bl, bounds, buckets, out)
    else minMaxBlocks(y, bl, bounds, buckets, out)
    outYs.push(out.subarray(0, size))
  }
  return { x: outX.subarray(0, size), ys: outYs }
}

/** A line without an index: an index of no levels, whose queries read every sample. */
const SCAN = new MinMaxBlocks()

/** A bucket's two points: its min and max in the order they occurred; a gap when it had none. */
function putMinMax(min: number, max: number, iMin: number, iMax: number, out: Float64Array, b: number): void {
  if (iMin < 0) {
    out[2 * b] = out[2 * b + 1] = NaN
  } else if (iMin <= iMax) {
    out[2 * b] = min
    out[2 * b + 1] = max
  } else {
    out[2 * b] = max
    out[2 * b + 1] = min
  }
}

function minMaxBlocks(y: ArrayLike<number>, bl: MinMaxBlocks, bounds: Int32Array, buckets: number, out: Float64Array): void {
  for (let b = 0; b < buckets; b++) {
    bl.query(y, bounds[b], bounds[b + 1], false)
    putMinMax(bl.min, bl.max, bl.iMin, bl.iMax, out, b)
  }
}

function meanBlocks(y: ArrayLike<number>, bl: MinMaxBlocks, bounds: Int32Array, buckets: number, out: Float64Array): void {
  for (let b = 0; b < buckets; b++) {
    bl.query(y, bounds[b], bounds[b + 1], true)
    out[b] = bl.finite === 0 ? NaN : bl.sum / bl.finite
  }
}

/**
 * Min/max decimation of a whole series: at most 2 points per bucket, each line's extremes in
 * the order they occurred. Data that already fits is returned as is.
 */
export function downsampleMinMax(
  x: ArrayLike<number>,
  ys: readonly ArrayLike<number>[],
  buckets: number,
): { x: ArrayLike<number>; ys: ArrayLike<number>[] } {
  if (fits(x.length, buckets, 'minmax')) return { x, ys: [...ys] }
  return downsampleRange(x, ys, 0, x.length, buckets, 'minmax')
}

/** Averages each line over `buckets` equal runs of samples (see downsampleRange). */
export function downsampleMean(
  x: ArrayLike<number>,
  ys: readonly ArrayLike<number>[],
  buckets: number,
): { x: ArrayLike<number>; ys: ArrayLike<number>[] } {
  if (fits(x.length, buckets, 'mean')) return { x, ys: [...ys] }
  return downsampleRange(x, ys, 0, x.length, buckets, 'mean')
}

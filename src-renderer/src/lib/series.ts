// Telemetry buffers and the derived lines the charts draw. Plain classes over typed arrays,
// deliberately outside Vue reactivity: a run streams hundreds of thousands of samples.
// No DOM and no contract import, so they are tested in node.

/** The parts of a contract SeriesDef this module needs. */
export interface SeriesDefLike {
  kind: string
  entity: Record<string, string | number>
  unit: string
}

export interface BatchLike {
  t: readonly number[]
  values: readonly (readonly number[])[]
}

type FloatArray = Float32Array | Float64Array

/** An append-only column of numbers that doubles its typed-array capacity as it grows. */
export class GrowingColumn<A extends FloatArray = Float64Array> {
  private buf: A
  length = 0

  constructor(private readonly make: (n: number) => A, initial = 256) {
    this.buf = make(initial)
  }

  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = this.make(this.buf.length * 2)
      next.set(this.buf)
      this.buf = next
    }
    this.buf[this.length++] = v
  }

  /** A view on the filled part; invalidated by the next push that grows the buffer. */
  view(): A {
    return this.buf.subarray(0, this.length) as A
  }

  at(i: number): number {
    return this.buf[i]
  }
}

const f64 = (n: number) => new Float64Array(n)
const f32 = (n: number) => new Float32Array(n)

/** All samples of one run: a shared time axis (ms of sim time) and one column per series def. */
export class RunSeries {
  readonly xMs = new GrowingColumn(f64)
  // Float32 halves the memory; utilization ratios and queue depths do not need more.
  readonly cols: GrowingColumn<Float32Array>[]
  private lastTNs = -Infinity

  constructor(readonly defs: readonly SeriesDefLike[]) {
    this.cols = defs.map(() => new GrowingColumn(f32))
  }

  get length(): number {
    return this.xMs.length
  }

  /**
   * Appends a batch; samples at or before the last one are skipped, so a stored backfill and
   * the live stream may overlap. Returns the number of samples added.
   */
  append(batch: BatchLike): number {
    let added = 0
    const ncols = Math.min(this.cols.length, batch.values.length)
    for (let j = 0; j < batch.t.length; j++) {
      const tNs = batch.t[j]
      if (!(tNs > this.lastTNs)) continue
      this.lastTNs = tNs
      this.xMs.push(tNs / 1e6)
      for (let i = 0; i < this.cols.length; i++) {
        const v = i < ncols ? batch.values[i][j] : NaN
        this.cols[i].push(v ?? NaN)
      }
      added++
    }
    return added
  }
}

/** "leaf1:3" from {switch:'leaf1', port:3}; other entities join their values. */
export function entityLabel(entity: Record<string, string | number>): string {
  if ('switch' in entity && 'port' in entity) return `${entity.switch}:${entity.port}`
  return Object.values(entity).join(':')
}

/**
 * One drawn line: a raw column, or the mean or max of several at each instant. It catches up
 * incrementally, and keeps a running sum as its score for picking the busiest lines.
 */
/** Computes a derived line's value at sample j from its source columns (e.g. a rate as a share). */
export type LineOp = 'mean' | 'max' | ((cols: readonly GrowingColumn<Float32Array>[], j: number, series: RunSeries) => number)

export class Line {
  private readonly out: GrowingColumn<Float32Array> | null
  private done = 0
  score = 0

  constructor(
    readonly label: string,
    private readonly srcs: readonly number[],
    private readonly op: LineOp,
  ) {
    this.out = srcs.length === 1 && typeof op !== 'function' ? null : new GrowingColumn(f32)
  }

  catchUp(series: RunSeries): void {
    const n = series.length
    const cols = this.srcs.map((i) => series.cols[i])
    const op = this.op
    for (let j = this.done; j < n; j++) {
      let v: number
      if (typeof op === 'function') {
        v = op(cols, j, series)
      } else if (cols.length === 1) {
        v = cols[0].at(j)
      } else {
        let acc = this.op === 'max' ? -Infinity : 0
        let count = 0
        for (const c of cols) {
          const x = c.at(j)
          if (!Number.isFinite(x)) continue
          acc = this.op === 'max' ? Math.max(acc, x) : acc + x
          count++
        }
        v = count === 0 ? NaN : this.op === 'max' ? acc : acc / count
      }
      this.out?.push(v)
      if (Number.isFinite(v)) this.score += v
    }
    this.done = n
  }

  values(series: RunSeries): Float32Array {
    return this.out ? this.out.view() : series.cols[this.srcs[0]].view()
  }
}

/**
 * What one chart shows: pinned lines always, plus the `maxPicked` candidates with the highest
 * score. The pick is redone on demand, not per frame, so the legend does not flicker.
 */
export class ChartModel {
  picked: Line[] = []

  constructor(
    readonly series: RunSeries,
    readonly pinned: readonly Line[],
    readonly candidates: readonly Line[],
    readonly maxPicked: number,
  ) {
    this.update()
    this.repick()
  }

  update(): void {
    for (const l of this.pinned) l.catchUp(this.series)
    for (const l of this.candidates) l.catchUp(this.series)
  }

  /** Re-ranks the candidates; returns true when the set of lines changed. */
  repick(): boolean {
    const top = [...this.candidates]
      .sort((a, b) => b.score - a.score || a.label.localeCompare(b.label, 'en', { numeric: true }))
      .slice(0, this.maxPicked)
      // Shown in name order, so a line keeps its colour while its rank moves.
      .sort((a, b) => a.label.localeCompare(b.label, 'en', { numeric: true }))
    const changed = top.length !== this.picked.length || top.some((l, i) => l !== this.picked[i])
    this.picked = top
    return changed
  }

  get lines(): Line[] {
    return [...this.pinned, ...this.picked]
  }

  labels(): string[] {
    return this.lines.map((l) => l.label)
  }

  /** [x, y1, y2, ...] for uPlot, as views on the live buffers. */
  data(): FloatArray[] {
    return [this.series.xMs.view(), ...this.lines.map((l) => l.values(this.series))]
  }
}

export const UTIL_KIND = 'link.util'
export const QUEUE_KIND = 'queue.depth'
const MAX_LINES = 8

function indicesOf(defs: readonly SeriesDefLike[], kind: string): number[] {
  const out: number[] = []
  defs.forEach((d, i) => {
    if (d.kind === kind) out.push(i)
  })
  return out
}

/**
 * Link utilization: one line per port is unreadable on a fabric, so the chart shows the mean
 * over all links and the 8 busiest ports (by mean utilization so far).
 */
export function utilChartModel(series: RunSeries): ChartModel {
  const idx = indicesOf(series.defs, UTIL_KIND)
  const pinned = idx.length > 1 ? [new Line('mean (all links)', idx, 'mean')] : []
  const candidates = idx.map((i) => new Line(entityLabel(series.defs[i].entity), [i], 'max'))
  return new ChartModel(series, pinned, candidates, MAX_LINES)
}

/** Queue depth: the deepest queue of each switch; the 8 busiest switches if there are more. */
export function queueChartModel(series: RunSeries): ChartModel {
  const bySwitch = new Map<string, number[]>()
  for (const i of indicesOf(series.defs, QUEUE_KIND)) {
    const entity = series.defs[i].entity
    const sw = String(entity.switch ?? entityLabel(entity))
    let list = bySwitch.get(sw)
    if (!list) bySwitch.set(sw, (list = []))
    list.push(i)
  }
  const candidates = [...bySwitch].map(([sw, idx]) => new Line(sw, idx, 'max'))
  return new ChartModel(series, [], candidates, MAX_LINES)
}

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

const BLOCK = 64

/**
 * Min, max (with where they occurred), sum and count of finite values per block of 64
 * samples of an append-only line, extended as samples arrive. Downsampling a bucket of
 * thousands of samples then reads its whole blocks' summaries and scans only its two ragged
 * edges, so a frame costs about the pixel width, not the run's length.
 */
export class MinMaxBlocks {
  count = 0
  min = new Float32Array(256)
  max = new Float32Array(256)
  minIdx = new Int32Array(256)
  maxIdx = new Int32Array(256)
  sum = new Float64Array(256)
  finite = new Int32Array(256)

  /** Summarises the complete blocks of y[0, n) not yet summarised; y's prefix must not change. */
  update(y: ArrayLike<number>, n: number): this {
    const full = Math.floor(n / BLOCK)
    if (full > this.min.length) this.grow(full)
    for (let b = this.count; b < full; b++) {
      let mn = Infinity
      let mx = -Infinity
      let iMn = -1
      let iMx = -1
      let sum = 0
      let cnt = 0
      for (let j = b * BLOCK, e = j + BLOCK; j < e; j++) {
        const v = y[j]
        if (v < mn) {
          mn = v
          iMn = j
        }
        if (v > mx) {
          mx = v
          iMx = j
        }
        if (v === v && v !== Infinity && v !== -Infinity) {
          sum += v
          cnt++
        }
      }
      this.min[b] = mn
      this.max[b] = mx
      this.minIdx[b] = iMn
      this.maxIdx[b] = iMx
      this.sum[b] = sum
      this.finite[b] = cnt
    }
    if (full > this.count) this.count = full
    return this
  }

  private grow(need: number): void {
    let size = this.min.length
    while (size < need) size *= 2
    const f32 = (a: Float32Array) => {
      const b = new Float32Array(size)
      b.set(a)
      return b
    }
    const i32 = (a: Int32Array) => {
      const b = new Int32Array(size)
      b.set(a)
      return b
    }
    this.min = f32(this.min)
    this.max = f32(this.max)
    this.minIdx = i32(this.minIdx)
    this.maxIdx = i32(this.maxIdx)
    const sum = new Float64Array(size)
    sum.set(this.sum)
    this.sum = sum
    this.finite = i32(this.finite)
  }
}

/**
 * Samples [lo, hi) of each line reduced to `buckets` equal runs of samples, for drawing at
 * one bucket per pixel. 'minmax' keeps each bucket's extremes in the order they occurred
 * (2 points per bucket), so a one-sample spike survives at any zoom; 'mean' keeps one
 * averaged point per bucket, the honest picture of utilization (min/max turns a busy port
 * into a 0/100% square wave). Samples are evenly spaced in time, so equal runs of samples
 * are equal spans of time. A range that already fits is returned as views, uncopied.
 * Non-finite values are skipped (a bucket of them only yields NaN, a gap).
 */
export function downsampleRange(
  x: ArrayLike<number>,
  ys: readonly ArrayLike<number>[],
  lo: number,
  hi: number,
  buckets: number,
  mode: DownsampleMode,
  /** Block summaries of each line (see MinMaxBlocks), or null to scan every sample. */
  blocks?: ReadonlyArray<MinMaxBlocks | null>,
): { x: ArrayLike<number>; ys: ArrayLike<number>[] } {
  const n = hi - lo
  const perBucket = mode === 'minmax' ? 2 : 1
  if (buckets < 1 || n <= buckets * perBucket) {
    const cut = (a: ArrayLike<number>) => (ArrayBuffer.isView(a) ? (a as Float64Array).subarray(lo, hi) : Array.prototype.slice.call(a, lo, hi))
    return { x: cut(x), ys: ys.map(cut) }
  }
  const bounds = new Int32Array(buckets + 1)
  for (let b = 0; b <= buckets; b++) bounds[b] = lo + Math.floor((b * n) / buckets)
  const size = buckets * perBucket
  const outX = new Float64Array(size)
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
  const outYs = ys.map((y, s) => {
    const out = new Float64Array(size)
    const bl = blocks?.[s] ?? null
    for (let b = 0; b < buckets; b++) {
      const a = bounds[b]
      const e = bounds[b + 1]
      // Whole blocks inside the bucket come from the summaries; [a, a2) and [e2, e) are scanned.
      let b0 = 0
      let b1 = 0
      if (bl !== null) {
        b0 = Math.ceil(a / BLOCK)
        b1 = Math.min(Math.floor(e / BLOCK), bl.count)
        if (b1 <= b0) b0 = b1 = 0
      }
      const a2 = b1 > b0 ? b0 * BLOCK : e
      const e2 = b1 > b0 ? b1 * BLOCK : e
      if (mode === 'mean') {
        let sum = 0
        let count = 0
        for (let k = b0; k < b1; k++) {
          sum += bl!.sum[k]
          count += bl!.finite[k]
        }
        for (let j = e2; j < e; j++) {
          const v = y[j]
          if (v === v && v !== Infinity && v !== -Infinity) {
            sum += v
            count++
          }
        }
        for (let j = a; j < a2; j++) {
          const v = y[j]
          if (v === v && v !== Infinity && v !== -Infinity) {
            sum += v
            count++
          }
        }
        out[b] = count === 0 ? NaN : sum / count
      } else {
        let min = Infinity
        let max = -Infinity
        let iMin = -1
        let iMax = -1
        // In index order, so the first occurrence of a tie wins as in a plain scan.
        for (let j = a; j < a2; j++) {
          const v = y[j]
          if (v < min) {
            min = v
            iMin = j
          }
          if (v > max) {
            max = v
            iMax = j
          }
        }
        for (let k = b0; k < b1; k++) {
          if (bl!.min[k] < min) {
            min = bl!.min[k]
            iMin = bl!.minIdx[k]
          }
          if (bl!.max[k] > max) {
            max = bl!.max[k]
            iMax = bl!.maxIdx[k]
          }
        }
        for (let j = e2; j < e; j++) {
          const v = y[j]
          if (v < min) {
            min = v
            iMin = j
          }
          if (v > max) {
            max = v
            iMax = j
          }
        }
        if (iMin < 0) {
          out[2 * b] = out[2 * b + 1] = NaN
        } else if (iMin <= iMax) {
          out[2 * b] = y[iMin]
          out[2 * b + 1] = y[iMax]
        } else {
          out[2 * b] = y[iMax]
          out[2 * b + 1] = y[iMin]
        }
      }
    }
    return out
  })
  return { x: outX, ys: outYs }
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
  if (buckets < 1 || x.length <= buckets * 2) return { x, ys: [...ys] }
  return downsampleRange(x, ys, 0, x.length, buckets, 'minmax')
}

/** Averages each line over `buckets` equal runs of samples (see downsampleRange). */
export function downsampleMean(
  x: ArrayLike<number>,
  ys: readonly ArrayLike<number>[],
  buckets: number,
): { x: ArrayLike<number>; ys: ArrayLike<number>[] } {
  if (buckets < 1 || x.length <= buckets) return { x, ys: [...ys] }
  return downsampleRange(x, ys, 0, x.length, buckets, 'mean')
}

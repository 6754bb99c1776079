// Roll-up bookkeeping for the ingest path (ingest.ts): per series, buckets of 1 ms / 10 ms /
// 100 ms with count, sum, min, max, kept incrementally as samples arrive, and their writing to
// the rollups table.
//
// - Each series has one open bucket per width and the finished buckets not yet written. A
//   write carries the finished buckets and the open ones' state so far (the table's row is a
//   bucket's whole state, replaced when written again), of every series or of one in `turns`;
//   Ingest decides when (see there).
// - Rows are written in the table's key order (series, width, t), so each B-tree leaf is visited
//   once: series by index (store ids are ascending rowids), widths sorted.
// - A series whose samples arrive out of time order or repeat an instant is marked dirty and no
//   longer rolled up: Ingest rebuilds its roll-ups from the raw samples at close().
// - For frame data sampled at an interval of a level's width or more, that level would repeat
//   the raw samples, so it is not kept (readSamples then reads raw samples for it).
import type { Store } from '../store'

/** Roll-up state of one series at one width: the open bucket. */
interface Bucket {
  start: number
  count: number
  sum: number
  min: number
  max: number
  /** Written since it last changed? */
  clean: boolean
}

/** Finished buckets of one series at one width not yet written, in time order: (start, count, sum, min, max) each. */
type Finished = number[]

/** The roll-up state of the series of one ingest, by index (definition order). */
export class RollupState {
  /** Ascending: with series in definition order (ascending store ids), the key order of the rollups table. */
  readonly widths: readonly number[]
  /** Per series: the last instant seen, whether it must be rebuilt, and its open buckets (one per width; null when that width is not kept). */
  private readonly lastT: number[] = []
  private readonly dirty: boolean[] = []
  private readonly buckets: Array<Array<Bucket | null>> = []
  private readonly finished: Finished[][] = []

  constructor(
    private readonly store: Store,
    widths: readonly number[],
  ) {
    this.widths = [...widths].sort((a, b) => a - b)
  }

  /** Adds state for n more series (the next indexes). */
  addSeries(n: number): void {
    for (let i = 0; i < n; i++) {
      this.lastT.push(-Infinity)
      this.dirty.push(false)
      this.buckets.push(this.widths.map(() => ({ start: NaN, count: 0, sum: 0, min: Infinity, max: -Infinity, clean: true })))
      this.finished.push(this.widths.map(() => []))
    }
  }

  /** Whether series i arrived out of order or repeated an instant: its roll-ups must be rebuilt from raw. */
  isDirty(i: number): boolean {
    return this.dirty[i]
  }

  /** Irregular samples: series[k] (an index) at t[k] is values[k], as Ingest.pushPoints takes them. */
  rollPoints(series: ArrayLike<number>, t: ArrayLike<number>, values: ArrayLike<number>): void {
    for (let k = 0; k < series.length; k++) this.roll(series[k], t, values, 0, k)
  }

  /**
   * Finished buckets, and the open ones that changed since they were last written (their whole
   * state so far), in the table's key order (series, width, t), so each B-tree leaf is visited
   * once: of every series, or (with turns) of every turns-th from the turn-th. seriesIds are the
   * series' store ids by index; definition order is key order, as store ids are rowids handed
   * out in ascending order and the widths are sorted. Returns the rows written.
   */
  write(seriesIds: readonly number[], turns = 1, turn = 0): number {
    const n = seriesIds.length
    // Typed columns sized for the finished buckets and every open one.
    let cap = 0
    for (let i = turn; i < n; i += turns) for (const done of this.finished[i]) cap += done.length / 5 + 1
    const col = () => new Float64Array(cap)
    const r = { seriesId: col(), widthNs: col(), tNs: col(), count: col(), sum: col(), min: col(), max: col(), length: 0 }
    let k = 0
    for (let i = turn; i < n; i += turns) {
      const id = seriesIds[i]
      for (let w = 0; w < this.widths.length; w++) {
        const width = this.widths[w]
        const done = this.finished[i][w]
        for (let d = 0; d < done.length; d += 5, k++) {
          r.seriesId[k] = id
          r.widthNs[k] = width
          r.tNs[k] = done[d]
          r.count[k] = done[d + 1]
          r.sum[k] = done[d + 2]
          r.min[k] = done[d + 3]
          r.max[k] = done[d + 4]
        }
        const b = this.buckets[i][w]
        if (!b || b.clean || b.count === 0) continue
        r.seriesId[k] = id
        r.widthNs[k] = width
        r.tNs[k] = b.start
        r.count[k] = b.count
        r.sum[k] = b.sum
        r.min[k] = b.min
        r.max[k] = b.max
        k++
      }
    }
    r.length = k
    if (r.length === 0) return 0
    this.store.writeRollups(r)
    // Written: only now are they no longer pending (a failed write leaves them for the next).
    for (let i = turn; i < n; i += turns) {
      for (let w = 0; w < this.widths.length; w++) {
        if (this.finished[i][w].length > 0) this.finished[i][w] = []
        const b = this.buckets[i][w]
        if (b) b.clean = true
      }
    }
    return r.length
  }

  /** A frame (values series-major over idx, indexes of series), as Ingest.pushFrame takes it. */
  rollFrame(idx: ArrayLike<number>, t: ArrayLike<number>, values: ArrayLike<number>): void {
    const n = t.length
    // The smallest step between instants (NaN when a step is NaN: an instant NaN, or ±Infinity twice).
    let dt = Infinity
    for (let j = 1; j < n; j++) dt = Math.min(dt, t[j] - t[j - 1])
    // A level no finer than the sampling interval would only copy the raw samples: not kept.
    if (n > 1) {
      for (let i = 0; i < idx.length; i++) {
        const bs = this.buckets[idx[i]]
        for (let w = 0; w < bs.length; w++) if (bs[w] && this.widths[w] <= dt) bs[w] = null
      }
    }
    // Every t[j] > t[j - 1]: for doubles a - b > 0 exactly when a > b (a NaN step fails both).
    const increasing = n < 2 || dt > 0
    for (let i = 0; i < idx.length; i++) {
      const s = idx[i]
      const base = i * n
      if (!increasing || !(t[0] > this.lastT[s])) {
        for (let j = 0; j < n; j++) this.roll(s, t, values, base, j)
        continue
      }
      // In order: what roll() does sample by sample, over the whole frame at once.
      this.lastT[s] = t[n - 1]
      if (!this.dirty[s]) this.accumulate(s, t, values, base, 0, n)
    }
  }

  /** One sample, t[j] with value values[shift + j], whatever its order. */
  private roll(s: number, t: ArrayLike<number>, values: ArrayLike<number>, shift: number, j: number): void {
    const tj = t[j]
    if (tj <= this.lastT[s]) {
      // Out of order or a repeated instant: the incremental state no longer matches the raw
      // samples (a repeat replaces a stored sample). Rebuilt from raw at close().
      this.dirty[s] = true
      return
    }
    this.lastT[s] = tj
    if (!this.dirty[s]) this.accumulate(s, t, values, shift, j, j + 1)
  }

  /**
   * Adds samples t[j], values[shift + j] for j in from..to-1 (in time order, after the series'
   * earlier ones; NaN values left out) to series s's open buckets, a width at a time with the
   * open bucket in locals: a sample past a bucket finishes it (pending, unless it is already
   * written and unchanged) and opens the next.
   */
  private accumulate(s: number, t: ArrayLike<number>, values: ArrayLike<number>, shift: number, from: number, to: number): void {
    const bs = this.buckets[s]
    for (let w = 0; w < bs.length; w++) {
      const b = bs[w]
      if (!b) continue
      const width = this.widths[w]
      const done = this.finished[s][w]
      let { start, count, sum, min, max, clean } = b
      for (let j = from; j < to; j++) {
        const v = values[shift + j]
        if (Number.isNaN(v)) continue
        const tj = t[j]
        // Same bucket without a floating-point remainder (times are past int32) in the usual case.
        if (!(tj >= start && tj < start + width)) {
          const next = tj - (tj % width)
          if (next !== start) {
            if (count > 0 && !clean) done.push(start, count, sum, min, max)
            start = next
            count = 0
            sum = 0
            min = Infinity
            max = -Infinity
          }
        }
        count++
        sum += v
        if (v < min) min = v
        if (v > max) max = v
        clean = false
      }
      b.start = start
      b.count = count
      b.sum = sum
      b.min = min
      b.max = max
      b.clean = clean
    }
  }
}

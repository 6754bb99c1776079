// The one path telemetry takes into the store: the orchestrator (sim and testbed runs), the INT
// collector and pollers push samples here.
//
// - Batched writes: samples queue in memory and are written one transaction per batch
//   (batchSamples samples, or whatever is queued when flushIntervalMs passes), together with
//   the roll-up buckets those samples touched.
// - Back-pressure, not loss: the queue is bounded. When it holds maxQueuedSamples, `full` is
//   true and `ready()` returns a promise that resolves once the writer has caught up; a
//   producer that awaits it is slowed to the disk's pace. A producer that ignores it still
//   cannot grow memory without bound: a push past twice the bound writes synchronously before
//   returning (the source is slowed by blocking instead). Nothing is dropped on the way to
//   the store.
// - The UI: frames are coalesced and handed to onUi at most every uiIntervalMs. If more than
//   uiMaxValues values pile up between two hand-offs (a UI that cannot keep up with a fast
//   source), the pending UI batch is thinned by keeping every other instant. That is the only
//   thing ever dropped, and only from the live view: the store has every sample, and views
//   read roll-ups from it (readSamples with pixels). Points (irregular samples, INT's) reach
//   the UI as a summary per series (count, sum, min, max, latest) handed to onUiPoints on the
//   same schedule: bounded by the series count however fast reports come.
// - Roll-ups: per series, buckets of 1 ms / 10 ms / 100 ms with count, sum, min, max, kept
//   incrementally as samples arrive (rollup-state.ts). Each batch writes those of one in
//   rollupTurns of the series, in turn (finished buckets, and the open ones' state so far), so a
//   series' roll-ups are written every rollupTurns batches; all of them once the queue has been
//   empty for flushIntervalMs, at flush() and at close(). A live run's roll-ups thus lag its raw
//   samples by up to rollupTurns batches, or flushIntervalMs when it pauses. Not every series
//   with every batch: a write dirties a B-tree page per series and level whatever it carries,
//   which at a batch's few rows per series cost more than the samples; not all of them every N
//   batches either, which stalls that batch (bench/ingest.ts). Series that arrived out of time
//   order or repeated an instant are rebuilt from their raw samples at close().
// - Raw samples are stored in chunks (store/samples.ts): a frame becomes one row per series.
//   At close(), series whose chunks overlap (out of order) or are small are rewritten.
import type { Store } from '../store'
import { ROLLUP_WIDTHS_NS } from '../store'
import { RollupState } from './rollup-state'
import { PointSummaries, type UiPointStats } from './ui-points'
import type { SeriesDef } from '../../model/series'

export interface IngestOptions {
  store: Store
  runId: number
  /** Samples per transaction. */
  batchSamples?: number
  /** The queue bound: `full` (and ready() waits) at this many queued samples. */
  maxQueuedSamples?: number
  /** A partial batch is written after this long. */
  flushIntervalMs?: number
  /** Coalesced frames for live views, at most every uiIntervalMs. */
  onUi?: (batch: { t: number[]; values: number[][] }) => void
  /** A summary per series of the points pushed since the last one, on onUi's schedule. */
  onUiPoints?: (stats: UiPointStats[]) => void
  uiIntervalMs?: number
  uiMaxValues?: number
  /** Roll-up widths (ns). */
  widths?: readonly number[]
  /** Each batch writes the roll-ups of one in this many series, in turn (1: all, every batch). */
  rollupTurns?: number
  /** Test hook: runs before each batch is written (a slow disk). */
  beforeWrite?: () => void
}

export interface IngestStats {
  samples: number
  batches: number
  /** The longest batch (its transaction), in ms: how long a write holds the event loop. */
  maxBatchMs: number
  rollupRows: number
  /** Times a producer had to wait in ready(), and for how long in total. */
  waits: number
  waitedMs: number
  /** Pushes past twice the bound, written synchronously. */
  forcedWrites: number
  maxQueued: number
  uiBatches: number
  /** Instants thinned out of live UI batches (never from the store). */
  uiThinned: number
  rebuiltSeries: number
  /** Series whose sample chunks were rewritten at close (out of order, or small chunks). */
  compactedSeries: number
}

/**
 * A push not yet written: a frame (shared instants, values series-major over `ids`, store ids),
 * written whole; or points (series[i], an index into seriesIds, at t[i] is values[i]), written
 * from offset on.
 */
type Chunk = { t: ArrayLike<number>; values: ArrayLike<number>; size: number } & (
  | { kind: 'frame'; ids: number[] }
  | { kind: 'points'; series: ArrayLike<number>; offset: number }
)
type PointsChunk = Extract<Chunk, { kind: 'points' }>

export class Ingest {
  readonly stats: IngestStats = { samples: 0, batches: 0, maxBatchMs: 0, rollupRows: 0, waits: 0, waitedMs: 0, forcedWrites: 0, maxQueued: 0, uiBatches: 0, uiThinned: 0, rebuiltSeries: 0, compactedSeries: 0 }
  private readonly store: Store
  private readonly batchSamples: number
  private readonly maxQueued: number
  private readonly flushIntervalMs: number
  /** Each batch writes the roll-ups of one in this many series (IngestOptions.rollupTurns). */
  private readonly rollupTurns: number
  private readonly rollups: RollupState
  /** Every series defined through this ingest, in order; frames refer to a prefix of it by default. */
  private readonly seriesIds: number[] = []
  private readonly queue: Chunk[] = []
  /** The frame of the first series (pushFrame without `series`): their indexes and store ids, until defineSeries is called again. */
  private frame: { idx: number[]; ids: number[] } | null = null
  private queued = 0
  /** Batches written, for whose turn it is to write roll-ups. */
  private rollupTurn = 0
  /** Writes every roll-up once the queue has stayed empty for flushIntervalMs. */
  private idleTimer: ReturnType<typeof setTimeout> | null = null
  private waiters: Array<() => void> = []
  private scheduled: ReturnType<typeof setImmediate> | null = null
  private timer: ReturnType<typeof setTimeout> | null = null
  private closed = false
  // UI coalescing (frames of the series defined first)
  private uiT: number[] = []
  private uiValues: number[][] = []
  private uiLast = 0
  private readonly uiPoints = new PointSummaries()
  /** A UI hand-off held back by uiIntervalMs, due when it has passed. */
  private uiTimer: ReturnType<typeof setTimeout> | null = null
  /**
   * A write that failed in a timer (the database locked past its busy timeout, the disk full):
   * thrown to the producer at its next push or ready(), so it fails the run, not the process.
   */
  private failure: unknown = null

  constructor(private readonly opts: IngestOptions) {
    this.store = opts.store
    this.batchSamples = opts.batchSamples ?? 65_536
    this.maxQueued = opts.maxQueuedSamples ?? 1_048_576
    this.flushIntervalMs = opts.flushIntervalMs ?? 100
    this.rollupTurns = Math.max(1, opts.rollupTurns ?? 16)
    this.rollups = new RollupState(opts.store, opts.widths ?? ROLLUP_WIDTHS_NS)
  }

  /** Defines series of the run and returns their store ids. Frames pushed later cover the series defined by the first call. */
  defineSeries(defs: SeriesDef[]): number[] {
    const ids = this.store.defineSeries(this.opts.runId, defs)
    for (const id of ids) this.seriesIds.push(id)
    this.rollups.addSeries(ids.length)
    this.frame = null
    if (this.uiValues.length === 0) this.uiValues = ids.map(() => [])
    return ids
  }

  /** True while the queue holds maxQueuedSamples or more: the producer should await ready(). */
  get full(): boolean {
    return this.queued >= this.maxQueued
  }

  /** Resolves when there is room in the queue (at once when there is). */
  ready(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure)
    if (!this.full) return Promise.resolve()
    this.stats.waits++
    const t0 = Date.now()
    this.schedule(true)
    return new Promise((resolve, reject) => this.waiters.push(() => {
      this.stats.waitedMs += Date.now() - t0
      if (this.failure !== null) reject(this.failure)
      else resolve()
    }))
  }

  /**
   * Samples at shared instants, series-major over the first frame series (values[i * t.length + j]
   * is series i at t[j]), as the simulator emits them. The arrays are kept until written: do not
   * reuse them.
   */
  pushFrame(t: ArrayLike<number>, values: ArrayLike<number>, series?: ArrayLike<number>): void {
    const frame = series === undefined ? this.defaultFrame(values.length / Math.max(1, t.length)) : null
    const idx = frame ? frame.idx : series!
    if (values.length !== idx.length * t.length) {
      throw new Error(`Ingest.pushFrame: ${idx.length} series × ${t.length} instants = ${idx.length * t.length} values expected, got ${values.length}`)
    }
    if (t.length === 0) return
    this.rollups.rollFrame(idx, t, values)
    const ids = frame ? frame.ids : Array.from(idx, (i) => this.seriesIds[i])
    this.enqueue({ kind: 'frame', ids, t, values, size: values.length })
    if (series === undefined) this.uiFrame(idx, t, values)
  }

  /**
   * Irregular samples: series[i] (an index into the ids defineSeries returned, in definition
   * order across calls) at t[i] is values[i].
   */
  pushPoints(series: ArrayLike<number>, t: ArrayLike<number>, values: ArrayLike<number>): void {
    const n = series.length
    if (t.length !== n || values.length !== n) throw new Error('Ingest.pushPoints: series, t and values must have one entry per sample')
    if (n === 0) return
    this.rollups.rollPoints(series, t, values)
    this.enqueue({ kind: 'points', series, t, values, offset: 0, size: n })
    if (this.opts.onUiPoints) {
      this.uiPoints.add(series, t, values)
      this.flushUi(false)
    }
  }

  /** How many series are defined: the index the next defined series gets. */
  get seriesCount(): number {
    return this.seriesIds.length
  }

  /** Store id of the series at this index (definition order). */
  seriesId(index: number): number {
    return this.seriesIds[index]
  }

  /** Writes everything queued now, one transaction per batch, and the roll-ups. */
  flush(): void {
    while (this.queued > 0) this.writeBatch()
    this.store.transaction(() => this.writeRollups())
    this.flushUi(true)
  }

  /** Writes everything, the open roll-up buckets, rebuilds series marked dirty, and stops the timers. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.scheduled) clearImmediate(this.scheduled)
    if (this.timer) clearTimeout(this.timer)
    if (this.idleTimer) clearTimeout(this.idleTimer)
    if (this.uiTimer) clearTimeout(this.uiTimer)
    this.scheduled = null
    this.timer = null
    this.idleTimer = null
    this.uiTimer = null
    this.flush()
    const dirty = this.seriesIds.filter((_, i) => this.rollups.isDirty(i))
    // A series that arrived out of order or repeated an instant has overlapping chunks (reads
    // merge them), and a slowly sampled one many small chunks: both are rewritten as disjoint,
    // full chunks.
    this.stats.compactedSeries += this.store.compactSamples(dirty, { force: true }).length
    this.stats.compactedSeries += this.store.compactSamples(this.seriesIds.filter((_, i) => !this.rollups.isDirty(i))).length
    if (dirty.length > 0) {
      this.store.rebuildRollups(dirty, this.rollups.widths)
      this.stats.rebuiltSeries += dirty.length
    }
    this.wake()
  }

  // ---- internals ----

  /** The first nSeries series: indexes 0..nSeries-1 and their store ids (shared by the frames queued; never changed). */
  private defaultFrame(nSeries: number): { idx: number[]; ids: number[] } {
    if (!Number.isInteger(nSeries) || nSeries > this.seriesIds.length) {
      throw new Error(`Ingest.pushFrame: ${nSeries} series per instant, but ${this.seriesIds.length} are defined`)
    }
    if (this.frame?.idx.length !== nSeries) {
      this.frame = { idx: Array.from({ length: nSeries }, (_, i) => i), ids: this.seriesIds.slice(0, nSeries) }
    }
    return this.frame
  }

  private enqueue(c: Chunk): void {
    if (this.closed) throw new Error('Ingest: push after close()')
    if (this.failure !== null) throw this.failure
    this.queue.push(c)
    this.queued += c.size
    this.stats.samples += c.size
    if (this.queued > this.stats.maxQueued) this.stats.maxQueued = this.queued
    if (this.queued >= 2 * this.maxQueued) {
      // The producer is not waiting for ready(): slow it down by writing now.
      this.stats.forcedWrites++
      while (this.queued >= this.maxQueued) this.writeBatch()
    }
    this.schedule(this.queued >= this.batchSamples)
  }

  private schedule(now: boolean): void {
    if (this.closed) return
    if (now) {
      if (!this.scheduled) this.scheduled = setImmediate(() => this.drain())
    } else if (!this.timer && !this.scheduled) {
      this.timer = setTimeout(() => {
        this.timer = null
        this.drain()
      }, this.flushIntervalMs)
    }
  }

  /** Writes one batch per turn of the event loop, so sockets and timers run between batches. */
  private drain(): void {
    this.scheduled = null
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = null
    }
    try {
      if (this.queued > 0) this.writeBatch()
    } catch (err) {
      // Nothing queued is dropped: close() tries once more to write it all.
      this.failure = err
      this.wake()
      return
    }
    this.flushUi(false)
    if (this.queued >= this.batchSamples || (this.waiters.length > 0 && this.queued > 0)) this.schedule(true)
    else if (this.queued > 0) this.schedule(false)
    else this.scheduleIdleRollups()
    if (!this.full) this.wake()
  }

  /** The source paused: catch every series' roll-ups up then, unless samples arrive first. */
  private scheduleIdleRollups(): void {
    if (this.closed || this.idleTimer) return
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null
      if (this.closed || this.queued > 0) return
      try {
        this.store.transaction(() => this.writeRollups())
      } catch {
        // A catch-up only (the database busy, say): the roll-ups stay pending for the next
        // batch or close(), which report an error that persists.
      }
    }, this.flushIntervalMs)
  }

  private wake(): void {
    const w = this.waiters
    this.waiters = []
    for (const f of w) f()
  }

  /** Up to batchSamples queued samples and the roll-ups touched so far, in one transaction. */
  private writeBatch(): void {
    this.opts.beforeWrite?.()
    const t0 = performance.now()
    let budget = this.batchSamples
    this.store.transaction(() => {
      // Points taken so far, from one push or more: written together, so each series gets one
      // chunk per batch however the pushes fall. Before a frame, to keep the arrival order.
      let points: Array<{ c: PointsChunk; from: number; to: number }> = []
      const writePoints = () => {
        if (points.length > 0) this.writePoints(points)
        points = []
      }
      while (budget > 0 && this.queue.length > 0) {
        const c = this.queue[0]
        if (c.kind === 'frame') {
          writePoints()
          this.store.insertSamples(c.ids, c.t, c.values)
          budget -= c.size
          this.queued -= c.size
          this.queue.shift()
        } else {
          const take = Math.min(budget, c.size - c.offset)
          points.push({ c, from: c.offset, to: c.offset + take })
          c.offset += take
          budget -= take
          this.queued -= take
          if (c.offset === c.size) this.queue.shift()
        }
      }
      writePoints()
      this.writeRollups(this.rollupTurns, this.rollupTurn++ % this.rollupTurns)
    })
    this.stats.batches++
    this.stats.maxBatchMs = Math.max(this.stats.maxBatchMs, performance.now() - t0)
  }

  /**
   * Points as the store takes them: grouped by series (a chunk each), in arrival order within a
   * series (the collector's clock: time order). A counting sort (stable): per-series counts, then
   * each sample straight to its place in the columns.
   */
  private writePoints(spans: Array<{ c: PointsChunk; from: number; to: number }>): void {
    const nSeries = this.seriesIds.length
    const start = new Int32Array(nSeries + 1)
    let n = 0
    for (const { c, from, to } of spans) for (let i = from; i < to; i++, n++) start[c.series[i] + 1]++
    for (let i = 0; i < nSeries; i++) start[i + 1] += start[i]
    const ids = new Float64Array(n)
    const t = new Float64Array(n)
    const v = new Float64Array(n)
    for (const { c, from, to } of spans) {
      for (let i = from; i < to; i++) {
        const s = c.series[i]
        const q = start[s]++
        ids[q] = this.seriesIds[s]
        t[q] = c.t[i]
        v[q] = c.values[i]
      }
    }
    this.store.insertSampleRows(ids, t, v)
  }

  /** The roll-ups pending: of every series, or (with turns) of every turns-th from the turn-th (rollup-state.ts). */
  private writeRollups(turns = 1, turn = 0): void {
    this.stats.rollupRows += this.rollups.write(this.seriesIds, turns, turn)
  }

  private uiFrame(idx: ArrayLike<number>, t: ArrayLike<number>, values: ArrayLike<number>): void {
    if (!this.opts.onUi) return
    const n = t.length
    // Live views follow the series defined first (the run's own); others are store-only.
    if (idx.length !== this.uiValues.length) return
    for (let j = 0; j < n; j++) this.uiT.push(t[j])
    for (let i = 0; i < idx.length; i++) {
      const row = this.uiValues[idx[i]]
      for (let j = 0; j < n; j++) row.push(values[i * n + j])
    }
    const cap = this.opts.uiMaxValues ?? 500_000
    if (this.uiT.length * Math.max(1, this.uiValues.length) > cap) this.thinUi()
    this.flushUi(false)
  }

  /** Keeps every other pending instant (the live view only; the store has them all). */
  private thinUi(): void {
    const keep = (a: number[]) => a.filter((_, j) => j % 2 === 1)
    this.stats.uiThinned += this.uiT.length - Math.floor(this.uiT.length / 2)
    this.uiT = keep(this.uiT)
    this.uiValues = this.uiValues.map(keep)
  }

  private flushUi(force: boolean): void {
    const frames = this.opts.onUi !== undefined && this.uiT.length > 0
    const points = this.opts.onUiPoints !== undefined && this.uiPoints.size > 0
    if (!frames && !points) return
    const now = Date.now()
    const wait = (this.opts.uiIntervalMs ?? 100) - (now - this.uiLast)
    if (!force && wait > 0) {
      // Held back, not forgotten: a source that then pauses still gets its last samples shown.
      if (!this.uiTimer && !this.closed) {
        this.uiTimer = setTimeout(() => {
          this.uiTimer = null
          this.flushUi(false)
        }, wait)
        this.uiTimer.unref?.()
      }
      return
    }
    if (this.uiTimer) {
      clearTimeout(this.uiTimer)
      this.uiTimer = null
    }
    if (frames) {
      this.opts.onUi!({ t: this.uiT, values: this.uiValues })
      this.stats.uiBatches++
      this.uiT = []
      this.uiValues = this.uiValues.map(() => [])
    }
    if (points) this.opts.onUiPoints!(this.uiPoints.take())
    this.uiLast = now
  }
}

// Telemetry buffers and the derived lines the charts draw. Plain classes over typed arrays,
// deliberately outside Vue reactivity: a run streams hundreds of thousands of samples.
// No DOM, so they are tested in node.

import type { SeriesSpec } from '@contract/schemas'

/** The parts of a contract SeriesDef this module needs: its spec. */
export type SeriesDefLike = SeriesSpec

export interface BatchLike {
  t: readonly number[]
  /** null: that series has no sample at that instant (read as NaN). */
  values: readonly (readonly (number | null)[])[]
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

/**
 * A finished run is read whole when its samples are at most this many values (instants ×
 * series; 4 MB as Float32 here, about 10 MB of JSON on the way); a longer one comes as the
 * finest roll-up that fits, and zoomed charts read their range again (stores/telemetry.ts).
 */
export const STORED_MAX_VALUES = 1_000_000

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
/** Most lines a chart picks from its candidates. */
export const MAX_LINES = 8

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

/** The queue.depth series of each switch, by switch name. */
function queuesBySwitch(defs: readonly SeriesDefLike[]): Map<string, number[]> {
  const bySwitch = new Map<string, number[]>()
  for (const i of indicesOf(defs, QUEUE_KIND)) {
    const entity = defs[i].entity
    const sw = String(entity.switch ?? entityLabel(entity))
    let list = bySwitch.get(sw)
    if (!list) bySwitch.set(sw, (list = []))
    list.push(i)
  }
  return bySwitch
}

/** Queue depth: the deepest queue of each switch; the 8 busiest switches if there are more. */
export function queueChartModel(series: RunSeries): ChartModel {
  const candidates = [...queuesBySwitch(series.defs)].map(([sw, idx]) => new Line(sw, idx, 'max'))
  return new ChartModel(series, [], candidates, MAX_LINES)
}

/** The queue chart's subtitle: it says so when it shows only the busiest of the switches. */
export function queueChartSub(defs: readonly SeriesDefLike[]): string {
  const n = queuesBySwitch(defs).size
  return n > MAX_LINES ? `deepest queue of the ${MAX_LINES} busiest of ${n} switches, packets` : 'deepest queue of each switch, packets'
}

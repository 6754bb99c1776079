import { pickRollupWidth, readRollups, rollupWidths } from './rollups'
import { countInstants, insertSampleFrame, readSeries, sampleSpan } from './samples'
import { fromJson, toJson, type EventRow, type SeriesRow, type StoreContext } from './rows'

// Series, samples, events and logs: everything a run streams while it runs.

export function defineSeries(
  s: StoreContext,
  runId: number,
  defs: Array<{ kind: string; entity: Record<string, string | number>; unit: string }>,
): number[] {
  const insert = s.stmt('INSERT INTO series (run_id, kind, entity, unit) VALUES (?, ?, ?, ?)')
  return s.write(() =>
    defs.map((d) => Number(insert.run(runId, d.kind, toJson(d.entity), d.unit).lastInsertRowid)),
  )
}

/**
 * One batch of samples at shared instants; values are series-major
 * (values[i * t.length + j] is seriesIds[i] at t[j]), as the simulator emits them.
 * A sample repeated at the same instant replaces the earlier one.
 */
export function insertSamples(
  s: StoreContext,
  seriesIds: number[],
  t: ArrayLike<number>,
  values: ArrayLike<number>,
): void {
  const n = t.length
  if (values.length !== seriesIds.length * n) {
    throw new Error(
      `insertSamples: expected ${seriesIds.length} series × ${n} instants = ${seriesIds.length * n} values, got ${values.length}`,
    )
  }
  // A chunk per series, one transaction (see samples.ts and bench/ingest.ts).
  insertSampleFrame(s, seriesIds, t, values)
}

interface SeriesRecord {
  id: number
  kind: string
  entity: string
  unit: string
}

function toSeriesRow(r: SeriesRecord): SeriesRow {
  return { id: r.id, kind: r.kind, entity: fromJson(r.entity) ?? {}, unit: r.unit }
}

export function listSeries(s: StoreContext, runId: number): SeriesRow[] {
  return (s.stmt('SELECT id, kind, entity, unit FROM series WHERE run_id = ? ORDER BY id').all(runId) as SeriesRecord[]).map(
    toSeriesRow,
  )
}

/** What readSamples may be asked beyond the run and kinds. */
export interface ReadSamplesOptions {
  /** Only samples with t in [fromNs, toNs] (default: all). */
  fromNs?: number
  toNs?: number
  /**
   * The width in pixels the samples will be drawn across. Given, the read picks the coarsest
   * roll-up level (1 ms / 10 ms / 100 ms) that still has a bucket per pixel over the range
   * (the run's whole span when no range is given), or raw samples when none is that fine.
   */
  pixels?: number
  /**
   * At most about this many values (instants × series): raw samples when they fit, else the
   * finest roll-up level that does (the coarsest kept when none does). With `pixels` too, the
   * coarser of the two picks. A run that keeps no roll-ups is read raw whatever its size.
   */
  maxValues?: number
}

export interface SamplesRead {
  defs: SeriesRow[]
  t: number[]
  /** Raw values, or each bucket's mean when read from a roll-up. */
  values: number[][]
  /** 'raw', or the roll-up bucket width in ns (t is then each bucket's start). */
  level: 'raw' | number
  /** Each bucket's min and max (roll-ups only). */
  min?: number[][]
  max?: number[][]
}

/**
 * A run's samples (optionally only some kinds), aligned on the union of their instants; a
 * series with no sample at an instant reads NaN there. Without options: every raw sample.
 */
export function readSamples(s: StoreContext, runId: number, kinds?: string[], opts: ReadSamplesOptions = {}): SamplesRead {
  const wanted = kinds && new Set(kinds)
  const defs = listSeries(s, runId).filter((d) => !wanted || wanted.has(d.kind))
  const from = opts.fromNs ?? -Infinity
  const to = opts.toNs ?? Infinity
  let level: 'raw' | number = 'raw'
  if ((opts.pixels !== undefined || opts.maxValues !== undefined) && defs.length > 0) {
    const kept = rollupWidths(s, runId)
    if (kept.length > 0) {
      let lo = from
      let hi = to
      if (!Number.isFinite(lo) || !Number.isFinite(hi)) {
        const span = sampleSpan(s, runId)
        if (!Number.isFinite(lo)) lo = span.lo ?? 0
        if (!Number.isFinite(hi)) hi = span.hi ?? 0
      }
      const byPixels = opts.pixels === undefined ? null : pickRollupWidth(hi - lo, opts.pixels, kept)
      const ids = defs.map((d) => d.id)
      const byBudget = opts.maxValues === undefined ? null : pickWidthWithin(opts.maxValues, lo, hi, kept, () => defs.length * countInstants(s, ids, from, to), defs.length)
      const picked = Math.max(byPixels ?? 0, byBudget ?? 0)
      level = picked > 0 ? picked : 'raw'
    }
  }
  if (level !== 'raw') {
    const width = level
    const reads = defs.map((d) => {
      const r = readRollups(s, d.id, width, Number.isFinite(from) ? Math.floor(from / width) * width : from, to)
      if (r.t.length > 0) return r
      const raw = readSeries(s, d.id, from, to)
      const t: number[] = []
      const v: number[] = []
      for (let k = 0; k < raw.t.length; k++) {
        if (Number.isNaN(raw.v[k])) continue
        t.push(raw.t[k])
        v.push(raw.v[k])
      }
      return { t, count: v.map(() => 1), mean: v, min: v, max: v }
    })
    const aligned = align(reads.map((r) => r.t), [reads.map((r) => r.mean), reads.map((r) => r.min), reads.map((r) => r.max)])
    // A series that keeps no roll-up at this width (sampled more coarsely) is read raw instead.
    return { defs, t: aligned.t, values: aligned.columns[0], min: aligned.columns[1], max: aligned.columns[2], level }
  }
  const columns = defs.map((d) => readSeries(s, d.id, from, to))
  const aligned = align(
    columns.map((col) => col.t),
    [columns.map((col) => col.v)],
  )
  return { defs, t: aligned.t, values: aligned.columns[0], level }
}

/**
 * The roll-up width that keeps a read of `series` series over [loNs, hiNs] within `maxValues`
 * values: null (raw) when the raw samples fit (`rawValues`, asked only when needed), else the
 * finest kept width whose buckets fit, else the coarsest kept width.
 */
export function pickWidthWithin(maxValues: number, loNs: number, hiNs: number, kept: readonly number[], rawValues: () => number, series: number): number | null {
  if (rawValues() <= maxValues) return null
  const widths = [...kept].sort((a, b) => a - b)
  // The buckets a read touches: from the one holding loNs (readRollups starts there) to hiNs's.
  const buckets = (w: number) => Math.max(1, Math.floor(hiNs / w) - Math.floor(loNs / w) + 1)
  for (const w of widths) if (buckets(w) * series <= maxValues) return w
  return widths[widths.length - 1] ?? null
}

/** Aligns per-series (t, value...) columns on the union of their instants; gaps read NaN. */
function align(times: ArrayLike<number>[], series: ArrayLike<number>[][]): { t: number[]; columns: number[][][] } {
  // Series of one run are sampled together in practice: when every series has the first one's
  // instants, those are the union, and the columns are copied as they are.
  if (times.every((ts) => sameInstants(ts, times[0]))) {
    return { t: Array.from(times[0] ?? []), columns: series.map((perSeries) => perSeries.map((vals) => Array.from(vals))) }
  }
  const instants = new Set<number>()
  for (const col of times) for (let j = 0; j < col.length; j++) instants.add(col[j])
  const t = [...instants].sort((a, b) => a - b)
  const index = new Map<number, number>()
  t.forEach((tNs, j) => index.set(tNs, j))
  const columns = series.map((perSeries) =>
    perSeries.map((vals, i) => {
      const v = new Array<number>(t.length).fill(NaN)
      const ts = times[i]
      for (let j = 0; j < ts.length; j++) v[index.get(ts[j])!] = vals[j]
      return v
    }),
  )
  return { t, columns }
}

function sameInstants(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let j = 0; j < a.length; j++) if (a[j] !== b[j]) return false
  return true
}

export function addEvent(
  s: StoreContext,
  runId: number,
  tNs: number | null,
  kind: string,
  detail: unknown,
  at = s.isoNow(),
): EventRow {
  const json = toJson(detail)
  const info = s.stmt('INSERT INTO events (run_id, t_ns, at, kind, detail) VALUES (?, ?, ?, ?, ?)').run(runId, tNs, at, kind, json)
  // As stored (and as listEvents reads it back), not as passed.
  return { id: Number(info.lastInsertRowid), tNs, at, kind, detail: fromJson(json) }
}

export function listEvents(s: StoreContext, runId: number): EventRow[] {
  const rows = s
    .stmt('SELECT id, t_ns, at, kind, detail FROM events WHERE run_id = ? ORDER BY id')
    .all(runId) as Array<{ id: number; t_ns: number | null; at: string; kind: string; detail: string }>
  return rows.map((r) => ({ id: r.id, tNs: r.t_ns, at: r.at, kind: r.kind, detail: fromJson(r.detail) }))
}

export function addLog(s: StoreContext, runId: number, source: string, line: string): void {
  s.stmt('INSERT INTO logs (run_id, source, at, line) VALUES (?, ?, ?, ?)').run(runId, source, s.isoNow(), line)
}

/** One stored log line of a run. */
export interface LogRow {
  id: number
  at: string
  source: string
  line: string
}

export interface ListLogsOptions {
  /** Keep only the newest `limit` lines (still returned oldest first). */
  limit?: number
}

/** A run's log lines, oldest first (insertion order). */
export function listLogs(s: StoreContext, runId: number, opts: ListLogsOptions = {}): LogRow[] {
  if (opts.limit !== undefined) {
    return (
      s
        .stmt('SELECT id, at, source, line FROM logs WHERE run_id = ? ORDER BY id DESC LIMIT ?')
        .all(runId, opts.limit) as LogRow[]
    ).reverse()
  }
  return s.stmt('SELECT id, at, source, line FROM logs WHERE run_id = ? ORDER BY id').all(runId) as LogRow[]
}

import { fromJson, toJson, type EventRow, type SeriesRow, type StoreContext } from './rows'

// Series, samples, events and logs: everything a run streams while it runs.

export function defineSeries(
  s: StoreContext,
  runId: number,
  defs: Array<{ kind: string; entity: Record<string, string | number>; unit: string }>,
): number[] {
  const insert = s.stmt('INSERT INTO series (run_id, kind, entity, unit) VALUES (?, ?, ?, ?)')
  return s.db.transaction(() =>
    defs.map((d) => Number(insert.run(runId, d.kind, toJson(d.entity), d.unit).lastInsertRowid)),
  )()
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
  const insert = s.stmt('INSERT OR REPLACE INTO samples (series_id, t_ns, value) VALUES (?, ?, ?)')
  s.db.transaction(() => {
    for (let i = 0; i < seriesIds.length; i++) {
      const id = seriesIds[i]
      const base = i * n
      for (let j = 0; j < n; j++) {
        const v = values[base + j]
        // SQLite would store NaN as NULL anyway; say so explicitly.
        insert.run(id, t[j], Number.isNaN(v) ? null : v)
      }
    }
  })()
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

/**
 * All samples of a run's series (optionally only some kinds), aligned on the union of
 * their instants; a series with no sample at an instant reads NaN there.
 */
export function readSamples(
  s: StoreContext,
  runId: number,
  kinds?: string[],
): { defs: SeriesRow[]; t: number[]; values: number[][] } {
  const wanted = kinds && new Set(kinds)
  const defs = listSeries(s, runId).filter((d) => !wanted || wanted.has(d.kind))
  // This SQL text is only ever used raw, so flipping the cached statement is safe.
  const read = s.stmt('SELECT t_ns, value FROM samples WHERE series_id = ? ORDER BY t_ns').raw(true)
  const columns = defs.map((d) => read.all(d.id) as Array<[number, number | null]>)

  // Series of one run are sampled together in practice, so the union is usually the
  // first series' instants; merge only when they differ.
  const instants = new Set<number>()
  for (const col of columns) for (const [tNs] of col) instants.add(tNs)
  const t = [...instants].sort((a, b) => a - b)
  const index = new Map<number, number>()
  t.forEach((tNs, j) => index.set(tNs, j))
  const values = columns.map((col) => {
    const v = new Array<number>(t.length).fill(NaN)
    for (const [tNs, value] of col) v[index.get(tNs)!] = value ?? NaN
    return v
  })
  return { defs, t, values }
}

export function addEvent(
  s: StoreContext,
  runId: number,
  tNs: number | null,
  kind: string,
  detail: unknown,
  at = s.isoNow(),
): void {
  s.stmt('INSERT INTO events (run_id, t_ns, at, kind, detail) VALUES (?, ?, ?, ?, ?)').run(
    runId,
    tNs,
    at,
    kind,
    toJson(detail),
  )
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

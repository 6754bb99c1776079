// The archive's CSV files, read from its SQLite subset so the two always agree. runs.csv
// carries the experiment's tags, the start and finish times and the duration of each run.
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { seriesReader } from '../store'
import { atPs, writeCsv, type CsvValue } from './csv'
import { idealFctOfSpec, type IdealFct } from '../slowdown'

export const CSV_FILES = ['runs.csv', 'flows.csv', 'series.csv', 'samples.csv', 'events.csv'] as const

interface RunCsvRecord {
  id: number
  experiment: string
  tags: string
  target: string
  scheme: string
  load: number
  seed: number
  params: string
  status: string
  created_at: string
  started_at: string | null
  finished_at: string | null
  error: string | null
  stats: string | null
  counters: string | null
  facts: string | null
  completion: string | null
  revision: number | null
  record: string | null
}

function durationSeconds(start: string | null, end: string | null): number | null {
  if (!start || !end) return null
  const ms = Date.parse(end) - Date.parse(start)
  return Number.isFinite(ms) ? ms / 1000 : null
}

/** Writes data/*.csv from the subset file. */
export function writeCsvTables(subsetFile: string, dir: string): void {
  const db = new Database(subsetFile, { readonly: true })
  try {
    const runs = db
      .prepare(
        `SELECT r.id, e.name AS experiment, e.tags, r.target, r.scheme, r.load, r.seed, r.params, r.status,
                r.created_at, r.started_at, r.finished_at, r.error, r.stats, r.counters, r.facts, r.completion,
                r.revision, r.record
         FROM runs r JOIN experiments e ON e.id = r.experiment_id ORDER BY r.id`,
      )
      .all() as RunCsvRecord[]
    const statKeys = ['meanNs', 'p50Ns', 'p99Ns', 'smallMeanNs', 'largeMeanNs']
    writeCsv(
      join(dir, 'runs.csv'),
      ['run', 'experiment', 'tags', 'target', 'scheme', 'load', 'seed', 'params', 'status', 'created_at', 'started_at', 'finished_at', 'duration_s', 'error',
        'flows', 'finished', 'failed_flows', 'unfinished_flows', 'incomplete_cause',
        'mean_fct_ns', 'p50_fct_ns', 'p99_fct_ns', 'small_mean_fct_ns', 'large_mean_fct_ns', 'counters', 'facts', 'revision',
        'mean_slowdown', 'p50_slowdown', 'p95_slowdown', 'p99_slowdown'],
      runs.map((r): CsvValue[] => {
        const stats = r.stats ? (JSON.parse(r.stats) as Record<string, number | null>) : {}
        // Runs stored before slowdown was measured have none: empty cells, not zeros.
        const sd = (stats as { slowdown?: Record<string, number> | null }).slowdown ?? null
        // How the flows ended: the run's completion when it has one (schema 4 on), else what its stats say.
        const c = r.completion ? (JSON.parse(r.completion) as { flows: number; finished: number; failed: number; unfinished: number; cause: string | null }) : null
        const tags = (JSON.parse(r.tags) as string[]).join(';')
        // The parameters the run ran with, from its own record (the spec's, the cell's over them).
        const params = r.record ? JSON.stringify((JSON.parse(r.record) as { params?: unknown }).params ?? {}) : r.params
        return [r.id, r.experiment, tags, r.target, r.scheme, r.load, r.seed, params, r.status, r.created_at, r.started_at, r.finished_at,
          durationSeconds(r.started_at, r.finished_at), r.error,
          c?.flows ?? stats.flows ?? null, c?.finished ?? stats.finished ?? null, c?.failed ?? null, c?.unfinished ?? null, c?.cause ?? null,
          ...statKeys.map((k) => stats[k] ?? null), r.counters, r.facts, r.revision,
          sd?.mean ?? null, sd?.p50 ?? null, sd?.p95 ?? null, sd?.p99 ?? null]
      }),
    )
    const rows = (sql: string) => db.prepare(sql).raw(true).iterate() as IterableIterator<CsvValue[]>
    // Each flow's slowdown from the fabric and transport its run's record holds (core/slowdown.ts).
    const ideals = new Map<number, IdealFct | null>()
    for (const r of runs) ideals.set(r.id, r.record ? idealFctOfSpec((JSON.parse(r.record) as { spec?: unknown }).spec) : null)
    writeCsv(join(dir, 'flows.csv'), ['run', 'flow', 'src', 'dst', 'size_bytes', 'start_ns', 'finish_ns', 'fct_ns', 'slowdown'],
      withFlowSlowdown(mapColumns(rows('SELECT run_id, id, src, dst, size_bytes, start_ns, finish_ns, fct_ns FROM flows ORDER BY run_id, id'), [5, 6, 7], atPs), ideals))
    writeCsv(join(dir, 'series.csv'), ['series', 'run', 'kind', 'entity', 'unit'], rows('SELECT id, run_id, kind, entity, unit FROM series ORDER BY id'))
    writeCsv(join(dir, 'samples.csv'), ['series', 't_ns', 'value'], sampleRows(db))
    writeCsv(join(dir, 'events.csv'), ['run', 'event', 't_ns', 'at', 'kind', 'detail'], mapColumns(rows('SELECT run_id, id, t_ns, at, kind, detail FROM events ORDER BY run_id, id'), [2], atPs))
  } finally {
    db.close()
  }
}

function* withFlowSlowdown(rows: Iterable<CsvValue[]>, ideals: Map<number, IdealFct | null>): IterableIterator<CsvValue[]> {
  for (const r of rows) {
    const [run, , src, dst, size, , , fct] = r as number[]
    const ideal = typeof fct === 'number' ? (ideals.get(run)?.(src, dst, size) ?? null) : null
    r.push(ideal !== null && ideal > 0 ? Number((fct / ideal).toPrecision(9)) : null)
    yield r
  }
}

function* mapColumns(rows: Iterable<CsvValue[]>, columns: readonly number[], f: (v: CsvValue) => CsvValue): IterableIterator<CsvValue[]> {
  for (const r of rows) {
    for (const c of columns) r[c] = f(r[c])
    yield r
  }
}

/** One line per sample, by series and time: the chunks decoded, an instant written twice read as its last write, NaN empty. */
function* sampleRows(db: Database.Database): IterableIterator<CsvValue[]> {
  const read = seriesReader(db)
  for (const id of db.prepare('SELECT id FROM series ORDER BY id').pluck().all() as number[]) {
    const { t, v } = read(id)
    for (let k = 0; k < t.length; k++) yield [id, atPs(t[k]), Number.isNaN(v[k]) ? null : v[k]]
  }
}

/** One text file per run: `at  source  line`. */
export function runLogs(subsetFile: string): Map<number, string> {
  const db = new Database(subsetFile, { readonly: true })
  try {
    const out = new Map<number, string>()
    for (const r of db.prepare('SELECT run_id, source, at, line FROM logs ORDER BY run_id, id').all() as Array<{ run_id: number; source: string; at: string; line: string }>) {
      out.set(r.run_id, (out.get(r.run_id) ?? '') + `${r.at}  ${r.source}  ${r.line}\n`)
    }
    return out
  } finally {
    db.close()
  }
}

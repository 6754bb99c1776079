// The archive's SQLite file: one experiment with its finished runs, their flows, series,
// sample chunks, roll-ups, events and logs, and the artifacts rows they built from, in the
// same schema as p4lab's own database (migrations included), so `sqlite3` opens it and import
// copies it.
//
// Both directions work on a second connection beside the Store's (WAL lets them share the
// file) and copy set-wise with ATTACH, in one transaction: a sweep's samples are millions.
import Database from 'better-sqlite3'
import { TERMINAL_STATUSES } from '../../contract/schemas'
import { SCHEMA_VERSION, migrate } from '../store/migrations'
import { insertRevision, renamed } from '../store/revisions'
import { ArchiveRefusedError } from './entries'

type DB = Database.Database

function columns(db: DB, schema: string, table: string): string[] {
  return (db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name)
}

/** Columns both databases have, in the destination's order. */
function shared(db: DB, table: string): string[] {
  const src = new Set(columns(db, 'src', table))
  return columns(db, 'main', table).filter((c) => src.has(c))
}

function withAttached<T>(db: DB, file: string, fn: () => T): T {
  db.prepare('ATTACH DATABASE ? AS src').run(file)
  try {
    return fn()
  } finally {
    db.prepare('DETACH DATABASE src').run()
  }
}

export interface SubsetSelection {
  experimentId: number
  artifactKeys: string[]
}

/** Writes the subset of `source` (a Store's connectName) into a new SQLite file `out`. Returns the run ids it holds. */
export function writeSubset(source: string, out: string, sel: SubsetSelection): number[] {
  const db = new Database(out)
  try {
    db.pragma('journal_mode = DELETE')
    migrate(db, out)
    return withAttached(db, source, () =>
      db.transaction(() => {
        // The migrations add the built-in sim testbed; the archive's testbeds are described in testbed/.
        db.exec('DELETE FROM main.testbeds')
        const copy = (table: string, where: string, ...args: unknown[]) => {
          const cols = shared(db, table).join(', ')
          db.prepare(`INSERT INTO main.${table} (${cols}) SELECT ${cols} FROM src.${table} WHERE ${where}`).run(...args)
        }
        copy('experiments', 'id = ?', sel.experimentId)
        copy('experiment_revisions', 'experiment_id = ?', sel.experimentId)
        const terminal = TERMINAL_STATUSES.map((s) => `'${s}'`).join(', ')
        // Archived and deleted runs are set aside: an archive holds what the lists show.
        copy('runs', `experiment_id = ? AND status IN (${terminal}) AND archived_at IS NULL AND deleted_at IS NULL`, sel.experimentId)
        const inRuns = 'run_id IN (SELECT id FROM main.runs)'
        copy('flows', inRuns)
        copy('series', inRuns)
        copy('sample_chunks', 'series_id IN (SELECT id FROM main.series)')
        // Derived from samples, but what charts read at coarse zoom: keep them when both schemas have them.
        if (shared(db, 'rollups').length > 0) copy('rollups', 'series_id IN (SELECT id FROM main.series)')
        copy('events', inRuns)
        copy('logs', inRuns)
        for (const key of sel.artifactKeys) copy('artifacts', 'hash = ?', key)
        return (db.prepare('SELECT id FROM main.runs ORDER BY id').all() as Array<{ id: number }>).map((r) => r.id)
      })(),
    )
  } finally {
    db.close()
  }
}

/** Opens an archive's subset, checks it holds one experiment and brings its schema up to date. */
export function checkSubset(file: string, name: string): { runs: number } {
  let db: DB
  try {
    db = new Database(file, { fileMustExist: true })
  } catch (err) {
    throw new ArchiveRefusedError(name, `not a SQLite database (${(err as Error).message})`)
  }
  try {
    // A damaged page would surface later, halfway through the import, as a bare SQLite error.
    const integrity = db.pragma('integrity_check', { simple: true }) as string
    if (integrity !== 'ok') throw new ArchiveRefusedError(name, `a damaged SQLite file (integrity check: ${integrity})`)
    const version = db.pragma('user_version', { simple: true }) as number
    if (version > SCHEMA_VERSION) {
      throw new ArchiveRefusedError(name, `written by a newer p4lab (schema ${version}, this one reads up to ${SCHEMA_VERSION}); upgrade p4lab`)
    }
    try {
      migrate(db, file)
    } catch (err) {
      throw new ArchiveRefusedError(name, `not a p4lab database (${(err as Error).message})`)
    }
    checkSchema(db, name)
    const exps = (db.prepare('SELECT COUNT(*) AS n FROM experiments').get() as { n: number }).n
    if (exps !== 1) throw new ArchiveRefusedError(name, `holds ${exps} experiments; an archive holds exactly one`)
    checkOwnRows(db, name)
    checkJson(db, name)
    return { runs: (db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n }
  } catch (err) {
    if (err instanceof ArchiveRefusedError) throw err
    throw new ArchiveRefusedError(name, `unreadable (${(err as Error).message})`)
  } finally {
    db.close()
  }
}

/** Every table and column p4lab's own schema has (at the version the file was brought to) is there. */
function checkSchema(db: DB, name: string): void {
  const ref = new Database(':memory:')
  try {
    migrate(ref, ':memory:')
    const tables = ref.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]
    for (const table of tables) {
      const have = new Set(columns(db, 'main', table))
      if (have.size === 0) throw new ArchiveRefusedError(name, `has no table ${table}; not a p4lab database`)
      const missing = columns(ref, 'main', table).filter((c) => !have.has(c))
      if (missing.length > 0) throw new ArchiveRefusedError(name, `table ${table} lacks column ${missing.join(', ')}; not a p4lab database`)
    }
  } finally {
    ref.close()
  }
}

/** The columns that hold JSON, as the store reads them back. */
const JSON_COLUMNS: Record<string, string[]> = {
  experiments: ['spec', 'tags', 'store_tags'],
  runs: ['params', 'stats', 'counters', 'facts', 'completion', 'tags', 'testbed'],
  artifacts: ['options', 'outputs'],
  series: ['entity'],
  events: ['detail'],
}

function checkJson(db: DB, name: string): void {
  for (const [table, cols] of Object.entries(JSON_COLUMNS)) {
    const present = new Set(columns(db, 'main', table))
    for (const col of cols.filter((c) => present.has(c))) {
      const bad = db.prepare(`SELECT rowid AS r FROM ${table} WHERE ${col} IS NOT NULL AND (typeof(${col}) <> 'text' OR NOT json_valid(${col})) LIMIT 1`).get() as { r: number } | undefined
      if (bad) throw new ArchiveRefusedError(name, `table ${table}, row ${bad.r}: column ${col} is not valid JSON`)
    }
  }
  const exp = db.prepare("SELECT json_type(spec) AS spec, json_type(tags) AS tags FROM experiments").get() as { spec: string; tags: string }
  if (exp.spec !== 'object' || exp.tags !== 'array') throw new ArchiveRefusedError(name, 'the experiment row has a spec that is not a JSON object or tags that are not a JSON array')
}

/**
 * Every row belongs to the archive's experiment: runs to its one experiment, rows with a
 * run_id to one of its runs, rows with a series_id to one of its series. A row that points
 * elsewhere (run_id = -3, say) would, after the id shift, land in a run of the user's own.
 * The declared foreign keys are checked too, but a crafted file may declare none.
 */
function checkOwnRows(db: DB, name: string): void {
  const refuse = (table: string, n: number, what: string) => {
    throw new ArchiveRefusedError(name, `${n} row(s) of table ${table} ${what}; an archive's rows belong to its own experiment, runs and series only`)
  }
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n
  const bad = count('SELECT COUNT(*) AS n FROM runs WHERE experiment_id IS NOT (SELECT id FROM experiments)')
  if (bad > 0) refuse('runs', bad, "belong to another experiment than the archive's")
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]
  for (const table of tables) {
    const cols = new Set(columns(db, 'main', table))
    const quoted = `"${table.replaceAll('"', '""')}"`
    if (cols.has('run_id') && table !== 'runs') {
      const n = count(`SELECT COUNT(*) AS n FROM ${quoted} WHERE run_id IS NULL OR run_id NOT IN (SELECT id FROM runs)`)
      if (n > 0) refuse(table, n, "point to a run that is not in the archive")
    }
    if (cols.has('series_id') && table !== 'series') {
      const n = count(`SELECT COUNT(*) AS n FROM ${quoted} WHERE series_id IS NULL OR series_id NOT IN (SELECT id FROM series)`)
      if (n > 0) refuse(table, n, 'point to a series that is not in the archive')
    }
  }
  const badJson = count("SELECT COUNT(*) AS n FROM artifacts WHERE NOT json_valid(outputs) OR json_type(outputs) IS NOT 'object'")
  if (badJson > 0) refuse('artifacts', badJson, 'have outputs that are not a JSON object')
  const broken = db.prepare('PRAGMA foreign_key_check').all() as Array<{ table: string; rowid: number; parent: string }>
  if (broken.length > 0) {
    const f = broken[0]
    refuse(f.table, broken.length, `break a foreign key (the first: rowid ${f.rowid} points to a missing row of ${f.parent})`)
  }
}

export interface ImportedIds {
  experimentId: number
  /** The name it was stored under: the archive's, or `NAME (N)` when an experiment here has that name. */
  name: string
  /** Archive run id → new run id. */
  runs: Map<number, number>
}

/**
 * Copies the subset into the database at `targetFile` with new ids (runs and series shifted
 * past the target's largest, so their order is kept; events and logs numbered anew), all in
 * one transaction. `experimentFile(id)` becomes the experiment's file (where import puts its YAML).
 */
export function importSubset(targetFile: string, subsetFile: string, experimentFile: (experimentId: number) => string | null): ImportedIds {
  const db = new Database(targetFile)
  try {
    db.pragma('busy_timeout = 5000')
    db.pragma('foreign_keys = ON')
    return withAttached(db, subsetFile, () =>
      db
        .transaction((): ImportedIds => {
          // Names are unique: an archive whose name is taken here comes in as `NAME (N)`, a
          // revision of its own saying so (its runs keep their records of the text they ran).
          const src = db.prepare('SELECT id, name, yaml, spec, revision FROM src.experiments').get() as { id: number; name: string; yaml: string; spec: string; revision: number }
          const taken = (n: string) => db.prepare('SELECT 1 FROM main.experiments WHERE name = ?').get(n) !== undefined
          let name = src.name
          for (let i = 2; taken(name); i++) name = `${src.name} (${i})`
          // An archived experiment's archive comes in shown: set-aside marks are this store's own.
          const expCols = shared(db, 'experiments').filter((c) => c !== 'id' && c !== 'file' && c !== 'name' && c !== 'archived_at' && c !== 'deleted_at')
          const { lastInsertRowid } = db
            .prepare(`INSERT INTO main.experiments (name, ${expCols.join(', ')}) SELECT ?, ${expCols.join(', ')} FROM src.experiments`)
            .run(name)
          const experimentId = Number(lastInsertRowid)
          db.prepare('UPDATE main.experiments SET file = ? WHERE id = ?').run(experimentFile(experimentId), experimentId)
          const revCols = shared(db, 'experiment_revisions').filter((c) => c !== 'id' && c !== 'experiment_id')
          db.prepare(`INSERT INTO main.experiment_revisions (experiment_id, ${revCols.join(', ')}) SELECT ?, ${revCols.join(', ')} FROM src.experiment_revisions ORDER BY rev`).run(experimentId)
          if (name !== src.name) {
            const next = renamed(src.yaml, JSON.parse(src.spec), name)
            const rev = src.revision + 1
            insertRevision(db, { experimentId, rev, name, yaml: next.yaml, spec: next.spec, note: `imported as ${name}: an experiment named ${src.name} was already here`, at: new Date().toISOString() })
            db.prepare('UPDATE main.experiments SET name = ?, yaml = ?, spec = ?, revision = ? WHERE id = ?').run(name, next.yaml, JSON.stringify(next.spec), rev, experimentId)
          }

          const offset = (table: string) => {
            const { hi } = db.prepare(`SELECT COALESCE(MAX(id), 0) AS hi FROM main.${table}`).get() as { hi: number }
            const { lo } = db.prepare(`SELECT COALESCE(MIN(id), 1) AS lo FROM src.${table}`).get() as { lo: number }
            return hi + 1 - lo
          }
          const runShift = offset('runs')
          const seriesShift = offset('series')
          const insert = (table: string, replaced: Record<string, string>, omit: string[] = [], order = '') => {
            const list = shared(db, table).filter((c) => !omit.includes(c))
            const from = list.map((c) => replaced[c] ?? c).join(', ')
            db.prepare(`INSERT INTO main.${table} (${list.join(', ')}) SELECT ${from} FROM src.${table} ${order}`).run()
          }
          insert('runs', { id: `id + ${runShift}`, experiment_id: String(experimentId), archived_at: 'NULL', deleted_at: 'NULL' }, [], 'ORDER BY id')
          insert('flows', { run_id: `run_id + ${runShift}` })
          insert('series', { id: `id + ${seriesShift}`, run_id: `run_id + ${runShift}` }, [], 'ORDER BY id')
          // Renumbered in their order: among chunks that overlap, the later id wins.
          insert('sample_chunks', { series_id: `series_id + ${seriesShift}` }, ['id'], 'ORDER BY id')
          if (shared(db, 'rollups').length > 0) insert('rollups', { series_id: `series_id + ${seriesShift}` })
          insert('events', { run_id: `run_id + ${runShift}` }, ['id'], 'ORDER BY id')
          insert('logs', { run_id: `run_id + ${runShift}` }, ['id'], 'ORDER BY id')
          // Kept as the record of what the runs were built from, but marked as the archive's:
          // the build step never takes such a row as a cache hit (p4build/build.ts).
          const acols = shared(db, 'artifacts').filter((c) => c !== 'id')
          const afrom = acols.map((c) => (c === 'outputs' ? `json_set(outputs, '$.origin', 'archive')` : c))
          db.prepare(`INSERT OR IGNORE INTO main.artifacts (${acols.join(', ')}) SELECT ${afrom.join(', ')} FROM src.artifacts ORDER BY id`).run()

          const runs = new Map<number, number>()
          for (const r of db.prepare('SELECT id FROM src.runs ORDER BY id').all() as Array<{ id: number }>) runs.set(r.id, r.id + runShift)
          return { experimentId, name, runs }
        })
        .immediate(),
    )
  } finally {
    db.close()
  }
}

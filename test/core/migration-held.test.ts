// Migration 14 on a database written before it (schema 13): the runs table takes the status
// 'held', and every column of its runs and every row that hangs off a run are kept.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { MIGRATIONS, openStore, SCHEMA_VERSION, type Store } from '../../src-main/core/store'
import { danglingRows } from '../../src-main/core/store/migrations'

let store: Store | undefined
afterEach(() => {
  store?.close()
  store = undefined
})

const AT = '2026-11-01T00:00:00.000Z'

/** Schema 13, as p4lab wrote it: a run with every column set, a flow, a log line, an event. */
function schema13(file: string): void {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  for (const m of MIGRATIONS.slice(0, 13)) m.up(db)
  db.pragma('user_version = 13')
  db.exec(`INSERT INTO experiments (id, name, yaml, spec, created_at) VALUES (1, 'e', 'name: e\n', '{}', '${AT}')`)
  db.prepare(
    `INSERT INTO runs (id, experiment_id, target, scheme, load, seed, params, status, owner, created_at, started_at, finished_at, error, stats, counters, facts, completion, revision, record, heartbeat_at, tags, notes, archived_at, deleted_at, testbed)
     VALUES (7, 1, 'lab', 'ecmp', 0.3, 2, '{"k":1}', 'failed', 'o', '${AT}', '${AT}', '${AT}', 'why', '{"flows":1}', '{"c":1}', '{"f":"x"}', '{"flows":1}', 1, '{"revision":1}', '${AT}', '["t"]', 'a note', NULL, NULL, '{"name":"lab"}')`,
  ).run()
  db.prepare('INSERT INTO flows (run_id, id, src, dst, size_bytes, start_ns, finish_ns, fct_ns) VALUES (7, 0, 0, 1, 100, 0, 10, 10)').run()
  db.prepare(`INSERT INTO logs (run_id, source, at, line) VALUES (7, 'sw1', '${AT}', 'a line')`).run()
  db.prepare(`INSERT INTO events (run_id, t_ns, at, kind, detail) VALUES (7, NULL, '${AT}', 'status', '{"to":"failed"}')`).run()
  db.close()
}

describe('migration 14: held runs', () => {
  it("opens a schema-13 database with its runs as they were, and stores a run as 'held'", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'p4lab-mig14-')), 'old.db')
    schema13(file)
    const before = new Database(file, { readonly: true })
    const row = before.prepare('SELECT * FROM runs WHERE id = 7').get()
    before.close()

    // Refused before: the status CHECK does not know 'held'.
    const old = new Database(file)
    expect(() => old.prepare("UPDATE runs SET status = 'held' WHERE id = 7").run()).toThrow(/CHECK constraint failed/)
    old.close()

    store = openStore(file)
    store.close()
    store = undefined
    const db = new Database(file)
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(db.prepare('SELECT * FROM runs WHERE id = 7').get()).toEqual(row)
    expect(db.prepare('SELECT count(*) AS n FROM flows WHERE run_id = 7').get()).toEqual({ n: 1 })
    expect(db.prepare('SELECT count(*) AS n FROM logs WHERE run_id = 7').get()).toEqual({ n: 1 })
    expect(db.prepare('SELECT count(*) AS n FROM events WHERE run_id = 7').get()).toEqual({ n: 1 })
    expect(db.pragma('foreign_key_check')).toEqual([])
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' ORDER BY name").pluck().all()).toEqual(['runs_by_experiment', 'runs_by_status'])
    db.close()

    store = openStore(file)
    const [held] = store.createRuns(1, 'lab', 'o', [{ scheme: 'ecmp', load: 0.3, seed: 3, params: {} }])
    expect(store.setRunStatus(held.id, 'held', { error: "not started: testbed 'lab' could not be reached" }).status).toBe('held')
  })

  it('checks only the rebuilt table and those that reference it: a telemetry row already pointing at nothing is neither counted nor read', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'p4lab-mig14-')), 'scope.db')
    schema13(file)
    const db = new Database(file)
    db.pragma('foreign_keys = OFF')
    // Written with foreign keys off: a sample chunk of a series that is gone, and a flow of a run that is gone.
    db.prepare('INSERT INTO series (id, run_id, kind, entity, unit) VALUES (5, 7, ?, ?, ?)').run('link.util', '{}', 'ratio')
    db.prepare('INSERT INTO flows (run_id, id, src, dst, size_bytes, start_ns, finish_ns, fct_ns) VALUES (99, 0, 0, 1, 100, 0, 10, 10)').run()
    db.exec('DELETE FROM series WHERE id = 5')
    db.prepare('INSERT INTO sample_chunks (series_id, t_first_ns, t_last_ns, n, t, v) VALUES (5, 0, 0, 1, NULL, ?)').run(Buffer.alloc(8))
    expect(danglingRows(db)).toBe(2)
    expect(danglingRows(db, ['runs'])).toBe(1)
    expect(danglingRows(db, ['slurm_jobs'])).toBe(0)
    db.close()
    // Migration 14 adds no such row, so it goes through with the two left as they were.
    store = openStore(file)
    store.close()
    store = undefined
    const after = new Database(file, { readonly: true })
    expect(after.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(danglingRows(after)).toBe(2)
    after.close()
  })
})

// Migration 4 on a database written before it (schema 3): the runs table takes the status
// 'incomplete' and a completion column, nothing that hangs off a run is lost, and every done run
// is judged by the rule runs end by now. A BMv2 run whose 600 flows all failed was stored as
// done; it opens as incomplete, with its numbers, its likely cause and a status event saying so.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { MIGRATIONS, openStore, SCHEMA_VERSION, type Store } from '../../src-main/core/store'

let store: Store | undefined
afterEach(() => {
  store?.close()
  store = undefined
})

const STATS = (finished: number) => JSON.stringify({ flows: 600, finished, meanNs: 1e6, p50Ns: 1e6, p99Ns: 1e6, smallMeanNs: null, largeMeanNs: null })

/** Schema 3, as p4lab wrote it: a BMv2 run whose every flow failed, a sim run that finished, a failed run. */
function schema3(file: string): void {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  for (const m of MIGRATIONS.slice(0, 3)) m.up(db)
  db.pragma('user_version = 3')
  const at = '2026-11-01T00:00:00.000Z'
  db.exec(`INSERT INTO experiments (id, name, yaml, spec, created_at) VALUES (1, 'quickstart', 'name: quickstart\n', '{"stopAfterNs":5000000000}', '${at}')`)
  const run = db.prepare(`INSERT INTO runs (id, experiment_id, target, scheme, load, seed, status, owner, created_at, finished_at, error, stats, counters, facts)
    VALUES (?, 1, ?, 'ecmp', 0.3, 1, ?, 'o', '${at}', '${at}', ?, ?, ?, ?)`)
  run.run(1, 'lab', 'done', null, STATS(0), JSON.stringify({ flowsFinished: 0, flowsUnfinished: 0, flowsFailed: 600 }), JSON.stringify({ flowsPerHost: '38 38 38 38 37 37 37 37 37 37 37 37 37 37 37 37' }))
  run.run(2, 'sim', 'done', null, STATS(600), JSON.stringify({ simTimeNs: 80_000_000, drops: 0 }), '{}')
  run.run(3, 'lab', 'failed', 'deploy: no route', null, null, null)
  const flow = db.prepare('INSERT INTO flows (run_id, id, src, dst, size_bytes, start_ns, finish_ns, fct_ns) VALUES (?, ?, 0, 1, 20000, ?, ?, ?)')
  for (let i = 0; i < 600; i++) {
    flow.run(1, i, i * 1000, null, null)
    flow.run(2, i, i * 1000, i * 1000 + 500, 500)
  }
  db.prepare(`INSERT INTO logs (run_id, source, at, line) VALUES (1, 'sw1', '${at}', ?)`).run('! p4lab: ethtool not found: checksum offloads stay on (TCP through BMv2 may see bad checksums)')
  db.prepare(`INSERT INTO events (run_id, t_ns, at, kind, detail) VALUES (1, NULL, '${at}', 'status', '{"from":"collecting","to":"done","error":null}')`).run()
  db.close()
}

describe('migration 4: incomplete runs', () => {
  it('opens a schema-3 database, re-judges its done runs and keeps every row that hangs off a run', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'p4lab-mig4-')), 'old.db')
    schema3(file)
    store = openStore(file)

    const bmv2 = store.getRun(1)!
    expect(bmv2.status).toBe('incomplete')
    expect(bmv2.completion).toMatchObject({ flows: 600, finished: 0, failed: 600, unfinished: 0, complete: false })
    expect(bmv2.completion!.cause).toMatch(/the traffic agents reported 600 failed flows; the deploy log says checksum offloads stayed on/)
    expect(bmv2.error).toMatch(/^0 of 600 flows finished \(600 failed, 0 unfinished\); a run is done when at least 99 % finish\. Likely cause: /)
    const events = store.listEvents(1)
    expect(events.map((e) => (e.detail as { to: string }).to)).toEqual(['done', 'incomplete'])
    expect((events[1].detail as { by: string }).by).toMatch(/database upgrade/)

    const sim = store.getRun(2)!
    expect(sim.status).toBe('done')
    expect(sim.completion).toEqual({ flows: 600, finished: 600, failed: 0, unfinished: 0, unbounded: 0, complete: true, cause: null })
    expect(store.getRun(3)).toMatchObject({ status: 'failed', error: 'deploy: no route', completion: null })

    // Nothing that hangs off the rebuilt runs table was deleted with the old one.
    expect(store.listFlows(1)).toHaveLength(600)
    expect(store.listFlows(2)).toHaveLength(600)
    expect(store.listLogs(1)).toHaveLength(1)

    // The new status is a status the table takes, and a deleted run still takes its rows with it.
    const [r] = store.createRuns(1, 'sim', 'o', [{ scheme: 'rps', load: 0.3, seed: 1, params: {} }])
    store.setRunStatus(r.id, 'running')
    expect(store.setRunStatus(r.id, 'incomplete').status).toBe('incomplete')
    store.close()
    store = undefined
    const db = new Database(file)
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
      expect(db.pragma('foreign_key_check')).toEqual([])
      db.pragma('foreign_keys = ON')
      db.prepare('DELETE FROM runs WHERE id = 2').run()
      expect(db.prepare('SELECT count(*) AS n FROM flows WHERE run_id = 2').get()).toEqual({ n: 0 })
      expect(db.prepare('SELECT count(*) AS n FROM flows WHERE run_id = 1').get()).toEqual({ n: 600 })
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' ORDER BY name").pluck().all()).toEqual(['runs_by_experiment', 'runs_by_status'])
    } finally {
      db.close()
    }
  })
})

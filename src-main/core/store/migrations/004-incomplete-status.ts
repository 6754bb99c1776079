import type { Database } from 'better-sqlite3'
import { incompleteReason, judgeCompletion, simStopNs, type FlowCounts } from '../../completion'
import type { Migration } from './types'

export const incompleteStatus: Migration = {
  name: "runs: status 'incomplete' and how a run's flows ended",
  rebuildsTables: true,
  up(db) {
    db.exec(`
      CREATE TABLE runs_new (
        id            INTEGER PRIMARY KEY,
        experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
        target        TEXT NOT NULL,
        scheme        TEXT NOT NULL,
        load          REAL NOT NULL,
        seed          INTEGER NOT NULL,
        params        TEXT NOT NULL DEFAULT '{}',
        status        TEXT NOT NULL CHECK (status IN
                        ('queued', 'deploying', 'running', 'collecting',
                         'done', 'incomplete', 'failed', 'interrupted', 'cancelled')),
        owner         TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        started_at    TEXT,
        finished_at   TEXT,
        error         TEXT,
        stats         TEXT,
        counters      TEXT,
        facts         TEXT,
        completion    TEXT                     -- JSON RunCompletion: flows finished / failed / unfinished, cause
      );
      INSERT INTO runs_new (id, experiment_id, target, scheme, load, seed, params, status, owner, created_at, started_at, finished_at, error, stats, counters, facts)
        SELECT id, experiment_id, target, scheme, load, seed, params, status, owner, created_at, started_at, finished_at, error, stats, counters, facts FROM runs;
      DROP TABLE runs;
      ALTER TABLE runs_new RENAME TO runs;
      CREATE INDEX runs_by_experiment ON runs (experiment_id, id);
      CREATE INDEX runs_by_status ON runs (status);
    `)
    rejudgeDoneRuns(db)
  },
}

/**
 * Migration 4: every run stored as done is judged by the rule a run ends by now
 * (core/completion.ts), from its flows, counters and log. One that falls short becomes
 * 'incomplete', with its numbers and likely cause as its error and a status event saying the
 * upgrade moved it; every done run gets its completion numbers. Failed flows of older testbed
 * runs are known only by count (counters.flowsFailed), not by their error texts.
 */
function rejudgeDoneRuns(db: Database): void {
  const runs = db.prepare(`SELECT r.id, r.counters, r.facts, e.spec FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.status = 'done' AND r.stats IS NOT NULL`).all() as Array<{
    id: number
    counters: string | null
    facts: string | null
    spec: string
  }>
  const flowCounts = db.prepare(
    `SELECT count(*) AS n,
            coalesce(sum(finish_ns IS NOT NULL), 0) AS finished,
            coalesce(sum(finish_ns IS NULL AND size_bytes < 0), 0) AS unbounded,
            coalesce(sum(finish_ns IS NULL AND size_bytes >= 0), 0) AS open,
            coalesce(sum(finish_ns IS NULL AND size_bytes >= 0 AND start_ns >= ?), 0) AS notStarted,
            max(start_ns) AS lastStart
     FROM flows WHERE run_id = ?`,
  )
  const logLines = db.prepare('SELECT line FROM logs WHERE run_id = ? ORDER BY id').pluck()
  const setCompletion = db.prepare('UPDATE runs SET completion = ? WHERE id = ?')
  const setIncomplete = db.prepare(`UPDATE runs SET status = 'incomplete', error = ?, completion = ? WHERE id = ?`)
  const addEvent = db.prepare(`INSERT INTO events (run_id, t_ns, at, kind, detail) VALUES (?, NULL, ?, 'status', ?)`)
  const at = new Date().toISOString()
  for (const r of runs) {
    const counters = (r.counters ? JSON.parse(r.counters) : {}) as Record<string, number>
    const facts = (r.facts ? JSON.parse(r.facts) : {}) as Record<string, unknown>
    const stopNs = simStopNs(counters)
    const f = flowCounts.get(stopNs ?? Number.MAX_SAFE_INTEGER, r.id) as { n: number; finished: number; unbounded: number; open: number; notStarted: number; lastStart: number | null }
    const failed = Math.min(f.open, typeof counters.flowsFailed === 'number' ? counters.flowsFailed : 0)
    const counts: FlowCounts = {
      n: f.n,
      finished: f.finished,
      failed,
      unbounded: f.unbounded,
      unfinished: f.open - failed,
      notStarted: stopNs === null ? 0 : f.notStarted,
      lastStartNs: f.lastStart ?? -Infinity,
      errors: new Map(),
    }
    const spec = JSON.parse(r.spec) as { stopAfterNs?: number }
    const c = judgeCompletion(counts, { counters, facts, stopAfterNs: spec.stopAfterNs ?? 0, log: () => logLines.all(r.id) as string[] })
    if (c.complete) {
      setCompletion.run(JSON.stringify(c), r.id)
      continue
    }
    const error = incompleteReason(c)
    setIncomplete.run(error, JSON.stringify(c), r.id)
    addEvent.run(r.id, at, JSON.stringify({ from: 'done', to: 'incomplete', error, by: 'database upgrade (schema 4): the run was judged by the rule a run ends by now' }))
  }
}

import type { Migration } from './types'

/** Migration 14: runs may be 'held' (contract/status.ts), which the status CHECK must allow. */
export const heldStatus: Migration = {
  name: "runs: status 'held' (not started, its testbed unreachable)",
  rebuildsTables: true,
  rebuilt: ['runs'],
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
                        ('queued', 'held', 'deploying', 'running', 'collecting',
                         'done', 'incomplete', 'failed', 'interrupted', 'cancelled')),
        owner         TEXT NOT NULL,
        created_at    TEXT NOT NULL,
        started_at    TEXT,
        finished_at   TEXT,
        error         TEXT,
        stats         TEXT,
        counters      TEXT,
        facts         TEXT,
        completion    TEXT,
        revision      INTEGER,
        record        TEXT,
        heartbeat_at  TEXT,
        tags          TEXT NOT NULL DEFAULT '[]',
        notes         TEXT NOT NULL DEFAULT '',
        archived_at   TEXT,
        deleted_at    TEXT,
        testbed       TEXT
      );
      INSERT INTO runs_new (id, experiment_id, target, scheme, load, seed, params, status, owner, created_at, started_at, finished_at, error, stats, counters, facts, completion, revision, record, heartbeat_at, tags, notes, archived_at, deleted_at, testbed)
        SELECT id, experiment_id, target, scheme, load, seed, params, status, owner, created_at, started_at, finished_at, error, stats, counters, facts, completion, revision, record, heartbeat_at, tags, notes, archived_at, deleted_at, testbed FROM runs;
      DROP TABLE runs;
      ALTER TABLE runs_new RENAME TO runs;
      CREATE INDEX runs_by_experiment ON runs (experiment_id, id);
      CREATE INDEX runs_by_status ON runs (status);
    `)
  },
}

import type { Database } from 'better-sqlite3'
import { CHUNK_MAX, encodeTimes, encodeValues } from './samples'
import { incompleteReason, judgeCompletion, simStopNs, type FlowCounts } from '../completion'
import { insertRevision, renamed, type RunRecordJson } from './revisions'

// Schema migrations, in order. Migration i (1-based) brings PRAGMA user_version from
// i - 1 to i. Append new ones; never edit one that has shipped, since databases in the
// field have already run it.
//
// Conventions: JSON columns hold TEXT written by JSON.stringify; times are ISO-8601 wall
// clock in *_at columns and integer nanoseconds (sim or target time) in *_ns columns.
// Secrets (passwords, key passphrases) have no column: they live in the SecretStore.

export interface Migration {
  name: string
  /**
   * Rebuilds a table that others reference (SQLite cannot change a CHECK in place): foreign
   * keys are off while it runs (they can only be switched outside a transaction), and checked
   * before it commits.
   */
  rebuildsTables?: boolean
  up(db: Database): void
}

export const MIGRATIONS: readonly Migration[] = [
  {
    name: 'initial schema',
    up(db) {
      db.exec(`
        CREATE TABLE testbeds (
          id         INTEGER PRIMARY KEY,
          name       TEXT NOT NULL UNIQUE,
          kind       TEXT NOT NULL CHECK (kind IN ('sim', 'bmv2', 'tofino')),
          settings   TEXT NOT NULL DEFAULT '{}',  -- JSON: ports, SDE paths, scaling
          created_at TEXT NOT NULL
        );
        INSERT INTO testbeds (name, kind, settings, created_at)
          VALUES ('sim', 'sim', '{}', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

        CREATE TABLE hosts (
          id         INTEGER PRIMARY KEY,
          testbed_id INTEGER NOT NULL REFERENCES testbeds (id) ON DELETE CASCADE,
          name       TEXT NOT NULL,
          address    TEXT NOT NULL,
          port       INTEGER NOT NULL DEFAULT 22,
          user       TEXT NOT NULL,
          auth       TEXT NOT NULL CHECK (auth IN ('agent', 'key')),
          key_file   TEXT,                       -- a path, never the key itself
          host_key   TEXT,                       -- pinned public host key (known_hosts form)
          role       TEXT NOT NULL DEFAULT '',
          UNIQUE (testbed_id, name)
        );

        CREATE TABLE experiments (
          id         INTEGER PRIMARY KEY,
          name       TEXT NOT NULL,
          yaml       TEXT NOT NULL,              -- verbatim, as the user wrote it
          spec       TEXT NOT NULL,              -- JSON: the parsed, normalised spec
          file       TEXT,
          tags       TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
          notes      TEXT NOT NULL DEFAULT '',
          created_at TEXT NOT NULL
        );
        CREATE INDEX experiments_by_name ON experiments (name);

        CREATE TABLE runs (
          id            INTEGER PRIMARY KEY,
          experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
          target        TEXT NOT NULL,
          scheme        TEXT NOT NULL,
          load          REAL NOT NULL,
          seed          INTEGER NOT NULL,
          params        TEXT NOT NULL DEFAULT '{}',
          status        TEXT NOT NULL CHECK (status IN
                          ('queued', 'deploying', 'running', 'collecting',
                           'done', 'failed', 'interrupted', 'cancelled')),
          owner         TEXT NOT NULL,           -- the process that drives the run
          created_at    TEXT NOT NULL,
          started_at    TEXT,
          finished_at   TEXT,
          error         TEXT,
          stats         TEXT,                    -- JSON FctStats
          counters      TEXT,                    -- JSON
          facts         TEXT                     -- JSON: tool versions, artifact hashes, target mapping
        );
        CREATE INDEX runs_by_experiment ON runs (experiment_id, id);
        CREATE INDEX runs_by_status ON runs (status);

        CREATE TABLE artifacts (
          id         INTEGER PRIMARY KEY,
          hash       TEXT NOT NULL UNIQUE,       -- of P4 source + compiler + options
          target     TEXT NOT NULL,
          program    TEXT NOT NULL,
          compiler   TEXT NOT NULL,
          options    TEXT NOT NULL DEFAULT '[]',
          outputs    TEXT NOT NULL DEFAULT '{}', -- JSON: name -> path or content hash
          log        TEXT NOT NULL DEFAULT '',
          created_at TEXT NOT NULL
        );

        -- id is the flow's index within its run, so (run_id, id) is the key and the
        -- table needs no rowid.
        CREATE TABLE flows (
          run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          id         INTEGER NOT NULL,
          src        INTEGER NOT NULL,
          dst        INTEGER NOT NULL,
          size_bytes INTEGER NOT NULL,
          start_ns   INTEGER NOT NULL,
          finish_ns  INTEGER,                    -- NULL: unfinished when the run stopped
          fct_ns     INTEGER,
          PRIMARY KEY (run_id, id)
        ) WITHOUT ROWID;

        CREATE TABLE series (
          id     INTEGER PRIMARY KEY,
          run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          kind   TEXT NOT NULL,                  -- telemetry vocabulary: link.util, queue.depth, ...
          entity TEXT NOT NULL,                  -- JSON: {switch, port}, {switch, dstTor}, ...
          unit   TEXT NOT NULL
        );
        CREATE INDEX series_by_run ON series (run_id, kind);

        -- The bulk of the database. Keyed by (series, t) so reading one series in time
        -- order is a range scan; a NULL value is a NaN sample.
        CREATE TABLE samples (
          series_id INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
          t_ns      INTEGER NOT NULL,
          value     REAL,
          PRIMARY KEY (series_id, t_ns)
        ) WITHOUT ROWID;

        CREATE TABLE events (
          id     INTEGER PRIMARY KEY,
          run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          t_ns   INTEGER,                        -- sim/target time, when there is one
          at     TEXT NOT NULL,                  -- wall clock
          kind   TEXT NOT NULL,                  -- status, link-down, best-hop, deploy-step, ...
          detail TEXT NOT NULL DEFAULT 'null'
        );
        CREATE INDEX events_by_run ON events (run_id, id);

        CREATE TABLE logs (
          id     INTEGER PRIMARY KEY,
          run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          source TEXT NOT NULL,                  -- host, switch or compiler name
          at     TEXT NOT NULL,
          line   TEXT NOT NULL
        );
        CREATE INDEX logs_by_run ON logs (run_id, id);
      `)
    },
  },
  {
    name: 'telemetry roll-ups',
    up(db) {
      db.exec(`
        -- Per series, buckets of width_ns (1 ms, 10 ms, 100 ms) starting at t_ns (a multiple of
        -- the width): how many non-NaN samples fell in it, their sum (mean = sum / count), min
        -- and max. Kept by the ingest path as samples arrive; readSamples picks a level by the
        -- time range and pixel width asked for.
        CREATE TABLE rollups (
          series_id INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
          width_ns  INTEGER NOT NULL,
          t_ns      INTEGER NOT NULL,
          count     INTEGER NOT NULL,
          sum       REAL NOT NULL,
          min       REAL NOT NULL,
          max       REAL NOT NULL,
          PRIMARY KEY (series_id, width_ns, t_ns)
        ) WITHOUT ROWID;
      `)
    },
  },
  {
    name: 'raw samples in chunks',
    up(db) {
      db.exec(`
        -- Raw samples, many to a row (store/samples.ts): up to 1024 samples of one series in
        -- strictly increasing time order. v holds the n values as little-endian float64 (NaN: no
        -- value); t is NULL when the instants are evenly spaced from t_first_ns to t_last_ns, else
        -- the n instants as little-endian int64. Chunks of a series may overlap (samples out of
        -- order, an instant written again): the one with the larger id, written later, wins.
        CREATE TABLE sample_chunks (
          id         INTEGER PRIMARY KEY,
          series_id  INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
          t_first_ns INTEGER NOT NULL,
          t_last_ns  INTEGER NOT NULL,
          n          INTEGER NOT NULL,
          t          BLOB,
          v          BLOB NOT NULL
        );
        CREATE INDEX sample_chunks_by_series ON sample_chunks (series_id, t_first_ns, t_last_ns);
      `)
      // Every row of samples (one per sample, keyed by series and t, NULL for NaN) becomes part
      // of a chunk, read in key order a page at a time; samples of a series that no longer
      // exists (foreign keys were off) could never be read and are left behind.
      const series = new Set((db.prepare('SELECT id FROM series').pluck().all() as number[]))
      const page = db.prepare('SELECT series_id, t_ns, value FROM samples WHERE (series_id, t_ns) > (?, ?) ORDER BY series_id, t_ns LIMIT ?').raw(true)
      const ins = db.prepare('INSERT INTO sample_chunks (series_id, t_first_ns, t_last_ns, n, t, v) VALUES (?, ?, ?, ?, ?, ?)')
      const t = new Float64Array(CHUNK_MAX)
      const v = new Float64Array(CHUNK_MAX)
      let id = 0
      let n = 0
      const flush = () => {
        if (n > 0 && series.has(id)) ins.run(id, t[0], t[n - 1], n, encodeTimes(t, 0, n), encodeValues(v, 0, n))
        n = 0
      }
      let after: [number, number] = [Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]
      for (;;) {
        const rows = page.all(after[0], after[1], 8 * CHUNK_MAX) as Array<[number, number, number | null]>
        for (const [sid, tNs, value] of rows) {
          // t_ns had INTEGER affinity, so a fractional time was kept as REAL: chunks hold integer
          // nanoseconds, so it is rounded, the later of two that meet keeping the instant.
          const at = Number.isSafeInteger(tNs) ? tNs : Math.round(tNs)
          if (sid === id && n > 0 && at <= t[n - 1]) {
            v[n - 1] = value ?? NaN
            continue
          }
          if (sid !== id || n === CHUNK_MAX) flush()
          id = sid
          t[n] = at
          v[n++] = value ?? NaN
        }
        if (rows.length === 0) break
        const last = rows[rows.length - 1]
        after = [last[0], last[1]]
      }
      flush()
      db.exec('DROP TABLE samples')
    },
  },
  {
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
  },
  {
    name: 'experiment revisions, unique names and run records',
    up(db) {
      db.exec(`
        -- Every saved text of an experiment, numbered from 1; experiments.yaml and .spec are the
        -- current one's (experiments.revision). A run points at the revision it ran (runs.revision)
        -- and keeps its own record of it (runs.record, JSON: yaml, spec, params, reconstructed).
        CREATE TABLE experiment_revisions (
          id            INTEGER PRIMARY KEY,
          experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
          rev           INTEGER NOT NULL,
          name          TEXT NOT NULL,             -- the experiment's name in this revision
          yaml          TEXT NOT NULL,
          spec          TEXT NOT NULL,
          config_key    TEXT NOT NULL,             -- sha256 of the spec without name, description, tags, testbed
          testbed       TEXT NOT NULL,
          note          TEXT NOT NULL DEFAULT '',  -- why it was made: edited, renamed A -> B, imported, ...
          created_at    TEXT NOT NULL,
          UNIQUE (experiment_id, rev)
        );
        ALTER TABLE experiments ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE runs ADD COLUMN revision INTEGER;
        ALTER TABLE runs ADD COLUMN record TEXT;
      `)
      recordRevisions(db)
      db.exec('DROP INDEX experiments_by_name; CREATE UNIQUE INDEX experiments_by_name ON experiments (name);')
    },
  },
  {
    // A run's owner becomes host:pid:bootid:starttime (core/owner.ts); the owner text needs no
    // change of schema. heartbeat_at is when the owner last showed it was alive, which is the
    // time an interrupted run is stamped with once its owner is found gone.
    name: 'run heartbeats',
    up(db) {
      db.exec(`ALTER TABLE runs ADD COLUMN heartbeat_at TEXT`)
    },
  },
  {
    // Slurm sweeps (migration 7). The job ids are stored so any later process can follow,
    // merge and cancel a sweep the app submitted.
    name: 'slurm jobs',
    up(db) {
      db.exec(`
        CREATE TABLE slurm_jobs (
          id            INTEGER PRIMARY KEY,
          experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
          job_id        TEXT NOT NULL,           -- Slurm's id of the job array
          cluster       TEXT NOT NULL,           -- JSON: how the login node is reached (no secret)
          sweep_dir     TEXT NOT NULL,           -- the sweep's folder on the cluster's shared file system
          submitted_at  TEXT NOT NULL,
          ended_at      TEXT
        );
        CREATE INDEX slurm_jobs_by_experiment ON slurm_jobs (experiment_id, id);
        CREATE TABLE slurm_tasks (
          run_id        INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
          slurm_job     INTEGER NOT NULL REFERENCES slurm_jobs (id) ON DELETE CASCADE,
          array_index   INTEGER NOT NULL,
          state         TEXT NOT NULL,           -- as Slurm names it: PENDING, RUNNING, COMPLETED, FAILED ...
          reason        TEXT,
          settled       INTEGER NOT NULL DEFAULT 0,  -- 1 once the outcome is in the run
          updated_at    TEXT NOT NULL,
          UNIQUE (slurm_job, array_index)
        );
      `)
    },
  },
]

/**
 * Migration 6: each experiment's text becomes its revision 1, and each of its runs gets a record
 * from that spec, marked reconstructed (the release before kept no copy of what a run ran with,
 * and the text may have been edited since). Names become unique: of experiments sharing a name
 * (an archive imported twice, a file run again after an edit), the newest keeps it and each older
 * one is renamed "NAME (ID)" in a revision 2 that says why, so nothing is lost.
 */
function recordRevisions(db: Database): void {
  const at = new Date().toISOString()
  const exps = db.prepare('SELECT id, name, yaml, spec, created_at FROM experiments ORDER BY id').all() as Array<{ id: number; name: string; yaml: string; spec: string; created_at: string }>
  const setRecord = db.prepare('UPDATE runs SET revision = 1, record = ? WHERE id = ?')
  const runsOf = db.prepare('SELECT id, params FROM runs WHERE experiment_id = ?')
  for (const e of exps) {
    const spec = JSON.parse(e.spec) as { params?: Record<string, unknown> }
    insertRevision(db, { experimentId: e.id, rev: 1, name: e.name, yaml: e.yaml, spec, note: 'as stored before revisions were kept', at: e.created_at })
    for (const r of runsOf.all(e.id) as Array<{ id: number; params: string }>) {
      const record: RunRecordJson = { revision: 1, yaml: e.yaml, spec, params: { ...(spec.params ?? {}), ...(JSON.parse(r.params) as Record<string, unknown>) }, reconstructed: true }
      setRecord.run(JSON.stringify(record), r.id)
    }
  }
  const taken = new Set(exps.map((e) => e.name))
  const newest = new Map<string, number>()
  for (const e of exps) newest.set(e.name, e.id)
  const rename = db.prepare('UPDATE experiments SET name = ?, yaml = ?, spec = ?, revision = 2 WHERE id = ?')
  for (const e of exps) {
    if (newest.get(e.name) === e.id) continue
    let name = `${e.name} (${e.id})`
    for (let i = 2; taken.has(name); i++) name = `${e.name} (${e.id}-${i})`
    taken.add(name)
    const next = renamed(e.yaml, JSON.parse(e.spec), name)
    insertRevision(db, { experimentId: e.id, rev: 2, name, yaml: next.yaml, spec: next.spec, note: `renamed ${e.name} -> ${name} by the database upgrade: experiment names are unique, and experiment ${newest.get(e.name)} is the newest named ${e.name}`, at })
    rename.run(name, next.yaml, JSON.stringify(next.spec), e.id)
  }
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

export const SCHEMA_VERSION = MIGRATIONS.length

/**
 * Brings the database to SCHEMA_VERSION, one transaction per migration so a failure
 * leaves it at the last good version. Refuses a database from a newer p4lab: guessing
 * at an unknown schema risks corrupting someone's results. Each step takes the write
 * lock first and re-reads the version, so two processes opening a new file at once
 * (the app and the CLI) do not both run a migration.
 */
export function migrate(db: Database, file: string): void {
  const version = () => db.pragma('user_version', { simple: true }) as number
  const refuseNewer = (v: number) => {
    if (v > SCHEMA_VERSION) {
      throw new Error(
        `${file}: database schema version ${v} is newer than this p4lab supports ` +
          `(${SCHEMA_VERSION}); upgrade p4lab, or open a different database file`,
      )
    }
  }
  refuseNewer(version())
  while (version() < SCHEMA_VERSION) {
    const rebuilds = MIGRATIONS[version()].rebuildsTables === true
    const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number
    if (rebuilds) db.pragma('foreign_keys = OFF')
    try {
      db.transaction(() => {
        const v = version()
        refuseNewer(v)
        if (v >= SCHEMA_VERSION) return
        // Another process moved the version meanwhile: a rebuild only ever runs with foreign keys
        // off (dropping a referenced table with them on would delete its children); go round again.
        if (MIGRATIONS[v].rebuildsTables && db.pragma('foreign_keys', { simple: true })) return
        // Rows already pointing at nothing (written with foreign keys off) are left as they are;
        // a rebuild must not add any.
        const dangling = () => (MIGRATIONS[v].rebuildsTables ? (db.pragma('foreign_key_check') as unknown[]).length : 0)
        const before = dangling()
        MIGRATIONS[v].up(db)
        const after = dangling()
        if (after > before) throw new Error(`${file}: migration ${v + 1} (${MIGRATIONS[v].name}) would leave ${after - before} more rows pointing at nothing`)
        db.pragma(`user_version = ${v + 1}`)
      }).immediate()
    } finally {
      if (rebuilds) db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`)
    }
  }
}

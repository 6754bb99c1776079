import type { Migration } from './types'

export const initialSchema: Migration = {
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
}

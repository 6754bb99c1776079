import type { Migration } from './types'

export const rollups: Migration = {
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
}

import { CHUNK_MAX, encodeTimes, encodeValues } from '../samples'
import type { Migration } from './types'

export const sampleChunks: Migration = {
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
}

import type { Statement } from 'better-sqlite3'
import type { StoreContext } from './rows'

// Telemetry roll-ups (per series: 1 ms / 10 ms / 100 ms buckets of count, sum, min, max) and
// the bulk sample writes the ingest path uses. The ingest path (core/telemetry/ingest.ts)
// keeps the buckets as samples arrive and writes them here; rebuildRollups recomputes them
// from the raw samples when the incremental state cannot be trusted (samples out of order
// or replaced).

/** The roll-up levels, bucket widths in ns. */
export const ROLLUP_WIDTHS_NS = [1_000_000, 10_000_000, 100_000_000] as const

/** Column-wise roll-up rows: bucket i is (seriesId[i], widthNs[i], tNs[i]). */
export interface RollupRows {
  seriesId: ArrayLike<number>
  widthNs: ArrayLike<number>
  tNs: ArrayLike<number>
  count: ArrayLike<number>
  sum: ArrayLike<number>
  min: ArrayLike<number>
  max: ArrayLike<number>
  length: number
}

/**
 * Rows per multi-row INSERT. Binding 3 × 64 parameters per call costs less than 64 calls
 * (better-sqlite3's per-call overhead dominates a 3-column insert); see bench/ingest.ts.
 */
const CHUNK = 64

function chunked(s: StoreContext, head: string, tuple: string, n: number): Statement {
  return s.stmt(`${head} ${Array.from({ length: n }, () => tuple).join(',')}`)
}

/**
 * Writes samples given as parallel columns (series id, t, value), in the caller's transaction
 * (or its own). A sample repeated at the same (series, t) replaces the earlier one; NaN is NULL.
 */
export function insertSampleRows(s: StoreContext, seriesId: ArrayLike<number>, tNs: ArrayLike<number>, value: ArrayLike<number>, from = 0, to = seriesId.length): void {
  const many = chunked(s, 'INSERT OR REPLACE INTO samples (series_id, t_ns, value) VALUES', '(?, ?, ?)', CHUNK)
  const one = s.stmt('INSERT OR REPLACE INTO samples (series_id, t_ns, value) VALUES (?, ?, ?)')
  const args = new Array<number | null>(3 * CHUNK)
  const write = () => {
    let i = from
    for (; i + CHUNK <= to; i += CHUNK) {
      let k = 0
      for (let j = i; j < i + CHUNK; j++) {
        const v = value[j]
        args[k++] = seriesId[j]
        args[k++] = tNs[j]
        args[k++] = Number.isNaN(v) ? null : v
      }
      many.run(args)
    }
    for (; i < to; i++) {
      const v = value[i]
      one.run(seriesId[i], tNs[i], Number.isNaN(v) ? null : v)
    }
  }
  if (s.db.inTransaction) write()
  else s.db.transaction(write)()
}

/**
 * Samples of several series at shared instants, series-major (values[i * t.length + j] is
 * seriesIds[i] at t[j]), written with the same multi-row statements.
 */
export function insertSampleFrame(s: StoreContext, seriesIds: ArrayLike<number>, t: ArrayLike<number>, values: ArrayLike<number>): void {
  const n = t.length
  const total = seriesIds.length * n
  const many = chunked(s, 'INSERT OR REPLACE INTO samples (series_id, t_ns, value) VALUES', '(?, ?, ?)', CHUNK)
  const one = s.stmt('INSERT OR REPLACE INTO samples (series_id, t_ns, value) VALUES (?, ?, ?)')
  const args = new Array<number | null>(3 * CHUNK)
  const write = () => {
    let k = 0
    for (let i = 0; i < seriesIds.length; i++) {
      const id = seriesIds[i]
      const base = i * n
      for (let j = 0; j < n; j++) {
        const v = values[base + j]
        args[k++] = id
        args[k++] = t[j]
        args[k++] = Number.isNaN(v) ? null : v
        if (k === 3 * CHUNK) {
          many.run(args)
          k = 0
        }
      }
    }
    for (let r = 0; r < k; r += 3) one.run(args[r], args[r + 1], args[r + 2])
  }
  if (total === 0) return
  if (s.db.inTransaction) write()
  else s.db.transaction(write)()
}

/** Writes (replaces) roll-up buckets: each row holds the bucket's whole state so far. */
export function writeRollups(s: StoreContext, r: RollupRows): void {
  const head = 'INSERT OR REPLACE INTO rollups (series_id, width_ns, t_ns, count, sum, min, max) VALUES'
  const tuple = '(?, ?, ?, ?, ?, ?, ?)'
  const many = chunked(s, head, tuple, CHUNK)
  const one = s.stmt(`${head} ${tuple}`)
  const args = new Array<number>(7 * CHUNK)
  const write = () => {
    let i = 0
    for (; i + CHUNK <= r.length; i += CHUNK) {
      let k = 0
      for (let j = i; j < i + CHUNK; j++) {
        args[k++] = r.seriesId[j]
        args[k++] = r.widthNs[j]
        args[k++] = r.tNs[j]
        args[k++] = r.count[j]
        args[k++] = r.sum[j]
        args[k++] = r.min[j]
        args[k++] = r.max[j]
      }
      many.run(args)
    }
    for (; i < r.length; i++) one.run(r.seriesId[i], r.widthNs[i], r.tNs[i], r.count[i], r.sum[i], r.min[i], r.max[i])
  }
  if (r.length === 0) return
  if (s.db.inTransaction) write()
  else s.db.transaction(write)()
}

/** Recomputes every roll-up level of these series from their raw samples. */
export function rebuildRollups(s: StoreContext, seriesIds: readonly number[], widths: readonly number[] = ROLLUP_WIDTHS_NS): void {
  const del = s.stmt('DELETE FROM rollups WHERE series_id = ? AND width_ns = ?')
  const ins = s.stmt(
    `INSERT INTO rollups (series_id, width_ns, t_ns, count, sum, min, max)
       SELECT series_id, CAST(@w AS INTEGER), (t_ns / CAST(@w AS INTEGER)) * CAST(@w AS INTEGER) AS b, count(value), sum(value), min(value), max(value)
         FROM samples WHERE series_id = @id AND value IS NOT NULL GROUP BY b`,
  )
  s.db.transaction(() => {
    for (const id of seriesIds) {
      for (const w of widths) {
        del.run(id, w)
        ins.run({ id, w })
      }
    }
  })()
}

/** Which roll-up widths a run has (some levels are not kept for series sampled that coarsely). */
export function rollupWidths(s: StoreContext, runId: number): number[] {
  const rows = s
    .stmt('SELECT DISTINCT r.width_ns AS w FROM rollups r JOIN series x ON x.id = r.series_id WHERE x.run_id = ? ORDER BY w')
    .all(runId) as Array<{ w: number }>
  return rows.map((r) => r.w)
}

export interface RollupRead {
  t: number[]
  count: number[]
  mean: number[]
  min: number[]
  max: number[]
}

/** One series' buckets of one width with t in [fromNs, toNs]. */
export function readRollups(s: StoreContext, seriesId: number, widthNs: number, fromNs = -Infinity, toNs = Infinity): RollupRead {
  const rows = s
    .stmt('SELECT t_ns, count, sum, min, max FROM rollups WHERE series_id = ? AND width_ns = ? AND t_ns >= ? AND t_ns <= ? ORDER BY t_ns')
    .raw(true)
    .all(seriesId, widthNs, toSql(fromNs), toSql(toNs)) as Array<[number, number, number, number, number]>
  const out: RollupRead = { t: [], count: [], mean: [], min: [], max: [] }
  for (const [t, c, sum, mn, mx] of rows) {
    out.t.push(t)
    out.count.push(c)
    out.mean.push(sum / c)
    out.min.push(mn)
    out.max.push(mx)
  }
  return out
}

/** SQLite integers cannot be ±Infinity; clamp to the widest range a t_ns can take. */
export function toSql(t: number): number {
  return t === -Infinity ? Number.MIN_SAFE_INTEGER : t === Infinity ? Number.MAX_SAFE_INTEGER : t
}

/**
 * The roll-up width to read for a time range shown across `pixels` columns: the coarsest kept
 * width that still gives at least one bucket per pixel, or null (raw samples) when even the
 * finest width is coarser than a pixel.
 */
export function pickRollupWidth(rangeNs: number, pixels: number, kept: readonly number[]): number | null {
  if (!(rangeNs > 0) || !(pixels > 0)) return null
  const perPixel = rangeNs / pixels
  let best: number | null = null
  for (const w of kept) if (w <= perPixel && (best === null || w > best)) best = w
  return best
}

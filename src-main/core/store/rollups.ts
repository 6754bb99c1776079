import type { Statement } from 'better-sqlite3'
import type { StoreContext } from './rows'
import { readSeries, toSql } from './samples'

// Telemetry roll-ups (per series: 1 ms / 10 ms / 100 ms buckets of count, sum, min, max). The
// ingest path (core/telemetry/ingest.ts) keeps the buckets as samples arrive and writes them
// here; rebuildRollups recomputes them from the raw samples (samples.ts) when the incremental
// state cannot be trusted (samples out of order or replaced).

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
 * Rows per multi-row INSERT. Binding 7 × 64 parameters per call costs a little less than 64
 * calls; what a roll-up row really costs is the B-tree page it dirties (see bench/ingest.ts).
 */
const CHUNK = 64

function chunked(s: StoreContext, head: string, tuple: string, n: number): Statement {
  return s.stmt(`${head} ${Array.from({ length: n }, () => tuple).join(',')}`)
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
  else s.write(write)
}

/** Recomputes every roll-up level of these series from their raw samples. */
export function rebuildRollups(s: StoreContext, seriesIds: readonly number[], widths: readonly number[] = ROLLUP_WIDTHS_NS): void {
  const del = s.stmt('DELETE FROM rollups WHERE series_id = ? AND width_ns = ?')
  s.write(() => {
    for (const id of seriesIds) {
      const { t, v } = readSeries(s, id)
      for (const w of widths) {
        del.run(id, w)
        writeRollups(s, bucketsOf(id, w, t, v))
      }
    }
  })
}

/** The buckets of width w over samples in time order (NaN samples left out), as rows in key order. */
function bucketsOf(seriesId: number, w: number, t: ArrayLike<number>, v: ArrayLike<number>): RollupRows {
  const r = { seriesId: [] as number[], widthNs: [] as number[], tNs: [] as number[], count: [] as number[], sum: [] as number[], min: [] as number[], max: [] as number[], length: 0 }
  let start = NaN
  let count = 0
  let sum = 0
  let min = Infinity
  let max = -Infinity
  const close = () => {
    if (count === 0) return
    r.seriesId.push(seriesId)
    r.widthNs.push(w)
    r.tNs.push(start)
    r.count.push(count)
    r.sum.push(sum)
    r.min.push(min)
    r.max.push(max)
    r.length++
  }
  for (let k = 0; k < t.length; k++) {
    const x = v[k]
    if (Number.isNaN(x)) continue
    // Truncating division, as the ingest path (and SQLite's integer division) buckets.
    const b = t[k] - (t[k] % w)
    if (b !== start) {
      close()
      start = b
      count = 0
      sum = 0
      min = Infinity
      max = -Infinity
    }
    count++
    sum += x
    if (x < min) min = x
    if (x > max) max = x
  }
  close()
  return r
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

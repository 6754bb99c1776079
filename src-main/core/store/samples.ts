import { endianness } from 'node:os'
import type { Database, Statement } from 'better-sqlite3'
import type { StoreContext } from './rows'

// Raw telemetry samples, stored in chunks (table sample_chunks, migration 3): one row holds up
// to CHUNK_MAX samples of one series in strictly increasing time order, as two blobs:
//
// - v: the n values, little-endian float64; NaN is a sample without a value.
// - t: NULL when the instants are evenly spaced from t_first_ns to t_last_ns (a frame at a
//   fixed sampling interval, or n = 1), else the n instants as little-endian int64 (ns).
//
// One row per frame and series instead of one per sample is what makes ingest cheap: a row
// (and its B-tree work) carries a hundred samples or more. A chunk never holds an instant
// twice; chunks of one series may overlap (samples out of order, or an instant written again),
// and then the sample from the chunk written last (largest id) wins. Reads resolve that
// (readSeries); compactSamples rewrites a series as disjoint chunks.

/** Most samples a chunk holds: 8 KiB of values. */
export const CHUNK_MAX = 1024

/** Series whose chunks average fewer samples than this are worth compacting (compactSamples). */
const COMPACT_BELOW = 64

const LE = endianness() === 'LE'

const INSERT_CHUNK = 'INSERT INTO sample_chunks (series_id, t_first_ns, t_last_ns, n, t, v) VALUES (?, ?, ?, ?, ?, ?)'
const READ_CHUNKS = 'SELECT id, t_first_ns, t_last_ns, n, t, v FROM sample_chunks WHERE series_id = ? AND t_first_ns <= ? AND t_last_ns >= ? ORDER BY t_first_ns'

/** A chunk row as read (raw): id, t_first_ns, t_last_ns, n, t, v. */
type ChunkRow = [number, number, number, number, Buffer | null, Buffer]

/** One series' samples in time order, each instant once. */
export interface SeriesSamples {
  t: Float64Array
  v: Float64Array
}

/** SQLite integers cannot be ±Infinity; clamp to the widest range a t_ns can take. */
export function toSql(t: number): number {
  return t === -Infinity ? Number.MIN_SAFE_INTEGER : t === Infinity ? Number.MAX_SAFE_INTEGER : t
}

function badTime(x: number): never {
  throw new RangeError(`sample times must be integer nanoseconds within ±2^53, got ${x}`)
}

// ---- the codec ----

/** The instants t[from..to) (strictly increasing): null when evenly spaced, else int64 LE. */
export function encodeTimes(t: ArrayLike<number>, from: number, to: number): Buffer | null {
  const n = to - from
  const first = t[from]
  if (!Number.isSafeInteger(first)) badTime(first)
  if (n === 1) return null
  const last = t[to - 1]
  if (!Number.isSafeInteger(last)) badTime(last)
  const step = (last - first) / (n - 1)
  let even = Number.isSafeInteger(step)
  for (let k = 1; even && k < n; k++) if (t[from + k] !== first + k * step) even = false
  if (even) return null
  const buf = Buffer.allocUnsafe(8 * n)
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  for (let k = 0; k < n; k++) {
    const x = t[from + k]
    if (!Number.isSafeInteger(x)) badTime(x)
    const hi = Math.floor(x / 4294967296)
    dv.setUint32(8 * k, x - hi * 4294967296, true)
    dv.setInt32(8 * k + 4, hi, true)
  }
  return buf
}

export function decodeTimes(first: number, last: number, n: number, blob: Buffer | null, out = new Float64Array(n), at = 0): Float64Array {
  if (blob === null) {
    const step = n > 1 ? (last - first) / (n - 1) : 0
    for (let k = 0; k < n; k++) out[at + k] = first + k * step
    return out
  }
  if (blob.length !== 8 * n) throw new Error(`sample chunk: ${n} instants expected in ${blob.length} bytes`)
  const dv = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
  for (let k = 0; k < n; k++) out[at + k] = dv.getInt32(8 * k + 4, true) * 4294967296 + dv.getUint32(8 * k, true)
  return out
}

/** values[from..to) as float64 LE; a view without a copy when values is a Float64Array. */
export function encodeValues(values: ArrayLike<number>, from: number, to: number): Buffer {
  if (LE && values instanceof Float64Array) return Buffer.from(values.buffer, values.byteOffset + 8 * from, 8 * (to - from))
  const a = new Float64Array(to - from)
  for (let k = from; k < to; k++) a[k - from] = values[k]
  return valuesBlob(a)
}

function valuesBlob(a: Float64Array): Buffer {
  if (LE) return Buffer.from(a.buffer, a.byteOffset, a.byteLength)
  const buf = Buffer.allocUnsafe(a.length * 8)
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  for (let k = 0; k < a.length; k++) dv.setFloat64(8 * k, a[k], true)
  return buf
}

function decodeValues(blob: Buffer, n: number, out = new Float64Array(n), at = 0): Float64Array {
  if (blob.length !== 8 * n) throw new Error(`sample chunk: ${n} values expected in ${blob.length} bytes`)
  if (LE && blob.byteOffset % 8 === 0) {
    out.set(new Float64Array(blob.buffer, blob.byteOffset, n), at)
  } else {
    const dv = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
    for (let k = 0; k < n; k++) out[at + k] = dv.getFloat64(8 * k, true)
  }
  return out
}

/**
 * Indexes from..to-1 in time order with each instant once (the last of a repeat kept), or null
 * when t[from..to) is already strictly increasing.
 */
export function timeOrder(t: ArrayLike<number>, from: number, to: number): Int32Array | null {
  let sorted = true
  for (let k = from + 1; k < to; k++) {
    if (!(t[k] > t[k - 1])) {
      sorted = false
      break
    }
  }
  if (sorted) return null
  const idx = Int32Array.from({ length: to - from }, (_, k) => from + k)
  idx.sort((a, b) => t[a] - t[b] || a - b)
  let m = 0
  for (let k = 0; k < idx.length; k++) {
    if (k + 1 < idx.length && t[idx[k + 1]] === t[idx[k]]) continue // a later one at this instant follows
    idx[m++] = idx[k]
  }
  return idx.subarray(0, m)
}

// ---- writes ----

/** Writes one series' samples t[k], v[k] for k in from..to (strictly increasing t) as chunks of at most CHUNK_MAX. */
function writeSorted(ins: Statement, seriesId: number, t: ArrayLike<number>, v: ArrayLike<number>, from: number, to: number): void {
  for (let a = from; a < to; a += CHUNK_MAX) {
    const b = Math.min(to, a + CHUNK_MAX)
    ins.run(seriesId, t[a], t[b - 1], b - a, encodeTimes(t, a, b), encodeValues(v, a, b))
  }
}

function inTransaction(s: StoreContext, write: () => void): void {
  if (s.db.inTransaction) write()
  else s.write(write)
}

/**
 * Samples of several series at shared instants, series-major (values[i * t.length + j] is
 * seriesIds[i] at t[j]): one chunk per series (more past CHUNK_MAX instants). The instants are
 * encoded once for all series. In the caller's transaction, or its own.
 */
export function insertSampleFrame(s: StoreContext, seriesIds: ArrayLike<number>, t: ArrayLike<number>, values: ArrayLike<number>): void {
  const n = t.length
  if (n === 0 || seriesIds.length === 0) return
  const ins = s.stmt(INSERT_CHUNK)
  const order = timeOrder(t, 0, n)
  const m = order ? order.length : n
  const tt = order ? Float64Array.from(order, (k) => t[k]) : t
  const pieces: Array<{ a: number; b: number; times: Buffer | null }> = []
  for (let a = 0; a < m; a += CHUNK_MAX) {
    const b = Math.min(m, a + CHUNK_MAX)
    pieces.push({ a, b, times: encodeTimes(tt, a, b) })
  }
  const picked = order ? new Float64Array(m) : null
  inTransaction(s, () => {
    for (let i = 0; i < seriesIds.length; i++) {
      const base = i * n
      if (picked) for (let k = 0; k < m; k++) picked[k] = values[base + order![k]]
      for (const { a, b, times } of pieces) {
        const v = picked ? encodeValues(picked, a, b) : encodeValues(values, base + a, base + b)
        ins.run(seriesIds[i], tt[a], tt[b - 1], b - a, times, v)
      }
    }
  })
}

/**
 * Samples as parallel columns (series id, t, value), in the caller's transaction (or its own).
 * Each run of one series id becomes its chunks, so give them grouped by series (in time order
 * within a series, the collector's clock, for chunks that never overlap).
 */
export function insertSampleRows(s: StoreContext, seriesId: ArrayLike<number>, tNs: ArrayLike<number>, value: ArrayLike<number>): void {
  const to = seriesId.length
  if (to === 0) return
  const ins = s.stmt(INSERT_CHUNK)
  inTransaction(s, () => {
    let a = 0
    while (a < to) {
      const id = seriesId[a]
      let b = a + 1
      while (b < to && seriesId[b] === id) b++
      const order = timeOrder(tNs, a, b)
      if (order) {
        writeSorted(ins, id, Float64Array.from(order, (k) => tNs[k]), Float64Array.from(order, (k) => value[k]), 0, order.length)
      } else {
        writeSorted(ins, id, tNs, value, a, b)
      }
      a = b
    }
  })
}

// ---- reads ----

function decodeRow(r: ChunkRow): SeriesSamples {
  return { t: decodeTimes(r[1], r[2], r[3], r[4]), v: decodeValues(r[5], r[3]) }
}

/** The first index whose instant is >= x (strict: > x). */
function bound(a: Float64Array, x: number, strict: boolean): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] < x || (strict && a[mid] === x)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Whether chunk rows (ordered by t_first_ns: [.., t_first_ns, t_last_ns, ..]) share any stretch of time. */
function overlapping(rows: ReadonlyArray<readonly [unknown, number, number, ...unknown[]]>): boolean {
  let maxLast = -Infinity
  for (const r of rows) {
    if (r[1] <= maxLast) return true
    if (r[2] > maxLast) maxLast = r[2]
  }
  return false
}

/** The samples of chunk rows (ordered by t_first_ns) with t in [from, to]; overlaps resolved, the last written winning. */
function assemble(rows: ChunkRow[], from: number, to: number): SeriesSamples {
  if (!overlapping(rows)) {
    // The usual case: chunks follow each other, so the samples are their concatenation.
    const parts: Array<{ c: SeriesSamples; a: number; b: number }> = []
    let total = 0
    for (const r of rows) {
      const c = decodeRow(r)
      const a = r[1] >= from ? 0 : bound(c.t, from, false)
      const b = r[2] <= to ? r[3] : bound(c.t, to, true)
      if (b > a) {
        parts.push({ c, a, b })
        total += b - a
      }
    }
    if (parts.length === 1 && parts[0].a === 0 && parts[0].b === parts[0].c.t.length) return parts[0].c
    const out = { t: new Float64Array(total), v: new Float64Array(total) }
    let at = 0
    for (const { c, a, b } of parts) {
      out.t.set(c.t.subarray(a, b), at)
      out.v.set(c.v.subarray(a, b), at)
      at += b - a
    }
    return out
  }
  // Overlapping chunks: every sample in range, ordered by instant and then by write order
  // (chunk id; a chunk holds an instant once), keeping the last of each instant.
  let total = 0
  for (const r of rows) total += r[3]
  const t = new Float64Array(total)
  const v = new Float64Array(total)
  const id = new Float64Array(total)
  let at = 0
  for (const r of rows) {
    decodeTimes(r[1], r[2], r[3], r[4], t, at)
    decodeValues(r[5], r[3], v, at)
    id.fill(r[0], at, at + r[3])
    at += r[3]
  }
  const idx = Int32Array.from({ length: total }, (_, k) => k)
  idx.sort((a, b) => t[a] - t[b] || id[a] - id[b])
  const out = { t: new Float64Array(total), v: new Float64Array(total) }
  let m = 0
  for (let k = 0; k < total; k++) {
    const x = idx[k]
    if (t[x] < from || t[x] > to) continue
    if (k + 1 < total && t[idx[k + 1]] === t[x]) continue // a later write of this instant follows
    out.t[m] = t[x]
    out.v[m++] = v[x]
  }
  return { t: out.t.subarray(0, m), v: out.v.subarray(0, m) }
}

function readWith(stmt: Statement, seriesId: number, from: number, to: number): SeriesSamples {
  const rows = stmt.all(seriesId, toSql(to), toSql(from)) as ChunkRow[]
  return assemble(rows, from, to)
}

/** One series' samples with t in [fromNs, toNs], in time order, each instant once (the last written). */
export function readSeries(s: StoreContext, seriesId: number, fromNs = -Infinity, toNs = Infinity): SeriesSamples {
  // This SQL text is only ever used raw, so flipping the cached statement is safe.
  return readWith(s.stmt(READ_CHUNKS).raw(true), seriesId, fromNs, toNs)
}

/** readSeries on a bare connection (the archive's subset file). */
export function seriesReader(db: Database): (seriesId: number, fromNs?: number, toNs?: number) => SeriesSamples {
  const stmt = db.prepare(READ_CHUNKS).raw(true)
  return (seriesId, fromNs = -Infinity, toNs = Infinity) => readWith(stmt, seriesId, fromNs, toNs)
}

/** The earliest and latest instant of any sample of these series (null when they have none). */
export function sampleSpan(s: StoreContext, runId: number): { lo: number | null; hi: number | null } {
  return s
    .stmt('SELECT min(t_first_ns) AS lo, max(t_last_ns) AS hi FROM sample_chunks WHERE series_id IN (SELECT id FROM series WHERE run_id = ?)')
    .get(runId) as { lo: number | null; hi: number | null }
}

/**
 * About how many instants the union of these series' samples has with t in [fromNs, toNs]
 * (what readSamples aligns them on), from the chunk rows alone, no blob read: chunks of a
 * frame (the same first and last instant and count in every series) count once, other chunks
 * each. Exact for frames over the whole run; for a range a chunk across an end counts whole,
 * and an instant written twice counts twice.
 */
export function countInstants(s: StoreContext, seriesIds: readonly number[], fromNs = -Infinity, toNs = Infinity): number {
  const row = s
    .stmt(
      `SELECT coalesce(sum(n), 0) AS n FROM (SELECT DISTINCT t_first_ns, t_last_ns, n FROM sample_chunks
        WHERE series_id IN (SELECT value FROM json_each(?)) AND t_first_ns <= ? AND t_last_ns >= ?)`,
    )
    .get(JSON.stringify(seriesIds), toSql(toNs), toSql(fromNs)) as { n: number }
  return row.n
}

/**
 * Rewrites series as disjoint chunks of CHUNK_MAX samples: each one given with `force` (its
 * chunks may overlap), otherwise only those whose chunks are small on average (a slow poller's
 * one-sample frames). Returns the ids rewritten.
 */
export function compactSamples(s: StoreContext, seriesIds: readonly number[], opts: { force?: boolean } = {}): number[] {
  // One query per series gives both the chunk count and samples (small?) and the spans (overlapping?).
  const spans = s.stmt('SELECT id, t_first_ns, t_last_ns, n FROM sample_chunks WHERE series_id = ? ORDER BY t_first_ns').raw(true)
  const del = s.stmt('DELETE FROM sample_chunks WHERE series_id = ?')
  const ins = s.stmt(INSERT_CHUNK)
  const done: number[] = []
  s.write(() => {
    for (const id of seriesIds) {
      const rows = spans.all(id) as Array<[number, number, number, number]>
      const chunks = rows.length
      if (chunks < 2) continue
      let samples = 0
      for (const r of rows) samples += r[3]
      const small = samples / chunks < COMPACT_BELOW
      if (!small && !(opts.force && overlapping(rows))) continue
      const all = readSeries(s, id)
      del.run(id)
      writeSorted(ins, id, all.t, all.v, 0, all.t.length)
      done.push(id)
    }
  })
  return done
}

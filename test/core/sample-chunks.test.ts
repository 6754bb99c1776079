// Raw samples in chunks (store/samples.ts, migration 3): the logical contract of the old
// one-row-per-sample table holds (time order, the last write of an instant wins, NaN kept,
// ranges), and a database written at schema version 2 opens with its samples converted.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CHUNK_MAX, MIGRATIONS, openStore, SCHEMA_VERSION, type Store } from '../../src-main/core/store'
import { decodeTimes, encodeTimes, timeOrder } from '../../src-main/core/store/samples'

let dir: string
let store: Store | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-chunks-'))
})
afterEach(() => {
  store?.close()
  store = undefined
  rmSync(dir, { recursive: true, force: true })
})

function withSeries(n = 2): { s: Store; runId: number; ids: number[] } {
  const s = openStore(join(dir, 'lab.db'))
  store = s
  const e = s.createExperiment({ name: 'x', yaml: 'x', spec: {}, file: null, tags: [] })
  const [run] = s.createRuns(e.id, 'sim', 'o', [{ scheme: 'ecmp', load: 0.5, seed: 1, params: {} }])
  const ids = s.defineSeries(
    run.id,
    Array.from({ length: n }, (_, i) => ({ kind: 'link.util', entity: { switch: 's1', port: i }, unit: 'ratio' })),
  )
  return { s, runId: run.id, ids }
}

function chunkRows(file: string): Array<{ series_id: number; t_first_ns: number; t_last_ns: number; n: number; evenly: number }> {
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare('SELECT series_id, t_first_ns, t_last_ns, n, t IS NULL AS evenly FROM sample_chunks ORDER BY id').all() as never
  } finally {
    db.close()
  }
}

const arr = (a: ArrayLike<number>) => Array.from(a)

describe('the chunk codec', () => {
  it('stores evenly spaced instants as NULL and others as int64, both exactly, negative and past 2^32 included', () => {
    for (const t of [[5], [0, 100, 200, 300], [-7, -3, 1], [2 ** 40, 2 ** 40 + 1, 2 ** 52]]) {
      const blob = encodeTimes(t, 0, t.length)
      expect(blob === null, JSON.stringify(t)).toBe(t.length === 1 || t.every((x, k) => x === t[0] + k * (t[1] - t[0])))
      expect(arr(decodeTimes(t[0], t[t.length - 1], t.length, blob))).toEqual(t)
    }
    expect(encodeTimes([0, 1, 3], 0, 3)!.length).toBe(24)
    expect(() => encodeTimes([0.5, 1], 0, 2)).toThrow(/integer nanoseconds/)
    expect(() => encodeTimes([0, 2 ** 60], 0, 2)).toThrow(/integer nanoseconds/)
  })

  it('orders a chunk by time and keeps the last of a repeated instant', () => {
    expect(timeOrder([1, 2, 3], 0, 3)).toBeNull()
    // indexes of [30, 10, 20, 10, 30] in time order, the later 10 (3) and the later 30 (4) kept
    expect(arr(timeOrder([30, 10, 20, 10, 30], 0, 5)!)).toEqual([3, 2, 4])
  })
})

describe('samples in chunks', () => {
  it('writes a frame as one chunk per series, evenly spaced instants without a time blob, and reads it back', () => {
    const { s, runId, ids } = withSeries()
    s.insertSamples(ids, Float64Array.from([100, 200, 300]), Float64Array.from([0.1, NaN, 0.3, 5, 6, 7]))
    s.insertSamples(ids, [400, 450, 700], [0.4, 0.45, 0.7, 8, 8.5, 9])
    expect(chunkRows(s.file)).toEqual([
      { series_id: ids[0], t_first_ns: 100, t_last_ns: 300, n: 3, evenly: 1 },
      { series_id: ids[1], t_first_ns: 100, t_last_ns: 300, n: 3, evenly: 1 },
      { series_id: ids[0], t_first_ns: 400, t_last_ns: 700, n: 3, evenly: 0 },
      { series_id: ids[1], t_first_ns: 400, t_last_ns: 700, n: 3, evenly: 0 },
    ])
    expect(s.readSamples(runId)).toMatchObject({ t: [100, 200, 300, 400, 450, 700], values: [[0.1, NaN, 0.3, 0.4, 0.45, 0.7], [5, 6, 7, 8, 8.5, 9]] })
    const r = s.readSeries(ids[0], 200, 450)
    expect(arr(r.t)).toEqual([200, 300, 400, 450])
    expect(arr(r.v)).toEqual([NaN, 0.3, 0.4, 0.45])
    expect(arr(s.readSeries(ids[1], 301, 399).t)).toEqual([])
    expect(arr(s.readSeries(ids[1], 250.5, 450.5).t)).toEqual([300, 400, 450])
  })

  it('splits past CHUNK_MAX samples and reads any range across the chunks', () => {
    const { s, ids } = withSeries(1)
    const n = 2 * CHUNK_MAX + 10
    s.insertSamples(ids, Float64Array.from({ length: n }, (_, j) => 1000 + j * 7), Float64Array.from({ length: n }, (_, j) => j))
    expect(chunkRows(s.file).map((r) => r.n)).toEqual([CHUNK_MAX, CHUNK_MAX, 10])
    const r = s.readSeries(ids[0], 1000 + 7 * (CHUNK_MAX - 3), 1000 + 7 * (2 * CHUNK_MAX + 2))
    expect(arr(r.v)).toEqual(Array.from({ length: CHUNK_MAX + 6 }, (_, k) => CHUNK_MAX - 3 + k))
  })

  it('resolves a repeated (series, t) to the last one written: in a frame, across frames, across points, NaN included', () => {
    const { s, runId, ids } = withSeries()
    s.insertSamples(ids, [10, 20, 30], [1, 2, 3, 10, 20, 30])
    s.insertSamples(ids, [20], [NaN, 200]) // replaces series 0's 2 by NaN and series 1's 20 by 200
    s.insertSamples(ids, [30, 5, 30], [31, 0.5, 32, 301, 5, 302]) // out of order, 30 twice in one frame: the second wins
    s.insertSampleRows([ids[0], ids[0], ids[1]], [10, 10, 40], [11, 12, 400])
    expect(s.readSamples(runId)).toMatchObject({ t: [5, 10, 20, 30, 40], values: [[0.5, 12, NaN, 32, NaN], [5, 10, 200, 302, 400]] })
    // A range inside the overlapping chunks.
    expect(arr(s.readSeries(ids[0], 10, 20).v)).toEqual([12, NaN])
    // Written again later, even with a chunk starting earlier: still the last write wins.
    s.insertSamples([ids[0]], [1, 10], [0.1, 13])
    expect(arr(s.readSeries(ids[0]).v)).toEqual([0.1, 0.5, 13, NaN, 32])
  })

  it('compaction rewrites overlapping or small chunks as disjoint full ones, reads unchanged', () => {
    const { s, ids } = withSeries()
    for (let k = 0; k < 300; k++) s.insertSamples(ids, [k * 10], [k, -k]) // a slow poller: one-sample chunks
    s.insertSampleRows([ids[1], ids[1]], [55, 50], [5.5, 5]) // out of order, and 50 again
    const before = [arr(s.readSeries(ids[0]).v), arr(s.readSeries(ids[1]).v), arr(s.readSeries(ids[1]).t)]
    expect(before[2].slice(4, 8)).toEqual([40, 50, 55, 60])
    expect(before[1].slice(4, 8)).toEqual([-4, 5, 5.5, -6])
    expect(s.compactSamples(ids)).toEqual(ids)
    expect(chunkRows(s.file).map((r) => [r.series_id, r.n])).toEqual([[ids[0], 300], [ids[1], 301]])
    expect([arr(s.readSeries(ids[0]).v), arr(s.readSeries(ids[1]).v), arr(s.readSeries(ids[1]).t)]).toEqual(before)
    // Full, disjoint chunks are left alone; overlapping ones are rewritten when forced.
    expect(s.compactSamples(ids, { force: true })).toEqual([])
    s.insertSamples([ids[0]], Float64Array.from({ length: 100 }, (_, j) => j), new Float64Array(100).fill(7))
    expect(s.compactSamples(ids)).toEqual([])
    expect(s.compactSamples(ids, { force: true })).toEqual([ids[0]])
    // The frame was written after the series' older samples at 0 and 10: it wins there too.
    expect(arr(s.readSeries(ids[0], 0, 12).v)).toEqual(new Array(13).fill(7))
    expect(arr(s.readSeries(ids[0], 95, 125).t)).toEqual([95, 96, 97, 98, 99, 100, 110, 120])
  })

  it('series rows deleted take their chunks with them', () => {
    const { s, runId, ids } = withSeries()
    s.insertSamples(ids, [1, 2], [1, 2, 3, 4])
    s.close()
    store = undefined
    const db = new Database(join(dir, 'lab.db'))
    db.pragma('foreign_keys = ON')
    db.prepare('DELETE FROM runs WHERE id = ?').run(runId)
    expect(db.prepare('SELECT count(*) AS n FROM sample_chunks').get()).toEqual({ n: 0 })
    db.close()
  })
})

describe('migration 3: samples rows into chunks', () => {
  /** A database at schema version 2 (one row per sample), as p4lab wrote it before chunks. */
  function oldDatabase(file: string): void {
    const db = new Database(file)
    db.pragma('journal_mode = WAL')
    db.pragma('foreign_keys = ON')
    for (const m of MIGRATIONS.slice(0, 2)) m.up(db)
    db.pragma('user_version = 2')
    db.exec(`INSERT INTO experiments (name, yaml, spec, created_at) VALUES ('old', '', '{}', '2025-01-01T00:00:00Z');
      INSERT INTO runs (experiment_id, target, scheme, load, seed, status, owner, created_at) VALUES (1, 'sim', 'ecmp', 0.5, 1, 'done', 'o', '2025-01-01T00:00:00Z');
      INSERT INTO series (run_id, kind, entity, unit) VALUES (1, 'link.util', '{"port":0}', 'ratio'), (1, 'queue.depth', '{"port":0}', 'packets'), (1, 'tcp.retransmits', '{}', 'count');`)
    const ins = db.prepare('INSERT INTO samples (series_id, t_ns, value) VALUES (?, ?, ?)')
    db.transaction(() => {
      // series 1: 2500 evenly spaced samples, a NULL every 100th; series 2: irregular times; series 3: none
      for (let j = 0; j < 2500; j++) ins.run(1, j * 100_000, j % 100 === 0 ? null : j / 10)
      for (let j = 0; j < 50; j++) ins.run(2, j * j * 1000 + 2 ** 33, j)
    })()
    db.prepare("INSERT INTO rollups VALUES (1, 1000000, 0, 9, 4.5, 0.1, 0.9)").run()
    // A sample of a series that no longer exists (written with foreign keys off).
    db.pragma('foreign_keys = OFF')
    ins.run(99, 5, 5)
    db.close()
  }

  it('opens a version-2 database: every sample in chunks, NULL as NaN, the old table dropped, roll-ups kept', () => {
    const file = join(dir, 'old.db')
    oldDatabase(file)
    store = openStore(file)
    const s = store
    const all = s.readSamples(1)
    expect(all.defs.map((d) => d.kind)).toEqual(['link.util', 'queue.depth', 'tcp.retransmits'])
    const t1 = arr(s.readSeries(1).t)
    const v1 = arr(s.readSeries(1).v)
    expect(t1).toEqual(Array.from({ length: 2500 }, (_, j) => j * 100_000))
    expect(v1).toEqual(Array.from({ length: 2500 }, (_, j) => (j % 100 === 0 ? NaN : j / 10)))
    expect(arr(s.readSeries(2).t)).toEqual(Array.from({ length: 50 }, (_, j) => j * j * 1000 + 2 ** 33))
    expect(arr(s.readSeries(2).v)).toEqual(Array.from({ length: 50 }, (_, j) => j))
    expect(s.readSeries(3).t.length).toBe(0)
    expect(s.readRollups(1, 1_000_000)).toMatchObject({ t: [0], count: [9], mean: [0.5] })
    s.close()
    store = undefined
    const db = new Database(file, { readonly: true })
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'samples'").get()).toBeUndefined()
    expect(db.prepare('SELECT series_id, n, t IS NULL AS evenly FROM sample_chunks ORDER BY id').all()).toEqual([
      { series_id: 1, n: CHUNK_MAX, evenly: 1 },
      { series_id: 1, n: CHUNK_MAX, evenly: 1 },
      { series_id: 1, n: 2500 - 2 * CHUNK_MAX, evenly: 1 },
      { series_id: 2, n: 50, evenly: 0 },
    ])
    db.close()
  })
})

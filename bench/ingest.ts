// Ingest throughput into SQLite (a file in a temporary directory, WAL, synchronous=NORMAL, as
// the app opens it): samples per second through the ingest path (batched transactions,
// roll-ups, back-pressure), and the store's insert shapes underneath it, so the figures say
// where the time goes:
// - the old layout (a row per sample) written as single-row and 64-row INSERTs, for comparison;
// - the chunk layout (store/samples.ts) through Store.insertSamples alone;
// - the ingest path without roll-ups, with them (the target row), with them written with every
//   batch for every series as before, with foreign keys off, with bigger batches, and as points
//   (the collector);
// - the ingest path's own JavaScript (roll-up computation, queue) with the store stubbed out.
// Sizes are the database file after close; the target row also splits it by table (dbstat).
// Then the run is opened as the UI reads it (runs.series): whole, within the UI's budget, zoomed.
// Target: 1M samples/s. `npm run bench -- ingest.ts` runs only this one.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { openStore, type Store } from '../src-main/core/store'
import type { ReadSamplesOptions } from '../src-main/core/store/telemetry'
import { Ingest, type IngestOptions } from '../src-main/core/telemetry/ingest'
import { toWireBatch } from '../src-main/core/wire'
import { RunSeries, type BatchLike, type SeriesDefLike } from '../src-renderer/src/lib/series'

const SERIES = 512 // the ports of a small fabric: one link.util series each
const INSTANTS_PER_FRAME = 100 // what the sim sends per telemetry message at 100 µs sampling
const FRAMES = 80 // 512 × 100 × 80 = 4.1 M samples
const TOTAL = SERIES * INSTANTS_PER_FRAME * FRAMES

const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

function frames(): Array<{ t: Float64Array; v: Float64Array }> {
  let s = 1
  const out: Array<{ t: Float64Array; v: Float64Array }> = []
  for (let f = 0; f < FRAMES; f++) {
    const t = new Float64Array(INSTANTS_PER_FRAME)
    for (let j = 0; j < t.length; j++) t[j] = (f * INSTANTS_PER_FRAME + j) * 100_000
    const v = new Float64Array(SERIES * INSTANTS_PER_FRAME)
    for (let k = 0; k < v.length; k++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0
      v[k] = s / 2 ** 32
    }
    out.push({ t, v })
  }
  return out
}

interface Fresh {
  store: Store
  runId: number
  dir: string
  file: string
}

function fresh(): Fresh {
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-bench-ingest-'))
  const file = join(dir, 'p4lab.db')
  const store = openStore(file)
  const exp = store.createExperiment({ name: 'bench', yaml: '', spec: {}, file: null, tags: [] })
  const [run] = store.createRuns(exp.id, 'sim', 'bench:1', [{ scheme: 'ecmp', load: 1, seed: 1, params: {} }])
  return { store, runId: run.id, dir, file }
}

/** Closes the store and returns the file's size (and the WAL's, if any is left); with `split`, bytes per table and index. */
function done(f: Fresh, split = false): { bytes: number; tables?: Record<string, number> } {
  f.store.close()
  let tables: Record<string, number> | undefined
  if (split) {
    const db = new Database(f.file, { readonly: true })
    tables = Object.fromEntries((db.prepare('SELECT name, sum(pgsize) AS b FROM dbstat GROUP BY name').all() as Array<{ name: string; b: number }>).map((r) => [r.name, r.b]))
    db.close()
  }
  const bytes = statSync(f.file).size + (() => {
    try {
      return statSync(`${f.file}-wal`).size
    } catch {
      return 0
    }
  })()
  rmSync(f.dir, { recursive: true, force: true })
  return { bytes, tables }
}

const defs = Array.from({ length: SERIES }, (_, i) => ({ kind: 'link.util', entity: { switch: `s${i >> 4}`, port: i & 15 }, unit: 'ratio' }))

interface Row {
  what: string
  samples: number
  ms: number
  /** CPU time of this process (user + system): the machine may be shared, so wall time alone misleads. */
  cpuMs: number
  bytes?: number
  note?: string
}

function cpuSince(c0: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000
}

type Data = ReturnType<typeof frames>

interface IngestRun {
  what: string
  opts?: Partial<IngestOptions>
  /** Foreign keys off on the store's connection (the bench reaches into it: the app never does this). */
  noForeignKeys?: boolean
  split?: boolean
}

async function viaIngest(data: Data, r: IngestRun): Promise<Row> {
  const f = fresh()
  if (r.noForeignKeys) (f.store as unknown as { s: { db: Database.Database } }).s.db.pragma('foreign_keys = OFF')
  const ingest = new Ingest({ store: f.store, runId: f.runId, ...r.opts })
  ingest.defineSeries(defs)
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (const { t, v } of data) {
    ingest.pushFrame(t, v)
    await ingest.ready()
  }
  await ingest.close()
  const ms = performance.now() - t0
  const cpuMs = cpuSince(c0)
  const s = ingest.stats
  const { bytes, tables } = done(f, r.split)
  let note = `${s.batches} transactions (longest ${fmt(s.maxBatchMs)} ms), ${fmt(s.rollupRows)} roll-up rows, ${s.waits} waits in ready()`
  if (tables) {
    const per = (names: string[]) => fmt(names.reduce((a, n) => a + (tables[n] ?? 0), 0) / s.samples, 1)
    note += `; B/sample: chunks ${per(['sample_chunks', 'sample_chunks_by_series'])}, roll-ups ${per(['rollups'])}`
  }
  return { what: r.what, samples: s.samples, ms, cpuMs, bytes, note }
}

async function viaPoints(data: Data): Promise<Row> {
  const f = fresh()
  const ingest = new Ingest({ store: f.store, runId: f.runId })
  ingest.defineSeries(defs)
  // Collector-shaped: one (series, t, value) per sample, in arrival order (time-major).
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (const { t, v } of data) {
    const n = t.length
    const s = new Int32Array(SERIES * n)
    const tt = new Float64Array(SERIES * n)
    const vv = new Float64Array(SERIES * n)
    let k = 0
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < SERIES; i++) {
        s[k] = i
        tt[k] = t[j]
        vv[k++] = v[i * n + j]
      }
    }
    ingest.pushPoints(s, tt, vv)
    await ingest.ready()
  }
  await ingest.close()
  const ms = performance.now() - t0
  const cpuMs = cpuSince(c0)
  return { what: 'Ingest.pushPoints + roll-ups (time-major, as the collector)', samples: ingest.stats.samples, ms, cpuMs, bytes: done(f).bytes, note: `${ingest.stats.batches} transactions` }
}

/** The ingest path's JavaScript alone: a store that writes nothing. */
async function ingestJsOnly(data: Data): Promise<Row> {
  const ids = defs.map((_, i) => i + 1)
  const stub = {
    defineSeries: () => ids,
    transaction: <T>(fn: () => T): T => fn(),
    insertSamples: () => {},
    insertSampleRows: () => {},
    writeRollups: () => {},
    compactSamples: () => [],
    rebuildRollups: () => {},
  } as unknown as Store
  const ingest = new Ingest({ store: stub, runId: 1 })
  ingest.defineSeries(defs)
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (const { t, v } of data) {
    ingest.pushFrame(t, v)
    await ingest.ready()
  }
  await ingest.close()
  return {
    what: 'Ingest.pushFrame + roll-ups, store stubbed (JS: roll-ups, queue)',
    samples: ingest.stats.samples,
    ms: performance.now() - t0,
    cpuMs: cpuSince(c0),
    note: `${fmt(ingest.stats.rollupRows)} roll-up rows computed`,
  }
}

function storeOnly(data: Data): Row {
  const f = fresh()
  const ids = f.store.defineSeries(f.runId, defs)
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (const { t, v } of data) f.store.insertSamples(ids, t, v)
  const ms = performance.now() - t0
  const cpuMs = cpuSince(c0)
  return { what: 'Store.insertSamples (a chunk per series and frame, a transaction per frame)', samples: TOTAL, ms, cpuMs, bytes: done(f).bytes }
}

/**
 * The layout before chunks: a samples row per sample (the table migration 3 replaced, recreated
 * here), written with one single-row INSERT per sample or with 64-row INSERTs (the store's last
 * shape for it), a transaction per frame.
 */
function oldLayout(data: Data, rowsPerStatement: 1 | 64): Row {
  const f = fresh()
  const ids = f.store.defineSeries(f.runId, defs)
  f.store.close()
  const db = new Database(f.file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.exec(`CREATE TABLE samples (
    series_id INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
    t_ns      INTEGER NOT NULL,
    value     REAL,
    PRIMARY KEY (series_id, t_ns)
  ) WITHOUT ROWID`)
  const head = 'INSERT OR REPLACE INTO samples (series_id, t_ns, value) VALUES '
  const ins = db.prepare(head + Array.from({ length: rowsPerStatement }, () => '(?, ?, ?)').join(', '))
  const args = new Array<number | null>(3 * rowsPerStatement)
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (const { t, v } of data) {
    const n = t.length
    db.transaction(() => {
      let k = 0
      for (let i = 0; i < ids.length; i++) {
        for (let j = 0; j < n; j++) {
          const x = v[i * n + j]
          args[k++] = ids[i]
          args[k++] = t[j]
          args[k++] = Number.isNaN(x) ? null : x
          if (k === args.length) {
            ins.run(args)
            k = 0
          }
        }
      }
    })()
  }
  const ms = performance.now() - t0
  const cpuMs = cpuSince(c0)
  db.close()
  const bytes = statSync(f.file).size
  rmSync(f.dir, { recursive: true, force: true })
  return { what: `old layout (a row per sample), ${rowsPerStatement === 1 ? 'single-row INSERT per sample' : '64-row INSERTs'}`, samples: TOTAL, ms, cpuMs, bytes }
}

const TARGET = 'Ingest.pushFrame + roll-ups (1/10/100 ms), 64k-sample batches'

/**
 * Opening the stored run as the UI asks for it (runs.series: the store's read, the wire form
 * and its JSON, as the WebSocket bridge sends it): whole and raw, as before; within the
 * renderer's budget of values (STORED_MAX_VALUES, 1M); and a tenth of it zoomed, which the
 * chart reads again.
 */
async function openingRun(data: Data): Promise<void> {
  const f = fresh()
  const ingest = new Ingest({ store: f.store, runId: f.runId })
  ingest.defineSeries(defs)
  for (const { t, v } of data) {
    ingest.pushFrame(t, v)
    await ingest.ready()
  }
  await ingest.close()
  const spanNs = (FRAMES * INSTANTS_PER_FRAME - 1) * 100_000
  const reads: Array<[string, ReadSamplesOptions | undefined]> = [
    ['whole, raw (before)', undefined],
    ['within 1M values (the UI now)', { maxValues: 1_000_000 }],
    ['a tenth of the run, zoomed, within 1M values', { fromNs: spanNs * 0.45, toNs: spanNs * 0.55, maxValues: 1_000_000 }],
  ]
  console.log(`opening that run (${fmt(TOTAL)} samples, ${fmt(spanNs / 1e6)} ms of sim time): runs.series (store read, wire form, JSON) + the renderer's JSON.parse and RunSeries.append; medians of 3`)
  const w = Math.max(...reads.map(([what]) => what.length))
  let wholeMs = 0
  for (const [what, opts] of reads) {
    const times: number[] = []
    let bytes = 0
    let level: string | number = 'raw'
    let values = 0
    const uiTimes: number[] = []
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now()
      const r = f.store.readSamples(f.runId, undefined, opts)
      const json = JSON.stringify({ defs: r.defs, batch: toWireBatch({ t: r.t, values: r.values }), level: r.level })
      times.push(performance.now() - t0)
      bytes = json.length
      level = r.level
      values = r.t.length * r.defs.length
      // What the renderer then does with it (stores/telemetry.ts), under node here.
      const t1 = performance.now()
      const res = JSON.parse(json) as { defs: SeriesDefLike[]; batch: BatchLike }
      new RunSeries(res.defs).append(res.batch)
      uiTimes.push(performance.now() - t1)
    }
    const ms = times.sort((a, b) => a - b)[1]
    const uiMs = uiTimes.sort((a, b) => a - b)[1]
    if (!opts) wholeMs = ms + uiMs
    const ratio = opts ? `  ${fmt(wholeMs / (ms + uiMs), 1)}× faster than whole` : ''
    console.log(
      `  ${what.padEnd(w)}  core ${fmt(ms).padStart(5)} ms + parse and append ${fmt(uiMs).padStart(5)} ms  ${fmt(bytes / 1e6, 1).padStart(5)} MB  ${fmt(values).padStart(10)} values  level ${level === 'raw' ? 'raw' : `${(level as number) / 1e6} ms`}${ratio}`,
    )
  }
  done(f)
}

async function main(): Promise<void> {
  const data = frames()
  const load0 = loadavg()[0]
  console.log(`ingest: ${SERIES} series × ${INSTANTS_PER_FRAME} instants × ${FRAMES} frames = ${fmt(TOTAL)} samples into SQLite (WAL, synchronous=NORMAL, a file under ${tmpdir()})`)
  const rows: Row[] = []
  rows.push(oldLayout(data, 1))
  rows.push(oldLayout(data, 64))
  rows.push(storeOnly(data))
  rows.push(await viaIngest(data, { what: 'Ingest.pushFrame, no roll-ups, 64k-sample batches', opts: { widths: [] } }))
  rows.push(await viaIngest(data, { what: TARGET, split: true }))
  rows.push(await viaIngest(data, { what: '  … roll-ups of every series with every batch (as before)', opts: { rollupTurns: 1 } }))
  rows.push(await viaIngest(data, { what: '  … foreign_keys=OFF', noForeignKeys: true }))
  rows.push(await viaIngest(data, { what: '  … 256k-sample batches', opts: { batchSamples: 262_144 } }))
  rows.push(await viaPoints(data))
  rows.push(await ingestJsOnly(data))
  const w = Math.max(...rows.map((r) => r.what.length))
  console.log(`  ${''.padEnd(w)}  wall M/s  CPU M/s`)
  for (const r of rows) {
    const rate = r.samples / (r.ms / 1000)
    const cpuRate = r.samples / (r.cpuMs / 1000)
    const size = r.bytes ? `  ${fmt(r.bytes / r.samples, 1)} B/sample` : ''
    console.log(`  ${r.what.padEnd(w)}  ${fmt(rate / 1e6, 2).padStart(8)}  ${fmt(cpuRate / 1e6, 2).padStart(7)}  (${fmt(r.ms)} ms wall, ${fmt(r.cpuMs)} ms CPU)${size}${r.note ? `  ${r.note}` : ''}`)
  }
  const best = rows.find((r) => r.what === TARGET)!
  const rate = best.samples / (best.ms / 1000)
  const cpuRate = best.samples / (best.cpuMs / 1000)
  console.log(
    `  target 1M samples/s through the ingest path with roll-ups: ${rate >= 1e6 ? 'met' : 'NOT met'} on the wall clock (${fmt(rate / 1e6, 2)} M/s), ` +
      `${cpuRate >= 1e6 ? 'met' : 'NOT met'} per CPU second (${fmt(cpuRate / 1e6, 2)} M/s)`,
  )
  // Wall time counts whatever else the machine runs; CPU time is this process's own.
  console.log(`  load average (1 min) ${fmt(load0, 1)} at the start, ${fmt(loadavg()[0], 1)} at the end, on ${availableParallelism()} CPUs`)
  await openingRun(data)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exitCode = 1
})

// Ingest throughput into SQLite (a file in a temporary directory, WAL, synchronous=NORMAL, as
// the app opens it): samples per second through the ingest path (batched transactions,
// roll-ups, back-pressure), and the store's insert shapes underneath it, so the figures say
// where the time goes. Target: 1M samples/s. `npm run bench -- ingest.ts` runs only this one.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { openStore, type Store } from '../src-main/core/store'
import { Ingest } from '../src-main/core/telemetry/ingest'

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

function done(f: Fresh): number {
  f.store.close()
  const bytes = statSync(f.file).size + (() => {
    try {
      return statSync(`${f.file}-wal`).size
    } catch {
      return 0
    }
  })()
  rmSync(f.dir, { recursive: true, force: true })
  return bytes
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

async function viaIngest(data: ReturnType<typeof frames>, widths?: number[], batchSamples?: number): Promise<Row> {
  const f = fresh()
  const ingest = new Ingest({ store: f.store, runId: f.runId, ...(widths ? { widths } : {}), ...(batchSamples ? { batchSamples } : {}) })
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
  const bytes = done(f)
  return {
    what: `${widths?.length === 0 ? 'Ingest.pushFrame, no roll-ups' : 'Ingest.pushFrame + roll-ups (1/10/100 ms)'}, ${fmt((batchSamples ?? 65_536) / 1024)}k-sample batches`,
    samples: s.samples,
    ms,
    cpuMs,
    bytes,
    note: `${s.batches} transactions, ${fmt(s.rollupRows)} roll-up rows, ${s.waits} waits in ready()`,
  }
}

async function viaPoints(data: ReturnType<typeof frames>): Promise<Row> {
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
  return { what: 'Ingest.pushPoints + roll-ups (time-major, as the collector)', samples: ingest.stats.samples, ms, cpuMs, bytes: done(f), note: `${ingest.stats.batches} transactions` }
}

function storeOnly(data: ReturnType<typeof frames>): Row {
  const f = fresh()
  const ids = f.store.defineSeries(f.runId, defs)
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (const { t, v } of data) f.store.insertSamples(ids, t, v)
  const ms = performance.now() - t0
  const cpuMs = cpuSince(c0)
  return { what: 'Store.insertSamples (64-row statements, a transaction per frame)', samples: TOTAL, ms, cpuMs, bytes: done(f) }
}

/** The statement shape the store used before: one single-row INSERT per sample. */
function perRow(data: ReturnType<typeof frames>): Row {
  const f = fresh()
  const ids = f.store.defineSeries(f.runId, defs)
  f.store.close()
  const db = new Database(f.file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  const ins = db.prepare('INSERT OR REPLACE INTO samples (series_id, t_ns, value) VALUES (?, ?, ?)')
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (const { t, v } of data) {
    const n = t.length
    db.transaction(() => {
      for (let i = 0; i < ids.length; i++) for (let j = 0; j < n; j++) ins.run(ids[i], t[j], v[i * n + j])
    })()
  }
  const ms = performance.now() - t0
  const cpuMs = cpuSince(c0)
  db.close()
  rmSync(f.dir, { recursive: true, force: true })
  return { what: 'single-row INSERT per sample (the old shape)', samples: TOTAL, ms, cpuMs }
}

async function main(): Promise<void> {
  const data = frames()
  console.log(`ingest: ${SERIES} series × ${INSTANTS_PER_FRAME} instants × ${FRAMES} frames = ${fmt(TOTAL)} samples into SQLite (WAL, synchronous=NORMAL, a file under ${tmpdir()})`)
  const rows: Row[] = []
  rows.push(perRow(data))
  rows.push(storeOnly(data))
  rows.push(await viaIngest(data, []))
  rows.push(await viaIngest(data))
  rows.push(await viaIngest(data, undefined, 262_144))
  rows.push(await viaPoints(data))
  const w = Math.max(...rows.map((r) => r.what.length))
  console.log(`  ${''.padEnd(w)}  wall M/s  CPU M/s`)
  for (const r of rows) {
    const rate = r.samples / (r.ms / 1000)
    const cpuRate = r.samples / (r.cpuMs / 1000)
    const size = r.bytes ? `  ${fmt(r.bytes / r.samples, 1)} B/sample` : ''
    console.log(`  ${r.what.padEnd(w)}  ${fmt(rate / 1e6, 2).padStart(8)}  ${fmt(cpuRate / 1e6, 2).padStart(7)}  (${fmt(r.ms)} ms wall, ${fmt(r.cpuMs)} ms CPU)${size}${r.note ? `  ${r.note}` : ''}`)
  }
  const best = rows.find((r) => r.what.startsWith('Ingest.pushFrame + roll-ups'))!
  const rate = best.samples / (best.ms / 1000)
  const cpuRate = best.samples / (best.cpuMs / 1000)
  console.log(
    `  target 1M samples/s through the ingest path with roll-ups: ${rate >= 1e6 ? 'met' : 'NOT met'} on the wall clock (${fmt(rate / 1e6, 2)} M/s), ` +
      `${cpuRate >= 1e6 ? 'met' : 'not met'} per CPU second (${fmt(cpuRate / 1e6, 2)} M/s)`,
  )
}

main().catch((e: unknown) => {
  console.error(e)
  process.exitCode = 1
})

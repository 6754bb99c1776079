// The ingest path: every sample reaches the store, roll-ups agree with the raw samples, and a
// slow disk slows the producer instead of growing memory.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Ingest } from '../../src-main/core/telemetry/ingest'
import type { UiPointStats } from '../../src-main/core/telemetry/ui-points'
import { openStore, ROLLUP_WIDTHS_NS, type Store } from '../../src-main/core/store'
import type { Core } from '../../src-main/core'
import { tempCore } from '../helpers/core'

const stores: Store[] = []
const cores: Core[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
  for (const c of cores.splice(0)) {
    c.orchestrator.cancelAll()
    c.opts.store.close()
  }
})

function freshRun(): { store: Store; runId: number } {
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-ingest-'))
  const store = openStore(join(dir, 'p4lab.db'))
  stores.push(store)
  const exp = store.createExperiment({ name: 'x', yaml: 'x', spec: {}, file: null, tags: [] })
  const [run] = store.createRuns(exp.id, 'sim', 'test:1', [{ scheme: 'ecmp', load: 0.5, seed: 1, params: {} }])
  return { store, runId: run.id }
}

function rng(seed: number) {
  let s = seed
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

type Acc = { n: number; sum: number; min: number; max: number }

/** Buckets of width w over (t, value) samples, NaN values left out. */
function bucketsFrom(samples: Iterable<readonly [number, number]>, w: number): Map<number, Acc> {
  const acc = new Map<number, Acc>()
  for (const [t, v] of samples) {
    if (Number.isNaN(v)) continue
    const b = Math.floor(t / w) * w
    const a = acc.get(b) ?? { n: 0, sum: 0, min: Infinity, max: -Infinity }
    a.n++
    a.sum += v
    a.min = Math.min(a.min, v)
    a.max = Math.max(a.max, v)
    acc.set(b, a)
  }
  return acc
}

/** Records samples as pushed: per series index, t → the last value written at t (an oracle independent of the store). */
function record(written: Array<Map<number, number>>, series: ArrayLike<number>, t: ArrayLike<number>, v: ArrayLike<number>): void {
  for (let k = 0; k < series.length; k++) {
    written[series[k]] ??= new Map()
    written[series[k]].set(t[k], v[k])
  }
}

/**
 * For every series and kept width: the raw samples' count, mean, min and max per bucket equal
 * the roll-up's. With `written` (per series in definition order, t → the last value pushed),
 * the raw samples read back must be exactly those, and the roll-ups must agree with them too:
 * an oracle that does not read through the store. Returns the number of buckets compared.
 */
function expectRollupsAgree(store: Store, runId: number, written?: Array<Map<number, number>>): number {
  const raw = store.readSamples(runId)
  let compared = 0
  raw.defs.forEach((d, i) => {
    const label = `${d.kind} ${JSON.stringify(d.entity)}`
    const pushed = written ? [...written[i]].sort((a, b) => a[0] - b[0]) : null
    if (pushed) {
      const read = store.readSeries(d.id)
      expect(Array.from(read.t), label).toEqual(pushed.map(([t]) => t))
      expect(Array.from(read.v), label).toEqual(pushed.map(([, v]) => v))
    }
    for (const w of ROLLUP_WIDTHS_NS) {
      const r = store.readRollups(d.id, w)
      if (r.t.length === 0) continue
      const oracles = [bucketsFrom(raw.t.map((t, j) => [t, raw.values[i][j]] as const), w)]
      if (pushed) oracles.push(bucketsFrom(pushed, w))
      for (const acc of oracles) {
        expect(r.t, `${label} @${w}`).toEqual([...acc.keys()].sort((a, b) => a - b))
        r.t.forEach((t, k) => {
          const a = acc.get(t)!
          expect(r.count[k]).toBe(a.n)
          expect(r.mean[k]).toBeCloseTo(a.sum / a.n, 9)
          expect(r.min[k]).toBe(a.min)
          expect(r.max[k]).toBe(a.max)
        })
      }
      compared += r.t.length
    }
  })
  return compared
}

describe('Ingest', () => {
  it('frames at 100 µs for 1 s: every sample stored, roll-ups at 1/10/100 ms agree with the raw samples', async () => {
    const { store, runId } = freshRun()
    const ui: number[] = []
    const ingest = new Ingest({ store, runId, batchSamples: 5000, onUi: (b) => ui.push(b.t.length), uiIntervalMs: 0 })
    ingest.defineSeries([
      { kind: 'link.util', entity: { switch: 's1', port: 0 }, unit: 'ratio' },
      { kind: 'queue.depth', entity: { switch: 's1', port: 0 }, unit: 'packets' },
      { kind: 'tcp.retransmits', entity: {}, unit: 'count' },
    ])
    const r = rng(7)
    const step = 100_000
    for (let batch = 0; batch < 100; batch++) {
      const t = new Float64Array(100)
      const v = new Float64Array(300)
      for (let j = 0; j < 100; j++) t[j] = (batch * 100 + j) * step
      for (let k = 0; k < 300; k++) v[k] = r() < 0.02 ? NaN : Math.round(r() * 1000) / 7
      ingest.pushFrame(t, v)
      await ingest.ready()
    }
    await ingest.close()
    expect(ingest.stats.samples).toBe(30_000)
    const raw = store.readSamples(runId)
    expect(raw.t).toHaveLength(10_000)
    expect(raw.level).toBe('raw')
    const buckets = expectRollupsAgree(store, runId)
    expect(buckets).toBe(3 * (1000 + 100 + 10))
    expect(ui.reduce((a, b) => a + b, 0)).toBe(10_000)
  })

  it('points out of order and repeated instants: the series is rebuilt from raw at close, and agrees', async () => {
    const { store, runId } = freshRun()
    const ingest = new Ingest({ store, runId, batchSamples: 1000 })
    ingest.defineSeries([{ kind: 'int.hopLatency', entity: { switch: '1' }, unit: 'ns' }, { kind: 'int.hopLatency', entity: { switch: '2' }, unit: 'ns' }])
    const r = rng(3)
    const s: number[] = []
    const t: number[] = []
    const v: number[] = []
    for (let k = 0; k < 20_000; k++) {
      s.push(k % 2)
      // series 0 in order; series 1 jittered (out of order) and with repeats
      t.push(k % 2 === 0 ? k * 50_000 : Math.max(0, Math.round(k * 50_000 + (r() - 0.5) * 4e6)) - (k % 2 === 1 && k % 7 === 0 ? 0 : 0))
      v.push(r() * 100)
    }
    t[3] = t[1] // a repeated instant on series 1
    ingest.pushPoints(s, t, v)
    const written: Array<Map<number, number>> = []
    record(written, s, t, v)
    await ingest.close()
    expect(ingest.stats.rebuiltSeries).toBe(1)
    // ... and its overlapping chunks rewritten as disjoint ones (series 0's were in order).
    expect(ingest.stats.compactedSeries).toBe(1)
    const seriesIds = store.listSeries(runId).map((d) => d.id)
    expect(store.readSeries(seriesIds[1]).t.length).toBe(new Set(t.filter((_, k) => k % 2 === 1)).size)
    expect(expectRollupsAgree(store, runId)).toBeGreaterThan(1000)
    // Series 1 was rebuilt from what readSeries returns: hold both to the samples as pushed.
    expect(written[1].size).toBeLessThan(10_000)
    expect(expectRollupsAgree(store, runId, written)).toBeGreaterThan(1000)
  })

  it('points from several pushes and frames in one batch keep their arrival order: an instant pushed twice reads as the later push', async () => {
    const { store, runId } = freshRun()
    const ingest = new Ingest({ store, runId, batchSamples: 100_000 })
    ingest.defineSeries([{ kind: 'int.hopLatency', entity: { switch: '1' }, unit: 'ns' }, { kind: 'int.hopLatency', entity: { switch: '2' }, unit: 'ns' }])
    ingest.pushPoints([0, 1, 0], [10, 10, 20], [1, 2, 3])
    ingest.pushFrame([20, 30], [4, 5, 6, 7]) // series 0 at 20: 4 replaces the points' 3
    ingest.pushPoints([1, 0, 1], [30, 30, 40], [9, 8, 10]) // 30: 8 and 9 replace the frame's 5 and 7
    await ingest.close()
    expect(ingest.stats.batches).toBe(1)
    expect(store.readSamples(runId)).toMatchObject({ t: [10, 20, 30, 40], values: [[1, 4, 8, NaN], [2, 6, 9, 10]] })
    expect(expectRollupsAgree(store, runId)).toBe(2 + 2 + 2)
    const written: Array<Map<number, number>> = []
    record(written, [0, 1, 0], [10, 10, 20], [1, 2, 3])
    record(written, [0, 0, 1, 1], [20, 30, 20, 30], [4, 5, 6, 7])
    record(written, [1, 0, 1], [30, 30, 40], [9, 8, 10])
    expect(ingest.stats.rebuiltSeries).toBe(2)
    expect(expectRollupsAgree(store, runId, written)).toBe(2 + 2 + 2)
  })

  it('writes samples with every batch, a turn of the series\' roll-ups with each batch, all of them once the source pauses, and everything at close', async () => {
    const { store, runId } = freshRun()
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
    const frame = (k: number, n = 500) => {
      const t = Float64Array.from({ length: n }, (_, j) => (k * 500 + j) * 100_000) // 100 µs: 10 samples a 1 ms bucket
      return { t, v: Float64Array.from({ length: 2 * n }, (_, j) => j % 13) }
    }
    const ingest = new Ingest({ store, runId, batchSamples: 1000, rollupTurns: 2, flushIntervalMs: 300 })
    const [a, b] = ingest.defineSeries([
      { kind: 'queue.depth', entity: { switch: 's', port: 0 }, unit: 'packets' },
      { kind: 'queue.depth', entity: { switch: 's', port: 1 }, unit: 'packets' },
    ])
    const ms1 = (id: number) => store.readRollups(id, 1_000_000).t.length
    let f = frame(0)
    ingest.pushFrame(f.t, f.v) // a batch: series a's turn
    await sleep(20)
    expect(ingest.stats.batches).toBe(1)
    expect([store.readSeries(a).t.length, store.readSeries(b).t.length]).toEqual([500, 500])
    expect([ms1(a), ms1(b)]).toEqual([50, 0]) // 49 finished 1 ms buckets and the open one
    f = frame(1)
    ingest.pushFrame(f.t, f.v) // series b's turn
    await sleep(20)
    expect([ms1(a), ms1(b)]).toEqual([50, 100])
    await sleep(400) // the source paused: everything written
    expect([ms1(a), ms1(b)]).toEqual([100, 100])
    expect(store.readRollups(a, 10_000_000).count).toEqual(new Array(10).fill(100))
    f = frame(2, 250)
    ingest.pushFrame(f.t, f.v)
    await ingest.close()
    expect([ms1(a), ms1(b)]).toEqual([125, 125])
    expect(expectRollupsAgree(store, runId)).toBe(2 * (125 + 13 + 2))
    expect(ingest.stats.compactedSeries).toBe(0)
  })

  it('a roll-up write that fails while the source pauses loses nothing: the buckets stay pending for close()', async () => {
    const { store, runId } = freshRun()
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
    const ingest = new Ingest({ store, runId, batchSamples: 1000, rollupTurns: 4, flushIntervalMs: 50 })
    ingest.defineSeries([
      { kind: 'queue.depth', entity: { switch: 's', port: 0 }, unit: 'packets' },
      { kind: 'queue.depth', entity: { switch: 's', port: 1 }, unit: 'packets' },
    ])
    ingest.pushFrame(Float64Array.from({ length: 500 }, (_, j) => j * 100_000), Float64Array.from({ length: 1000 }, (_, j) => j % 7))
    await sleep(10)
    expect(ingest.stats.batches).toBe(1)
    const patched = store as unknown as { writeRollups: Store['writeRollups'] }
    const write = patched.writeRollups
    let failed = 0
    patched.writeRollups = () => {
      failed++
      throw new Error('SQLITE_BUSY: database is locked')
    }
    await sleep(200)
    expect(failed).toBe(1)
    patched.writeRollups = write
    await ingest.close()
    expect(expectRollupsAgree(store, runId)).toBe(2 * (50 + 5 + 1))
  })

  it('writes roll-up rows in the table\'s key order (series, width, t), widths given in any order', async () => {
    const { store, runId } = freshRun()
    const patched = store as unknown as { writeRollups: Store['writeRollups'] }
    const write = patched.writeRollups.bind(store)
    const calls: number[][][] = []
    patched.writeRollups = (r) => {
      calls.push(Array.from({ length: r.length }, (_, k) => [r.seriesId[k], r.widthNs[k], r.tNs[k]]))
      write(r)
    }
    const ingest = new Ingest({ store, runId, batchSamples: 1000, rollupTurns: 2, widths: [10_000_000, 1_000_000] })
    ingest.defineSeries([{ kind: 'queue.depth', entity: { switch: 's', port: 0 }, unit: 'packets' }])
    ingest.defineSeries([1, 2].map((port) => ({ kind: 'queue.depth', entity: { switch: 's', port }, unit: 'packets' })))
    for (let k = 0; k < 4; k++) {
      ingest.pushFrame(Float64Array.from({ length: 500 }, (_, j) => (k * 500 + j) * 100_000), Float64Array.from({ length: 1500 }, (_, j) => j % 11))
      await ingest.ready()
    }
    await ingest.close()
    expect(calls.length).toBeGreaterThan(1)
    const before = (a: number[], b: number[]) => a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])))
    for (const keys of calls) for (let k = 1; k < keys.length; k++) expect(before(keys[k - 1], keys[k]), JSON.stringify(keys.slice(k - 1, k + 1))).toBe(true)
    expect(new Set(calls.flat().map((key) => key[1]))).toEqual(new Set([1_000_000, 10_000_000]))
    expect(expectRollupsAgree(store, runId)).toBe(3 * (200 + 20))
  })

  it('a slow disk: the producer waits in ready(), the queue stays bounded, nothing is lost', async () => {
    const { store, runId } = freshRun()
    const slow = () => {
      const until = Date.now() + 3
      while (Date.now() < until) {
        /* a disk that takes 3 ms a batch */
      }
    }
    const ingest = new Ingest({ store, runId, batchSamples: 2000, maxQueuedSamples: 4000, beforeWrite: slow })
    ingest.defineSeries(Array.from({ length: 10 }, (_, i) => ({ kind: 'link.util', entity: { switch: 's', port: i }, unit: 'ratio' })))
    for (let b = 0; b < 200; b++) {
      const t = Float64Array.from({ length: 100 }, (_, j) => (b * 100 + j) * 1000)
      ingest.pushFrame(t, new Float64Array(1000).fill(0.5))
      await ingest.ready()
    }
    await ingest.close()
    expect(ingest.stats.waits).toBeGreaterThan(0)
    expect(ingest.stats.forcedWrites).toBe(0)
    expect(ingest.stats.maxQueued).toBeLessThanOrEqual(4000 + 1000)
    expect(store.readSamples(runId).t).toHaveLength(20_000)
  })

  it('a producer that ignores ready() is slowed by synchronous writes, never past twice the bound', async () => {
    const { store, runId } = freshRun()
    const ingest = new Ingest({ store, runId, batchSamples: 1000, maxQueuedSamples: 3000 })
    ingest.defineSeries([{ kind: 'link.util', entity: { switch: 's', port: 0 }, unit: 'ratio' }])
    for (let k = 0; k < 100; k++) ingest.pushPoints(new Array(500).fill(0), Array.from({ length: 500 }, (_, j) => k * 500 + j), new Array(500).fill(k))
    expect(ingest.stats.forcedWrites).toBeGreaterThan(0)
    expect(ingest.stats.maxQueued).toBeLessThan(2 * 3000 + 500)
    await ingest.close()
    expect(store.readSamples(runId).t).toHaveLength(50_000)
  })

  it('a UI that falls behind gets thinned batches; the store keeps every sample', async () => {
    const { store, runId } = freshRun()
    const seen: number[] = []
    const ingest = new Ingest({ store, runId, onUi: (b) => seen.push(b.t.length), uiIntervalMs: 60_000, uiMaxValues: 1000 })
    ingest.defineSeries([{ kind: 'link.util', entity: { switch: 's', port: 0 }, unit: 'ratio' }, { kind: 'link.util', entity: { switch: 's', port: 1 }, unit: 'ratio' }])
    for (let b = 0; b < 50; b++) ingest.pushFrame(Float64Array.from({ length: 100 }, (_, j) => b * 100 + j), new Float64Array(200).fill(b))
    await ingest.close()
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.reduce((a, b) => a + b, 0)).toBeLessThan(5000)
    expect(ingest.stats.uiThinned).toBeGreaterThan(0)
    expect(store.readSamples(runId).t).toHaveLength(5000)
  })

  it("hands the UI a summary of each series' points; one held back by the interval comes without another push", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    try {
      const { store, runId } = freshRun()
      const seen: UiPointStats[][] = []
      // The write timer (flushIntervalMs) also hands over what is pending: far off here, so only the UI's own timer can.
      const ingest = new Ingest({ store, runId, uiIntervalMs: 100, flushIntervalMs: 10_000, onUiPoints: (s) => seen.push(s) })
      ingest.defineSeries([0, 1].map((q) => ({ kind: 'int.queue', entity: { switch: 's', queue: q }, unit: 'packets' })))
      ingest.pushPoints([0, 1, 0], [10, 10, 30], [5, 7, NaN])
      // The first summary goes at once; a sample without a value is not counted.
      expect(seen).toEqual([
        [
          { index: 0, count: 1, sum: 5, min: 5, max: 5, lastT: 10, last: 5 },
          { index: 1, count: 1, sum: 7, min: 7, max: 7, lastT: 10, last: 7 },
        ],
      ])
      // Within the interval: held back, then handed over when it has passed. 'last' is the latest instant's, not the latest pushed.
      ingest.pushPoints([0, 0], [50, 40], [2, 9])
      expect(seen).toHaveLength(1)
      vi.advanceTimersByTime(100)
      expect(seen[1]).toEqual([{ index: 0, count: 2, sum: 11, min: 2, max: 9, lastT: 50, last: 2 }])
      await ingest.close()
      expect(seen).toHaveLength(2)
      expect(store.readSamples(runId).t).toEqual([10, 30, 40, 50])
    } finally {
      vi.useRealTimers()
    }
  })

  it('readSamples picks raw or a roll-up level by the range and the pixel width', async () => {
    const { store, runId } = freshRun()
    const ingest = new Ingest({ store, runId })
    ingest.defineSeries([{ kind: 'queue.depth', entity: { switch: 's', port: 0 }, unit: 'packets' }])
    const n = 20_000 // 2 s at 100 µs
    ingest.pushFrame(Float64Array.from({ length: n }, (_, j) => j * 100_000), Float64Array.from({ length: n }, (_, j) => j % 37))
    await ingest.close()
    expect(store.readSamples(runId, undefined, { pixels: 5000 }).level).toBe('raw') // 0.4 ms a pixel
    const ten = store.readSamples(runId, undefined, { pixels: 150 }) // 13 ms a pixel
    expect(ten.level).toBe(10_000_000)
    expect(ten.t).toHaveLength(200)
    expect(ten.max![0][0]).toBe(36)
    expect(ten.min![0][0]).toBe(0)
    expect(store.readSamples(runId, undefined, { pixels: 10 }).level).toBe(100_000_000)
    const zoomed = store.readSamples(runId, undefined, { fromNs: 1e9, toNs: 1.01e9, pixels: 800 }) // 12.5 µs a pixel
    expect(zoomed.level).toBe('raw')
    expect(zoomed.t).toHaveLength(101)
    const mid = store.readSamples(runId, undefined, { fromNs: 0.5e9, toNs: 1e9, pixels: 300 }) // 1.7 ms a pixel
    expect(mid.level).toBe(1_000_000)
    expect(mid.t[0]).toBe(0.5e9)
  })

  it('readSamples keeps a read within a budget of values: raw when it fits, else the finest roll-up that does', async () => {
    const { store, runId } = freshRun()
    const ingest = new Ingest({ store, runId })
    const defs = [0, 1, 2].map((port) => ({ kind: 'queue.depth', entity: { switch: 's', port }, unit: 'packets' }))
    ingest.defineSeries(defs)
    const n = 20_000 // 2 s at 100 µs, 3 series: 60,000 raw values
    const values = new Float64Array(3 * n)
    for (let i = 0; i < 3; i++) for (let j = 0; j < n; j++) values[i * n + j] = (j % 37) + i
    ingest.pushFrame(Float64Array.from({ length: n }, (_, j) => j * 100_000), values)
    await ingest.close()
    const raw = store.readSamples(runId, undefined, { maxValues: 60_000 })
    expect([raw.level, raw.t.length]).toEqual(['raw', n])
    // 1 ms buckets: 2,000 × 3 = 6,000 values fit 59,999; 10 ms: 200 × 3.
    const fine = store.readSamples(runId, undefined, { maxValues: 59_999 })
    expect([fine.level, fine.t.length]).toEqual([1_000_000, 2000])
    expect(fine.values[2][0]).toBeCloseTo(2 + 4.5, 9) // mean of 0..9, plus the series' offset
    expect(store.readSamples(runId, undefined, { maxValues: 5000 }).level).toBe(10_000_000)
    expect(store.readSamples(runId, undefined, { maxValues: 600 }).level).toBe(10_000_000)
    expect(store.readSamples(runId, undefined, { maxValues: 599 }).level).toBe(100_000_000)
    // Nothing fits: the coarsest level, not the raw samples.
    expect(store.readSamples(runId, undefined, { maxValues: 3 }).level).toBe(100_000_000)
    // A range (20 ms: 603 raw values, counted by whole chunks) fits where the whole run did not.
    const zoomed = store.readSamples(runId, undefined, { fromNs: 1e9, toNs: 1.02e9, maxValues: 5000 })
    expect(zoomed.level).toBe('raw')
    expect(zoomed.t[0]).toBe(1e9)
    expect(zoomed.t[zoomed.t.length - 1]).toBe(1.02e9)
    // With pixels too, the coarser pick wins, whichever it is.
    expect(store.readSamples(runId, undefined, { maxValues: 59_999, pixels: 10 }).level).toBe(100_000_000)
    expect(store.readSamples(runId, undefined, { maxValues: 600, pixels: 1e6 }).level).toBe(10_000_000)
  })

  it('readSamples counts the union of instants against the budget when series are sampled apart (INT points)', async () => {
    const { store, runId } = freshRun()
    const ingest = new Ingest({ store, runId })
    ingest.defineSeries([0, 1, 2].map((q) => ({ kind: 'int.queue', entity: { switch: 's', queue: q }, unit: 'packets' })))
    // Each series every 300 µs, the three offset by 100 µs: 6,667 samples each, 20,000 instants
    // in the union, so a raw read is 60,000 values (mostly gaps), not 3 × 6,667.
    const n = 6667
    const series: number[] = []
    const t: number[] = []
    const v: number[] = []
    for (let j = 0; j < n; j++) for (let i = 0; i < 3; i++) {
      series.push(i)
      t.push(j * 300_000 + i * 100_000)
      v.push(i)
    }
    ingest.pushPoints(series, t, v)
    await ingest.close()
    const raw = store.readSamples(runId)
    expect(raw.t.length * raw.defs.length).toBe(3 * 3 * n)
    expect(store.readSamples(runId, undefined, { maxValues: 3 * 3 * n }).level).toBe('raw')
    const within = store.readSamples(runId, undefined, { maxValues: 30_000 })
    expect(within.level).toBe(1_000_000)
    expect(within.t.length * within.defs.length).toBeLessThanOrEqual(30_000)
  })
})

describe('a sim run with telemetry', () => {
  it('leaves raw samples and roll-ups that agree', async () => {
    const t = tempCore(1)
    cores.push(t.core)
    const yaml = `name: rollups
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [hula]
workload: { kind: web-search, load: [0.6], flows: 60 }
telemetry: { interval: 100us }
seeds: [1]
`
    const exp = t.core.findOrCreateExperiment(yaml, null)
    const [run] = t.core.runExperiment(exp.id)
    await t.core.orchestrator.wait([run.id])
    const store = t.core.opts.store
    expect(store.getRun(run.id)?.status).toBe('done')
    const raw = store.readSamples(run.id)
    expect(raw.t.length).toBeGreaterThan(20)
    expect(expectRollupsAgree(store, run.id)).toBeGreaterThan(100)
  })
})

// Group and band maths against values computed by hand, normalisation to a baseline, diff
// only, and flow-class metrics, on a real SQLite store.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { band, compareRuns, diffOnly, formatCompareTable, loadRecords, tCritical95 } from '../../src-main/core/compare'
import { workloadsDir } from '../../src-main/core/paths'
import { parseExperiment } from '../../src-main/core/spec'
import { openStore, type Store } from '../../src-main/core/store'

describe('band', () => {
  it('gives min..max and the 95% CI of the mean with Student t, as computed by hand', () => {
    // 1, 2, 3, 4: mean 2.5, s = sqrt(5/3) = 1.290994, t(3) = 3.182, half = 3.182 × 1.290994 / 2 = 2.053972
    const b = band([1, 2, 3, 4], 'ci95')!
    expect(b.mean).toBe(2.5)
    expect(b.sd).toBeCloseTo(1.290994, 6)
    expect(b.lo).toBeCloseTo(0.446028, 6)
    expect(b.hi).toBeCloseTo(4.553972, 6)
    expect(band([1, 2, 3, 4], 'minmax')).toMatchObject({ mean: 2.5, lo: 1, hi: 4 })
    // Two values 10, 14: s = 2.828427, t(1) = 12.706, half = 12.706 × 2.828427 / sqrt 2 = 25.412
    expect(band([10, 14], 'ci95')).toMatchObject({ mean: 12, lo: expect.closeTo(-13.412, 3), hi: expect.closeTo(37.412, 3) })
    expect(band([7], 'ci95')).toMatchObject({ n: 1, mean: 7, lo: 7, hi: 7, sd: 0 })
    expect(band([], 'ci95')).toBeNull()
  })

  it('uses t quantiles, not 1.96, for few seeds', () => {
    expect(tCritical95(1)).toBe(12.706)
    expect(tCritical95(4)).toBe(2.776)
    expect(tCritical95(30)).toBe(2.042)
    expect(tCritical95(45)).toBe(2.021)
    expect(tCritical95(5000)).toBe(1.96)
  })
})

const YAML = `name: hand
tags: [paper]
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [hula, ecmp]
workload: { kind: web-search, load: [0.3, 0.6], flows: 4 }
params: { flowletGap: 100us }
seeds: [1, 2, 3]
`

const stores: Store[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
})

/** A store holding an experiment whose runs have the mean FCTs given, per (scheme, load, seed). */
function storeWith(means: Record<string, number>, yaml = YAML, store?: Store): { store: Store; id: number } {
  const s = store ?? openStore(join(mkdtempSync(join(tmpdir(), 'p4lab-cmp-')), 'c.db'))
  if (!store) stores.push(s)
  const parsed = parseExperiment(yaml, { file: 'x.yaml', baseDir: tmpdir(), workloadsDir: workloadsDir() })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  const exp = s.createExperiment({ name: parsed.spec.name, yaml, spec: parsed.spec, file: null, tags: parsed.spec.tags })
  addRuns(s, exp.id, means)
  return { store: s, id: exp.id }
}

/** Runs of the experiment's current revision with the mean FCTs given, per (scheme, load, seed); a negative mean fails. */
function addRuns(s: Store, experimentId: number, means: Record<string, number>): void {
  for (const [cell, mean] of Object.entries(means)) {
    const [scheme, load, seed] = cell.split('/')
    const [run] = s.createRuns(experimentId, 'sim', 'test:1', [{ scheme, load: Number(load), seed: Number(seed), params: {} }])
    s.setRunStatus(run.id, 'running')
    if (mean < 0) {
      s.setRunStatus(run.id, 'failed', { error: 'boom' })
      continue
    }
    // Two flows: a small one (50 KB) and a large one (20 MB), with FCTs averaging `mean`.
    s.insertFlows(run.id, { src: [0, 1], dst: [2, 3], sizeBytes: [50_000, 20_000_000], startNs: [0, 0], finishNs: [mean - 100, mean + 100] })
    s.setRunResults(run.id, {
      stats: { flows: 2, finished: 2, meanNs: mean, p50Ns: mean - 100, p99Ns: mean + 100, smallMeanNs: mean - 100, largeMeanNs: mean + 100 },
      counters: { controlBytes: 10, payloadBytesSent: 1000 },
      facts: { engine: 'p4lab-sim v0' },
    })
    s.setRunStatus(run.id, 'done')
  }
}

const MEANS = {
  'hula/0.3/1': 1000, 'hula/0.3/2': 2000, 'hula/0.3/3': 3000,
  'hula/0.6/1': 4000, 'hula/0.6/2': 4000, 'hula/0.6/3': -1,
  'ecmp/0.3/1': 2000, 'ecmp/0.3/2': 2000, 'ecmp/0.3/3': 6000,
  'ecmp/0.6/1': 8000, 'ecmp/0.6/2': 4000, 'ecmp/0.6/3': 5000,
}

describe('compareRuns', () => {
  it('counts the unfinished flows of the compared runs and says so, never dropping them silently', () => {
    const { store, id } = storeWith({ 'hula/0.3/1': 1000, 'ecmp/0.3/1': 2000 })
    const all = compareRuns(store, { experimentIds: [id] })
    expect(all.unfinishedFlows).toEqual({ flows: 4, unfinished: 0 })
    // A done run may still carry unfinished flows (up to 1 %); here one of 2, to count it.
    const other = storeWith({ 'hula/0.3/1': 1000 })
    const [run] = other.store.createRuns(other.id, 'sim', 'test:1', [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
    other.store.setRunStatus(run.id, 'running')
    other.store.insertFlows(run.id, { src: [0, 1], dst: [2, 3], sizeBytes: [50_000, 20_000_000], startNs: [0, 0], finishNs: [2000, -1] })
    other.store.setRunResults(run.id, { stats: { flows: 2, finished: 1, meanNs: 2000, p50Ns: 2000, p99Ns: 2000, smallMeanNs: null, largeMeanNs: null }, counters: {}, facts: {} })
    other.store.setRunStatus(run.id, 'done')
    const r = compareRuns(other.store, { experimentIds: [other.id] })
    expect(r.unfinishedFlows).toEqual({ flows: 4, unfinished: 1 })
    expect(formatCompareTable(r)).toContain('unfinished flows: 1 of 4 (25.00 %) in the runs above, left out of their FCT statistics')
  })

  it('groups by scheme × load with the mean and band across seeds, in the spec\'s scheme order', () => {
    const { store, id } = storeWith(MEANS)
    const r = compareRuns(store, { experimentIds: [id], band: 'minmax' })
    expect(r.lineKeys).toEqual(['scheme'])
    expect(r.rows.map((x) => [x.line.scheme, x.x, x.n, x.mean, x.lo, x.hi])).toEqual([
      ['hula', 0.3, 3, 2000, 1000, 3000],
      ['hula', 0.6, 2, 4000, 4000, 4000],
      ['ecmp', 0.3, 3, 10000 / 3, 2000, 6000],
      ['ecmp', 0.6, 3, 17000 / 3, 4000, 8000],
    ])
    expect(r.matched).toBe(12)
    expect(r.excluded).toBe(1) // the failed run
    // hula at 0.3: 1000, 2000, 3000: s = 1000, half = 4.303 × 1000 / sqrt 3 = 2484.338
    const ci = compareRuns(store, { experimentIds: [id] }).rows[0]
    expect(ci.lo).toBeCloseTo(2000 - 2484.3382, 3)
    expect(ci.hi).toBeCloseTo(2000 + 2484.3382, 3)
  })

  it('normalises each seed to the baseline scheme\'s run of the same cell', () => {
    const { store, id } = storeWith(MEANS)
    const r = compareRuns(store, { experimentIds: [id], baseline: 'ecmp', band: 'minmax' })
    expect(r.unit).toBe('ratio')
    const hula03 = r.rows.find((x) => x.line.scheme === 'hula' && x.x === 0.3)!
    // 1000/2000, 2000/2000, 3000/6000
    expect(hula03.values).toEqual([0.5, 1, 0.5])
    expect(hula03.mean).toBeCloseTo(2 / 3, 12)
    const hula06 = r.rows.find((x) => x.line.scheme === 'hula' && x.x === 0.6)!
    expect(hula06.values).toEqual([0.5, 1])
    expect(r.rows.filter((x) => x.line.scheme === 'ecmp').every((x) => x.mean === 1)).toBe(true)
  })

  it('filters with a query and reads flow-class metrics from the flows', () => {
    const { store, id } = storeWith(MEANS)
    const r = compareRuns(store, { experimentIds: [id], query: 'scheme = hula and load < 0.5', metric: 'large.p99' })
    expect(r.rows).toHaveLength(1)
    expect(r.rows[0].values).toEqual([1100, 2100, 3100])
    const small = compareRuns(store, { experimentIds: [id], query: 'scheme = hula and load < 0.5', metric: 'small.p50' })
    expect(small.rows[0].values).toEqual([900, 1900, 2900])
    const probe = compareRuns(store, { experimentIds: [id], metric: 'probeOverhead' })
    expect(probe.rows[0].mean).toBeCloseTo(0.01, 12)
    const byTag = compareRuns(store, { experimentIds: [id], query: 'tag:paper and mean > 3500' })
    expect(byTag.matched).toBe(6)
  })

  it('gives the same text for the same data, and a line per experiment when comparing two', () => {
    const a = storeWith(MEANS)
    const b = storeWith(MEANS, YAML.replace('name: hand', 'name: hand-2').replace('flowletGap: 100us', 'flowletGap: 200us'), a.store)
    const one = formatCompareTable(compareRuns(a.store, { experimentIds: [a.id] }))
    expect(formatCompareTable(compareRuns(a.store, { experimentIds: [a.id] }))).toBe(one)
    const both = compareRuns(a.store, { experimentIds: [a.id, b.id] })
    expect(both.lineKeys).toEqual(['experiment', 'scheme', 'flowletGapNs'])
    expect(both.rows).toHaveLength(8)
    expect(both.differences.map((d) => d.field)).toEqual(expect.arrayContaining(['experiment', 'scheme', 'load', 'seed', 'flowletGapNs', 'hash.config', 'hash.program']))
    expect(both.differences.map((d) => d.field)).not.toContain('hash.topology')
  })

  it('diff only: the parameters that differ between runs, hashes of program, topology and config included', () => {
    const s = storeWith({ 'hula/0.3/1': 1000 }).store
    const other = YAML.replace('name: hand', 'name: fat').replace('leaves: 2, spines: 2', 'leaves: 2, spines: 3')
    storeWith({ 'hula/0.3/1': 1000 }, other, s)
    const [a, b] = loadRecords(s, s.listExperiments().map((e) => e.id).reverse())
    const diff = diffOnly([a, b])
    expect(diff.map((d) => d.field)).toEqual(['experiment', 'hash.config', 'hash.topology'])
    expect(diff[0].values).toEqual(['hand', 'fat'])
    expect(diffOnly([a, a])).toEqual([])
    expect(a.get('hash.topology')).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe('runs of an edited experiment', () => {
  it('are not pooled with the runs of the text before the edit as if they were more seeds', () => {
    const { store, id } = storeWith({ 'hula/0.3/1': 1000, 'ecmp/0.3/1': 2000 })
    const edited = YAML.replace('flows: 4', 'flows: 8')
    const parsed = parseExperiment(edited, { file: 'x.yaml', baseDir: tmpdir(), workloadsDir: workloadsDir() })
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
    store.updateExperiment(id, { name: 'hand', yaml: edited, spec: parsed.spec, tags: parsed.spec.tags })
    addRuns(store, id, { 'hula/0.3/1': 3000, 'ecmp/0.3/1': 6000 })
    const r = compareRuns(store, { experimentIds: [id] })
    expect(r.lineKeys).toEqual(['scheme', 'revision'])
    expect(r.rows.map((x) => [x.line.scheme, x.line.revision, x.x, x.seeds, x.mean])).toEqual([
      ['hula', 1, 0.3, [1], 1000],
      ['hula', 2, 0.3, [1], 3000],
      ['ecmp', 1, 0.3, [1], 2000],
      ['ecmp', 2, 0.3, [1], 6000],
    ])
    // Only the current text's: one line per scheme again.
    expect(compareRuns(store, { experimentIds: [id], query: 'stale = no' }).lineKeys).toEqual(['scheme'])
  })

  it('pool across a revision that changed nothing the runs ran with', () => {
    const { store, id } = storeWith({ 'hula/0.3/1': 1000 })
    const commented = `# a comment\n${YAML}`
    const parsed = parseExperiment(commented, { file: 'x.yaml', baseDir: tmpdir(), workloadsDir: workloadsDir() })
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
    store.updateExperiment(id, { name: 'hand', yaml: commented, spec: parsed.spec, tags: parsed.spec.tags })
    addRuns(store, id, { 'hula/0.3/2': 3000 })
    const r = compareRuns(store, { experimentIds: [id] })
    expect(r.lineKeys).toEqual(['scheme'])
    expect(r.rows.map((x) => [x.line.scheme, x.seeds, x.mean])).toEqual([['hula', [1, 2], 2000]])
  })
})

describe('group by any parameter', () => {
  it('groups all runs by one field when the lines are given as none', () => {
    const { store, id } = storeWith(MEANS)
    const r = compareRuns(store, { experimentIds: [id], lines: [], by: 'seed', band: 'minmax' })
    expect(r.lineKeys).toEqual([])
    // seed 1: 1000, 4000, 2000, 8000; seed 2: 2000, 4000, 2000, 4000; seed 3: 3000, 6000, 5000 (hula 0.6 failed)
    expect(r.rows.map((x) => [x.x, x.n, x.mean, x.lo, x.hi])).toEqual([
      [1, 4, 3750, 1000, 8000],
      [2, 4, 3000, 2000, 4000],
      [3, 3, 14000 / 3, 3000, 6000],
    ])
    expect(() => compareRuns(store, { experimentIds: [id], lines: ['nope'] })).toThrow(/lines: unknown field 'nope'/)
  })
})

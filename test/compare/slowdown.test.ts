// FCT slowdown through the store and compare: a run's stored slowdown statistics come from the
// fabric its record holds, compare plots them against load and pools per-flow slowdowns per
// flow-size bucket, and a run stored before slowdown was measured is n/a, never a number.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { compareRuns, formatCompareCdfs, formatCompareTable } from '../../src-main/core/compare'
import { fabricHandlers } from '../../src-main/core/handlers/fabric'
import { SIZE_BUCKETS } from '../../src-main/core/compare/metrics'
import { workloadsDir } from '../../src-main/core/paths'
import { flowSlowdowns, idealFctOfSpec, withSlowdown } from '../../src-main/core/slowdown'
import { parseExperiment } from '../../src-main/core/spec'
import { fctStats } from '../../src-main/core/stats'
import { openStore, type Store } from '../../src-main/core/store'
import { simConfigFor } from '../../src-main/core/targets/sim/config'
import { runSim } from '../../src-main/schemes'

const YAML = `name: slow
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 10Gbps, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3, 0.7], flows: 80 }
seeds: [1]
`

const stores: Store[] = []
afterEach(() => {
  for (const s of stores.splice(0)) s.close()
})

function setup(withSlowdownStats: boolean) {
  const store = openStore(join(mkdtempSync(join(tmpdir(), 'p4lab-sd-')), 'c.db'))
  stores.push(store)
  const parsed = parseExperiment(YAML, { file: 'x.yaml', baseDir: tmpdir(), workloadsDir: workloadsDir() })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  const spec = parsed.spec
  const exp = store.createExperiment({ name: spec.name, yaml: YAML, spec, file: null, tags: [] })
  const out: Array<{ id: number; flows: ReturnType<typeof runSim>['flows'] }> = []
  for (const load of [0.3, 0.7]) {
    const [run] = store.createRuns(exp.id, 'sim', 'test:1', [{ scheme: 'ecmp', load, seed: 1, params: {} }], { spec })
    store.setRunStatus(run.id, 'running')
    const r = runSim(simConfigFor({ runId: run.id, spec, scheme: 'ecmp', load, seed: 1 }))
    store.insertFlows(run.id, r.flows)
    const stats = fctStats(r.flows)
    store.setRunResults(run.id, { stats: withSlowdownStats ? withSlowdown(stats, r.flows, spec) : stats, counters: { drops: r.counters.drops } })
    store.setRunStatus(run.id, 'done')
    out.push({ id: run.id, flows: r.flows })
  }
  return { store, expId: exp.id, spec, runs: out }
}

describe('FCT slowdown in compare', () => {
  it('stores the mean and percentiles of the flows\' slowdowns, at least 1, and plots them against load', () => {
    const { store, expId, spec, runs } = setup(true)
    const ideal = idealFctOfSpec(spec)!
    for (const r of runs) {
      const s = store.getRun(r.id)!.stats!.slowdown!
      const each = [...flowSlowdowns(r.flows, ideal)].filter((v) => !Number.isNaN(v))
      expect(s.flows).toBe(each.length)
      expect(s.mean).toBeCloseTo(each.reduce((a, v) => a + v, 0) / each.length, 9)
      // No flow beats its ideal: a lone flow's slowdown is exactly 1 (test/sim/slowdown.test.ts).
      for (const v of each) expect(v).toBeGreaterThanOrEqual(1 - 1e-9)
      expect(s.p50).toBeLessThanOrEqual(s.p95)
      expect(s.p95).toBeLessThanOrEqual(s.p99)
    }
    const res = compareRuns(store, { experimentIds: [expId], metric: 'slowdown.mean' })
    expect(res.unit).toBe('ratio')
    expect(res.rows.map((r) => r.x)).toEqual([0.3, 0.7])
    expect(res.rows.map((r) => r.mean)).toEqual(runs.map((r) => store.getRun(r.id)!.stats!.slowdown!.mean))
    // Beside an FCT statistic, the compare table shows the same statistic of slowdown.
    const fct = compareRuns(store, { experimentIds: [expId], metric: 'mean' })
    expect(fct.rows.map((r) => r.slowdown)).toEqual(res.rows.map((r) => r.mean))
    const table = formatCompareTable(fct)
    expect(table).toMatch(/ slowdown\n/)
    expect(table).toMatch(/0\.7 +1 +[\d.]+ (us|µs|ms) .* \d+(\.\d+)?x\n/)
  })

  it('gives a CDF of slowdown per flow-size bucket from the flows, each pooling exactly its bucket', () => {
    const { store, expId, spec, runs } = setup(true)
    const res = compareRuns(store, { experimentIds: [expId], metric: 'slowdown.mean', cdf: 'slowdown' })
    expect(res.cdfs!.map((c) => [c.x, c.bucket])).toEqual([0.3, 0.7].flatMap((x) => SIZE_BUCKETS.map((b) => [x, b.label])))
    const ideal = idealFctOfSpec(spec)!
    const r = runs[1]
    const sd = flowSlowdowns(r.flows, ideal)
    for (const b of SIZE_BUCKETS) {
      const inBucket = [...sd].filter((v, i) => !Number.isNaN(v) && r.flows.sizeBytes[i] >= b.lo && r.flows.sizeBytes[i] < b.hi).sort((a, c) => a - c)
      const c = res.cdfs!.find((x) => x.x === 0.7 && x.bucket === b.label)!
      // How many flows of this size there were and how many finished: an empty bucket says which it lacks.
      expect(c.flows, b.label).toBe([...r.flows.sizeBytes].filter((s) => s >= b.lo && s < b.hi).length)
      expect(c.finished, b.label).toBe(inBucket.length)
      if (inBucket.length === 0) {
        expect(c.points, b.label).toEqual([])
        continue
      }
      // The 100th percentile is the bucket's largest slowdown, the 1st near its smallest.
      expect(c.points.at(-2)![0], b.label).toBe(inBucket.at(-1))
      expect(c.points[0][0], b.label).toBe(inBucket[Math.ceil(0.01 * inBucket.length) - 1])
    }
  })

  it('says under the CDF table why a row has no point: no flow of that size, or none of them finished', () => {
    const { store, expId } = setup(true)
    const res = compareRuns(store, { experimentIds: [expId], metric: 'slowdown.mean', cdf: 'slowdown' })
    const full = res.cdfs!.find((c) => c.points.length > 0)!
    // The three cases side by side, from one real CDF: points, a size class no flow fell in, one whose flows all stayed unfinished.
    res.cdfs = [full, { ...full, bucket: '1-10KB', points: [], flows: 0, finished: 0 }, { ...full, bucket: '>=10MB', points: [], flows: 3, finished: 0 }]
    const text = formatCompareCdfs(res, 'slowdown')
    expect(text).toMatch(/\n"-": no point to read \(2 rows\):\n/)
    expect(text).toContain(`\n  - scheme ecmp, load ${full.x}, flows of 1-10KB: the runs had no flow of this size\n`)
    expect(text).toContain(`\n  - scheme ecmp, load ${full.x}, flows of >=10MB: none of its 3 flows finished\n`)
    // A table with every row filled has no such note.
    res.cdfs = [full]
    expect(formatCompareCdfs(res, 'slowdown')).not.toContain('no point to read')
  })

  it('gives the run view each flow\'s slowdown with its flows (runs.flows)', async () => {
    const { store, spec, runs } = setup(true)
    const res = await fabricHandlers(store)['runs.flows']({ id: runs[0].id })
    const expected = [...flowSlowdowns(runs[0].flows, idealFctOfSpec(spec)!)].map((v) => (Number.isNaN(v) ? null : v))
    expect(res.slowdown).toHaveLength(runs[0].flows.src.length)
    expect(res.slowdown!.map((v) => (v === null ? null : Number(v.toPrecision(12))))).toEqual(expected.map((v) => (v === null ? null : Number(v.toPrecision(12)))))
  })

  it('shows a run stored before slowdown was measured as n/a, and plots no number for it', () => {
    const { store, expId } = setup(false)
    const res = compareRuns(store, { experimentIds: [expId], metric: 'slowdown.mean' })
    expect(res.rows).toEqual([])
    expect(res.excluded).toBe(2)
    const fct = compareRuns(store, { experimentIds: [expId], metric: 'mean' })
    expect(fct.rows.map((r) => r.slowdown)).toEqual([null, null])
    expect(formatCompareTable(fct)).toMatch(/ n\/a\n/)
  })
})

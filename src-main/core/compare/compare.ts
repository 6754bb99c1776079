// Compare runs across experiments: a metric against a parameter (load by default), one
// line per scheme (and per experiment, target or varied parameter when those differ), with
// the mean and a band across seeds; optionally normalised to a baseline scheme.
//
// The output depends only on what the runs hold (names, cells, results), never on ids or
// wall-clock times, so an exported and re-imported experiment compares to the same bytes.
import type { Store } from '../store'
import { band, type BandKind } from './band'
import { LARGE_FLOW_BYTES, SMALL_FLOW_BYTES } from '../stats'
import { FCT_METRICS, SIZE_BUCKETS, cdfPoints, metricUnit, queueDepthSamples, type MetricName } from './metrics'
import { QueryError, checkFields, matches, parseQuery } from './query'
import { diffOnly, knownFields, loadRecords, type FieldValue, type RunRecord } from './records'

export interface CompareOptions {
  experimentIds: number[]
  /** Pinned runs: when given, only these (of the experiments above) are compared. */
  runIds?: number[]
  query?: string
  metric?: MetricName
  /** The x axis: any field (default load). */
  by?: string
  /** A scheme: every value is divided by that scheme's value of the same cell (same x, seed, line). */
  baseline?: string
  band?: BandKind
  /**
   * Also give CDF points per line and x: of FCT (all flows), of queue depth samples, or of FCT
   * slowdown per flow-size bucket (SIZE_BUCKETS; one CDF per line, x and bucket).
   */
  cdf?: 'fct' | 'queue' | 'slowdown'
  /**
   * The fields that make a line (group by any parameter: `lines: []` and `by: 'flowletGapNs'`).
   * Default: scheme, plus experiment, target and parameters where they vary.
   */
  lines?: string[]
}

export interface CompareRow {
  /** The line's key: scheme, and experiment/target/parameters when they vary. */
  line: Record<string, FieldValue>
  x: FieldValue
  n: number
  mean: number
  lo: number
  hi: number
  sd: number
  /** Per-run values in seed order, and those seeds. */
  values: number[]
  seeds: number[]
  /**
   * Beside an FCT statistic (mean, p50, p99), the same statistic of FCT slowdown, averaged over
   * the cell's runs that have one; null when none has (runs stored before it was measured).
   */
  slowdown?: number | null
}

export interface CompareResult {
  experiments: string[]
  metric: MetricName
  unit: 'ns' | 'ratio' | 'bps' | 'count'
  by: string
  band: BandKind
  baseline: string | null
  query: string
  lineKeys: string[]
  rows: CompareRow[]
  /**
   * Flows of the runs in the rows, and of those the ones that did not finish: left out of
   * every FCT statistic, so the reader is told how many (absent in results made before).
   */
  unfinishedFlows?: { flows: number; unfinished: number }
  /** Runs the query matched, and of those the ones left out (not done, no value, no baseline). */
  matched: number
  excluded: number
  /** Of the cells left out, those whose latest run ended incomplete, with their numbers and likely cause. */
  incomplete: IncompleteCell[]
  differences: Array<{ field: string; values: FieldValue[] }>
  /**
   * For slowdown CDFs, also how many flows of the bucket's size the runs had and how many of
   * them have a slowdown (finished): a bucket with no point says which of the two it lacks.
   */
  cdfs?: Array<{ line: Record<string, FieldValue>; x: FieldValue; points: Array<[number, number]>; bucket?: string; flows?: number; finished?: number }>
}

export interface IncompleteCell {
  experiment: string
  target: string
  scheme: string
  load: number
  seed: number
  flows: number
  finished: number
  failed: number
  unfinished: number
  cause: string | null
}

export class CompareError extends Error {}

/** The slowdown statistic shown beside an FCT statistic. */
const SLOWDOWN_BESIDE: Partial<Record<MetricName, MetricName>> = { mean: 'slowdown.mean', p50: 'slowdown.p50', p99: 'slowdown.p99' }

const NOT_LINE_KEYS = new Set(['id', 'status', 'seed', 'hash.program', 'hash.topology', 'hash.config'])

function cmp(a: FieldValue, b: FieldValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  const sa = a === null ? '' : String(a)
  const sb = b === null ? '' : String(b)
  return sa < sb ? -1 : sa > sb ? 1 : 0
}

/**
 * The latest finished run per cell, so a cell re-run after a failure counts once. A cell is also
 * its config (what the run's record says it ran with): a run of an edited experiment does not
 * stand in for one of the text before the edit.
 */
function latestPerCell(records: RunRecord[]): RunRecord[] {
  const byCell = new Map<string, RunRecord>()
  for (const r of records) {
    const key = JSON.stringify([r.fields.experiment, r.experiment.id, r.run.target, r.run.scheme, r.run.load, r.run.seed, r.run.params, r.configKey])
    const prev = byCell.get(key)
    const better = !prev || Number(r.run.status === 'done') >= Number(prev.run.status === 'done')
    if (better) byCell.set(key, r)
  }
  const kept = new Set(byCell.values())
  return records.filter((r) => kept.has(r))
}

/** Whether the runs of one experiment ran with more than one config (a revision that changed what runs). */
function configVaries(cells: readonly RunRecord[]): boolean {
  const configs = new Map<number, string>()
  for (const r of cells) {
    const seen = configs.get(r.experiment.id)
    if (seen === undefined) configs.set(r.experiment.id, r.configKey)
    else if (seen !== r.configKey) return true
  }
  return false
}

export function compareRuns(store: Store, opts: CompareOptions): CompareResult {
  const metric = opts.metric ?? 'mean'
  const by = opts.by ?? 'load'
  const bandKind = opts.band ?? 'ci95'
  const query = opts.query?.trim() ?? ''
  let records = loadRecords(store, opts.experimentIds)
  const known = knownFields(records)
  if (!known.has(by)) throw new CompareError(`--by: unknown field '${by}'; known fields: ${[...known].sort().join(', ')}`)
  const tree = parseQuery(query)
  checkFields(tree, known, query)
  if (opts.runIds) {
    const pinned = new Set(opts.runIds)
    records = records.filter((r) => pinned.has(r.run.id))
  }
  records = records.filter((r) => matches(tree, r))
  const matched = records.length
  const cells = latestPerCell(records)

  // Line keys: scheme always; experiment, target, load (when it is not the x) and parameters
  // only when they vary. Left out, the loads of a sweep compared by scheme were pooled as if
  // they were seeds: "2 seeds" of one seed, and a CI across loads that went below zero.
  const varies = (f: string) => (f === 'revision' ? configVaries(cells) : new Set(cells.map((r) => JSON.stringify(r.get(f) ?? null))).size > 1)
  // The revision too, when an experiment's runs ran with different texts: the runs of an edited
  // cell (more flows, another fabric) were pooled with those before the edit as extra seeds.
  const candidates = ['experiment', 'target', 'scheme', 'load', 'revision', ...[...known].filter((f) => cells.some((r) => r.paramNames.includes(f))).sort()]
  for (const f of opts.lines ?? []) {
    if (!known.has(f)) throw new CompareError(`lines: unknown field '${f}'; known fields: ${[...known].sort().join(', ')}`)
  }
  const lineKeys = opts.lines ?? candidates.filter((f) => f !== by && !NOT_LINE_KEYS.has(f) && (f === 'scheme' || varies(f)))

  const schemeOrder: string[] = []
  const experimentOrder: string[] = []
  for (const id of opts.experimentIds) {
    const e = store.getExperiment(id)!
    if (!experimentOrder.includes(e.name)) experimentOrder.push(e.name)
    for (const s of ((e.spec as { schemes?: string[] })?.schemes ?? [])) if (!schemeOrder.includes(s)) schemeOrder.push(s)
  }
  const orderOf = (field: string, v: FieldValue, other: FieldValue) => {
    const list = field === 'scheme' ? schemeOrder : field === 'experiment' ? experimentOrder : null
    if (list) return (list.indexOf(String(v)) - list.indexOf(String(other))) || cmp(v, other)
    return cmp(v, other)
  }

  const lineOf = (r: RunRecord) => Object.fromEntries(lineKeys.map((k) => [k, r.get(k) ?? null])) as Record<string, FieldValue>
  const baseKey = (r: RunRecord, scheme: FieldValue) =>
    JSON.stringify([...lineKeys.map((k) => (k === 'scheme' ? scheme : (r.get(k) ?? null))), r.get(by) ?? null, r.run.seed])

  let baselineValues: Map<string, number> | undefined
  if (opts.baseline !== undefined) {
    if (!cells.some((r) => r.run.scheme === opts.baseline)) {
      throw new CompareError(`--baseline: no run of scheme '${opts.baseline}' among the runs compared`)
    }
    baselineValues = new Map()
    for (const r of cells) {
      if (r.run.scheme !== opts.baseline) continue
      const v = r.metric(metric)
      if (v !== null && v !== 0) baselineValues.set(baseKey(r, r.run.scheme), v)
    }
  }

  const groups = new Map<string, { line: Record<string, FieldValue>; x: FieldValue; items: Array<{ seed: number; v: number; r: RunRecord }> }>()
  let excluded = matched - cells.length
  for (const r of cells) {
    let v = r.metric(metric)
    if (v !== null && baselineValues) {
      const base = baselineValues.get(baseKey(r, opts.baseline!))
      v = base === undefined ? null : v / base
    }
    if (v === null) {
      excluded++
      continue
    }
    const line = lineOf(r)
    const x = r.get(by) ?? null
    const key = JSON.stringify([line, x])
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { line, x, items: [] }))
    g.items.push({ seed: r.run.seed, v, r })
  }

  const sorted = [...groups.values()].sort((a, b) => {
    for (const k of lineKeys) {
      const d = orderOf(k, a.line[k], b.line[k])
      if (d !== 0) return d
    }
    return cmp(a.x, b.x)
  })
  const rows: CompareRow[] = sorted.map((g) => {
    const items = [...g.items].sort((a, b) => a.seed - b.seed)
    const values = items.map((i) => i.v)
    const b = band(values, bandKind)!
    const row: CompareRow = { line: g.line, x: g.x, n: b.n, mean: b.mean, lo: b.lo, hi: b.hi, sd: b.sd, values, seeds: items.map((i) => i.seed) }
    const beside = baselineValues ? undefined : SLOWDOWN_BESIDE[metric]
    if (beside) {
      const sds = items.map((i) => i.r.metric(beside)).filter((v): v is number => v !== null)
      row.slowdown = sds.length ? sds.reduce((a, v) => a + v, 0) / sds.length : null
    }
    return row
  })
  const unfinishedFlows = { flows: 0, unfinished: 0 }
  for (const g of sorted) {
    for (const { r } of g.items) {
      const s = r.run.stats
      if (!s) continue
      unfinishedFlows.flows += s.flows
      unfinishedFlows.unfinished += s.flows - s.finished
    }
  }

  const result: CompareResult = {
    experiments: experimentOrder,
    metric,
    unit: baselineValues ? 'ratio' : metricUnit(metric),
    by,
    band: bandKind,
    baseline: opts.baseline ?? null,
    query,
    lineKeys,
    rows,
    unfinishedFlows,
    matched,
    excluded,
    incomplete: cells
      .filter((r) => r.run.status === 'incomplete')
      .map((r) => {
        const c = r.run.completion
        return {
          experiment: r.experiment.name,
          target: r.run.target,
          scheme: r.run.scheme,
          load: r.run.load,
          seed: r.run.seed,
          flows: c?.flows ?? r.run.stats?.flows ?? 0,
          finished: c?.finished ?? r.run.stats?.finished ?? 0,
          failed: c?.failed ?? 0,
          unfinished: c?.unfinished ?? 0,
          cause: c?.cause ?? r.run.error,
        }
      }),
    differences: diffOnly(cells),
  }
  if (opts.cdf === 'slowdown') {
    result.cdfs = sorted.flatMap((g) => {
      const runs = [...g.items].sort((a, b) => a.seed - b.seed).map((i) => i.r)
      return SIZE_BUCKETS.map((b) => {
        const pooled: number[] = []
        let flows = 0
        for (const r of runs) {
          const sd = r.flowSlowdowns()
          r.listFlows().forEach((f, i) => {
            if (f.sizeBytes < b.lo || f.sizeBytes >= b.hi) return
            flows++
            if (!Number.isNaN(sd[i])) pooled.push(sd[i])
          })
        }
        return { line: g.line, x: g.x, bucket: b.label, points: cdfPoints(Float64Array.from(pooled)), flows, finished: pooled.length }
      })
    })
  } else if (opts.cdf) {
    result.cdfs = sorted.map((g) => {
      const runs = [...g.items].sort((a, b) => a.seed - b.seed).map((i) => i.r)
      let pooled: Float64Array
      if (opts.cdf === 'fct') {
        const cls = FCT_METRICS.includes(metric as (typeof FCT_METRICS)[number]) && metric.includes('.') ? (metric.split('.')[0] as 'small' | 'large') : 'all'
        pooled = Float64Array.from(runs.flatMap((r) => r.listFlows().filter((f) => f.fctNs !== null && inClass(f.sizeBytes, cls)).map((f) => f.fctNs!)))
      } else {
        pooled = Float64Array.from(runs.flatMap((r) => [...queueDepthSamples(store, r.run.id)]))
      }
      return { line: g.line, x: g.x, points: cdfPoints(pooled) }
    })
  }
  return result
}

function inClass(size: number, cls: 'all' | 'small' | 'large'): boolean {
  if (cls === 'small') return size < SMALL_FLOW_BYTES
  if (cls === 'large') return size > LARGE_FLOW_BYTES
  return true
}

export { QueryError }

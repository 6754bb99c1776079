// What compare plots per run: FCT statistics for all, small (<100 KB) and large (>10 MB)
// flows, probe overhead, and the FCT and queue-depth CDFs. FCT numbers are nanoseconds,
// percentiles nearest-rank (stats.ts), as everywhere else in p4lab.
import { LARGE_FLOW_BYTES, SMALL_FLOW_BYTES, percentile } from '../stats'
import type { FlowRow, RunRow, Store } from '../store'

export const FCT_METRICS = [
  'mean',
  'p50',
  'p99',
  'small.mean',
  'small.p50',
  'small.p99',
  'large.mean',
  'large.p50',
  'large.p99',
] as const
/** FCT slowdown (FCT over the ideal FCT on an idle fabric, core/slowdown.ts), from the run's stored stats. */
export const SLOWDOWN_METRICS = ['slowdown.mean', 'slowdown.p50', 'slowdown.p95', 'slowdown.p99'] as const
/**
 * Flow-size buckets of the slowdown CDFs: decades from 10 KB to 10 MB, finer than the papers'
 * <100 KB / >10 MB split (decimal units, as the papers use). Lower bound inclusive.
 */
export const SIZE_BUCKETS: ReadonlyArray<{ label: string; lo: number; hi: number }> = [
  { label: '<10 KB', lo: 0, hi: 10e3 },
  { label: '10–100 KB', lo: 10e3, hi: 100e3 },
  { label: '100 KB–1 MB', lo: 100e3, hi: 1e6 },
  { label: '1–10 MB', lo: 1e6, hi: 10e6 },
  { label: '≥10 MB', lo: 10e6, hi: Infinity },
]

export const OTHER_METRICS = ['probeOverhead', 'goodput', 'drops', 'retransmits'] as const
export const METRICS = [...FCT_METRICS, ...SLOWDOWN_METRICS, ...OTHER_METRICS] as const
export type MetricName = (typeof METRICS)[number]

export function isMetric(name: string): name is MetricName {
  return (METRICS as readonly string[]).includes(name)
}

/** Metrics in ns are shown as durations; the others as plain numbers. */
export function metricUnit(m: MetricName): 'ns' | 'ratio' | 'bps' | 'count' {
  if ((FCT_METRICS as readonly string[]).includes(m)) return 'ns'
  if (m === 'probeOverhead' || m.startsWith('slowdown.')) return 'ratio'
  if (m === 'goodput') return 'bps'
  return 'count'
}

/** Metrics the run's stored stats already hold, so no flow needs reading. */
export function metricFromStats(run: RunRow, m: MetricName): number | null | undefined {
  const s = run.stats
  const c = run.counters
  switch (m) {
    case 'mean':
      return s?.meanNs ?? null
    case 'p50':
      return s?.p50Ns ?? null
    case 'p99':
      return s?.p99Ns ?? null
    case 'small.mean':
      return s?.smallMeanNs ?? null
    case 'large.mean':
      return s?.largeMeanNs ?? null
    // A run stored before slowdown was measured has none: null (n/a), never recomputed behind its back.
    case 'slowdown.mean':
      return s?.slowdown?.mean ?? null
    case 'slowdown.p50':
      return s?.slowdown?.p50 ?? null
    case 'slowdown.p95':
      return s?.slowdown?.p95 ?? null
    case 'slowdown.p99':
      return s?.slowdown?.p99 ?? null
    case 'probeOverhead': {
      // Probe and credit bytes put on links, per payload byte the hosts sent.
      if (!c || typeof c.controlBytes !== 'number' || !c.payloadBytesSent) return null
      return c.controlBytes / c.payloadBytesSent
    }
    case 'goodput':
      return typeof c?.goodputBps === 'number' ? c.goodputBps : null
    case 'drops':
      return typeof c?.drops === 'number' ? c.drops : null
    case 'retransmits':
      return typeof c?.retransmits === 'number' ? c.retransmits : null
    default:
      return undefined
  }
}

function classFcts(flows: FlowRow[], cls: 'all' | 'small' | 'large'): Float64Array {
  const out: number[] = []
  for (const f of flows) {
    if (f.fctNs === null) continue
    if (cls === 'small' && !(f.sizeBytes < SMALL_FLOW_BYTES)) continue
    if (cls === 'large' && !(f.sizeBytes > LARGE_FLOW_BYTES)) continue
    out.push(f.fctNs)
  }
  return Float64Array.from(out).sort()
}

/** A flow-class metric from the run's flows. */
export function metricFromFlows(flows: FlowRow[], m: MetricName): number | null {
  const [cls, stat] = m.includes('.') ? (m.split('.') as ['small' | 'large', string]) : (['all', m] as const)
  const fcts = classFcts(flows, cls)
  if (stat === 'mean') {
    if (fcts.length === 0) return null
    let sum = 0
    for (const v of fcts) sum += v
    return sum / fcts.length
  }
  return percentile(fcts, stat === 'p50' ? 50 : 99)
}

/** The probabilities CDFs are reported at: every percent, plus the 99.9th. */
export const CDF_PROBABILITIES: readonly number[] = [...Array.from({ length: 100 }, (_, i) => (i + 1) / 100), 0.999].sort((a, b) => a - b)

/** Points [value, P(X <= value)] of an empirical CDF (nearest rank), at CDF_PROBABILITIES. */
export function cdfPoints(values: Float64Array): Array<[number, number]> {
  if (values.length === 0) return []
  const sorted = Float64Array.from(values).sort()
  return CDF_PROBABILITIES.map((p) => [percentile(sorted, p * 100)!, p])
}

export function fctCdf(flows: FlowRow[], cls: 'all' | 'small' | 'large' = 'all'): Array<[number, number]> {
  return cdfPoints(classFcts(flows, cls))
}

/** Every queue-depth sample of a run (all ports, all instants; NaN samples left out). */
export function queueDepthSamples(store: Store, runId: number): Float64Array {
  const { values } = store.readSamples(runId, ['queue.depth'])
  const out: number[] = []
  for (const row of values) for (const v of row) if (Number.isFinite(v)) out.push(v)
  return Float64Array.from(out)
}

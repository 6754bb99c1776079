// The INT tab's tables: one row per int.* series (now, mean, max), sorted into per-hop,
// per-queue and per-flow tables. The rows come from a run's series (stored, or streamed with
// the run) or, while a run streams INT points, from running totals of the 'run.points'
// summaries. No DOM, no Vue: tested in node.
import type { SeriesDefLike } from './series'

export interface IntRow {
  key: string
  kind: string
  unit: string
  now: number
  mean: number
  max: number
}

export interface IntRows {
  hops: IntRow[]
  queues: IntRow[]
  flows: IntRow[]
  any: boolean
}

/** One int.* series and its figures; other kinds are left out. */
export interface IntItem {
  def: SeriesDefLike
  now: number
  mean: number
  max: number
}

export function intRows(items: Iterable<IntItem>): IntRows {
  const out: IntRows = { hops: [], queues: [], flows: [], any: false }
  for (const { def: d, now, mean, max } of items) {
    if (!d.kind.startsWith('int.')) continue
    out.any = true
    const row: IntRow = {
      key: Object.entries(d.entity)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
      kind: d.kind,
      unit: d.unit,
      now,
      mean,
      max,
    }
    // int.e2eDelay is per flow ({src, dst}); a series keyed by a flow id is too.
    if ('flow' in d.entity || ('src' in d.entity && 'dst' in d.entity)) out.flows.push(row)
    else if (d.kind === 'int.queue' || 'queue' in d.entity) out.queues.push(row)
    else out.hops.push(row)
  }
  return out
}

/** A series' points so far: what 'run.points' summaries add up to. */
export interface PointTotals {
  count: number
  sum: number
  min: number
  max: number
  lastTNs: number
  last: number
}

/** The parts of a contract PointStats this module needs. */
export interface PointStatsLike extends PointTotals {
  seriesId: number
}

/** Adds summaries into the totals (by series id). */
export function addPointStats(totals: Map<number, PointTotals>, stats: readonly PointStatsLike[]): void {
  for (const { seriesId, ...s } of stats) {
    const t = totals.get(seriesId)
    if (!t) {
      totals.set(seriesId, { ...s })
      continue
    }
    t.count += s.count
    t.sum += s.sum
    t.min = Math.min(t.min, s.min)
    t.max = Math.max(t.max, s.max)
    if (s.lastTNs >= t.lastTNs) {
      t.lastTNs = s.lastTNs
      t.last = s.last
    }
  }
}

/** Items for intRows from running totals: now is the latest point, mean and max over the run so far. */
export function totalsItems(defs: ReadonlyMap<number, SeriesDefLike>, totals: ReadonlyMap<number, PointTotals>): IntItem[] {
  const out: IntItem[] = []
  for (const [id, t] of totals) {
    const def = defs.get(id)
    if (def) out.push({ def, now: t.last, mean: t.sum / t.count, max: t.max })
  }
  return out
}

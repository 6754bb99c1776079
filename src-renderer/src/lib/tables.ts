// A switch's live tables, derived from its series at the cursor: HULA's best hop and path
// util per destination ToR (the HULA paper, Fig. 2), CONGA's congestion-to-leaf table, DHLB's
// load-information table, Floodgate's windows, and the switch's own ports. Also the
// traffic view's derivations (busiest ports, probe overhead, queue CDF and heatmap, flows on
// the wire). Pure functions; no DOM, tested in node.
import type { SeriesDefLike } from './series'
import { statOf, type StatMode } from './window'

/** The value of series i at the cursor (NaN when there is none yet). */
export type ValueOf = (i: number) => number

const byName = (a: string | number, b: string | number) => String(a).localeCompare(String(b), 'en', { numeric: true })

export interface HulaRow {
  dstTor: string
  /** The best hop's port, or null before the first probe. */
  bestHop: number | null
  /** The neighbour behind that port. */
  via: string | null
  pathUtil: number
}

/** HULA's best-hop table of one switch: one row per destination ToR. */
export function hulaTable(defs: readonly SeriesDefLike[], sw: string, value: ValueOf, peers: ReadonlyMap<string, string>): HulaRow[] {
  const rows = new Map<string, HulaRow>()
  defs.forEach((d, i) => {
    if (d.entity.switch !== sw || (d.kind !== 'hula.bestHop' && d.kind !== 'hula.pathUtil')) return
    const dst = String(d.entity.dstTor)
    const row = rows.get(dst) ?? { dstTor: dst, bestHop: null, via: null, pathUtil: NaN }
    const v = value(i)
    if (d.kind === 'hula.bestHop') {
      // The sim reports -1 (or nothing) until a probe for that ToR has arrived.
      row.bestHop = Number.isFinite(v) && v >= 0 ? Math.round(v) : null
      row.via = row.bestHop === null ? null : (peers.get(`${sw}:${row.bestHop}`) ?? null)
    } else {
      row.pathUtil = v
    }
    rows.set(dst, row)
  })
  return [...rows.values()].sort((a, b) => byName(a.dstTor, b.dstTor))
}

export interface MatrixTable {
  /** Column keys (uplinks, ports), sorted. */
  cols: Array<string | number>
  rows: Array<{ key: string; cells: number[]; /** Column index of the least congested cell. */ best: number }>
}

/** Rows × columns from the defs of one kind at one switch, keyed by two entity fields. */
function matrix(
  defs: readonly SeriesDefLike[],
  kind: string,
  matches: (e: SeriesDefLike['entity']) => boolean,
  rowKey: string,
  colKey: string,
  value: ValueOf,
): MatrixTable {
  const cells = new Map<string, Map<string | number, number>>()
  const colSet = new Set<string | number>()
  defs.forEach((d, i) => {
    if (d.kind !== kind || !matches(d.entity)) return
    const r = String(d.entity[rowKey])
    const c = d.entity[colKey]
    colSet.add(c)
    const m = cells.get(r) ?? new Map<string | number, number>()
    m.set(c, value(i))
    cells.set(r, m)
  })
  const cols = [...colSet].sort(byName)
  const rows = [...cells.keys()].sort(byName).map((key) => {
    const m = cells.get(key)!
    const vals = cols.map((c) => m.get(c) ?? NaN)
    let best = -1
    vals.forEach((v, j) => {
      if (Number.isFinite(v) && (best < 0 || v < vals[best])) best = j
    })
    return { key, cells: vals, best }
  })
  return { cols, rows }
}

/** CONGA's congestion-to-leaf table at a leaf: per destination leaf, the metric of each uplink. */
export function congaTable(defs: readonly SeriesDefLike[], leaf: string, value: ValueOf): MatrixTable {
  return matrix(defs, 'conga.metric', (e) => e.leaf === leaf, 'dstLeaf', 'uplink', value)
}

/** DHLB's load-information table at a switch: per destination ToR, the load degree of each candidate port. */
export function dhlbTable(defs: readonly SeriesDefLike[], sw: string, value: ValueOf): MatrixTable {
  return matrix(defs, 'dhlb.loadDegree', (e) => e.switch === sw, 'dstTor', 'port', value)
}

export interface FloodgateRow {
  dst: string
  window: number
  voq: number
}

/** Floodgate's per-destination windows (bytes) and VOQ occupancy (packets) at a switch. */
export function floodgateTable(defs: readonly SeriesDefLike[], sw: string, value: ValueOf): FloodgateRow[] {
  const rows = new Map<string, FloodgateRow>()
  defs.forEach((d, i) => {
    if (d.entity.switch !== sw || (d.kind !== 'floodgate.window' && d.kind !== 'floodgate.voq')) return
    const dst = String(d.entity.dst)
    const row = rows.get(dst) ?? { dst, window: NaN, voq: NaN }
    if (d.kind === 'floodgate.window') row.window = value(i)
    else row.voq = value(i)
    rows.set(dst, row)
  })
  return [...rows.values()].sort((a, b) => byName(a.dst, b.dst))
}

export interface PortRow {
  port: number
  peer: string | null
  util: number
  depth: number
  drops: number
}

/** The switch's own ports: egress utilization, queue depth and drops at the cursor. */
export function portTable(defs: readonly SeriesDefLike[], sw: string, value: ValueOf, peers: ReadonlyMap<string, string>): PortRow[] {
  const rows = new Map<number, PortRow>()
  defs.forEach((d, i) => {
    if (d.entity.switch !== sw || d.entity.port === undefined) return
    if (d.kind !== 'link.util' && d.kind !== 'queue.depth' && d.kind !== 'drops') return
    const port = Number(d.entity.port)
    const row = rows.get(port) ?? { port, peer: peers.get(`${sw}:${port}`) ?? null, util: NaN, depth: NaN, drops: NaN }
    if (d.kind === 'link.util') row.util = value(i)
    else if (d.kind === 'queue.depth') row.depth = value(i)
    else row.drops = value(i)
    rows.set(port, row)
  })
  return [...rows.values()].sort((a, b) => a.port - b.port)
}

/** Which tables a run has data for (a scheme's series exist only when it ran that scheme). */
export function tablesOf(defs: readonly SeriesDefLike[]): { hula: boolean; conga: boolean; dhlb: boolean; floodgate: boolean } {
  const kinds = new Set(defs.map((d) => d.kind))
  return {
    hula: kinds.has('hula.bestHop'),
    conga: kinds.has('conga.metric'),
    dhlb: kinds.has('dhlb.loadDegree'),
    floodgate: kinds.has('floodgate.window'),
  }
}

export interface BusyPort {
  port: string
  col: number
  util: number
}

/** The n ports with the highest statistic of link.util over [lo, hi). */
export function busiestPorts(defs: readonly SeriesDefLike[], cols: ReadonlyArray<ArrayLike<number>>, lo: number, hi: number, n: number, mode: StatMode = 'mean'): BusyPort[] {
  const out: BusyPort[] = []
  defs.forEach((d, i) => {
    if (d.kind !== 'link.util') return
    const u = statOf(cols[i], lo, hi, mode)
    if (Number.isFinite(u)) out.push({ port: `${d.entity.switch}:${d.entity.port}`, col: i, util: u })
  })
  out.sort((a, b) => b.util - a.util || byName(a.port, b.port))
  return out.slice(0, n)
}

/**
 * Probe traffic as a share of the fabric's capacity at sample j: probe.bytes counts every
 * hop over the interval, so it is divided by what all switch-to-switch link directions
 * could carry in that interval. NaN for the first sample (no interval yet).
 */
export function probeShare(bytes: number, intervalMs: number, capacityBps: number): number {
  if (!(intervalMs > 0) || !(capacityBps > 0) || !Number.isFinite(bytes)) return NaN
  return (bytes * 8) / ((intervalMs / 1000) * capacityBps)
}

/** Both directions of every switch-to-switch link, in bits per second. */
export function fabricCapacityBps(links: ReadonlyArray<{ a: string; b: string; bps: number }>, hosts: readonly string[]): number {
  const h = new Set(hosts)
  let sum = 0
  for (const l of links) if (!h.has(l.a) && !h.has(l.b)) sum += 2 * l.bps
  return sum
}

/**
 * The empirical CDF of queue depths (packets) over columns × samples [lo, hi): one point per
 * distinct depth, x the depth and y the share of samples at or below it.
 */
export function queueCdf(cols: ReadonlyArray<ArrayLike<number>>, lo: number, hi: number): { x: Float64Array; y: Float64Array; samples: number } {
  const n = Math.max(0, hi - lo) * cols.length
  const all = new Float64Array(n)
  let k = 0
  for (const c of cols) {
    for (let j = lo; j < hi; j++) {
      const v = c[j]
      if (Number.isFinite(v)) all[k++] = v
    }
  }
  const vals = all.subarray(0, k).sort()
  const xs: number[] = []
  const ys: number[] = []
  for (let i = 0; i < k; i++) {
    if (i + 1 < k && vals[i + 1] === vals[i]) continue
    xs.push(vals[i])
    ys.push((i + 1) / k)
  }
  return { x: Float64Array.from(xs), y: Float64Array.from(ys), samples: k }
}

/** rows × bins of the max of each column over equal runs of samples [lo, hi) (row-major). */
export function heatmapGrid(cols: ReadonlyArray<ArrayLike<number>>, lo: number, hi: number, bins: number): { grid: Float32Array; bins: number; max: number } {
  const n = hi - lo
  const b = Math.max(1, Math.min(bins, n))
  const grid = new Float32Array(cols.length * b).fill(NaN)
  let max = 0
  cols.forEach((c, r) => {
    for (let k = 0; k < b; k++) {
      const a = lo + Math.floor((k * n) / b)
      const e = lo + Math.floor(((k + 1) * n) / b)
      let m = NaN
      for (let j = a; j < e; j++) {
        const v = c[j]
        if (Number.isFinite(v) && !(v <= m)) m = v
      }
      grid[r * b + k] = m
      if (m > max) max = m
    }
  })
  return { grid, bins: n > 0 ? b : 0, max }
}

/** The parts of the contract's RunFlows these helpers need. */
export interface FlowsLike {
  src: readonly number[]
  dst: readonly number[]
  sizeBytes: readonly number[]
  startNs: readonly number[]
  finishNs: readonly number[]
}

/** Flows on the wire at tNs (started, not finished), largest first; at most `limit`. */
export function activeFlows(flows: FlowsLike, tNs: number, limit: number): { ids: number[]; total: number } {
  const ids: number[] = []
  for (let i = 0; i < flows.src.length; i++) {
    const f = flows.finishNs[i]
    if (flows.startNs[i] <= tNs && (f < 0 || f >= tNs)) ids.push(i)
  }
  const total = ids.length
  ids.sort((a, b) => flowSize(flows, b) - flowSize(flows, a) || a - b)
  return { ids: ids.slice(0, limit), total }
}

/** The n largest flows (an unbounded flow counts as the largest). */
export function topFlows(flows: FlowsLike, n: number): number[] {
  const ids = Array.from({ length: flows.src.length }, (_, i) => i)
  ids.sort((a, b) => flowSize(flows, b) - flowSize(flows, a) || a - b)
  return ids.slice(0, n)
}

const flowSize = (f: FlowsLike, i: number) => (f.sizeBytes[i] < 0 ? Infinity : f.sizeBytes[i])

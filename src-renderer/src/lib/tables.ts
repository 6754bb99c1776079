// A switch's live tables, derived from its series at the cursor: the tables its scheme
// declares (a SwitchTableSpec in its descriptor, built here by two generic builders, one per
// layout) and the switch's own ports. Also the traffic view's derivations (busiest ports,
// probe overhead, queue CDF and heatmap, flows on the wire). Pure functions; no DOM, tested in node.
import type { Scheme, SwitchTableSpec, TableFormat } from '@contract/index'
import { formatBytes, sig3 } from './format'
import type { SeriesDefLike } from './series'
import { statOf, type StatMode } from './window'

/** The value of series i at the cursor (NaN when there is none yet). */
export type ValueOf = (i: number) => number

const byName = (a: string | number, b: string | number) => String(a).localeCompare(String(b), 'en', { numeric: true })

/** A scheme's switch table as the UI lists it: `id` names it in the DOM, `heading` over it. */
export interface SchemeTable {
  /** The scheme's name, with `-2`, `-3`... for its second and later tables. */
  id: string
  /** The scheme's label and the table's title: "HULA best hop". */
  heading: string
  spec: SwitchTableSpec
}

/**
 * Every scheme's tables, each once: a table two schemes share (CONGA′ keeps CONGA's) is listed
 * under the first scheme that declares it, in the registry's order.
 */
export function schemeTables(schemes: ReadonlyArray<Pick<Scheme, 'name' | 'label' | 'tables'>>): SchemeTable[] {
  const out: SchemeTable[] = []
  const seen = new Set<string>()
  for (const s of schemes) {
    s.tables.forEach((spec, i) => {
      const key = JSON.stringify(spec)
      if (seen.has(key)) return
      seen.add(key)
      out.push({ id: i === 0 ? s.name : `${s.name}-${i + 1}`, heading: `${s.label} ${spec.title}`, spec })
    })
  }
  return out
}

/** The series kinds a table is built from. */
export function tableKinds(spec: SwitchTableSpec): string[] {
  return spec.layout === 'matrix' ? [spec.kind] : spec.columns.map((c) => c.kind)
}

/** The tables a run has series for (a scheme's series exist only when it ran that scheme). */
export function tablesWithData(tables: readonly SchemeTable[], defs: readonly SeriesDefLike[]): SchemeTable[] {
  const kinds = new Set(defs.map((d) => d.kind))
  return tables.filter((t) => tableKinds(t.spec).some((k) => kinds.has(k)))
}

export interface DestCell {
  /** NaN when the switch has no value (yet); for a port, also before the first probe (the stages report -1). */
  value: number
  /** The series' unit ('' when there is none): a ratio column may hold a hardware level. */
  unit: string
  /** A port column's neighbour behind the port. */
  via?: string | null
}

export interface DestRow {
  key: string
  /** One per column of the spec, in its order. */
  cells: DestCell[]
}

type DestSpec = Extract<SwitchTableSpec, { layout: 'per-destination' }>
type MatrixSpec = Extract<SwitchTableSpec, { layout: 'matrix' }>

/** A per-destination table at one switch: a row per value of rowKey, a cell per column kind. */
export function destinationTable(spec: DestSpec, defs: readonly SeriesDefLike[], sw: string, value: ValueOf, peers: ReadonlyMap<string, string>): DestRow[] {
  const col = new Map(spec.columns.map((c, j) => [c.kind, j]))
  const rows = new Map<string, DestRow>()
  defs.forEach((d, i) => {
    const j = col.get(d.kind)
    if (j === undefined || String(d.entity[spec.switchKey]) !== sw) return
    const key = String(d.entity[spec.rowKey])
    const row = rows.get(key) ?? { key, cells: spec.columns.map((c) => (c.format === 'port' ? { value: NaN, unit: '', via: null } : { value: NaN, unit: '' })) }
    const v = value(i)
    if (spec.columns[j].format === 'port') {
      const port = Number.isFinite(v) && v >= 0 ? Math.round(v) : NaN
      row.cells[j] = { value: port, unit: d.unit, via: Number.isNaN(port) ? null : (peers.get(`${sw}:${port}`) ?? null) }
    } else {
      row.cells[j] = { value: v, unit: d.unit }
    }
    rows.set(key, row)
  })
  return [...rows.values()].sort((a, b) => byName(a.key, b.key))
}

const DASH = '—'
/** Levels, degrees, queue depths and counts are integers as a switch holds them: 5, not 5.00 (a roll-up's mean keeps 3 digits). */
export const formatNumber = (v: number): string => (!Number.isFinite(v) ? DASH : Number.isInteger(v) ? String(v) : sig3(v))
const num = formatNumber

/** A per-destination cell as text: a port as "port 9", a ratio in %, a hardware level (a ratio column on BMv2) as its number. */
export function formatCell(format: TableFormat, cell: DestCell): string {
  const v = cell.value
  if (!Number.isFinite(v)) return DASH
  switch (format) {
    case 'port':
      return `port ${v}`
    case 'ratio':
      return cell.unit === 'level' ? num(v) : `${(v * 100).toFixed(1)}%`
    case 'bytes':
      return formatBytes(v)
    case 'packets':
      return `${num(v)} pkt`
    default:
      return num(v)
  }
}

/** A matrix cell as text; a negative value is "not set yet". */
export function formatMatrixCell(v: number): string {
  return v < 0 ? DASH : num(v)
}

/** The data attribute a column's value goes in on its row, from its kind: hula.bestHop → data-best-hop. */
export function cellAttr(kind: string): string {
  const last = kind.slice(kind.lastIndexOf('.') + 1)
  return `data-${last.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
}

export interface MatrixTable {
  /** Column keys (uplinks, ports), sorted. */
  cols: Array<string | number>
  /** best: the column indices of the row's best value (every one of a tie; none when no cell has a value). */
  rows: Array<{ key: string; cells: number[]; best: number[] }>
}

/**
 * A matrix table at one switch: one kind laid out rows × columns by two entity keys, each
 * row's best cells marked (the lowest value when lowIsBest, else the highest; all cells that
 * tie for it, since the scheme holds them equal). A negative value is a stage's "not set yet"
 * (DHLB's -1 before any probe) and never the best.
 */
export function matrixTable(spec: MatrixSpec, defs: readonly SeriesDefLike[], sw: string, value: ValueOf): MatrixTable {
  const cells = new Map<string, Map<string | number, number>>()
  const colSet = new Set<string | number>()
  defs.forEach((d, i) => {
    if (d.kind !== spec.kind || String(d.entity[spec.switchKey]) !== sw) return
    const r = String(d.entity[spec.rowKey])
    const c = d.entity[spec.colKey]
    colSet.add(c)
    const m = cells.get(r) ?? new Map<string | number, number>()
    m.set(c, value(i))
    cells.set(r, m)
  })
  const cols = [...colSet].sort(byName)
  const rows = [...cells.keys()].sort(byName).map((key) => {
    const m = cells.get(key)!
    const vals = cols.map((c) => m.get(c) ?? NaN)
    const set = vals.filter((v) => Number.isFinite(v) && v >= 0)
    const top = set.length === 0 ? NaN : spec.lowIsBest ? Math.min(...set) : Math.max(...set)
    const best = vals.flatMap((v, j) => (v === top ? [j] : []))
    return { key, cells: vals, best }
  })
  return { cols, rows }
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

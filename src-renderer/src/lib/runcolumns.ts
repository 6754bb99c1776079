// The runs table's column model, as in W&B and MLflow: a column for every field a run has
// (what it is, its spec, its parameters, the hashes of what ran, its metrics) plus a few live
// ones; the user adds, hides and reorders them (kept per experiment); rows sort with pinned
// runs on top, group by any field with the mean and a min–max band per metric, and "diff
// only" keeps the parameters whose values differ between the shown runs. Pure: tested in node.
import type { Run, RunFieldInfo, RunStatus } from '@contract/index'
import { formatUnit } from '@plots/plotdata'
import { formatSlowdown } from '@plots/format'
import { formatCount, formatLoad, formatNs, sig3 } from './format'

export type FieldValue = string | number | null
export type ColumnGroup = RunFieldInfo['group'] | 'live'

export interface ColumnDef {
  key: string
  label: string
  group: ColumnGroup
  numeric: boolean
  /** The cell's data-col (stable names the tests and older code use). */
  col: string
  title?: string
  /** How the cell shows its value. */
  format: 'ns' | 'count' | 'load' | 'ratio' | 'bps' | 'hash' | 'text' | 'plain' | 'slowdown'
}

/** A row: the run's fields (from compare.runs, or derived from the live Run until then). */
export interface RunRowData {
  id: number
  fields: Record<string, FieldValue>
}

// Labels may wrap in a narrow table: a size and its unit are joined by a no-break space.
const KNOWN: Record<string, Partial<ColumnDef>> = {
  id: { label: '#', numeric: true, col: 'id', format: 'plain' },
  experiment: { label: 'experiment', format: 'text' },
  target: { label: 'target', format: 'text' },
  scheme: { label: 'scheme', format: 'text' },
  load: { label: 'load', numeric: true, format: 'load' },
  seed: { label: 'seed', numeric: true, format: 'plain' },
  status: { label: 'status', format: 'text' },
  revision: { label: 'rev', numeric: true, format: 'plain', title: 'The experiment revision the run ran' },
  stale: { label: 'stale', format: 'text', title: 'yes: the run ran an older revision that runs cells differently, or another target' },
  flows: { label: 'flows', numeric: true, format: 'count', title: 'Flows in the workload' },
  stopAfterNs: { label: 'stop after', numeric: true, format: 'ns' },
  mean: { label: 'mean', numeric: true, col: 'meanFct', format: 'ns', title: 'Mean FCT' },
  p50: { label: 'p50', numeric: true, col: 'p50Fct', format: 'ns', title: 'Median FCT' },
  p99: { label: 'p99', numeric: true, col: 'p99Fct', format: 'ns', title: '99th percentile FCT' },
  'small.mean': { label: '<100\u00a0KB', numeric: true, col: 'smallMeanFct', format: 'ns', title: 'Mean FCT of flows under 100 KB' },
  'small.p50': { label: '<100\u00a0KB p50', numeric: true, format: 'ns' },
  'small.p99': { label: '<100\u00a0KB p99', numeric: true, format: 'ns' },
  'large.mean': { label: '>10\u00a0MB', numeric: true, col: 'largeMeanFct', format: 'ns', title: 'Mean FCT of flows over 10 MB' },
  'large.p50': { label: '>10\u00a0MB p50', numeric: true, format: 'ns' },
  'large.p99': { label: '>10\u00a0MB p99', numeric: true, format: 'ns' },
  'slowdown.mean': { label: 'slowdown', numeric: true, format: 'slowdown', title: 'Mean FCT slowdown: FCT over the ideal FCT on an idle fabric (1 at best)' },
  'slowdown.p50': { label: 'slowdown p50', numeric: true, format: 'slowdown', title: 'Median FCT slowdown' },
  'slowdown.p95': { label: 'slowdown p95', numeric: true, format: 'slowdown', title: '95th percentile FCT slowdown' },
  'slowdown.p99': { label: 'slowdown p99', numeric: true, format: 'slowdown', title: '99th percentile FCT slowdown' },
  probeOverhead: { label: 'probe ovh', numeric: true, format: 'ratio', title: 'Probe and credit bytes on links per payload byte sent' },
  goodput: { label: 'goodput', numeric: true, format: 'bps' },
  drops: { label: 'drops', numeric: true, format: 'count' },
  retransmits: { label: 'retx', numeric: true, col: 'retransmits', format: 'count', title: 'TCP retransmissions' },
  progress: { label: 'progress', format: 'text' },
  finished: { label: 'done', numeric: true, format: 'count', title: 'Flows finished' },
  wall: { label: 'wall', numeric: true, format: 'text', title: 'Wall-clock time of the run' },
}

/** Columns that are not fields of the query language: live progress and wall time. */
export const LIVE_COLUMNS = ['progress', 'finished', 'wall'] as const

/**
 * What a fresh table shows, in this order: the run, its FCT and its slowdown, which fit beside
 * the sidebar on a 1024 px window with room for a longer scheme name, a stale mark or a Cancel
 * button. The flow counts, the FCT by flow size, drops, retransmits and wall time are one click
 * away in the Columns menu.
 */
export const DEFAULT_COLUMNS: readonly string[] = ['id', 'scheme', 'load', 'seed', 'status', 'progress', 'mean', 'p50', 'p99', 'slowdown.mean', 'slowdown.p99']

export function columnDef(key: string, group: ColumnGroup): ColumnDef {
  const k = KNOWN[key] ?? {}
  const numericGuess = group === 'metric' || /(Ns|Bytes|Bps)$/.test(key)
  return {
    key,
    label: k.label ?? key,
    group,
    numeric: k.numeric ?? numericGuess,
    col: k.col ?? key,
    title: k.title ?? key,
    format: k.format ?? (group === 'hash' ? 'hash' : /Ns$/.test(key) ? 'ns' : numericGuess ? 'plain' : 'text'),
  }
}

const GROUP_ORDER: ColumnGroup[] = ['run', 'live', 'spec', 'param', 'hash', 'metric']

/** Every column the table can show: the fields compare.runs reports, plus the live ones. */
export function availableColumns(fields: readonly RunFieldInfo[]): ColumnDef[] {
  const defs = new Map<string, ColumnDef>()
  for (const k of ['id', 'experiment', 'target', 'scheme', 'load', 'seed', 'status']) defs.set(k, columnDef(k, 'run'))
  for (const k of LIVE_COLUMNS) defs.set(k, columnDef(k, 'live'))
  for (const f of fields) if (!defs.has(f.name)) defs.set(f.name, columnDef(f.name, f.group))
  for (const k of ['mean', 'p50', 'p99', 'slowdown.mean', 'slowdown.p99', 'small.mean', 'large.mean', 'drops', 'retransmits']) if (!defs.has(k)) defs.set(k, columnDef(k, 'metric'))
  return [...defs.values()].sort((a, b) => GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group))
}

// ---- Shown columns: an ordered list of keys, kept per experiment. ----

export interface ColumnState {
  /** Shown columns, in display order; keys of columns not available now are kept, not shown. */
  shown: string[]
}

export function defaultState(): ColumnState {
  return { shown: [...DEFAULT_COLUMNS] }
}

/** The columns to draw: the shown keys that exist, in order ('id' always first). */
export function visibleColumns(all: readonly ColumnDef[], state: ColumnState): ColumnDef[] {
  const byKey = new Map(all.map((c) => [c.key, c]))
  const keys = ['id', ...state.shown.filter((k) => k !== 'id')]
  return keys.map((k) => byKey.get(k)).filter((c): c is ColumnDef => c !== undefined)
}

export function hiddenColumns(all: readonly ColumnDef[], state: ColumnState): ColumnDef[] {
  const shown = new Set(state.shown)
  return all.filter((c) => !shown.has(c.key) && c.key !== 'id')
}

export function addColumn(state: ColumnState, key: string): ColumnState {
  return state.shown.includes(key) ? state : { shown: [...state.shown, key] }
}

export function hideColumn(state: ColumnState, key: string): ColumnState {
  return key === 'id' ? state : { shown: state.shown.filter((k) => k !== key) }
}

/** Moves a column by `delta` places among the shown ones (clamped); 'id' stays first. */
export function moveColumn(state: ColumnState, key: string, delta: number): ColumnState {
  const shown = state.shown.filter((k) => k !== 'id')
  const i = shown.indexOf(key)
  if (i < 0) return state
  const j = Math.max(0, Math.min(shown.length - 1, i + delta))
  shown.splice(i, 1)
  shown.splice(j, 0, key)
  return { shown: state.shown.includes('id') ? ['id', ...shown] : shown }
}

/** Puts `key` just before `before` (drag and drop). */
export function placeColumn(state: ColumnState, key: string, before: string): ColumnState {
  if (key === before || key === 'id') return state
  const shown = state.shown.filter((k) => k !== key)
  const j = shown.indexOf(before)
  if (j < 0) return state
  shown.splice(before === 'id' ? j + 1 : j, 0, key)
  return { shown }
}

interface KeyValueStorage {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

const storageKey = (experimentId: number, what: string) => `p4lab.runs.${what}.${experimentId}`

export function loadColumnState(storage: KeyValueStorage, experimentId: number): ColumnState {
  try {
    const raw = storage.getItem(storageKey(experimentId, 'columns'))
    if (!raw) return defaultState()
    const v = JSON.parse(raw) as unknown
    if (v && typeof v === 'object' && Array.isArray((v as ColumnState).shown) && (v as ColumnState).shown.every((k) => typeof k === 'string')) {
      return { shown: [...(v as ColumnState).shown] }
    }
  } catch {
    /* a damaged entry: start over */
  }
  return defaultState()
}

export function saveColumnState(storage: KeyValueStorage, experimentId: number, state: ColumnState): void {
  storage.setItem(storageKey(experimentId, 'columns'), JSON.stringify(state))
}

export function loadPins(storage: KeyValueStorage, experimentId: number): number[] {
  try {
    const v = JSON.parse(storage.getItem(storageKey(experimentId, 'pins')) ?? '[]') as unknown
    return Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x)) : []
  } catch {
    return []
  }
}

export function savePins(storage: KeyValueStorage, experimentId: number, pins: readonly number[]): void {
  storage.setItem(storageKey(experimentId, 'pins'), JSON.stringify(pins))
}

// ---- Rows ----

/** Statuses whose runs have results (FCT statistics, counters, metrics) to show. */
export const RESULT_STATUSES: readonly RunStatus[] = ['done', 'incomplete']

/**
 * Whether a run's results are still on their way to this table: it has ended with results,
 * but the row holds neither its statistics nor a record fetched since it ended. Its empty
 * result cells mean "loading", not "no data".
 */
export function resultsPending(run: Pick<Run, 'status' | 'stats'>, stored: Readonly<Record<string, FieldValue>> | undefined): boolean {
  if (!RESULT_STATUSES.includes(run.status)) return false
  return run.stats === null || stored === undefined || stored.status !== run.status
}

/** What an empty result cell of a row whose results are pending shows. */
export const LOADING_TEXT = '…'

/** Whether a column holds a result of the run (an empty one is "no data" once the results are in). */
export function isResultColumn(c: Pick<ColumnDef, 'group' | 'key'>): boolean {
  return c.group === 'metric' || c.key === 'finished'
}

/**
 * A cell's text: its value in the column's format; an empty result cell says "loading" while the
 * results are pending, else "—". `hasResults`: whether the run ended with results (done or
 * incomplete); one that has not (queued, running, failed, cancelled) has no slowdown either.
 */
export function cellText(c: Pick<ColumnDef, 'format' | 'group' | 'key'>, v: FieldValue | undefined, pending = false, hasResults = true): string {
  // A run with results but no slowdown was stored before slowdown was measured: n/a, not a blank
  // that reads as "no flows". A run without results shows "—" there as in its other result cells.
  if (v === null || v === undefined) return pending && isResultColumn(c) ? LOADING_TEXT : c.format === 'slowdown' && hasResults ? 'n/a' : '—'
  if (typeof v === 'string') return c.format === 'hash' ? v.slice(0, 12) : v
  switch (c.format) {
    case 'ns':
      return formatNs(v)
    case 'count':
      return formatCount(v)
    case 'load':
      return formatLoad(v)
    case 'ratio':
      return formatUnit(v, 'ratio')
    case 'slowdown':
      return formatSlowdown(v)
    case 'bps':
      return formatUnit(v, 'bps')
    case 'plain':
      return Number.isInteger(v) ? String(v) : sig3(v)
    default:
      return String(v)
  }
}

/** A live run's fields before compare.runs has them (new runs, running ones). */
export function fieldsOfRun(r: Run): Record<string, FieldValue> {
  const s = r.stats
  const c = r.counters
  const f: Record<string, FieldValue> = {
    id: r.id,
    experiment: r.experimentName,
    target: r.target,
    scheme: r.scheme,
    load: r.load,
    seed: r.seed,
    status: r.status,
    revision: r.revision,
    stale: r.stale ? 'yes' : 'no',
    mean: s?.meanNs ?? null,
    p50: s?.p50Ns ?? null,
    p99: s?.p99Ns ?? null,
    'small.mean': s?.smallMeanNs ?? null,
    'large.mean': s?.largeMeanNs ?? null,
    'slowdown.mean': s?.slowdown?.mean ?? null,
    'slowdown.p99': s?.slowdown?.p99 ?? null,
    drops: typeof c?.drops === 'number' ? c.drops : null,
    retransmits: typeof c?.retransmits === 'number' ? c.retransmits : null,
    finished: s?.finished ?? null,
  }
  for (const [k, v] of Object.entries(r.params)) f[k] = typeof v === 'number' || typeof v === 'string' ? v : v === null || v === undefined ? null : JSON.stringify(v)
  return f
}

export function compareValues(a: FieldValue | undefined, b: FieldValue | undefined): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a ?? '').localeCompare(String(b ?? ''), undefined, { numeric: true })
}

/**
 * Rows sorted by a field (runs without a value last either way, ties by id), pinned runs
 * first in the same order.
 */
export function sortRows<T extends RunRowData>(rows: readonly T[], key: string, dir: 1 | -1, pinned: ReadonlySet<number> = new Set()): T[] {
  const by = (a: T, b: T) => {
    const va = a.fields[key] ?? null
    const vb = b.fields[key] ?? null
    if (va === null || vb === null) return va === vb ? a.id - b.id : va === null ? 1 : -1
    const c = compareValues(va, vb)
    return c === 0 ? a.id - b.id : c * dir
  }
  const pins = rows.filter((r) => pinned.has(r.id)).sort(by)
  const rest = rows.filter((r) => !pinned.has(r.id)).sort(by)
  return [...pins, ...rest]
}

export interface Band {
  n: number
  mean: number
  lo: number
  hi: number
}

/** Mean and min–max of the numbers among the values (null when there are none). */
export function meanBand(values: readonly (FieldValue | undefined)[]): Band | null {
  const nums = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
  if (nums.length === 0) return null
  let sum = 0
  for (const v of nums) sum += v
  return { n: nums.length, mean: sum / nums.length, lo: Math.min(...nums), hi: Math.max(...nums) }
}

export interface RowGroup<T extends RunRowData> {
  value: FieldValue
  rows: T[]
  /** Per numeric column: the mean and min–max band over the group's runs. */
  bands: Record<string, Band | null>
}

/** Groups rows by a field's value (ordered by that value), with a band per given column. */
export function groupRows<T extends RunRowData>(rows: readonly T[], by: string, columns: readonly string[]): RowGroup<T>[] {
  const groups = new Map<string, RowGroup<T>>()
  for (const r of rows) {
    const v = r.fields[by] ?? null
    const k = JSON.stringify(v)
    let g = groups.get(k)
    if (!g) groups.set(k, (g = { value: v, rows: [], bands: {} }))
    g.rows.push(r)
  }
  const out = [...groups.values()].sort((a, b) => (a.value === null ? 1 : b.value === null ? -1 : compareValues(a.value, b.value)))
  for (const g of out) for (const c of columns) g.bands[c] = meanBand(g.rows.map((r) => r.fields[c]))
  return out
}

/** Fields that are results, not parameters: never part of "diff only". */
const NOT_PARAMETERS = new Set(['id', 'status'])

/**
 * "Diff only": of the parameter columns (run, spec, param and hash groups), the ones whose
 * values differ between the rows, in the given order. Metrics, ids and statuses are results.
 */
export function differingColumns(all: readonly ColumnDef[], rows: readonly RunRowData[]): ColumnDef[] {
  return all.filter((c) => {
    if (NOT_PARAMETERS.has(c.key) || c.group === 'metric' || c.group === 'live') return false
    const seen = new Set(rows.map((r) => JSON.stringify(Object.prototype.hasOwnProperty.call(r.fields, c.key) ? r.fields[c.key] : null)))
    return seen.size > 1
  })
}

/** Columns to draw with diff only: id, the differing parameters, then the shown metric and live columns. */
export function diffOnlyColumns(all: readonly ColumnDef[], state: ColumnState, rows: readonly RunRowData[]): ColumnDef[] {
  const shown = visibleColumns(all, state)
  const results = shown.filter((c) => c.group === 'metric' || c.group === 'live' || c.key === 'status')
  const idCol = all.find((c) => c.key === 'id')
  return [...(idCol ? [idCol] : []), ...differingColumns(all, rows), ...results]
}

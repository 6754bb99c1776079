// Plots as data: lines over a shared x (a parameter, or a CDF's values), each with a mean and
// optionally a band, built from compare results. The renderer's uPlot chart, its CSV export,
// the SVG serializer (./svg) and the result archive's plots/ all read this one shape, so they
// always agree. Pure (no DOM, no Vue, no Node): runs in the renderer and in the core alike.
import type { CompareResult } from '../contract/schemas'
import { lineStyleAt, PALETTE, type PlotUnit } from './axes'
import { formatCount, formatLoad, formatNs, sig3 } from './format'

export type FieldValue = string | number | null
export { PALETTE, type PlotUnit }

export interface PlotLine {
  label: string
  color: string
  /** Dash pattern (CSS px); empty for solid. Lines past the palette's ten colours are dashed. */
  dash: number[]
  /** Per x position; null where the line has no value. */
  mean: Array<number | null>
  lo: Array<number | null>
  hi: Array<number | null>
  /** Runs (seeds) behind each point, their standard deviation, values and seeds (compare rows only). */
  n: Array<number | null>
  sd: Array<number | null>
  values: Array<number[] | null>
  seeds: Array<number[] | null>
}

export interface PlotData {
  /** File name stem for exports. */
  id: string
  title: string
  /** 'time': time series over a shared time axis, joined across the other lines' instants. */
  kind: 'xy' | 'cdf' | 'time'
  xLabel: string
  yLabel: string
  /** Plot positions, ascending: the x values, or 0..k-1 for categorical x. */
  x: number[]
  /** The x value at each position, as the data has it. */
  xValues: FieldValue[]
  /** Labels of categorical positions; null when x is numeric. */
  xCategories: string[] | null
  xUnit: PlotUnit
  yUnit: PlotUnit
  /** A log x axis (FCT CDFs: flow times span decades). */
  xLog: boolean
  band: 'minmax' | 'ci95' | null
  /** Whether the y axis starts at zero. */
  yFrom0: boolean
  lines: PlotLine[]
}

const cmpField = (a: FieldValue, b: FieldValue) =>
  typeof a === 'number' && typeof b === 'number' ? a - b : String(a ?? '').localeCompare(String(b ?? ''))

/** How a line is named: values of scheme/experiment/target, key=value for parameters. */
export function lineLabel(line: Record<string, FieldValue>, keys: readonly string[]): string {
  if (keys.length === 0) return 'all runs'
  // A parameter the line's runs do not have (another scheme's, when experiments are mixed) is left
  // out rather than shown as "k=—": two lines still differ in some part, so no labels merge.
  return keys
    .flatMap((k) => (['scheme', 'experiment', 'target'].includes(k) ? [String(line[k] ?? '—')] : line[k] === null || line[k] === undefined ? [] : [`${k}=${line[k]}`]))
    .join(' · ')
}

/** A stable colour per label: the same scheme is the same colour in every plot of a view. */
export function colorFor(label: string, order: readonly string[]): string {
  return styleFor(label, order).color
}

/** A stable colour and dash per label: past ten labels the palette repeats, dashed. */
export function styleFor(label: string, order: readonly string[]): { color: string; dash: number[] } {
  const i = order.indexOf(label)
  return lineStyleAt(i >= 0 ? i : order.length)
}

export function unitOf(u: CompareResult['unit']): PlotUnit {
  return u
}

export interface CompareToPlot {
  id: string
  title: string
  yLabel?: string
  /** Labels in colour order (so lines keep their colour across plots). */
  colorOrder?: readonly string[]
}

/** A compare result as lines: one per line key, the band across seeds (none when every point is one run). */
export function compareToPlot(result: CompareResult, o: CompareToPlot): PlotData {
  const xsRaw: FieldValue[] = []
  for (const r of result.rows) if (!xsRaw.some((v) => v === r.x)) xsRaw.push(r.x)
  const numeric = xsRaw.every((v) => typeof v === 'number')
  xsRaw.sort(cmpField)
  const x = numeric ? (xsRaw as number[]) : xsRaw.map((_, i) => i)
  const at = new Map(xsRaw.map((v, i) => [JSON.stringify(v), i]))
  const lines = new Map<string, PlotLine>()
  const order = o.colorOrder ?? []
  const empty = <T>() => xsRaw.map(() => null as T | null)
  for (const r of result.rows) {
    const label = lineLabel(r.line, result.lineKeys)
    let l = lines.get(label)
    if (!l) {
      l = { label, color: '', dash: [], mean: empty(), lo: empty(), hi: empty(), n: empty(), sd: empty(), values: empty(), seeds: empty() }
      lines.set(label, l)
    }
    const i = at.get(JSON.stringify(r.x))!
    l.mean[i] = r.mean
    // One run has no interval: no band there (a 95 % CI of lo = hi = mean would be a fake one).
    l.lo[i] = r.n > 1 ? r.lo : null
    l.hi[i] = r.n > 1 ? r.hi : null
    l.n[i] = r.n
    l.sd[i] = r.sd
    l.values[i] = r.values
    l.seeds[i] = r.seeds
  }
  const all = [...lines.values()]
  const labels = [...order, ...all.map((l) => l.label).filter((l) => !order.includes(l))]
  for (const l of all) Object.assign(l, styleFor(l.label, labels))
  const yUnit = unitOf(result.unit)
  return {
    id: o.id,
    title: o.title,
    kind: 'xy',
    xLabel: result.by,
    yLabel: o.yLabel ?? (result.baseline ? `${result.metric} / ${result.baseline}` : result.metric),
    x,
    xValues: xsRaw,
    xCategories: numeric ? null : xsRaw.map((v) => String(v ?? '—')),
    xUnit: result.by === 'load' ? 'plain' : result.by.endsWith('Ns') ? 'ns' : 'plain',
    yUnit,
    xLog: false,
    band: result.rows.some((r) => r.n > 1) ? result.band : null,
    // Normalised values sit around 1: the axis fits them; everything else starts at 0.
    yFrom0: !result.baseline,
    lines: all,
  }
}

/** The x values the result has CDFs at (e.g. the loads). */
export function cdfXs(result: CompareResult): FieldValue[] {
  const out: FieldValue[] = []
  for (const c of result.cdfs ?? []) if (!out.some((v) => v === c.x)) out.push(c.x)
  return out.sort(cmpField)
}

/** CDFs (pooled over seeds) at one x, one line per line key: x is the value, y the probability. */
export function cdfToPlot(result: CompareResult, atX: FieldValue, o: CompareToPlot & { xLabel: string; xUnit: PlotUnit; bucket?: string; xLog?: boolean }): PlotData {
  const cdfs = (result.cdfs ?? []).filter((c) => c.x === atX && c.points.length > 0 && (o.bucket === undefined || c.bucket === o.bucket))
  const values = [...new Set(cdfs.flatMap((c) => c.points.map((p) => p[0])))].sort((a, b) => a - b)
  const at = new Map(values.map((v, i) => [v, i]))
  const order = o.colorOrder ?? []
  const labels: string[] = []
  const lines: PlotLine[] = cdfs.map((c) => {
    const label = lineLabel(c.line, result.lineKeys)
    labels.push(label)
    const mean: Array<number | null> = values.map(() => null)
    // Several percentiles can share a value (a step): keep the highest probability there.
    for (const [v, p] of c.points) mean[at.get(v)!] = Math.max(mean[at.get(v)!] ?? 0, p)
    const nul = values.map(() => null)
    return { label, color: '', dash: [], mean, lo: [...nul], hi: [...nul], n: [...nul], sd: [...nul], values: [...nul], seeds: [...nul] }
  })
  const all = [...order, ...labels.filter((l) => !order.includes(l))]
  for (const l of lines) Object.assign(l, styleFor(l.label, all))
  return {
    id: o.id,
    title: o.title,
    kind: 'cdf',
    xLabel: o.xLabel,
    yLabel: o.yLabel ?? 'CDF',
    x: values,
    xValues: values,
    xCategories: null,
    xUnit: o.xUnit,
    yUnit: 'probability',
    // Times span decades (a 10 KB flow against a 10 MB one): on a linear axis the curve hugs the y axis.
    xLog: (o.xLog ?? o.xUnit === 'ns') && values.length > 1 && values[0] > 0,
    band: null,
    yFrom0: true,
    lines,
  }
}

/** A value in a unit, for axes, legends and tables. */
export function formatUnit(v: number | null | undefined, unit: PlotUnit): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—'
  switch (unit) {
    case 'ns':
      return formatNs(v)
    case 'bps': {
      const units: Array<[number, string]> = [[1e9, 'Gbps'], [1e6, 'Mbps'], [1e3, 'kbps']]
      for (const [s, u] of units) if (Math.abs(v) >= s) return `${sig3(v / s)} ${u}`
      return `${sig3(v)} bps`
    }
    case 'count':
      return Number.isInteger(v) ? formatCount(v) : sig3(v)
    case 'probability':
      return `${Number((v * 100).toPrecision(3))}%`
    case 'ratio':
      return sig3(v)
    case 'packets':
      return sig3(v)
    default:
      return Number.isInteger(v) ? String(v) : formatLoad(v)
  }
}

/** The x at a position, as text. */
export function formatX(plot: PlotData, pos: number): string {
  if (plot.xCategories) return plot.xCategories[Math.round(pos)] ?? ''
  return formatUnit(pos, plot.xUnit)
}

/** The flow-size buckets a slowdown CDF result holds, in its order. */
export function cdfBuckets(result: CompareResult): string[] {
  const out: string[] = []
  for (const c of result.cdfs ?? []) if (c.bucket !== undefined && !out.includes(c.bucket)) out.push(c.bucket)
  return out
}

/**
 * The CDFs of FCT slowdown at one x, one plot per flow-size bucket (log x: slowdowns span
 * from 1 to hundreds), lines per line key in the view's colours. A bucket no flow fell in
 * is still a plot, empty, so the grid keeps its shape.
 */
export function slowdownCdfPlots(result: CompareResult, atX: FieldValue, o: { idPrefix: string; colorOrder?: readonly string[]; atText: string }): Array<{ bucket: string; plot: PlotData }> {
  return cdfBuckets(result).map((bucket) => ({
    bucket,
    plot: cdfToPlot(result, atX, {
      id: `${o.idPrefix}-${bucket}`,
      // Short enough for a third of the view; the x axis names the measure.
      title: `${bucket} · ${o.atText}`,
      xLabel: 'FCT slowdown (FCT / ideal FCT)',
      xUnit: 'ratio',
      xLog: true,
      bucket,
      colorOrder: o.colorOrder,
    }),
  }))
}

/** One run's series for an overlay: its label, instants (ns) and values (null: no sample). */
export interface OverlaySeries {
  label: string
  t: readonly number[]
  v: ReadonlyArray<number | null>
}

/**
 * Two (or more) runs' time series on one time axis, each shifted so its first instant is
 * t = 0: runs started at different wall-clock times (testbeds) line up with sim runs. The x
 * positions are the union of the shifted instants; each line holds its own values there.
 */
export function overlayPlot(series: readonly OverlaySeries[], o: { id: string; title: string; yLabel: string; yUnit: PlotUnit; colorOrder?: readonly string[] }): PlotData {
  const shifted = series.map((s) => {
    const t0 = s.t.length ? s.t[0] : 0
    return s.t.map((t) => t - t0)
  })
  const x = [...new Set(shifted.flat())].sort((a, b) => a - b)
  const at = new Map(x.map((v, i) => [v, i]))
  const labels = series.map((s) => s.label)
  const order = [...(o.colorOrder ?? []), ...labels.filter((l) => !(o.colorOrder ?? []).includes(l))]
  const lines: PlotLine[] = series.map((s, k) => {
    const mean: Array<number | null> = x.map(() => null)
    shifted[k].forEach((t, j) => {
      const v = s.v[j]
      if (v !== null && Number.isFinite(v)) mean[at.get(t)!] = v
    })
    const nul = x.map(() => null)
    return { label: s.label, ...styleFor(s.label, order), mean, lo: [...nul], hi: [...nul], n: [...nul], sd: [...nul], values: [...nul], seeds: [...nul] }
  })
  return {
    id: o.id,
    title: o.title,
    kind: 'time',
    xLabel: 'time since the run\'s first sample',
    yLabel: o.yLabel,
    x,
    xValues: x,
    xCategories: null,
    xUnit: 'ns',
    yUnit: o.yUnit,
    xLog: false,
    band: null,
    yFrom0: true,
    lines,
  }
}

/**
 * A run's samples of one series kind as one line: at each instant the mean over the kind's
 * series (ports, links) that have a sample there, so a fabric-wide figure of the run.
 */
export function meanOverSeries(t: readonly number[], values: ReadonlyArray<ReadonlyArray<number | null>>): Array<number | null> {
  return t.map((_, j) => {
    let sum = 0
    let n = 0
    for (const row of values) {
      const v = row[j]
      if (v !== null && v !== undefined && Number.isFinite(v)) {
        sum += v
        n++
      }
    }
    return n ? sum / n : null
  })
}

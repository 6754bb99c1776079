// The compare view's renderer-only plot helpers: the plotted series as CSV and the data
// attribute tests read. The plot model itself (PlotData, compareToPlot, cdfToPlot,
// formatUnit, ...) and the SVG serializer live in src-main/plots (@plots), shared with the
// core's result archives. Pure: tested in node.
import type { PlotData } from '@plots/plotdata'
import { toCsv, type CsvValue } from './csv'

/**
 * The plotted series as CSV. xy plots: one row per line and x with the metric's name and
 * unit, the mean, the band, the runs behind it and their per-seed values; CDFs: one row per line and value with P(X <= value);
 * time series: one row per line and instant (ns since that run's first sample) with its value.
 */
export function plotToCsv(plot: PlotData): string {
  if (plot.kind === 'cdf') {
    const rows: CsvValue[][] = []
    for (const l of plot.lines) plot.x.forEach((v, i) => l.mean[i] !== null && rows.push([l.label, v, l.mean[i]]))
    return toCsv(['line', `${plot.xLabel} (${plot.xUnit})`, 'probability'], rows)
  }
  if (plot.kind === 'time') {
    const rows: CsvValue[][] = []
    for (const l of plot.lines) plot.x.forEach((t, i) => l.mean[i] !== null && rows.push([l.label, t, l.mean[i]]))
    return toCsv(['line', `${plot.xLabel} (ns)`, `${plot.yLabel} (${plot.yUnit})`], rows)
  }
  const rows: CsvValue[][] = []
  for (const l of plot.lines) {
    plot.xValues.forEach((xv, i) => {
      if (l.mean[i] === null) return
      rows.push([l.label, xv, plot.yLabel, plot.yUnit, l.mean[i], l.lo[i], l.hi[i], plot.band ?? '', l.n[i], l.sd[i], (l.seeds[i] ?? []).join(' '), (l.values[i] ?? []).join(' ')])
    })
  }
  return toCsv(['line', plot.xLabel, 'metric', 'unit', 'mean', 'lo', 'hi', 'band', 'n', 'sd', 'seeds', 'values'], rows)
}

/** Data attribute for tests and tools: the plotted numbers, per line, with the raw x values. */
export function plotSummary(plot: PlotData): string {
  return JSON.stringify({
    kind: plot.kind,
    x: plot.xValues,
    lines: plot.lines.map((l) => ({ label: l.label, color: l.color, mean: l.mean, lo: l.lo, hi: l.hi })),
  })
}


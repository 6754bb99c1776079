// A template's figure for docs/results.md, as SVG: the metric against load per scheme with the
// band across seeds (min to max), or the FCT CDF per scheme on a log x axis, drawn from the
// stored runs by the compare core and the app's own SVG serializer (src-main/plots: pure
// string building, no DOM), in a light theme for a documentation page.
import type { Core } from '../src-main/core'
import { compareRuns } from '../src-main/core/compare'
import { cdfToPlot, compareToPlot, plotToSvg, type PlotData } from '../src-main/plots'
import type { FigureSpec } from './reproduce-settings'

const LIGHT = { background: '#ffffff', foreground: '#222222', grid: 'rgba(0,0,0,0.10)' }

const METRIC_LABEL: Record<NonNullable<FigureSpec['metric']>, string> = {
  mean: 'mean FCT',
  p99: 'p99 FCT',
  probeOverhead: 'probe overhead (probe bytes / payload bytes)',
}

/**
 * The figure's plot from these runs of the experiment (not older ones a reused database holds),
 * or undefined when they give nothing to draw (none finished).
 */
export function figurePlot(core: Core, experimentId: number, runIds: number[], schemes: readonly string[], fig: FigureSpec, title: string): PlotData | undefined {
  const store = core.opts.store
  if (fig.kind === 'fct-vs-load') {
    const metric = fig.metric ?? 'mean'
    const r = compareRuns(store, { experimentIds: [experimentId], runIds, metric, band: 'minmax' })
    if (r.rows.length === 0) return undefined
    const plot = compareToPlot(r, { id: title, title: `${title}: ${METRIC_LABEL[metric]} against load`, yLabel: METRIC_LABEL[metric], colorOrder: schemes })
    return { ...plot, xLabel: 'offered load (share of the host link rate)', lines: ordered(plot.lines, schemes) }
  }
  const r = compareRuns(store, { experimentIds: [experimentId], runIds, metric: 'mean', cdf: 'fct' })
  const at = (r.cdfs ?? []).map((c) => c.x).find((x) => x !== null)
  if (at === undefined) return undefined
  const plot = cdfToPlot(r, at, { id: title, title: `${title}: FCT CDF at load ${String(at)}`, xLabel: 'flow completion time', xUnit: 'ns', xLog: true, colorOrder: schemes, yLabel: 'share of flows' })
  return { ...plot, lines: ordered(plot.lines, schemes) }
}

/** Lines in the template's scheme order, so the legend reads as the paper's does. */
function ordered<T extends { label: string }>(lines: T[], schemes: readonly string[]): T[] {
  const rank = (l: T) => {
    const i = schemes.indexOf(l.label)
    return i < 0 ? schemes.length : i
  }
  return [...lines].sort((a, b) => rank(a) - rank(b))
}

export function figureSvg(plot: PlotData): string {
  return plotToSvg(plot, LIGHT)
}

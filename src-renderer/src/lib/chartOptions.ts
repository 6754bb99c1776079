// The uPlot options of a telemetry chart (SeriesChart.vue): axes, y range, each line's colour,
// width and dash, and vertical marks. bench/ui-frame.ts draws with the same options.
import type uPlot from 'uplot'
import { lineStyleAt } from '@plots/axes'
import { linePaths } from './chartFrame'
const PINNED_COLOR = '#e6e6e6'
const PINNED_DASH = [5, 3]

export interface LineStyle {
  color: string
  /** CSS pixels, when the line is sparse (dense lines are hairlines: see linePaths). */
  width: number
  dash?: number[]
}

/**
 * Line i of a chart whose first `pinned` lines are pinned (e.g. the mean over all links):
 * pinned lines are light and dashed beside the picked ones, and take the palette when alone.
 */
export function lineStyle(i: number, pinned: number, lines: number): LineStyle {
  const onlyPinned = pinned === lines
  if (i < pinned && !onlyPinned) return { color: PINNED_COLOR, width: 1.75, dash: PINNED_DASH }
  const { color, dash } = lineStyleAt(i < pinned ? i : i - pinned)
  return dash.length ? { color, width: 1.25, dash } : { color, width: 1.25 }
}

/** The default y range: from 0 to 10 % above the largest value. */
export const defaultYRange = (max: number): [number, number] => [0, max > 0 ? max * 1.1 : 1]

/** The default y tick: 3 significant digits. */
export const defaultTick = (v: number): string => String(Number(v.toPrecision(3)))

/** A legend entry: the line's swatch and its value at the instant shown. */
export interface LegendItem {
  label: string
  color: string
  dashed: boolean
  value: string
}

export function sameLegend(a: readonly LegendItem[], b: readonly LegendItem[]): boolean {
  return a.length === b.length && a.every((it, i) => it.label === b[i].label && it.value === b[i].value && it.color === b[i].color && it.dashed === b[i].dashed)
}

export function chartOptions(o: {
  width: number
  height: number
  labels: readonly string[]
  /** How many of the lines, first, are pinned. */
  pinned: number
  /** The y range for the largest value shown (default: defaultYRange). */
  range?: (max: number) => [number, number]
  /** Formats a y tick (default: defaultTick). */
  axis?: (v: number) => string
  hooks?: uPlot.Hooks.Arrays
}): uPlot.Options {
  const axisStyle = {
    stroke: '#8b949e',
    font: '11px system-ui, sans-serif',
    grid: { stroke: 'rgba(255,255,255,0.06)', width: 1 },
    ticks: { stroke: 'rgba(255,255,255,0.12)', width: 1, size: 4 },
  }
  const range = o.range ?? defaultYRange
  const axis = o.axis ?? defaultTick
  return {
    width: o.width,
    height: o.height,
    // Every telemetry chart has sim time on x: the pointer shows the same instant on each stacked chart.
    cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 5 }, sync: { key: 'p4lab-sim-time' } },
    legend: { show: false },
    scales: {
      x: { time: false, auto: false },
      y: { range: (_u, _min, max) => range(max) },
    },
    axes: [
      { ...axisStyle, label: 'sim time (ms)', labelSize: 16, labelFont: '11px system-ui, sans-serif', size: 28 },
      { ...axisStyle, size: 52, values: (_u, splits) => splits.map((v) => axis(v)) },
    ],
    series: [
      {},
      ...o.labels.map((label, i) => {
        const style = lineStyle(i, o.pinned, o.labels.length)
        return { label, stroke: style.color, width: style.width, paths: linePaths(style.dash), points: { show: false } }
      }),
    ],
    hooks: o.hooks ?? {},
  }
}

/** Draws vertical lines across the plot at x values (a draw hook); null or off-plot: none. */
export function drawXMarks(u: uPlot, marks: readonly { x: number | null; color: string; dash: number[] }[]): void {
  const ctx = u.ctx
  for (const m of marks) {
    if (m.x === null || !Number.isFinite(m.x)) continue
    const x = Math.round(u.valToPos(m.x, 'x', true))
    if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue
    ctx.save()
    ctx.strokeStyle = m.color
    ctx.lineWidth = Math.max(1, devicePixelRatio)
    ctx.setLineDash(m.dash)
    ctx.beginPath()
    ctx.moveTo(x + 0.5, u.bbox.top)
    ctx.lineTo(x + 0.5, u.bbox.top + u.bbox.height)
    ctx.stroke()
    ctx.restore()
  }
}

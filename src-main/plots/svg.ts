// A small SVG serializer for line + band plots, shared by the compare view's SVG export and
// the result archive's plots/: axes with nice ticks, a band per line (its lo..hi as a filled
// polygon), the mean as a polyline with markers, a title and a legend. Built from the same
// PlotData the uPlot chart draws, so the SVG holds exactly the plotted numbers. Pure string
// building: tested in node.
import { axisTick, axisTitle, axisUnit, decadeRange, decades, logTick } from './axes'
import { formatX, type PlotData } from './plotdata'

export interface SvgOptions {
  width?: number
  height?: number
  background?: string
  foreground?: string
  grid?: string
}

/** Escapes text for XML content and attribute values. */
export function xmlEscape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
}

/** About `count` round tick values (1, 2, 2.5 or 5 × 10^k steps) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return []
  if (max < min) [min, max] = [max, min]
  if (max === min) return [min]
  const raw = (max - min) / Math.max(1, count)
  const mag = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag
  const first = Math.ceil(min / step - 1e-9) * step
  const out: number[] = []
  for (let v = first; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)))
  return out
}

/** The y range a plot needs: its means and bands, from 0 when asked, a little headroom. */
export function yRange(plot: PlotData): [number, number] {
  let lo = Infinity
  let hi = -Infinity
  let meansNonNegative = true
  for (const l of plot.lines) {
    for (const arr of [l.mean, l.lo, l.hi]) {
      for (const v of arr) {
        if (v === null || !Number.isFinite(v)) continue
        lo = Math.min(lo, v)
        hi = Math.max(hi, v)
      }
    }
    if (l.mean.some((v) => v !== null && v < 0)) meansNonNegative = false
  }
  if (!Number.isFinite(lo)) return [0, 1]
  if (plot.kind === 'cdf') return [0, 1]
  // A quantity that cannot go below zero (an FCT): a wide CI band is cut at 0, not the axis stretched.
  if (plot.yFrom0) lo = meansNonNegative ? 0 : Math.min(0, lo)
  if (hi === lo) return plot.yFrom0 && lo === 0 ? [0, 1] : [lo - Math.abs(lo) * 0.1 || lo - 1, hi + Math.abs(hi) * 0.1 || hi + 1]
  const pad = (hi - lo) * 0.06
  return [plot.yFrom0 && lo >= 0 ? lo : lo - pad, hi + pad]
}

export function xRange(plot: PlotData): [number, number] {
  if (plot.x.length === 0) return [0, 1]
  const lo = plot.x[0]
  const hi = plot.x[plot.x.length - 1]
  if (plot.xLog) return decadeRange(lo, hi)
  if (plot.xCategories) return [lo - 0.5, hi + 0.5]
  if (hi === lo) return [lo - 1, hi + 1]
  const pad = plot.kind === 'xy' ? (hi - lo) * 0.04 : 0
  return [lo - pad, hi + pad]
}

export interface PlotAxis {
  /** The title, with the unit the ticks are in ("mean FCT (ms)"). */
  title: string
  /** A tick's text. */
  tick: (v: number) => string
}

/** The axes of a plot over its ranges: titles with units, and tick texts in those units. */
export function plotAxes(plot: PlotData, xr: [number, number], yr: [number, number]): { x: PlotAxis; y: PlotAxis } {
  const yu = axisUnit(plot.yUnit, Math.max(Math.abs(yr[0]), Math.abs(yr[1])))
  const y = { title: axisTitle(plot.yLabel, yu), tick: (v: number) => axisTick(v, yu) }
  if (plot.xCategories) return { x: { title: plot.xLabel, tick: (v: number) => formatX(plot, v) }, y }
  if (plot.xLog) return { x: { title: axisTitle(plot.xLabel, { div: 1, name: '' }, true), tick: (v: number) => logTick(v, plot.xUnit) }, y }
  const xu = axisUnit(plot.xUnit, Math.max(Math.abs(xr[0]), Math.abs(xr[1])))
  return { x: { title: axisTitle(plot.xLabel, xu), tick: (v: number) => axisTick(v, xu) }, y }
}

const n2 = (v: number) => (Math.round(v * 100) / 100).toString()

/** The plot as a standalone SVG document. */
export function plotToSvg(plot: PlotData, o: SvgOptions = {}): string {
  const W = o.width ?? 720
  const H = o.height ?? 400
  const bg = o.background ?? '#1e1e1e'
  const fg = o.foreground ?? '#cccccc'
  const grid = o.grid ?? 'rgba(255,255,255,0.10)'
  const legendRows = Math.ceil(plot.lines.length / 4)
  const M = { left: 72, right: 20, top: 34, bottom: 50 + legendRows * 18 }
  const pw = W - M.left - M.right
  const ph = H - M.top - M.bottom
  const [x0, x1] = xRange(plot)
  const [y0, y1] = yRange(plot)
  const px = plot.xLog
    ? (v: number) => M.left + ((Math.log10(v) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * pw
    : (v: number) => M.left + ((v - x0) / (x1 - x0)) * pw
  const axes = plotAxes(plot, [x0, x1], [y0, y1])
  const py = (v: number) => M.top + (1 - (v - y0) / (y1 - y0)) * ph
  const out: string[] = []
  out.push(`<?xml version="1.0" encoding="UTF-8"?>`)
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="11">`)
  out.push(`<title>${xmlEscape(plot.title)}</title>`)
  out.push(`<rect width="${W}" height="${H}" fill="${bg}"/>`)
  out.push(`<text x="${M.left}" y="20" fill="${fg}" font-size="13" font-weight="600">${xmlEscape(plot.title)}</text>`)
  // Grid and axes.
  out.push(`<g class="axes" stroke="${grid}" stroke-width="1">`)
  const yTicks = plot.kind === 'cdf' ? [0, 0.25, 0.5, 0.75, 1] : niceTicks(y0, y1, 5).filter((v) => v >= y0 && v <= y1)
  for (const t of yTicks) out.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${n2(py(t))}" y2="${n2(py(t))}"/>`)
  const xTicks = plot.xCategories ? plot.x : plot.xLog ? decades(x0, x1) : plot.kind === 'xy' && plot.x.length <= 12 ? plot.x : niceTicks(x0, x1, 6).filter((v) => v >= x0 && v <= x1)
  for (const t of xTicks) out.push(`<line x1="${n2(px(t))}" x2="${n2(px(t))}" y1="${M.top}" y2="${M.top + ph}"/>`)
  out.push(`</g>`)
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="${fg}" stroke-opacity="0.35"/>`)
  out.push(`<g class="ticks" fill="${fg}" fill-opacity="0.8">`)
  for (const t of yTicks) out.push(`<text x="${M.left - 6}" y="${n2(py(t) + 4)}" text-anchor="end">${xmlEscape(axes.y.tick(t))}</text>`)
  for (const t of xTicks) out.push(`<text x="${n2(px(t))}" y="${M.top + ph + 16}" text-anchor="middle">${xmlEscape(axes.x.tick(t))}</text>`)
  out.push(`</g>`)
  out.push(`<text class="xtitle" x="${M.left + pw / 2}" y="${M.top + ph + 34}" fill="${fg}" text-anchor="middle">${xmlEscape(axes.x.title)}</text>`)
  out.push(`<text class="ytitle" transform="translate(14 ${M.top + ph / 2}) rotate(-90)" fill="${fg}" text-anchor="middle">${xmlEscape(axes.y.title)}</text>`)
  // Data: bands under lines.
  out.push(`<g class="data">`)
  plot.lines.forEach((l, li) => {
    if (plot.band) {
      for (const seg of segments(plot.x.length, (i) => l.lo[i] !== null && l.hi[i] !== null)) {
        const upper = seg.map((i) => `${n2(px(plot.x[i]))},${n2(py(l.hi[i]!))}`)
        const lower = seg.map((i) => `${n2(px(plot.x[i]))},${n2(py(l.lo[i]!))}`).reverse()
        out.push(`<polygon class="band" data-line="${li}" points="${[...upper, ...lower].join(' ')}" fill="${l.color}" fill-opacity="0.16" stroke="none"/>`)
      }
    }
  })
  plot.lines.forEach((l, li) => {
    // CDF and time lines join across positions other lines own; xy lines break where a value is missing.
    const segs = plot.kind !== 'xy' ? [plot.x.map((_, i) => i).filter((i) => l.mean[i] !== null)] : segments(plot.x.length, (i) => l.mean[i] !== null)
    for (const seg of segs) {
      if (seg.length === 0) continue
      const pts = seg.map((i) => `${n2(px(plot.x[i]))},${n2(py(l.mean[i]!))}`).join(' ')
      const dash = l.dash.length ? ` stroke-dasharray="${l.dash.join(' ')}"` : ''
      out.push(`<polyline class="line" data-line="${li}" points="${pts}" fill="none" stroke="${l.color}" stroke-width="1.75" stroke-linejoin="round"${dash}/>`)
    }
    if (plot.kind === 'xy') {
      plot.x.forEach((xv, i) => {
        if (l.mean[i] !== null) out.push(`<circle cx="${n2(px(xv))}" cy="${n2(py(l.mean[i]!))}" r="2.5" fill="${l.color}"/>`)
      })
    }
  })
  out.push(`</g>`)
  // Legend under the x label, four per row.
  out.push(`<g class="legend" fill="${fg}">`)
  const colW = pw / 4
  // A label longer than its column is cut with an ellipsis (11 px text: about 6 px a character), never run into the next.
  const fit = Math.max(4, Math.floor((colW - 26) / 6))
  plot.lines.forEach((l, i) => {
    const lx = M.left + (i % 4) * colW
    const ly = M.top + ph + 52 + Math.floor(i / 4) * 18
    out.push(`<line x1="${n2(lx)}" x2="${n2(lx + 16)}" y1="${ly - 4}" y2="${ly - 4}" stroke="${l.color}" stroke-width="2"${l.dash.length ? ` stroke-dasharray="${l.dash.join(' ')}"` : ''}/>`)
    const label = l.label.length > fit ? `${l.label.slice(0, fit - 1)}…` : l.label
    out.push(`<text x="${n2(lx + 22)}" y="${ly}">${label === l.label ? '' : `<title>${xmlEscape(l.label)}</title>`}${xmlEscape(label)}</text>`)
  })
  if (plot.band) {
    out.push(`<text x="${M.left + pw}" y="20" text-anchor="end" fill-opacity="0.6">band: ${plot.band === 'ci95' ? '95% CI of the mean' : 'min–max across seeds'}</text>`)
  }
  out.push(`</g>`)
  out.push(`</svg>`)
  return out.join('\n') + '\n'
}

/** Runs of consecutive indices where `ok` holds. */
function segments(n: number, ok: (i: number) => boolean): number[][] {
  const out: number[][] = []
  let cur: number[] = []
  for (let i = 0; i < n; i++) {
    if (ok(i)) cur.push(i)
    else if (cur.length) {
      out.push(cur)
      cur = []
    }
  }
  if (cur.length) out.push(cur)
  return out
}

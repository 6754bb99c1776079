// One chart's per-frame work, outside Vue: the visible range of each line downsampled to the
// pixel width into buffers reused from frame to frame, and a lean uPlot path builder that
// draws dense lines as 1-device-pixel hairlines. SeriesChart.vue calls this every animation
// frame; bench/ui-frame.ts times the same code in Chromium. No DOM beyond Path2D.
import type uPlot from 'uplot'
import { MinMaxBlocks } from './blockIndex'
import { DownsampleBuffers, downsampleRange, fits, lowerBound, upperBound, type DownsampleMode } from './downsample'

export interface FrameRequest {
  /** The time axis (ms), ascending. */
  x: ArrayLike<number>
  /** The lines' values, each as long as x or longer. */
  ys: readonly ArrayLike<number>[]
  /** Each line's identity: its block index is kept while the same key comes back. */
  keys: readonly object[]
  /** Samples shown: x.length, or fewer while paused. */
  n: number
  /** The zoomed x range; null shows all samples. */
  view: { min: number; max: number } | null
  /** Plot width in CSS pixels: one bucket per pixel (min/max) or per two pixels (mean). */
  width: number
  mode: DownsampleMode
}

export interface Frame {
  data: uPlot.AlignedData
  /** The x range to show. */
  min: number
  max: number
  /** Sim time per bucket (ms) when the range was downsampled, else null. */
  binMs: number | null
}

export class ChartFrames {
  /** `index: false` scans every visible sample each frame (for comparison in the benchmark). */
  constructor(private readonly opts: { index: boolean } = { index: true }) {}

  private blocks = new WeakMap<object, MinMaxBlocks>()
  private readonly buffers = new DownsampleBuffers()
  /** uPlot takes null for a gap: lines with any are copied here, into reused arrays. */
  private readonly gapped: (number | null)[][] = []

  /** Forgets the block indexes (the lines' data was replaced). */
  reset(): void {
    this.blocks = new WeakMap()
  }

  next(r: FrameRequest): Frame {
    const { n, view, mode } = r
    const x = r.x
    const min = view ? view.min : n > 0 ? x[0] : 0
    const max = view ? view.max : n > 1 ? x[n - 1] : min + 1
    // One sample beyond each edge, so lines run to the plot's borders.
    const lo = Math.max(0, lowerBound(x, min, 0, n) - 1)
    const hi = Math.min(n, upperBound(x, max, 0, n) + 1)
    const buckets = Math.max(32, Math.floor(r.width * (mode === 'mean' ? 0.5 : 1)))
    const index = !this.opts.index ? undefined : r.ys.map((y, i) => {
      let b = this.blocks.get(r.keys[i])
      if (!b) this.blocks.set(r.keys[i], (b = new MinMaxBlocks()))
      return b.update(y, n)
    })
    const ds = downsampleRange(x, r.ys, lo, hi, buckets, mode, index, this.buffers)
    const binMs = fits(hi - lo, buckets, mode) ? null : (x[hi - 1] - x[lo]) / buckets
    const data = [ds.x, ...ds.ys.map((y, i) => this.gapsAsNull(y, i))] as uPlot.AlignedData
    return { data, min, max: max > min ? max : min + 1e-3, binMs }
  }

  /**
   * A NaN would poison uPlot's y range (it seeds min and max with the first non-null value);
   * a line with any is copied with null for NaN. Only the drawn points are copied.
   */
  private gapsAsNull(y: ArrayLike<number>, i: number): ArrayLike<number> | (number | null)[] {
    let j = 0
    while (j < y.length && y[j] - y[j] === 0) j++
    if (j === y.length) return y
    const out = (this.gapped[i] ??= [])
    out.length = y.length
    for (let k = 0; k < y.length; k++) out[k] = y[k] - y[k] === 0 ? y[k] : null
    return out
  }
}

/** A line is dense from one point per 4 device pixels: it is then drawn 1 device pixel wide. */
export function isDense(points: number, plotWidthPx: number): boolean {
  return points * 4 > plotWidthPx
}

/**
 * uPlot path builder for lines (horizontal x, linear scales): straight segments between the
 * points, a gap (null or NaN) lifts the pen. Against uPlot's own linear builder it skips the
 * per-point closures and the gap clip; and a dense line (see isDense) is drawn 1 device pixel
 * wide without its dash, which the software rasterizer draws as a hairline, tens of times
 * faster than a 1.25 px stroke (a zigzag of min/max points costs it ~100 ms per line).
 * Sparse lines keep the series' width and dash.
 */
export function linePaths(dash?: number[]): uPlot.Series.PathBuilder {
  return (u, si, i0, i1) => {
    const series = u.series[si]
    const xs = u.data[0]
    const ys = u.data[si]
    const sx = u.scales[u.series[0].scale ?? 'x']
    const sy = u.scales[series.scale ?? 'y']
    const { left, top, width, height } = u.bbox
    const stroke = new Path2D()
    if (sx.min == null || sx.max == null || sy.min == null || sy.max == null || sx.max === sx.min || sy.max === sy.min) return { stroke }
    const kx = width / (sx.max - sx.min)
    const ky = height / (sy.max - sy.min)
    const x0 = sx.min
    const yBase = top + height
    const y0 = sy.min
    let pen = false
    for (let i = i0; i <= i1; i++) {
      const v = ys[i]
      if (v == null || v !== v) {
        pen = false
        continue
      }
      const px = Math.round(left + (xs[i] - x0) * kx)
      const py = Math.round(yBase - (v - y0) * ky)
      if (pen) stroke.lineTo(px, py)
      else stroke.moveTo(px, py)
      pen = true
    }
    const dense = isDense(i1 - i0 + 1, width)
    series.dash = dense ? undefined : dash
    // uPlot 1.6 reads a path's own width (CSS px) from `_width`; its typings call it `width`.
    return dense ? ({ stroke, _width: 1 / devicePixelRatioOr1() } as uPlot.Series.Paths) : { stroke }
  }
}

function devicePixelRatioOr1(): number {
  return typeof devicePixelRatio === 'number' && devicePixelRatio > 0 ? devicePixelRatio : 1
}

import { afterEach, describe, expect, it } from 'vitest'
import type uPlot from 'uplot'
import { ChartFrames, isDense, linePaths } from '../../src-renderer/src/lib/chartFrame'
import { lineStyle } from '../../src-renderer/src/lib/chartOptions'
import { downsampleRange } from '../../src-renderer/src/lib/downsample'

const ramp = (n: number) => Float64Array.from({ length: n }, (_, i) => i * 0.1)

function wave(n: number, phase: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => Math.abs(Math.sin(i / 977 + phase)) + (i % 4099 === 0 ? 3 : 0))
}

describe('ChartFrames', () => {
  const n = 200_000
  const x = ramp(n)
  const ys = [wave(n, 0), wave(n, 1), wave(n, 2)]

  it('downsamples the whole run to the width and reports the x range and the bin', () => {
    const f = new ChartFrames().next({ x, ys, keys: ys, n, view: null, width: 600, mode: 'minmax' })
    expect(f.min).toBe(x[0])
    expect(f.max).toBe(x[n - 1])
    expect(f.data.length).toBe(4)
    expect(f.data[0].length).toBe(1200)
    const want = downsampleRange(x, ys, 0, n, 600, 'minmax')
    f.data.slice(1).forEach((y, i) => expect(Array.from(y as Float64Array)).toEqual(Array.from(want.ys[i])))
    expect(f.binMs).toBeCloseTo((x[n - 1] - x[0]) / 600, 9)
    const mean = new ChartFrames().next({ x, ys, keys: ys, n, view: null, width: 600, mode: 'mean' })
    expect(mean.data[0].length).toBe(300)
  })

  it('shows a zoomed range with one sample beyond each edge, and no bin once it fits', () => {
    const view = { min: 1000, max: 1010 } // samples 10000..10100
    const f = new ChartFrames().next({ x, ys, keys: ys, n, view, width: 600, mode: 'minmax' })
    expect([f.min, f.max]).toEqual([1000, 1010])
    expect(f.binMs).toBeNull()
    expect(Array.from(f.data[0] as Float64Array)).toEqual(Array.from(x.subarray(9999, 10102)))
  })

  it('a paused chart shows only the first n samples', () => {
    const y = new Float32Array(n).fill(0.5)
    y[n - 10] = 9 // arrived after the pause
    const f = new ChartFrames().next({ x, ys: [y], keys: [y], n: n - 100, view: null, width: 600, mode: 'minmax' })
    expect(f.max).toBe(x[n - 101])
    expect(Math.max(...Array.from(f.data[1] as Float64Array))).toBe(0.5)
  })

  it('extends each line index as samples arrive: the same points as a fresh chart', () => {
    const frames = new ChartFrames()
    for (const shown of [1000, 50_000, 50_001, 120_000, n]) {
      const live = frames.next({ x, ys, keys: ys, n: shown, view: null, width: 500, mode: 'minmax' })
      const fresh = new ChartFrames().next({ x, ys, keys: ys, n: shown, view: null, width: 500, mode: 'minmax' })
      const scan = new ChartFrames({ index: false }).next({ x, ys, keys: ys, n: shown, view: null, width: 500, mode: 'minmax' })
      for (let i = 0; i < live.data.length; i++) {
        expect(Array.from(live.data[i] as Float64Array)).toEqual(Array.from(fresh.data[i] as Float64Array))
        expect(Array.from(live.data[i] as Float64Array)).toEqual(Array.from(scan.data[i] as Float64Array))
      }
    }
  })

  it('hands uPlot null for a gap, only on lines that have one', () => {
    const y = wave(n, 0)
    y.fill(NaN, 0, 20_000) // the first 10 % recorded nothing
    const frames = new ChartFrames()
    const f = frames.next({ x, ys: [y, ys[1]], keys: [y, ys[1]], n, view: null, width: 400, mode: 'minmax' })
    const gapped = f.data[1] as (number | null)[]
    expect(Array.isArray(gapped)).toBe(true)
    expect(gapped.slice(0, 80).every((v) => v === null)).toBe(true)
    expect(gapped.slice(80).every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true)
    expect(ArrayBuffer.isView(f.data[2])).toBe(true)
    // Zoomed past the gap: no nulls, and a typed array again.
    const later = frames.next({ x, ys: [y, ys[1]], keys: [y, ys[1]], n, view: { min: 3000, max: 6000 }, width: 400, mode: 'minmax' })
    expect(ArrayBuffer.isView(later.data[1])).toBe(true)
  })
})

type Op = [string, number, number]
class FakePath {
  ops: Op[] = []
  moveTo(x: number, y: number) {
    this.ops.push(['M', x, y])
  }
  lineTo(x: number, y: number) {
    this.ops.push(['L', x, y])
  }
}

function fakePlot(xs: number[], ys: (number | null)[]) {
  const series = [{ scale: 'x' }, { scale: 'y' } as uPlot.Series]
  return {
    series,
    data: [xs, ys],
    scales: { x: { min: 0, max: 4 }, y: { min: 0, max: 4 } },
    bbox: { left: 10, top: 5, width: 400, height: 200 },
  } as unknown as uPlot
}

describe('linePaths', () => {
  const g = globalThis as unknown as { Path2D?: unknown }
  const saved = g.Path2D
  afterEach(() => {
    g.Path2D = saved
  })

  it('joins the points in canvas pixels, and lifts the pen at null and NaN', () => {
    g.Path2D = FakePath
    const u = fakePlot([0, 1, 2, 3, 4, 4], [0, 1, null, 3, NaN, 2])
    const paths = linePaths([5, 3])(u, 1, 0, 5)!
    expect((paths.stroke as unknown as FakePath).ops).toEqual([
      ['M', 10, 205],
      ['L', 110, 155],
      ['M', 310, 55],
      ['M', 410, 105],
    ])
    // Sparse: the series' own width and dash.
    expect((paths as { _width?: number })._width).toBeUndefined()
    expect(u.series[1].dash).toEqual([5, 3])
  })

  it('draws a dense line 1 device pixel wide, without its dash', () => {
    g.Path2D = FakePath
    const xs = Array.from({ length: 200 }, (_, i) => (i * 4) / 199)
    const u = fakePlot(xs, xs.map((v) => v % 1))
    const paths = linePaths([5, 3])(u, 1, 0, 199)!
    expect((paths.stroke as unknown as FakePath).ops.length).toBe(200)
    expect((paths as { _width?: number })._width).toBe(1)
    expect(u.series[1].dash).toBeUndefined()
    expect(isDense(100, 400)).toBe(false)
    expect(isDense(101, 400)).toBe(true)
  })
})

describe('line styles', () => {
  it('pinned lines are light and dashed beside picked ones, and take the palette alone', () => {
    const pinned = lineStyle(0, 1, 9)
    expect(pinned.dash).toEqual([5, 3])
    expect(pinned.width).toBeGreaterThan(lineStyle(1, 1, 9).width)
    // Picked lines take the palette from its start, whether or not a line is pinned.
    expect(lineStyle(1, 1, 9).color).toBe(lineStyle(0, 0, 8).color)
    expect(lineStyle(8, 1, 9).color).toBe(lineStyle(7, 0, 8).color)
    expect(lineStyle(1, 1, 9).dash).toBeUndefined()
    const alone = lineStyle(0, 1, 1)
    expect(alone.dash).toBeUndefined()
    expect(alone.color).toBe(lineStyle(0, 0, 8).color)
  })
})

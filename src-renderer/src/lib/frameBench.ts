// The browser half of bench/ui-frame.ts (not part of the app bundle; it lives here to be
// compiled with the renderer's DOM types): the chart's per-frame work (SeriesChart.render) on a
// synthetic run of 1M samples per line: downsample the visible range to the pixel width,
// then setData + setScale in one synchronous uPlot commit, timed with performance.now().
import uPlot from 'uplot'
import { downsampleRange, lowerBound, MinMaxBlocks, upperBound, type DownsampleMode } from './series'


export interface Scenario {
  points: number
  lines: number
  width: number
  frames: number
  mode: DownsampleMode
  /** Share of the run visible (1: all of it); the view pans a little every frame. */
  visible: number
  /** Use block summaries (as the app does); false scans every sample each frame. */
  blocks: boolean
}

export async function runScenario(s: Scenario): Promise<{ times: number[]; intervals: number[]; drawn: number; blocksMs: number }> {
  const x = new Float64Array(s.points)
  for (let i = 0; i < s.points; i++) x[i] = i * 0.1 // one sample per 100 us, in ms
  let seed = 12345
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const ys = Array.from({ length: s.lines }, () => {
    const y = new Float32Array(s.points)
    let v = 0.5
    for (let i = 0; i < s.points; i++) {
      v = Math.min(1, Math.max(0, v + (rand() - 0.5) * 0.05))
      y[i] = rand() < 0.0005 ? 1 : v
    }
    return y
  })
  // The app extends these as samples arrive; here they are built once, timed apart.
  const tb = performance.now()
  const bl = s.blocks ? ys.map((y) => new MinMaxBlocks().update(y, s.points)) : undefined
  const blocksMs = performance.now() - tb
  const host = document.createElement('div')
  document.body.append(host)
  const opts: uPlot.Options = {
    width: s.width,
    height: 240,
    legend: { show: false },
    scales: { x: { time: false, auto: false }, y: { range: [0, 1] } },
    series: [{}, ...ys.map((_, i) => ({ stroke: `hsl(${i * 40}, 70%, 60%)`, width: 1.25, points: { show: false } }))],
  }
  const u = new uPlot(opts, [new Float64Array(0), ...ys.map(() => new Float64Array(0))] as uPlot.AlignedData, host)
  const times: number[] = []
  const intervals: number[] = []
  let lastFrame = 0
  let drawn = 0
  const span = x[s.points - 1] - x[0]
  for (let f = 0; f < s.frames; f++) {
    const frameAt = await new Promise<number>((r) => requestAnimationFrame(r))
    if (lastFrame > 0) intervals.push(frameAt - lastFrame)
    lastFrame = frameAt
    const t0 = performance.now()
    const width = span * s.visible
    const min = s.visible >= 1 ? x[0] : x[0] + ((span - width) * f) / s.frames
    const max = min + width
    const lo = Math.max(0, lowerBound(x, min) - 1)
    const hi = Math.min(s.points, upperBound(x, max) + 1)
    const ds = downsampleRange(x, ys, lo, hi, s.width, s.mode, bl)
    u.batch(() => {
      u.setData([ds.x, ...ds.ys] as uPlot.AlignedData, false)
      u.setScale('x', { min, max })
    })
    times.push(performance.now() - t0)
    drawn = ds.x.length
  }
  u.destroy()
  host.remove()
  return { times, intervals, drawn, blocksMs }
}

;(window as unknown as { runScenario: typeof runScenario }).runScenario = runScenario

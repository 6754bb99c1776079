// The browser half of bench/ui-frame.ts (not part of the app bundle; it lives here to be
// compiled with the renderer's DOM types): the chart's per-frame work (SeriesChart.render) on a
// synthetic run of 1M samples per line, with the app's code: ChartFrames downsamples the
// visible range to the pixel width, then setData + setScale in one synchronous uPlot commit
// with the app's chart options, timed with performance.now().
import uPlot from 'uplot'
import { MinMaxBlocks } from './blockIndex'
import { ChartFrames } from './chartFrame'
import { chartOptions } from './chartOptions'
import type { DownsampleMode } from './downsample'

export interface Scenario {
  points: number
  lines: number
  width: number
  frames: number
  mode: DownsampleMode
  /** Share of the run visible (1: all of it); the view pans a little every frame. */
  visible: number
  /** Use block indexes (as the app does); false scans every sample each frame. */
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
  // The app extends the block indexes as samples arrive; the frames below build them in their
  // first (untimed) frame. Building them at once is timed apart, into throwaway indexes over
  // the same lines (the frames build their own).
  const tb = performance.now()
  if (s.blocks) for (const y of ys) new MinMaxBlocks().update(y, s.points)
  const blocksMs = performance.now() - tb
  const frames = new ChartFrames({ index: s.blocks })
  const host = document.createElement('div')
  document.body.append(host)
  // As the link-utilization chart: the mean over all links pinned first, then the busiest ports.
  const labels = ys.map((_, i) => (s.lines > 1 && i === 0 ? 'mean (all links)' : `leaf${i}:1`))
  const opts = chartOptions({ width: s.width, height: 240, labels, pinned: s.lines > 1 ? 1 : 0, range: (max) => [0, Math.max(1, max)] })
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
    const view = s.visible >= 1 ? null : { min, max: min + width }
    const frame = frames.next({ x, ys, keys: ys, n: s.points, view, width: s.width, mode: s.mode })
    u.batch(() => {
      u.setData(frame.data, false)
      u.setScale('x', { min: frame.min, max: frame.max })
    })
    times.push(performance.now() - t0)
    drawn = frame.data[0].length
  }
  u.destroy()
  host.remove()
  return { times, intervals, drawn, blocksMs }
}

;(window as unknown as { runScenario: typeof runScenario }).runScenario = runScenario

// Chart frame time in Chromium: 1M samples per line, min/max (or mean) downsampled to the
// pixel width, setData + redraw in one synchronous uPlot commit, timed in the page with
// performance.now(). Target: 16 ms per frame (60 fps). Measured, never asserted.
// The canvas is rasterized after the commit, outside the timed part (software raster here:
// --disable-gpu): that shows in the interval between animation frames, printed beside.
//
// run-ts imports this bundle without awaiting async work, and the next benchmark would run
// beside it; so the browser part runs in a child process that this module waits for.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = process.env.P4LAB_ROOT ?? process.cwd()
const CHILD = '--ui-frame-child'

if (!process.argv.includes(CHILD)) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'run-ts.mjs'), join(root, 'bench', 'ui-frame.ts'), CHILD], { stdio: 'inherit', env: { ...process.env, P4LAB_ROOT: root } })
  if (r.status !== 0) process.exitCode = r.status ?? 1
} else {
  main().catch((err) => {
    console.error(err)
    process.exitCode = 1
  })
}

interface Scenario {
  label: string
  points: number
  lines: number
  width: number
  frames: number
  mode: 'minmax' | 'mean'
  visible: number
  blocks: boolean
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]
}

async function main(): Promise<void> {
  const { build } = await import('rolldown')
  const { chromium } = await import('playwright-core')
  mkdirSync(join(root, '.cache'), { recursive: true })
  const dir = mkdtempSync(join(root, '.cache', 'ui-frame-'))
  const out = join(dir, 'page.js')
  try {
    await build({ input: join(root, 'src-renderer', 'src', 'lib', 'frameBench.ts'), platform: 'browser', logLevel: 'warn', output: { file: out, format: 'iife', name: 'uiFrame' } })
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] })
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
      await page.setContent(`<!doctype html><html><head><style>${readFileSync(join(root, 'node_modules/uplot/dist/uPlot.min.css'), 'utf8')}</style></head><body></body></html>`)
      await page.addScriptTag({ content: readFileSync(out, 'utf8') })
      const M = 1_000_000
      const base = { points: M, width: 1200, frames: 60, blocks: true }
      const scenarios: Scenario[] = [
        { ...base, label: '1 line, min/max, all 1M', lines: 1, mode: 'minmax', visible: 1 },
        { ...base, label: '9 lines, min/max, all 1M', lines: 9, mode: 'minmax', visible: 1 },
        { ...base, label: '9 lines, mean, all 1M', lines: 9, mode: 'mean', visible: 1 },
        { ...base, label: '9 lines, min/max, zoomed to 10%', lines: 9, mode: 'minmax', visible: 0.1 },
        { ...base, label: '9 lines, min/max, all 1M, no block index', lines: 9, mode: 'minmax', visible: 1, blocks: false, frames: 30 },
      ]
      console.log('\nchart frame time (Chromium, uPlot, 1M samples per line, 1200 px): downsample + setData + redraw, timed in the page; target 16 ms')
      for (const s of scenarios) {
        type Result = { times: number[]; intervals: number[]; drawn: number; blocksMs: number }
        const r = await page.evaluate((sc) => (globalThis as unknown as { runScenario: (s: unknown) => Promise<Result> }).runScenario(sc), s)
        // The first frames warm the JIT up; they are not what a user watching a run sees.
        const t = r.times.slice(5)
        const iv = r.intervals.slice(5)
        console.log(
          `${s.label.padEnd(42)} median ${pct(t, 0.5).toFixed(2).padStart(6)} ms   p95 ${pct(t, 0.95).toFixed(2).padStart(6)} ms` +
            `   frame interval median ${pct(iv, 0.5).toFixed(1)} ms, p95 ${pct(iv, 0.95).toFixed(1)} ms` +
            (s.blocks ? `   (block index built once in ${r.blocksMs.toFixed(0)} ms)` : ''),
        )
      }
    } finally {
      await browser.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

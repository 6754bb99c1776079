// Compare's plots as figures, with ten lines: the eight schemes of one experiment and two of
// another (lines per experiment × scheme). Checks, from the page, what a reader of the figure
// needs: every axis titled (with its unit), the FCT CDF on a log x axis with decade ticks,
// ten distinct colours (line styles beyond the palette), legends inside their cards and
// buttons inside theirs; FCT slowdown against load, its CDFs per flow-size bucket and two runs'
// series overlaid, with exports that hold what is drawn. Screenshots in
// test-artifacts/e2e/compare-figures-*.png (look at them).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { p4lab } from '../helpers/cli'
import { ARTIFACTS, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'
import { SCHEME_NAMES } from '../../src-main/schemes'

// Every registered scheme, and from a second experiment as many more as make ten lines.
const ALL = [...SCHEME_NAMES]
const MORE = SCHEME_NAMES.slice(0, 10 - ALL.length)
const TOPOLOGY = 'topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }'
const experiment = (name: string, schemes: string[], queue: number) => `name: ${name}
testbed: sim
${TOPOLOGY.replace('queuePackets: 100', `queuePackets: ${queue}`)}
schemes: [${schemes.join(', ')}]
workload: { kind: web-search, load: [0.3, 0.6], flows: 60 }
seeds: [1]
telemetry: { interval: 200us }
`

/** What ComparePlot exposes of its uPlot chart (data-figure): axis titles, scale kinds, tick labels, line styles. */
interface Figure {
  axes: Array<{ label: string; ticks: string[] }>
  xDistr: number
  lines: Array<{ label: string; color: string; dash: number[] }>
}

async function figure(page: Page, testid: string): Promise<Figure> {
  return JSON.parse((await page.getByTestId(testid).getAttribute('data-figure')) ?? 'null') as Figure
}

describe('compare plots as figures', () => {
  let home: string
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-figures-'))
    writeFileSync(join(home, 'a.yaml'), experiment('figures-all', ALL, 100))
    writeFileSync(join(home, 'b.yaml'), experiment('figures-small-queues', MORE, 40))
    for (const f of ['a.yaml', 'b.yaml']) {
      const r = p4lab(['run', f], home, { home })
      expect(r.code, r.stderr).toBe(0)
    }
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    const context = await browser.newContext({ viewport: { width: 1600, height: 1100 }, acceptDownloads: true })
    page = await context.newPage()
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 900_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('draws ten distinct, titled lines and a log-x FCT CDF', async () => {
    await page.goto(app.url)
    await page.getByTestId('nav-compare').click()
    for (const id of ['1', '2']) await page.locator(`[data-testid="compare-exp"][data-experiment-id="${id}"] input`).check()
    await expect.poll(() => page.getByTestId('plot-main').getAttribute('data-lines'), { timeout: 30_000 }).toBe('10')
    await expect.poll(() => page.getByTestId('plot-fct-cdf').getAttribute('data-lines'), { timeout: 30_000 }).toBe('10')
    await expect.poll(() => page.getByTestId('compare-view').getAttribute('data-settled'), { timeout: 30_000 }).toBe('true')
    await expect.poll(async () => (await figure(page, 'plot-fct-cdf'))?.lines.length ?? 0, { timeout: 30_000 }).toBe(10)
    await page.screenshot({ path: join(ARTIFACTS, 'compare-figures-1-view.png') })
    await page.getByTestId('plot-fct-cdf').screenshot({ path: join(ARTIFACTS, 'compare-figures-2-fct-cdf.png') })
    await page.getByTestId('plot-main').screenshot({ path: join(ARTIFACTS, 'compare-figures-3-main.png') })

    // Ten lines, ten colours, all solid (dashes start at the eleventh).
    const main = await figure(page, 'plot-main')
    expect(main.lines.map((l) => l.label)).toEqual([...ALL.map((s) => `figures-all · ${s}`), ...MORE.map((s) => `figures-small-queues · ${s}`)])
    expect(new Set(main.lines.map((l) => l.color)).size).toBe(10)
    for (const l of main.lines) expect(l.dash).toEqual([])
    // Titled axes, the unit in the title and plain numbers on the ticks (no "0 ns" under ms).
    expect(main.axes[0].label).toBe('load')
    expect(main.axes[1].label).toMatch(/^mean FCT \((µs|ms|s)\)$/)
    expect(main.axes[1].ticks).toContain('0')
    for (const t of main.axes[1].ticks) expect(t).toMatch(/^-?\d+(\.\d+)?$/)
    const colour = new Map(main.lines.map((l) => [l.label, l.color]))
    for (const id of ['plot-normalised', 'plot-fct-0', 'plot-fct-1', 'plot-fct-2', 'plot-fct-3', 'plot-fct-4', 'plot-fct-5', 'plot-fct-cdf', 'plot-queue-cdf']) {
      const f = await figure(page, id)
      // A flow class these short runs have no flow of (> 10 MB) draws no chart, only its note.
      if (f === null && ['plot-fct-2', 'plot-fct-5'].includes(id)) continue
      expect(f, id).not.toBeNull()
      for (const a of f.axes) expect(a.label, id).not.toBe('')
      for (const l of f.lines) expect(l.color, `${id} ${l.label}`).toBe(colour.get(l.label))
    }
    // The FCT CDF: a log x scale (uPlot distr 3) labelled at powers of ten.
    const cdf = await figure(page, 'plot-fct-cdf')
    expect(cdf.xDistr).toBe(3)
    expect(cdf.axes[0].label).toBe('flow completion time, log scale')
    expect(cdf.axes[0].ticks.length).toBeGreaterThanOrEqual(3)
    for (const t of cdf.axes[0].ticks) expect(t).toMatch(/^(1|10|100) (ns|µs|ms|s)$/)
    expect(cdf.axes[1].label).toBe('CDF (%)')
    // A scheme that sends no probes has no probe-overhead line (it would be a flat zero).
    const probe = JSON.parse((await page.getByTestId('plot-probe').getAttribute('data-plot')) ?? '{}') as { lines: Array<{ label: string; mean: Array<number | null> }> }
    for (const s of ['ecmp', 'rps']) expect(probe.lines.map((l) => l.label)).not.toContain(`figures-all · ${s}`)
    for (const l of probe.lines) expect(l.mean.some((v) => v !== null && v > 0), l.label).toBe(true)
    expect(probe.lines.map((l) => l.label)).toContain('figures-all · hula')
    // Legends and export buttons stay inside their cards.
    const overflow = await page.locator('.cplot').evaluateAll((cards) =>
      cards.flatMap((c) => {
        const box = c.getBoundingClientRect()
        return [...c.querySelectorAll('.exports, .legend .li')]
          .map((e) => ({ e, r: e.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5))
          .map(({ e }) => `${c.getAttribute('data-testid')}: ${e.textContent}`)
      }),
    )
    expect(overflow).toEqual([])
    expect(errors).toEqual([])
  })

  it('draws FCT slowdown against load, its CDFs per flow-size bucket on log x, and two runs overlaid', async () => {
    await expect.poll(() => page.getByTestId('plot-slowdown').getAttribute('data-lines'), { timeout: 30_000 }).toBe('10')
    await expect.poll(() => page.getByTestId('slowdown-cdfs').getAttribute('data-buckets'), { timeout: 30_000 }).toBe('<10 KB|10–100 KB|100 KB–1 MB|1–10 MB|≥10 MB')
    await expect.poll(() => page.getByTestId('plot-overlay').getAttribute('data-lines'), { timeout: 30_000 }).toBe('2')
    await expect.poll(async () => (await figure(page, 'plot-overlay'))?.lines.length ?? 0, { timeout: 30_000 }).toBe(2)
    await page.getByTestId('plot-slowdown').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'compare-figures-4-slowdown-view.png') })
    await page.getByTestId('plot-slowdown').screenshot({ path: join(ARTIFACTS, 'compare-figures-5-slowdown.png') })
    await page.getByTestId('plot-slowdown-cdf-1').screenshot({ path: join(ARTIFACTS, 'compare-figures-6-slowdown-cdf.png') })
    await page.getByTestId('plot-overlay').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'compare-figures-7-overlay-view.png') })

    // Slowdown against load: the same ten lines in the same colours, titled, every value at least 1 (the ideal is the best a flow can do).
    const main = await figure(page, 'plot-main')
    const colour = new Map(main.lines.map((l) => [l.label, l.color]))
    const sd = await figure(page, 'plot-slowdown')
    expect(sd.axes[0].label).toBe('load')
    expect(sd.axes[1].label).toBe('mean FCT slowdown')
    for (const l of sd.lines) expect(l.color, l.label).toBe(colour.get(l.label))
    const sdData = JSON.parse((await page.getByTestId('plot-slowdown').getAttribute('data-plot')) ?? '{}') as { lines: Array<{ mean: Array<number | null> }> }
    const means = sdData.lines.flatMap((l) => l.mean).filter((v): v is number => v !== null)
    expect(means.length).toBe(20)
    for (const v of means) expect(v).toBeGreaterThanOrEqual(0.999)
    // Slowdown CDFs: a log x scale labelled at decades, the small-flow buckets drawn for every line.
    for (const i of [0, 1]) {
      const f = await figure(page, `plot-slowdown-cdf-${i}`)
      expect(f, `bucket ${i}`).not.toBeNull()
      expect(f.xDistr).toBe(3)
      expect(f.axes[0].label).toBe('FCT slowdown (FCT / ideal FCT), log scale')
      for (const t of f.axes[0].ticks) expect(t).toMatch(/^(1|10|100|1000)$/)
      expect(f.lines.length).toBe(10)
    }
    // Two runs overlaid on one time axis from 0, in two colours.
    const ov = await figure(page, 'plot-overlay')
    expect(ov.axes[0].label).toMatch(/^time since the run's first sample \((µs|ms)\)$/)
    expect(new Set(ov.lines.map((l) => l.color)).size).toBe(2)
    expect(ov.lines[0].label).not.toBe(ov.lines[1].label)

    // Hovering a plot puts formatted numbers in its legend (a unit, never raw nanoseconds), inside the card.
    await page.getByTestId('plot-main').scrollIntoViewIfNeeded()
    const box = (await page.getByTestId('plot-main').locator('.plot').boundingBox())!
    await page.getByTestId('plot-main').locator('.plot').hover({ position: { x: box.width * 0.6, y: box.height * 0.4 } })
    await expect.poll(() => page.getByTestId('plot-main').locator('.legend .lv').count(), { timeout: 10_000 }).toBeGreaterThan(0)
    const values = await page.getByTestId('plot-main').locator('.legend .lv').allTextContents()
    expect(values.length).toBeGreaterThan(0)
    for (const v of values) expect(v).toMatch(/^\d+(\.\d+)? (ns|µs|ms|s)( \[.*\])?$/)
    await page.getByTestId('plot-main').screenshot({ path: join(ARTIFACTS, 'compare-figures-8-main-hover.png') })

    // What the SVG and CSV exports hold is what the plot draws: the same lines and values.
    const dl = async (suffix: string) => {
      const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`plot-slowdown-${suffix}`).click()])
      return readFileSync((await d.path())!, 'utf8')
    }
    const csv = (await dl('csv')).trim().split('\r\n')
    expect(csv.length - 1).toBe(20)
    const r9 = (v: number) => Number(v.toPrecision(9))
    const csvMeans = csv.slice(1).map((l) => r9(Number(l.split(',')[4])))
    expect(csvMeans.sort()).toEqual(means.map(r9).sort())
    const svg = await dl('svg')
    expect((svg.match(/<polyline class="line"/g) ?? []).length).toBe(10)
    expect(svg).toContain('>mean FCT slowdown</text>')
    const overflow = await page.locator('.cplot').evaluateAll((cards) =>
      cards.flatMap((c) => {
        const b = c.getBoundingClientRect()
        return [...c.querySelectorAll('.exports, .legend .li, .legend .at')]
          .map((e) => ({ e, r: e.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0 && (r.left < b.left - 0.5 || r.right > b.right + 0.5))
          .map(({ e }) => `${c.getAttribute('data-testid')}: ${e.textContent}`)
      }),
    )
    expect(overflow).toEqual([])
    expect(errors).toEqual([])
  })
})

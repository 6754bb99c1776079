// The app on a 1024 px window, the narrowest the layout is made for, and on a 1440 px one: the
// sidebar's section buttons in one row or an even grid with every label whole; the runs table
// within its panel with the columns it starts with (every other column one click away in the
// Columns menu, and the table alone scrolls sideways once they are added); a fitted fabric
// centred in its panel, which a switch's long port table beside it does not stretch, and the
// topology editor's graph centred again when the window widens. Screenshots in
// test-artifacts/e2e/narrow-*.png.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const YAML = `name: narrow-ui
testbed: sim
topology: { kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`
// 32 hosts a leaf: a leaf's port table is longer than the graph's panel is high.
const WIDE = YAML.replace('name: narrow-ui', 'name: narrow-wide-leaf').replace('leaves: 4, spines: 2, hostsPerLeaf: 4', 'leaves: 2, spines: 2, hostsPerLeaf: 32').replace('schemes: [ecmp, rps]', 'schemes: [ecmp]')
const WIDTHS = [
  { width: 1024, height: 768 },
  { width: 1440, height: 900 },
]

interface Box {
  label: string
  left: number
  top: number
  width: number
  cut: boolean
}

/** Every box of `selector`: where it is and whether its text is cut off. */
async function boxes(page: Page, selector: string): Promise<Box[]> {
  return page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect()
      return { label: el.textContent!.trim(), left: r.left, top: r.top, width: r.width, cut: el.scrollWidth > el.clientWidth }
    }),
  )
}

/** Every column the runs table offered by default before it had to fit a 1024 px window. */
const ALL_DEFAULTS = ['id', 'scheme', 'load', 'seed', 'status', 'progress', 'flows', 'finished', 'mean', 'p50', 'p99', 'slowdown.mean', 'slowdown.p99', 'small.mean', 'large.mean', 'drops', 'retransmits', 'wall']

/** How wide the runs table is against its scroller, and the page against the window. */
async function widths(page: Page): Promise<{ table: number; room: number; page: number; window: number }> {
  return page.getByTestId('runs-table').evaluate((t) => ({ table: t.scrollWidth, room: t.parentElement!.clientWidth, page: t.ownerDocument.documentElement.scrollWidth, window: t.ownerDocument.documentElement.clientWidth }))
}

/** A graph's drawing on its canvas (data-box: x1, y1, x2, y2, width, height), null before it is drawn. */
async function drawing(page: Page, testid: string): Promise<number[] | null> {
  return JSON.parse((await page.getByTestId(testid).getAttribute('data-box')) ?? 'null') as number[] | null
}

/** How far the drawing's middle is from the canvas's, across and down (0, 0 when centred). */
function offCentre(box: number[] | null): [number, number] {
  if (!box) return [Infinity, Infinity]
  const [x1, y1, x2, y2, w, h] = box
  return [Math.abs((x1 + x2) / 2 - w / 2), Math.abs((y1 + y2) / 2 - h / 2)]
}
/** Centred within 2 px either way. */
const centred = (box: number[] | null) => offCentre(box).every((d) => d <= 2)

/** Rows of boxes, by top, top to bottom. */
function rowsOf(bs: Box[]): Box[][] {
  const rows = new Map<number, Box[]>()
  for (const b of bs) rows.set(Math.round(b.top), [...(rows.get(Math.round(b.top)) ?? []), b])
  return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r.sort((a, b) => a.left - b.left))
}

describe('the app on a narrow window in Chromium', () => {
  let app: Started
  let browser: Browser
  let page: Page
  let experimentId: number
  let wideId: number
  const errors: string[] = []

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-narrow-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: WIDTHS[0] })
    page.on('pageerror', (err) => errors.push(String(err)))
    experimentId = (await contract(app.url, 'experiments.create', { yaml: YAML })).id
    await contract(app.url, 'experiments.run', { id: experimentId })
    wideId = (await contract(app.url, 'experiments.create', { yaml: WIDE })).id
    await contract(app.url, 'experiments.run', { id: wideId })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('lays the sidebar sections out in one row or an even grid, every label whole', async () => {
    await page.goto(app.url)
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      const bs = await boxes(page, '[data-testid^="nav-"]')
      expect(bs.map((b) => b.label)).toEqual(['Experiments', 'Compare', 'Pipelines', 'Testbeds', 'Clusters'])
      expect(bs.filter((b) => b.cut).map((b) => b.label), `labels cut at ${size.width} px`).toEqual([])
      const rows = rowsOf(bs)
      if (rows.length > 1) {
        // A grid: every button as wide as the others, each row's buttons in the first row's columns.
        const widths = bs.map((b) => Math.round(b.width))
        expect(Math.max(...widths) - Math.min(...widths), `button widths at ${size.width} px: ${widths.join(', ')}`).toBeLessThanOrEqual(1)
        const columns = rows[0].map((b) => Math.round(b.left))
        for (const row of rows.slice(1)) expect(row.map((b) => Math.round(b.left)), `columns at ${size.width} px`).toEqual(columns.slice(0, row.length))
      }
      await page.screenshot({ path: join(ARTIFACTS, `narrow-sidebar-${size.width}.png`), clip: { x: 0, y: 0, width: 300, height: 200 } })
    }
    expect(errors).toEqual([])
  })

  it('fits the runs table in its panel, every column still in the Columns menu', { timeout: 180_000 }, async () => {
    await expect
      .poll(async () => (await contract(app.url, 'runs.list', { experimentId })).every((r: { status: string }) => r.status === 'done'), { timeout: 120_000, interval: 500 })
      .toBe(true)
    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${experimentId}"]`).click()
    const rows = page.getByTestId('run-row')
    await expect.poll(() => rows.evaluateAll((els) => els.map((e) => /\d/.test(e.querySelector('[data-col="meanFct"]')?.textContent ?? ''))), { timeout: 20_000 }).toEqual([true, true])
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      const w = await widths(page)
      expect(w.table, `runs table ${w.table} px in ${w.room} px at ${size.width} px`).toBeLessThanOrEqual(w.room)
      // A cell cut short says what it holds when hovered.
      const cut = await page.locator('[data-testid="runs-table"] td *').evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth && !e.closest('[title]')).map((e) => e.textContent))
      expect(cut, 'cut cells without a title').toEqual([])
      await page.getByTestId('runs-panel').scrollIntoViewIfNeeded()
      await page.screenshot({ path: join(ARTIFACTS, `narrow-runs-${size.width}.png`) })
    }

    // Grouped, with each group's mean and its min–max band: no wider.
    await page.setViewportSize(WIDTHS[0])
    await page.getByTestId('runs-group-by').selectOption('scheme')
    await expect.poll(() => page.getByTestId('group-mean').count(), { timeout: 10_000 }).toBeGreaterThan(0)
    const grouped = await widths(page)
    expect(grouped.table, `grouped runs table ${grouped.table} px in ${grouped.room} px`).toBeLessThanOrEqual(grouped.room)
    await page.getByTestId('runs-group-by').selectOption('')

    // The columns left out at first are in the Columns menu; added, the table scrolls on its own, not the page.
    await page.getByTestId('runs-columns').click()
    const keys = (testid: string) => page.getByTestId(testid).evaluateAll((els) => els.map((e) => e.getAttribute('data-key')!))
    const shown = await keys('column-shown')
    const offered = await keys('column-add')
    expect(ALL_DEFAULTS.filter((k) => !shown.includes(k) && !offered.includes(k)), 'columns neither shown nor offered').toEqual([])
    for (const k of ALL_DEFAULTS.filter((k) => !shown.includes(k))) await page.locator(`[data-testid="column-add"][data-key="${k}"]`).click()
    await page.keyboard.press('Escape')
    await expect.poll(async () => (await page.getByTestId('runs-table').getAttribute('data-columns'))!.split(',').sort(), { timeout: 10_000 }).toEqual([...ALL_DEFAULTS].sort())
    const w = await widths(page)
    expect(w.page, 'the page does not scroll sideways').toBeLessThanOrEqual(w.window)
    await page.getByTestId('runs-panel').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'narrow-runs-1024-all-columns.png') })
    expect(errors).toEqual([])
  })

  it('keeps a fitted fabric centred in its panel when a switch with a long port table is picked', { timeout: 180_000 }, async () => {
    await expect
      .poll(async () => (await contract(app.url, 'runs.list', { experimentId: wideId })).every((r: { status: string }) => r.status === 'done'), { timeout: 120_000, interval: 500 })
      .toBe(true)
    await page.setViewportSize(WIDTHS[0])
    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${wideId}"]`).click()
    await page.getByTestId('tab-fabric').click()
    const graph = page.getByTestId('fabric-graph')
    await expect.poll(async () => centred(await drawing(page, 'fabric-graph')), { timeout: 20_000 }).toBe(true)
    const height = await graph.evaluate((el) => el.clientHeight)
    const nodes = await graph.getAttribute('data-nodes')
    await page.screenshot({ path: join(ARTIFACTS, 'narrow-fabric-1024.png') })

    // The switch's 34 ports scroll beside the graph: its panel keeps its height, and the drawing stays where it was.
    await page.getByTestId('fabric-switch-select').selectOption('leaf0')
    await expect.poll(() => page.locator('[data-testid="port-table"] tbody tr').count(), { timeout: 20_000 }).toBe(34)
    expect(await graph.evaluate((el) => el.clientHeight), 'the graph panel after picking leaf0').toBe(height)
    await expect.poll(async () => centred(await drawing(page, 'fabric-graph')), { timeout: 10_000 }).toBe(true)
    expect(await graph.getAttribute('data-nodes')).toBe(nodes)
    await page.screenshot({ path: join(ARTIFACTS, 'narrow-fabric-1024-switch.png') })
    expect(errors).toEqual([])
  })

  it('centres the topology editor graph again when its panel changes size', { timeout: 60_000 }, async () => {
    await page.setViewportSize(WIDTHS[0])
    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${experimentId}"]`).click()
    await page.getByTestId('tab-topology').click()
    await expect.poll(async () => centred(await drawing(page, 'topo-canvas')), { timeout: 20_000 }).toBe(true)
    const narrow = (await drawing(page, 'topo-canvas'))!
    // A wider window: a wider panel, the drawing at the same zoom in its middle.
    await page.setViewportSize(WIDTHS[1])
    const wide = await page.getByTestId('topo-canvas').evaluate((el) => el.clientWidth)
    expect(wide).toBeGreaterThan(narrow[4])
    await expect.poll(async () => (await drawing(page, 'topo-canvas'))![4], { timeout: 10_000 }).toBe(wide)
    await expect.poll(async () => offCentre(await drawing(page, 'topo-canvas')).map((d) => d <= 2), { timeout: 10_000 }).toEqual([true, true])
    await page.screenshot({ path: join(ARTIFACTS, 'narrow-topology-1440.png') })
    expect(errors).toEqual([])
  })
})

// The app on a 1024 px window, the narrowest the layout is made for, and on a 1440 px one: the
// sidebar's section buttons in one row or an even grid with every label whole; the runs table
// within its panel with the columns it starts with (every other column one click away in the
// Columns menu, and the table alone scrolls sideways once they are added); a fitted fabric
// centred in its panel, which a switch's long port table beside it does not stretch, and the
// topology editor's graph centred again when the window widens, its save bar inside its panel
// with every count in the singular or plural it needs, and a 64-host fabric seen whole in the
// editor and the Fabric tab (so are fat-trees of k = 6 and 8, pod by pod), no link drawn through a node
// but its ends. Screenshots in test-artifacts/e2e/narrow-*.png.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'
import { GRAZE } from '../../src-renderer/src/lib/graphRoute'
import { canvas, drawn, edgesThroughNodes, nodeAt, nodes as topoNodes, selected } from '../helpers/topo-canvas'

const YAML = `name: narrow-ui
testbed: sim
topology: { kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`
// 32 hosts a leaf: a leaf's port table is longer than the graph's panel is high.
const WIDE = YAML.replace('name: narrow-ui', 'name: narrow-wide-leaf').replace('leaves: 4, spines: 2, hostsPerLeaf: 4', 'leaves: 2, spines: 2, hostsPerLeaf: 32').replace('schemes: [ecmp, rps]', 'schemes: [ecmp]')
// Two problems in the text: a load above 1 and a failure of a link the fabric does not have.
const TWO_PROBLEMS = YAML.replace('load: 0.3', 'load: 3') + 'failures:\n  - { link: leaf9-spine0, at: 5ms }\n'
// 64 hosts: the three-tier's in a block under each ToR, the leaf-spine's (32 leaves of 2) in bands
// of leaves (a row of them needed a zoom of 0.1), and a k = 6 fat-tree (and a k = 8 one, 128 hosts), all at a zoom labels can be read at.
const HOSTS_64: Array<{ name: string; topology: string; nodes: number; extra?: string }> = [
  {
    name: 'narrow-three-tier-64',
    topology: '{ kind: three-tier, pods: 2, torsPerPod: 4, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }',
    nodes: 64 + 8 + 4 + 2,
  },
  // 32 leaves: in the Fabric tab too, in bands of leaves.
  { name: 'narrow-leaf-spine-64', topology: '{ kind: leaf-spine, leaves: 32, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }', nodes: 64 + 32 + 2 },
  // 54 hosts: 18 aggregation switches, one row of them needed a zoom of 0.21 in the editor and 0.16
  // in the Fabric tab; pod by pod, the pods in a grid. Sampled less often: its 1,350 series would
  // be over the run's budget at the default interval.
  {
    name: 'narrow-fattree-k6',
    topology: '{ kind: fat-tree, k: 6, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }',
    nodes: 54 + 18 + 18 + 9,
    extra: 'telemetry: { interval: 1ms }\n',
  },
  // 128 hosts, 80 switches: at k = 6's spacing it fit only at 0.26 in the editor and 0.29 in the
  // Fabric tab; drawn closer, 0.35 and 0.40.
  {
    name: 'narrow-fattree-k8',
    topology: '{ kind: fat-tree, k: 8, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }',
    nodes: 128 + 32 + 32 + 16,
    extra: 'telemetry: { interval: 1ms }\n',
  },
]
const WIDTHS = [
  { width: 1024, height: 768 },
  { width: 1440, height: 900 },
]
/** The zoom at which a host's 9.5 px label is still made out (about 3 px). */
const READABLE = 0.3

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

/** What of a graph lies off its canvas: nodes whose centre does, and the drawing's edges (labels included) that do. */
async function offCanvas(page: Page, testid: string): Promise<string[]> {
  const el = page.getByTestId(testid)
  const box = await drawing(page, testid)
  if (!box) return ['nothing drawn']
  const [x1, y1, x2, y2, w, h] = box
  const nodes = JSON.parse((await el.getAttribute('data-nodes')) ?? '{}') as Record<string, [number, number]>
  const off = Object.entries(nodes)
    .filter(([, [x, y]]) => x < 0 || y < 0 || x > w || y > h)
    .map(([n, p]) => `${n} at ${p.join(',')}`)
  if (Object.keys(nodes).length === 0) off.push('no nodes')
  if (x1 < 0 || y1 < 0 || x2 > w || y2 > h) off.push(`drawing ${x1},${y1}–${x2},${y2} on ${w}×${h}`)
  return off
}

/** The save bar's parts that run past the topology editor's panel or over one another. */
async function barOverflow(page: Page): Promise<string[]> {
  return page.getByTestId('topo-graph-panel').evaluate((panel) => {
    const p = panel.getBoundingClientRect()
    const bar = panel.querySelector('[data-testid="topo-savebar"]')!
    const parts = [...bar.querySelectorAll('span, button')].filter((e) => e.getBoundingClientRect().width > 0)
    const out: string[] = []
    const name = (e: typeof bar) => e.textContent!.trim() || e.className
    for (const e of [bar, ...parts]) {
      const r = e.getBoundingClientRect()
      if (r.left < p.left || r.right > p.right || r.top < p.top || r.bottom > p.bottom) out.push(`${name(e)} at ${Math.round(r.left)}–${Math.round(r.right)} in ${Math.round(p.left)}–${Math.round(p.right)}`)
    }
    const leaves = parts.filter((e) => !parts.some((o) => o !== e && e.contains(o)))
    for (const [i, a] of leaves.entries())
      for (const b of leaves.slice(i + 1)) {
        const [r, q] = [a.getBoundingClientRect(), b.getBoundingClientRect()]
        if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) out.push(`${name(a)} over ${name(b)}`)
      }
    return out
  })
}

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

    // Grouped, with each group's mean and its min–max band: no wider, and each run's progress
    // cell as it reads ungrouped (a simulator run's "N ms simulated").
    await page.setViewportSize(WIDTHS[0])
    const progressById = () => rows.evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-run-id'), e.querySelector('[data-col="progress"]')!.textContent!.trim()])))
    const ungrouped = await progressById()
    expect(Object.values(ungrouped)).toEqual([expect.stringMatching(/\d [nµm]?s simulated$/), expect.stringMatching(/\d [nµm]?s simulated$/)])
    expect(await page.getByTestId('runs-count').innerText()).toBe('2 runs')
    await page.getByTestId('runs-group-by').selectOption('scheme')
    await expect.poll(() => page.getByTestId('group-mean').count(), { timeout: 10_000 }).toBeGreaterThan(0)
    await page.getByTestId('runs-panel').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'narrow-runs-1024-grouped.png') })
    expect(await progressById()).toEqual(ungrouped)
    await page.setViewportSize(WIDTHS[1])
    await page.getByTestId('runs-panel').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'narrow-runs-1440-grouped.png') })
    await page.setViewportSize(WIDTHS[0])
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
    await expect.poll(() => page.getByTestId('runs-count').innerText(), { timeout: 10_000 }).toBe('1 run')
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

  it("keeps the topology editor's save bar inside its panel, its problems counted in the singular or plural", { timeout: 90_000 }, async () => {
    const status = page.getByTestId('topo-status')
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      await page.goto(app.url)
      await page.locator(`[data-testid="experiment-item"][data-experiment-id="${experimentId}"]`).click()
      // Its widest: unsaved, two problems, Revert shown.
      await page.getByTestId('tab-overview').click()
      await page.getByTestId('yaml-editor').fill(TWO_PROBLEMS)
      await page.getByTestId('tab-topology').click()
      await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('✕ 2 problems')
      await page.getByTestId('topo-savebar').scrollIntoViewIfNeeded()
      await page.screenshot({ path: join(ARTIFACTS, `narrow-topology-savebar-${size.width}.png`) })
      expect(await barOverflow(page), `the save bar at ${size.width} px`).toEqual([])
      // Back to the saved text, then one host with no link: one problem.
      await page.getByTestId('topo-savebar').getByText('Revert').click()
      await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('✓ valid')
      expect(await barOverflow(page), `the save bar at ${size.width} px, saved`).toEqual([])
      await canvas(page).focus()
      await page.keyboard.press('h')
      await expect.poll(() => status.innerText(), { timeout: 15_000 }).toBe('✕ 1 problem')
      expect(await barOverflow(page), `the save bar at ${size.width} px, one problem`).toEqual([])
      const meta = page.getByTestId('topo-node-info').locator('.meta')
      await expect.poll(() => meta.innerText()).toBe('host · 0 links')
      // Linked to a leaf (click, Shift+click, L): the host has one link; the one problem is now the leaf's fifth host link.
      const [host, leaf] = [await nodeAt(page, 'h16'), await nodeAt(page, 'leaf3')]
      await page.mouse.click(host.x, host.y)
      await page.keyboard.down('Shift')
      await page.mouse.click(leaf.x, leaf.y)
      await page.keyboard.up('Shift')
      await expect.poll(async () => (await selected(page)).sort()).toEqual(['h16', 'leaf3'])
      await page.keyboard.press('l')
      await expect.poll(() => page.getByTestId('topo-problem').allInnerTexts(), { timeout: 15_000 }).toEqual([expect.stringMatching(/^leaf3 leaf3 is 1.25:1 oversubscribed/)])
      expect(await status.innerText()).toBe('✕ 1 problem')
      await page.getByTestId('topo-node-list').selectOption('h16')
      await expect.poll(() => meta.innerText()).toBe('host · 1 link')
      await page.getByTestId('topo-savebar').getByText('Revert').click()
    }
    expect(errors).toEqual([])
  })

  it('shows a wide fabric whole in the topology editor and the Fabric tab', { timeout: 180_000 }, async () => {
    for (const f of HOSTS_64) {
      const id = (await contract(app.url, 'experiments.create', { yaml: YAML.replace('name: narrow-ui', `name: ${f.name}`).replace(/^topology: .*$/m, `topology: ${f.topology}`) + (f.extra ?? '') })).id
      for (const size of WIDTHS) {
        await page.setViewportSize(size)
        await page.goto(app.url)
        await page.locator(`[data-testid="experiment-item"][data-experiment-id="${id}"]`).click()
        await page.getByTestId('tab-topology').click()
        await expect.poll(async () => Object.keys(await topoNodes(page)).length, { timeout: 20_000 }).toBe(f.nodes)
        await expect.poll(() => offCanvas(page, 'topo-canvas'), { timeout: 10_000 }).toEqual([])
        // Dragged aside, Fit shows it whole again.
        await canvas(page).scrollIntoViewIfNeeded()
        const c = (await canvas(page).boundingBox())!
        await page.mouse.move(c.x + 12, c.y + 12)
        await page.mouse.down()
        await page.mouse.move(c.x + c.width / 2, c.y + 12, { steps: 8 })
        await page.mouse.up()
        await expect.poll(async () => (await offCanvas(page, 'topo-canvas')).length, { timeout: 10_000 }).toBeGreaterThan(0)
        await page.getByTestId('topo-fit').click()
        await expect.poll(() => offCanvas(page, 'topo-canvas'), { timeout: 10_000 }).toEqual([])
        const zoom = Number(await canvas(page).getAttribute('data-zoom'))
        expect(zoom, 'the editor\'s zoom').toBeGreaterThanOrEqual(READABLE)
        // No link drawn through a node but its ends (a spine's link to a lower band of leaves, a
        // core's to a lower row of pods, a ToR's to its block's second row of hosts went straight through).
        expect(edgesThroughNodes(await drawn(page, 'topo-canvas'), GRAZE * zoom), 'links through nodes in the editor').toEqual([])
        await canvas(page).scrollIntoViewIfNeeded()
        await page.screenshot({ path: join(ARTIFACTS, `narrow-topology-64-${f.name.replace(/^narrow-/, '')}-${size.width}.png`) })

        await page.getByTestId('tab-fabric').click()
        await expect.poll(async () => Object.keys(JSON.parse((await page.getByTestId('fabric-graph').getAttribute('data-nodes')) ?? '{}')).length, { timeout: 20_000 }).toBeGreaterThan(0)
        await expect.poll(() => offCanvas(page, 'fabric-graph'), { timeout: 10_000 }).toEqual([])
        // Fitted (the graph fits itself to its panel) at a zoom a switch's label can be read at.
        await expect.poll(async () => Number(await page.getByTestId('fabric-graph').getAttribute('data-zoom')), { timeout: 10_000 }).toBeGreaterThanOrEqual(READABLE)
        const fabricZoom = Number(await page.getByTestId('fabric-graph').getAttribute('data-zoom'))
        expect(edgesThroughNodes(await drawn(page, 'fabric-graph'), GRAZE * fabricZoom), 'links through nodes in the Fabric tab').toEqual([])
        await page.screenshot({ path: join(ARTIFACTS, `narrow-fabric-64-${f.name.replace(/^narrow-/, '')}-${size.width}.png`) })
      }
    }
    expect(errors).toEqual([])
  })
})

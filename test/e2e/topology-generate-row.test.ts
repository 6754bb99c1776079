// The topology editor's generate row (the template chooser and its parameters) on a reopened
// experiment shows that experiment's own fabric: a saved k=4 fat-tree reopens with the fat-tree
// template and its k and link rate, DHLB's fat-tree with its own template; a generator no template
// makes exactly (a three-tier of 3 pods) and a custom topology say so, with no template chosen and
// Generate off until one is. The app is restarted on the same database between saving and
// reopening. Screenshot: test-artifacts/e2e/topology-generate-row.png.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'
import { experiment, nodes } from '../helpers/topo-canvas'

const FAT_TREE = experiment('row-fat-tree', '{ kind: fat-tree, k: 4, hostLink: 25Gbps, fabricLink: 25Gbps, linkDelay: 1us }')
const DHLB = experiment('row-dhlb', '{ kind: fat-tree, k: 4, hostsPerTor: 4, hostLink: 100Mbps, fabricLink: 200Mbps, linkDelay: 1us, queuePackets: 100 }')
const THREE_TIER = experiment('row-three-tier', '{ kind: three-tier, pods: 3, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 2, hostLink: 10Gbps, fabricLink: 40Gbps }')
const CUSTOM = `name: row-custom
testbed: sim
topology:
  kind: custom
  nodes:
    - { name: s0, tier: spine }
    - { name: l0, tier: tor }
    - { name: l1, tier: tor }
    - { name: h0, tier: host }
    - { name: h1, tier: host }
  links:
    - { a: s0, b: l0 }
    - { a: s0, b: l1 }
    - { a: l0, b: h0 }
    - { a: l1, b: h1 }
  hostLink: 10Gbps
  fabricLink: 10Gbps
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`

describe("the topology editor's generate row on a reopened experiment", () => {
  let home: string
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []
  const ids: Record<string, number> = {}

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-genrow-'))
    app = await startApp([], { P4LAB_HOME: home })
    for (const [key, yaml] of Object.entries({ fat: FAT_TREE, dhlb: DHLB, three: THREE_TIER, custom: CUSTOM })) {
      ids[key] = (await contract(app.url, 'experiments.create', { yaml })).id
    }
    // Reopened: the app restarted on the same database.
    await app.stop()
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  async function open(key: string, switches: number): Promise<void> {
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${ids[key]}"]`).click()
    if (!(await page.getByTestId('topology-view').isVisible())) await page.getByTestId('tab-topology').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(switches)
  }
  const template = () => page.getByTestId('topo-template').inputValue()
  const param = (key: string) => page.getByTestId(`topo-param-${key}`)
  const current = () => page.getByTestId('topo-current').innerText()

  it('shows the saved fat-tree, not the leaf-spine defaults', async () => {
    await page.goto(app.url)
    await open('fat', 36)
    await expect.poll(template, { timeout: 10_000 }).toBe('fat-tree')
    expect(await param('k').inputValue()).toBe('4')
    expect(await param('hostGbps').inputValue()).toBe('25')
    expect(await param('leaves').count()).toBe(0)
    expect(await current()).toMatch(/fat-tree.*k 4.*hostLink 25Gbps/)
    expect(await page.getByTestId('topo-generate').isDisabled()).toBe(false)
    await page.screenshot({ path: join(ARTIFACTS, 'topology-generate-row.png') })

    // Another experiment opened on the same tab: its own template, not the last one's values.
    await open('dhlb', 52)
    await expect.poll(template, { timeout: 10_000 }).toBe('dhlb-fat-tree')
    expect(await param('k').count()).toBe(0)
  })

  it('says plainly when no template makes the fabric, and offers none until one is picked', async () => {
    await open('three', 3 * 2 * 2 + 3 * 2 + 2 + 3 * 2)
    await expect.poll(current, { timeout: 10_000 }).toMatch(/three-tier.*pods 3.*no template/)
    expect(await template()).toBe('')
    expect(await page.getByTestId('topo-generate').isDisabled()).toBe(true)

    await open('custom', 5)
    await expect.poll(current, { timeout: 10_000 }).toMatch(/custom.*5 nodes.*4 links.*no template/i)
    expect(await template()).toBe('')
    expect(await page.getByTestId('topo-generate').isDisabled()).toBe(true)

    // Picking a template offers its own parameters at their defaults.
    await page.getByTestId('topo-template').selectOption('leaf-spine')
    expect(await param('leaves').inputValue()).toBe('4')
    expect(await page.getByTestId('topo-generate').isDisabled()).toBe(false)
    expect(errors).toEqual([])
  })
})

// The topology editor as a user drives it in Chromium: a k=4 fat-tree generated from its template,
// one spine link failed at 5 ms, a parallel link added (the fabric is then written out as explicit
// nodes and links), a node moved, saved; the server restarted on the same database shows the same
// graph and positions; the saved YAML validates and runs on the simulator. A second test does every
// designer action from the keyboard (mapping a switch to a host from the keyboard: testbed-mapping.test.ts). Screenshots (light and dark) in test-artifacts/e2e/topology-*.png.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'
import { canvas, links, nodeAt, nodes, normalise, selected } from '../helpers/topo-canvas'

const YAML = `# The topology editor's e2e experiment.
name: topo-editor-e2e
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp] # one scheme keeps the run short
workload: { kind: web-search, load: 0.3, flows: 60 }
seeds: [1]
stopAfter: 2s
`

async function openExperiment(page: Page, url: string): Promise<void> {
  await page.goto(url)
  await page.getByTestId('experiment-item').filter({ hasText: 'topo-editor-e2e' }).click()
  await page.getByTestId('tab-topology').click()
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const theme of ['dark', 'light'] as const) {
    const now = await page.locator('html').getAttribute('data-theme')
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
    await expect.poll(async () => await selected(page)).toEqual(['core0'])
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
    expect(await page.locator(':focus').getAttribute('data-testid')).toBe('topo-canvas')

    // Move a node by hand, fit, and save.
    const core3 = await nodeAt(page, 'core3')
    await page.mouse.move(core3.x, core3.y)
    await page.mouse.down()
    await page.mouse.move(core3.x + 60, core3.y - 40, { steps: 6 })
    await page.mouse.up()
    await page.getByTestId('topo-fit').click()
    await expect.poll(() => page.getByTestId('topo-status').innerText(), { timeout: 15_000 }).toContain('valid')
    await page.getByTestId('topo-save').click()
    // Saved: the button is back to Save (it is disabled while saving too), disabled until the next change.
    await expect.poll(() => page.getByTestId('topo-save').innerText(), { timeout: 15_000 }).toBe('Save')
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

  it('does every designer action from the keyboard', async () => {
    await page.getByTestId('tab-topology').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(36)
    await canvas(page).focus()
    const key = async (k: string) => {
      await page.keyboard.press(k)
      await page.waitForTimeout(50)
    }
    const focused = () => page.locator(':focus').getAttribute('data-testid')

    // Arrow keys pick a node; another arrow moves to a neighbour.
    await key('Escape')
    await key('ArrowRight')
    const first = await selected(page)
    expect(first).toHaveLength(1)
    await key('ArrowDown')
    expect(await selected(page)).not.toEqual(first)

    // H adds a host (selected); Shift+ArrowUp adds the switch above it; L links them; Delete, undo, redo.
    await key('h')
    await expect.poll(() => selected(page)).toEqual(['h16'])
    // A host with no link yet: the problem names it, on the graph and in the list.
    const bad = async () => JSON.parse((await canvas(page).getAttribute('data-bad')) ?? '[]') as string[]
    await expect.poll(bad, { timeout: 10_000 }).toEqual(['h16'])
    await expect.poll(() => page.getByTestId('topo-problem').first().innerText(), { timeout: 10_000 }).toMatch(/^h16 /)
    await canvas(page).focus()
    // The new host ends the host row, out beyond edge7: the edge switch, not the aggregation
    // switch over it that is nearer across.
    await key('Shift+ArrowUp')
    await expect.poll(() => selected(page)).toEqual(['h16', 'edge7'])
    await key('l')
    await expect.poll(async () => Object.keys(await links(page)).filter((l) => l.endsWith('-h16'))).toEqual(['edge7-h16'])
    const hostLink = 'edge7-h16'
    expect(await selected(page)).toEqual([hostLink])
    await key('Delete')
    await expect.poll(async () => Object.keys(await links(page))).not.toContain(hostLink)
    await key('Control+z')
    await expect.poll(async () => Object.keys(await links(page))).toContain(hostLink)
    await key('Control+Shift+z')
    await expect.poll(async () => Object.keys(await links(page))).not.toContain(hostLink)
    await key('Control+z')
    await expect.poll(async () => Object.keys(await links(page))).toContain(hostLink)

    // S, A and T add a spine, an aggregation switch and a ToR; the Undo button (Enter) takes the ToR back.
    await key('s')
    await key('a')
    await key('t')
    await expect.poll(async () => Object.keys(await nodes(page)).length).toBe(40)
    await page.getByTestId('topo-undo').focus()
    await key('Enter')
    await expect.poll(async () => Object.keys(await nodes(page)).length).toBe(39)
    expect(await focused()).toBe('topo-canvas')
    await key('Control+z')
    await key('Control+z')
    await expect.poll(async () => Object.keys(await nodes(page)).length).toBe(37)

    // Ctrl+A selects every node; Escape clears.
    await key('Control+a')
    await expect.poll(async () => (await selected(page)).length).toBe(37)
    await key('Escape')
    await expect.poll(() => selected(page)).toEqual([])

    // Picking h16 in the node list and pressing Delete removes it with its link and failure.
    await page.getByTestId('topo-node-list').focus()
    await page.getByTestId('topo-node-list').selectOption('h16')
    await key('Delete')
    await expect.poll(async () => Object.keys(await nodes(page))).not.toContain('h16')
    expect(Object.keys(await links(page))).not.toContain(hostLink)
    // A parallel link from the keyboard: agg1 from the list, Shift+ArrowUp adds the switch above, L
    // links them; the same two again and L: a second link beside the first. Undo takes both back.
    const linkAbove = async (): Promise<string> => {
      await page.getByTestId('topo-node-list').selectOption('agg1')
      await expect.poll(focused).toBe('topo-canvas')
      await key('Shift+ArrowUp')
      await expect.poll(async () => (await selected(page)).length).toBe(2)
      const had = Object.keys(await links(page))
      await key('l')
      await expect.poll(async () => Object.keys(await links(page)).length).toBe(had.length + 1)
      return Object.keys(await links(page)).find((l) => !had.includes(l))!
    }
    const one = await linkAbove()
    const two = await linkAbove()
    expect(two.replace(/\/\d+$/, '')).toBe(one.replace(/\/\d+$/, ''))
    expect(two).toMatch(/\/\d+$/)
    await key('Control+z')
    await key('Control+z')
    await expect.poll(async () => Object.keys(await links(page))).not.toContain(one)
    // S adds a spine and Delete removes it again.
    await key('s')
    await expect.poll(async () => Object.keys(await nodes(page)).length).toBe(37)
    await key('Delete')
    await expect.poll(async () => Object.keys(await nodes(page)).length).toBe(36)

    // The lists pick a node or link; Enter on the graph goes to the link's fields (Escape comes
    // back), where speed, delay and loss are set with Enter, then the failure and its recovery.
    await page.getByTestId('topo-link-list').focus()
    await page.getByTestId('topo-link-list').selectOption('edge0-h0')
    await expect.poll(() => selected(page)).toEqual(['edge0-h0'])
    await expect.poll(focused).toBe('topo-canvas')
    await key('Enter')
    expect(await focused()).toBe('topo-link-speed')
    await key('Escape')
    expect(await focused()).toBe('topo-canvas')
    await key('Enter')
    await page.keyboard.type('1Gbps')
    await key('Tab')
    expect(await focused()).toBe('topo-link-delay')
    await page.keyboard.type('5us')
    await key('Tab')
    await page.keyboard.type('0.001')
    await key('Enter')
    await expect.poll(async () => (await links(page))['edge0-h0'], { timeout: 30_000 }).toContain('slow')
    await expect.poll(focused).toBe('topo-canvas')
    await key('Enter')
    for (let i = 0; i < 4; i++) await key('Tab')
    expect(await focused()).toBe('topo-fail-at')
    await page.keyboard.type('2ms')
    await key('Tab')
    await page.keyboard.type('4ms')
    await key('Enter')
    await expect.poll(async () => (await links(page))['edge0-h0'], { timeout: 30_000 }).toContain('failing')
    expect(await focused()).toBe('topo-canvas')
    // R lays out by tier: the position moved by hand in the first test is forgotten.
    expect((await contract(app.url, 'experiments.layout', { id: 1 })).positions.core3).toBeDefined()
    await key('r')
    await expect.poll(async () => (await contract(app.url, 'experiments.layout', { id: 1 })).positions, { timeout: 10_000 }).toEqual({})
    await shoot(page, 'keyboard')

    // F fits; Ctrl+S saves (the text validates again). The screenshots left the focus on the theme button.
    await canvas(page).focus()
    await key('f')
    await expect.poll(() => page.getByTestId('topo-status').innerText(), { timeout: 15_000 }).toContain('valid')
    await key('Control+s')
    await expect.poll(() => page.getByTestId('topo-save').innerText(), { timeout: 15_000 }).toBe('Save')
    await expect.poll(() => page.getByTestId('topo-save').isDisabled(), { timeout: 15_000 }).toBe(true)
    const saved = (await contract(app.url, 'experiments.get', { id: 1 })).yaml as string
    expect(saved).toMatch(/\{ a: edge0, b: h0, [^}]*speed: 1Gbps[^}]*\}/)
    expect(saved).toMatch(/\{ a: edge0, b: h0, [^}]*delay: 5us[^}]*\}/)
    expect(saved).toMatch(/\{ a: edge0, b: h0, [^}]*loss: 0.001[^}]*\}/)
    expect(saved).toContain('- { link: edge0-h0, at: 2ms, recover: 4ms }')

    // The control plane ECMP would deploy on this fabric, per switch, for simple_switch_CLI and bfrt_python.
    await page.getByTestId('topo-cp-toggle').focus()
    await key('Enter')
    await expect.poll(() => page.getByTestId('switch-option').count(), { timeout: 20_000 }).toBe(20)
    await page.locator('[data-testid="switch-option"][data-switch="core0"]').click()
    await expect.poll(() => page.getByTestId('cp-file-name').innerText(), { timeout: 10_000 }).toBe('core0.cli')
    expect(await page.getByTestId('cp-file').innerText()).toMatch(/table_add/)
    await page.getByTestId('cp-tab-bfrt').click()
    await expect.poll(() => page.getByTestId('cp-file-name').innerText(), { timeout: 10_000 }).toBe('core0.py')
    await page.getByTestId('topo-controlplane').scrollIntoViewIfNeeded()
    await shoot(page, 'controlplane')
    expect(errors).toEqual([])
  }, 120_000)
})

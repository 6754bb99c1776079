// Revisions in the GUI: after the text of an experiment with done runs changes, the runs table
// and the run matrix mark those runs stale, History diffs the two revisions and renames the
// experiment (its list within the view on a narrow window too), and "Save as new experiment"
// copies the text into a new one in one click; a rename to a name taken says so in a sentence,
// the call and its code in the message's title.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, launchChromium, contract } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const V1 = `name: rev-ui
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`
const V2 = V1.replace('flows: 20', 'flows: 40')

describe('experiment revisions in Chromium', () => {
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-revisions-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('marks old runs stale, diffs revisions, renames, and saves as a new experiment', { timeout: 240_000 }, async () => {
    const exp = await contract(app.url, 'experiments.create', { yaml: V1 })
    const { runIds } = await contract(app.url, 'experiments.run', { id: exp.id })
    await expect
      .poll(async () => (await contract(app.url, 'runs.list', { experimentId: exp.id })).every((r: { status: string }) => r.status === 'done'), { timeout: 120_000, interval: 500 })
      .toBe(true)
    await contract(app.url, 'experiments.update', { id: exp.id, yaml: V2 })

    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${exp.id}"]`).click()
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 15_000 }).toBe(2)
    await expect.poll(() => page.getByTestId('run-stale').count(), { timeout: 15_000 }).toBe(2)
    await expect.poll(() => page.locator('[data-testid="matrix-cell"][data-status="stale"]').count(), { timeout: 15_000 }).toBe(2)
    expect(await page.getByTestId('matrix-stale').innerText()).toBe('2 stale')
    expect(await page.getByTestId('experiment-revision').innerText()).toBe('rev 2')
    await page.screenshot({ path: join(ARTIFACTS, 'revisions-1-stale.png') })

    await page.getByTestId('experiment-history').click()
    await expect.poll(() => page.getByTestId('revision-row').count(), { timeout: 10_000 }).toBe(2)
    const diff = await page.getByTestId('revision-diff').innerText()
    expect(diff).toContain('- workload: { kind: web-search, load: 0.3, flows: 20 }')
    expect(diff).toContain('+ workload: { kind: web-search, load: 0.3, flows: 40 }')
    expect(await page.locator('[data-testid="revision-row"][data-rev="1"]').innerText()).toMatch(/2 runs\s+stale/)
    await page.screenshot({ path: join(ARTIFACTS, 'revisions-2-history.png') })

    await page.getByTestId('rename-input').fill('rev-ui-2')
    await page.getByTestId('rename-go').click()
    await expect.poll(() => page.locator('h1').first().innerText(), { timeout: 10_000 }).toBe('rev-ui-2')
    await expect.poll(() => page.getByTestId('revision-row').count(), { timeout: 10_000 }).toBe(3)
    expect(await page.locator('[data-testid="revision-row"][data-rev="3"]').innerText()).toContain('renamed rev-ui -> rev-ui-2')
    await page.screenshot({ path: join(ARTIFACTS, 'revisions-3-renamed.png') })
    // On a narrow window the name keeps its room (the actions wrap under it) and History stays
    // within the experiment's view, not under the sidebar.
    await page.setViewportSize({ width: 1024, height: 700 })
    const head = page.locator('.viewhead').first()
    await expect.poll(() => head.locator('h1').evaluate((el) => el.clientWidth), { timeout: 10_000 }).toBeGreaterThanOrEqual(200)
    const headLeft = await head.evaluate((el) => el.getBoundingClientRect().left)
    expect(await page.getByTestId('history-pop').evaluate((el) => el.getBoundingClientRect().left)).toBeGreaterThanOrEqual(headLeft)
    await page.screenshot({ path: join(ARTIFACTS, 'revisions-4-narrow.png') })
    await page.getByTestId('experiment-history').click()
    // So does the runs table's Columns menu, and Escape closes it (focus still on its button).
    await page.getByTestId('runs-columns').click()
    const menu = page.getByTestId('runs-columns-menu')
    expect(await menu.evaluate((el) => el.getBoundingClientRect().left)).toBeGreaterThanOrEqual(headLeft)
    await page.screenshot({ path: join(ARTIFACTS, 'revisions-5-narrow-columns.png') })
    await page.keyboard.press('Escape')
    await expect.poll(() => menu.count(), { timeout: 10_000 }).toBe(0)
    await page.setViewportSize({ width: 1440, height: 900 })
    // The old runs still say what they ran with.
    for (const id of runIds) {
      const ran = await contract(app.url, 'runs.ranWith', { id })
      expect(ran).toMatchObject({ revision: 1, name: 'rev-ui', yaml: V1, workload: { flows: 20 } })
    }

    await page.getByTestId('experiment-history').click()
    await page.getByTestId('save-as-new').click()
    await expect.poll(() => page.locator('h1').first().innerText(), { timeout: 10_000 }).toBe('rev-ui-2 (2)')
    const all = await contract(app.url, 'experiments.list', {})
    expect(all.map((e: { name: string }) => e.name).sort()).toEqual(['rev-ui-2', 'rev-ui-2 (2)'])
    await page.screenshot({ path: join(ARTIFACTS, 'revisions-4-saved-as-new.png') })
    expect(errors).toEqual([])
  })

  it('says a name is taken in a plain sentence, the call and its code only in the title', { timeout: 60_000 }, async () => {
    // The copy saved as new is open; its original's name is taken.
    if ((await page.getByTestId('history-pop').count()) === 0) await page.getByTestId('experiment-history').click()
    await page.getByTestId('rename-input').fill('rev-ui-2')
    await page.getByTestId('rename-go').click()
    const shown = page.getByTestId('history-error')
    await expect.poll(() => shown.count(), { timeout: 10_000 }).toBe(1)
    await page.screenshot({ path: join(ARTIFACTS, 'revisions-6-name-taken.png') })
    expect(await shown.innerText()).toMatch(/^An experiment named 'rev-ui-2' already exists \(experiment \d+\); choose another name\.$/)
    expect(await shown.getAttribute('title')).toBe('experiments.rename: conflict')
    expect(errors).toEqual([])
  })
})

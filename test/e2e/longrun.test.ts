// A long run in the GUI (issue 6: roll-ups so that long runs stay quick to open). A sim run
// sampled every 2 µs stores more values than the UI reads whole (STORED_MAX_VALUES); reopened
// from the store it comes as 1 ms roll-up means and says so, and a chart zoomed into part of it
// reads that part again, raw, from the store.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { STORED_MAX_VALUES } from '../../src-renderer/src/lib/series'
import { ARTIFACTS, launchChromium, contract } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const YAML = `name: long-run
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 30 }
seeds: [1]
telemetry: { interval: 2us }
# Its flows end within tens of ms; the stop keeps the samples budget (stopAfter ÷ interval × series) in reach.
stopAfter: 1s
`

async function drag(page: Page, testid: string, from: number, to: number): Promise<void> {
  const box = (await page.locator(`[data-testid="${testid}"] .u-over`).boundingBox())!
  const y = box.y + box.height / 2
  await page.mouse.move(box.x + box.width * from, y)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width * ((from + to) / 2), y, { steps: 4 })
  await page.mouse.move(box.x + box.width * to, y, { steps: 4 })
  await page.mouse.up()
}

describe('a long run in Chromium', () => {
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-e2e-long-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('opens as roll-up means, says so, and a zoomed chart reads its range raw', async () => {
    const exp = await contract(app.url, 'experiments.create', { yaml: YAML })
    const { runIds } = await contract(app.url, 'experiments.run', { id: exp.id })
    await expect.poll(async () => (await contract(app.url, 'runs.get', { id: runIds[0] })).status, { timeout: 120_000, interval: 250 }).toBe('done')
    // The premise: whole, the run is more than the UI reads at once.
    const whole = await contract(app.url, 'runs.series', { id: runIds[0] })
    expect(whole.level).toBe('raw')
    expect(whole.defs.length * whole.batch.t.length).toBeGreaterThan(STORED_MAX_VALUES)

    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${exp.id}"]`).click()
    await page.locator(`[data-testid="run-row"][data-run-id="${runIds[0]}"]`).click()
    const chart = page.getByTestId('chart-util')
    const level = page.getByTestId('chart-util-level')
    await expect.poll(() => level.getAttribute('data-level'), { timeout: 10_000 }).toBe('1000000')
    await expect.poll(() => level.innerText(), { timeout: 10_000 }).toBe('1 ms means')
    // The overview holds one point per 1 ms bucket (the run is about 43 ms of sim time).
    let overviewPoints = 0
    await vi.waitFor(async () => {
      overviewPoints = Number(await chart.getAttribute('data-points'))
      expect(overviewPoints).toBeGreaterThan(20)
      expect(overviewPoints).toBeLessThan(100)
    }, { timeout: 10_000, interval: 200 })
    await page.screenshot({ path: join(ARTIFACTS, 'longrun-1-overview.png') })

    // Zoomed into a fifth of the run, the chart draws that range's raw samples.
    await drag(page, 'chart-util', 0.4, 0.6)
    await expect.poll(() => chart.getAttribute('data-zoomed'), { timeout: 10_000 }).toBe('true')
    // The chart stacked under it (queue depth, the same sim time) zooms with it.
    await expect.poll(() => page.getByTestId('chart-queue').getAttribute('data-zoomed'), { timeout: 10_000 }).toBe('true')
    await expect.poll(() => level.getAttribute('data-level'), { timeout: 10_000 }).toBe('raw')
    await expect.poll(() => level.innerText(), { timeout: 10_000 }).toBe('raw samples')
    // Raw over ~9 ms at 2 µs is thousands of samples, downsampled to the plot's width.
    await expect.poll(async () => Number(await chart.getAttribute('data-drawn')), { timeout: 10_000 }).toBeGreaterThan(overviewPoints * 4)
    await page.screenshot({ path: join(ARTIFACTS, 'longrun-2-zoomed.png') })

    // Reset: the overview again.
    await page.locator('[data-testid="chart-util"] .u-over').dblclick()
    await expect.poll(() => level.getAttribute('data-level'), { timeout: 10_000 }).toBe('1000000')
    await expect.poll(() => page.getByTestId('chart-queue').getAttribute('data-zoomed'), { timeout: 10_000 }).toBe('false')

    // The run views say it too: the replay bar, and the queue CDF (of means, which flatten peaks).
    await page.getByTestId('tab-queues').click()
    await expect.poll(() => page.getByTestId('replay-bar').getAttribute('data-mode'), { timeout: 10_000 }).toBe('replay')
    await expect.poll(() => page.getByTestId('replay-level').innerText(), { timeout: 10_000 }).toMatch(/^\d+ × 1 ms means$/)
    await expect.poll(() => page.getByTestId('cdf-level').innerText(), { timeout: 10_000 }).toContain('of stored 1 ms means')
    await page.screenshot({ path: join(ARTIFACTS, 'longrun-3-queues.png') })
    expect(errors).toEqual([])
  }, 240_000)
})

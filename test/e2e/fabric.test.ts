// The fabric view as a user sees it: a small HULA experiment on the 3-tier fabric created in
// the editor and run, the fabric's link colours and a ToR's HULA best-hop table watched as
// they change during the run, then the finished run reopened and scrubbed in replay, and
// the other run views (queues, traffic, INT) opened on it. Screenshots in test-artifacts/e2e/.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ARTIFACTS, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

// HULA's 3-tier fabric (the HULA paper, Fig. 4) with 800 web-search flows: about 90 ms of sim time,
// several seconds of wall time, long enough to watch.
const YAML = `name: fabric-e2e-hula
description: A small HULA run on the 3-tier fabric, for the fabric view test.
testbed: sim
topology: { kind: three-tier, pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 250 }
schemes: [hula]
workload: { kind: web-search, load: 0.8, flows: 800 }
params: { flowletGap: 100us, probePeriod: 200us, utilTau: 400us, keepAlive: 1ms }
seeds: [1]
telemetry: { interval: 100us }
stopAfter: 5s
`
const SWITCH = 'tor0'

type Edges = Record<string, [number, string]>

async function edges(page: Page): Promise<Edges | null> {
  const raw = await page.getByTestId('fabric-graph').getAttribute('data-edges')
  return raw ? (JSON.parse(raw) as Edges) : null
}

/** The HULA table of the selected switch as text: dst, best hop and path util per row. */
async function hulaRows(page: Page): Promise<string> {
  return page
    .getByTestId('hula-row')
    .evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-dst')}:${r.getAttribute('data-best-hop')}:${r.getAttribute('data-path-util')}`).join(' '))
}

async function runStatus(page: Page): Promise<string | null> {
  return page.getByTestId('run-row').first().getAttribute('data-status')
}

/** Clicks a node on the Cytoscape canvas at the position the graph exposes. */
async function clickNode(page: Page, name: string): Promise<void> {
  const graph = page.getByTestId('fabric-graph')
  await expect.poll(async () => JSON.parse((await graph.getAttribute('data-nodes')) ?? '{}')[name] !== undefined, { timeout: 20_000 }).toBe(true)
  const [x, y] = JSON.parse((await graph.getAttribute('data-nodes'))!)[name] as [number, number]
  const box = (await graph.boundingBox())!
  await page.mouse.click(box.x + x, box.y + y)
}

describe('the fabric view in Chromium', () => {
  let home: string
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-fabric-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('colours links and updates HULA tables live, then replays the finished run', async () => {
    await page.goto(app.url)
    await page.getByTestId('new-experiment').click()
    await page.getByTestId('template-hula-fig5a-websearch').click()
    await page.getByTestId('yaml-editor').fill(YAML)
    await expect.poll(() => page.getByTestId('validation-status').innerText(), { timeout: 10_000 }).toMatch(/^\W*valid\W+1 run/)
    await page.getByTestId('save-experiment').click()
    await page.getByTestId('tab-fabric').click()
    await page.getByTestId('run-experiment').click()

    // Live: the graph appears with the run, then a ToR is clicked on the canvas.
    await expect.poll(() => runStatus(page), { timeout: 30_000, interval: 100 }).toMatch(/running|collecting|done/)
    await clickNode(page, SWITCH)
    await expect.poll(() => page.getByTestId('switch-tables').getAttribute('data-switch'), { timeout: 10_000 }).toBe(SWITCH)

    // Sample the edge colours and the best-hop table until the run ends.
    const colourStates = new Set<string>()
    const hulaStates = new Set<string>()
    let shot = false
    for (let i = 0; i < 1200; i++) {
      const status = await runStatus(page)
      const e = await edges(page)
      if (status === 'running' && e) {
        colourStates.add(Object.values(e).map(([, c]) => c).join(','))
        const rows = await hulaRows(page)
        if (rows) hulaStates.add(rows)
        if (!shot && colourStates.size >= 3) {
          await page.screenshot({ path: join(ARTIFACTS, 'fabric-1-live.png') })
          shot = true
        }
      }
      if (status === 'done' || status === 'failed') break
      await page.waitForTimeout(100)
    }
    await expect.poll(() => runStatus(page), { timeout: 10_000 }).toBe('done')
    // Colours changed several times during the run, and the table with them.
    expect(colourStates.size).toBeGreaterThanOrEqual(3)
    expect(hulaStates.size).toBeGreaterThanOrEqual(2)
    // Both directions of each fabric link, and each ToR's host ports, are edges.
    await vi.waitFor(async () => {
      const ids = Object.keys((await edges(page)) ?? {})
      expect(ids).toEqual(expect.arrayContaining(['spine0-agg0:down', 'spine0-agg0:up', 'tor0:hosts:down']))
      expect(ids.length).toBe(2 * 16 + 4)
    }, { timeout: 10_000, interval: 200 })
    await expect.poll(() => page.getByTestId('hula-row').count(), { timeout: 10_000 }).toBe(3) // tor0's table has a row per other ToR
    await page.screenshot({ path: join(ARTIFACTS, 'fabric-2-done.png') })

    // Replay: reopen the finished run from the store and scrub back.
    await page.getByTestId('run-row').first().click()
    await expect.poll(() => page.getByTestId('replay-bar').getAttribute('data-mode'), { timeout: 10_000 }).toBe('replay')
    // The stored series are loaded (the slider spans the run's sim time).
    await expect.poll(async () => Number(await page.getByTestId('replay-slider').getAttribute('max')), { timeout: 10_000 }).toBeGreaterThan(10)
    const graph = page.getByTestId('fabric-graph')
    const slider = page.getByTestId('replay-slider')
    const max = Number(await slider.getAttribute('max'))
    // The replay starts at the run's end: the graph shows that instant before it is taken as the reference.
    await expect.poll(async () => Math.abs(Number(await graph.getAttribute('data-t-ms')) - max), { timeout: 10_000 }).toBeLessThan(0.2)
    const endT = Number(await graph.getAttribute('data-t-ms'))
    const endEdges = await edges(page)
    const min = Number(await slider.getAttribute('min'))
    const seen = new Set<string>()
    for (const f of [0.2, 0.4, 0.6]) {
      const target = min + (max - min) * f
      await slider.evaluate((el, v) => {
        const input = el as unknown as { value: string; dispatchEvent(e: Event): boolean }
        input.value = String(v)
        input.dispatchEvent(new Event('input', { bubbles: true }))
      }, target)
      await expect.poll(async () => Math.abs(Number(await graph.getAttribute('data-t-ms')) - target), { timeout: 5_000 }).toBeLessThan(0.2)
      await expect.poll(async () => Number(await page.getByTestId('switch-tables').getAttribute('data-t')), { timeout: 5_000 }).toBeLessThan(endT)
      seen.add(JSON.stringify(await edges(page)))
      seen.add(await hulaRows(page))
    }
    expect(Number(await graph.getAttribute('data-t-ms'))).toBeLessThan(endT)
    expect(seen.has(JSON.stringify(endEdges))).toBe(false)
    expect(seen.size).toBeGreaterThanOrEqual(4)
    // A link opens its series, with the replay cursor on it.
    await page.getByTestId('fabric-mode').locator('[data-mode="p95"]').click()
    await page.getByTestId('fabric-switch-select').selectOption('agg0')
    await expect.poll(() => page.getByTestId('switch-tables').getAttribute('data-switch'), { timeout: 10_000 }).toBe('agg0')
    await page.screenshot({ path: join(ARTIFACTS, 'fabric-3-replay.png') })

    // The other run views on the same run and cursor.
    await page.getByTestId('tab-queues').click()
    await expect.poll(async () => Number(await page.getByTestId('queue-heatmap').getAttribute('data-rows')), { timeout: 10_000 }).toBeGreaterThan(0)
    const heat = (await page.getByTestId('queue-heatmap').boundingBox())!
    await page.mouse.click(heat.x + heat.width * 0.5, heat.y + 20)
    await expect.poll(async () => Number(await page.getByTestId('flows-on-wire').getAttribute('data-total')), { timeout: 10_000 }).toBeGreaterThan(0)
    await page.screenshot({ path: join(ARTIFACTS, 'fabric-4-queues.png'), fullPage: true })
    await page.getByTestId('tab-traffic').click()
    await expect.poll(async () => page.getByTestId('busy-port').count(), { timeout: 10_000 }).toBeGreaterThan(0)
    await expect.poll(async () => page.getByTestId('top-flows').getByTestId('flow-row').count(), { timeout: 10_000 }).toBe(10)
    await page.screenshot({ path: join(ARTIFACTS, 'fabric-5-traffic.png'), fullPage: true })
    await page.getByTestId('tab-int').click()
    await expect.poll(() => page.getByTestId('int-empty').isVisible(), { timeout: 10_000 }).toBe(true)
    await page.screenshot({ path: join(ARTIFACTS, 'fabric-6-int.png') })
    expect(errors).toEqual([])
  }, 300_000)
})

// A switch's tables as a user sees them for the schemes with a matrix or per-destination table
// other than HULA's (fabric.test.ts watches HULA's): CONGA, DHLB and Floodgate runs on the sim,
// each reopened on the Fabric tab with a leaf picked. The tables come from each scheme's
// descriptor (schemes.list) through the generic builders; the marked cells must be the
// scheme's best: CONGA's least congested uplink, DHLB's highest load degree (spare capacity).
// The new-experiment page's scheme reference comes from the same list. Screenshots in
// test-artifacts/e2e/.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

// Incast on web-search background, so Floodgate's windows and VOQs fill; small enough to run
// the three schemes in seconds.
const YAML = `name: switch-tables-e2e
testbed: sim
topology: { kind: leaf-spine, leaves: 3, spines: 2, hostsPerLeaf: 8, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 250 }
schemes: [conga, dhlb, floodgate]
workload:
  kind: incast
  background: web-search
  load: 0.6
  flows: 200
  incast: { events: 40, rate: 10000/s, flowSize: 64KB, fanIn: [[5, 50], [10, 50]] }
seeds: [1]
telemetry: { interval: 100us }
stopAfter: 5s
`
const SWITCH = 'leaf0'

/** The matrix rows of a table: each row's cell values (NaN for '—') and the indices of its marked cells. */
async function matrixRows(page: Page, id: string): Promise<Array<{ values: number[]; marked: number[] }>> {
  return page.getByTestId(`${id}-row`).evaluateAll((rows) =>
    rows.map((r) => {
      const cells = [...r.querySelectorAll('td')].slice(1)
      return {
        values: cells.map((c) => (c.textContent?.trim() === '—' ? NaN : Number(c.textContent))),
        marked: cells.flatMap((c, j) => (c.classList.contains('best') ? [j] : [])),
      }
    }),
  )
}

describe("a switch's tables from its scheme's descriptor, in Chromium", () => {
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-e2e-tables-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it("shows CONGA's, DHLB's and Floodgate's tables at a leaf, the best cells marked the scheme's way", async () => {
    const exp = await contract(app.url, 'experiments.create', { yaml: YAML })
    await contract(app.url, 'experiments.run', { id: exp.id })
    await expect
      .poll(async () => ((await contract(app.url, 'runs.list', { experimentId: exp.id })) as Array<{ status: string }>).map((r) => r.status).join(','), { timeout: 120_000, interval: 500 })
      .toBe('done,done,done')
    const runs = (await contract(app.url, 'runs.list', { experimentId: exp.id })) as Array<{ id: number; scheme: string }>

    await page.goto(app.url)
    // The new-experiment page lists every scheme of the registry with its parameters.
    const schemes = (await contract(app.url, 'schemes.list', {})) as Array<{ name: string; params: unknown[] }>
    await page.getByTestId('new-experiment').click()
    await expect.poll(() => page.getByTestId('scheme-card').count(), { timeout: 10_000 }).toBe(schemes.length)
    await expect.poll(() => page.getByTestId('scheme-card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-scheme'))), { timeout: 10_000 }).toEqual(schemes.map((s) => s.name))
    const hula = page.locator('[data-testid="scheme-card"][data-scheme="hula"]')
    await hula.locator('summary').click()
    await expect.poll(() => hula.locator('[data-testid="scheme-param"][data-key="flowletGap"]').innerText(), { timeout: 10_000 }).toMatch(/flowletGap\s+100us\s+flowlet inactivity gap/)
    await expect.poll(() => hula.getByTestId('scheme-param').count(), { timeout: 10_000 }).toBe(schemes.find((s) => s.name === 'hula')!.params.length)

    await page.getByTestId('experiment-item').first().click()
    await page.getByTestId('tab-fabric').click()
    const seen: Record<string, string[]> = {}
    for (const scheme of ['conga', 'dhlb', 'floodgate']) {
      const run = runs.find((r) => r.scheme === scheme)!
      await page.locator(`[data-testid="run-row"][data-run-id="${run.id}"]`).click()
      await expect.poll(() => page.getByTestId('replay-bar').getAttribute('data-mode'), { timeout: 10_000 }).toBe('replay')
      await expect.poll(async () => Number(await page.getByTestId('replay-slider').getAttribute('max')), { timeout: 10_000 }).toBeGreaterThan(1)
      // A busy moment of the run, not its idle end.
      const slider = page.getByTestId('replay-slider')
      const [min, max] = [Number(await slider.getAttribute('min')), Number(await slider.getAttribute('max'))]
      await slider.evaluate((el, v) => {
        const input = el as unknown as { value: string; dispatchEvent(e: Event): boolean }
        input.value = String(v)
        input.dispatchEvent(new Event('input', { bubbles: true }))
      }, min + (max - min) * 0.3)
      await page.getByTestId('fabric-switch-select').selectOption(SWITCH)
      await expect.poll(() => page.getByTestId('switch-tables').getAttribute('data-switch'), { timeout: 10_000 }).toBe(SWITCH)
      await expect.poll(() => page.getByTestId(`${scheme}-table`).count(), { timeout: 10_000 }).toBe(1)
      seen[scheme] = await page.getByTestId('switch-tables').locator('h3').allInnerTexts()
      await page.locator('aside.side').screenshot({ path: join(ARTIFACTS, `switch-tables-${scheme}.png`) })

      if (scheme === 'floodgate') {
        await expect.poll(() => page.getByTestId('floodgate-table').locator('th').allInnerTexts(), { timeout: 10_000 }).toEqual(['Dst', 'Window', 'VOQ'])
        // A row per destination host, with the window in bytes.
        await vi.waitFor(async () => {
          expect(await page.getByTestId('floodgate-row').count()).toBe(24)
          const windows = await page.getByTestId('floodgate-row').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-window'))))
          expect(windows.every((w) => Number.isFinite(w) && w >= 0)).toBe(true)
        }, { timeout: 10_000, interval: 200 })
        continue
      }
      await vi.waitFor(async () => {
        const rows = await matrixRows(page, scheme)
        expect(rows.length).toBe(2) // the other two leaves (CONGA) / ToRs (DHLB)
        for (const r of rows) {
          const set = r.values.filter((v) => Number.isFinite(v))
          expect(set.length).toBe(2) // two uplinks, both with a value by now
          const best = scheme === 'conga' ? Math.min(...set) : Math.max(...set)
          expect(r.marked).toEqual(r.values.flatMap((v, j) => (v === best ? [j] : [])))
        }
      }, { timeout: 10_000, interval: 200 })
    }
    // Each run shows its own scheme's table and the ports, nothing of the others.
    expect(seen.conga.map((h) => h.split('\n')[0])).toEqual([expect.stringMatching(/^CONGA congestion-to-leaf/i), expect.stringMatching(/^Ports/i)])
    expect(seen.dhlb[0]).toMatch(/^DHLB load information.*higher is better/i)
    expect(seen.floodgate[0]).toMatch(/^Floodgate windows/i)
    expect(errors).toEqual([])
  }, 300_000)
})

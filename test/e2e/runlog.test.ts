// The run log in the GUI (issue 5: every step of a run shows in its log and in the UI): a
// run on a BMv2 testbed whose only host refuses connections fails at its first step, and the
// Log tab shows the failed step, its error on top and the orchestrator's lines; a sim run's
// status changes show up live.
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ARTIFACTS, launchChromium, contract } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const SPEC = (name: string, testbed: string) => `name: ${name}
testbed: ${testbed}
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 30 }
seeds: [1]
`

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as { port: number }).port
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

async function openExperiment(page: Page, id: number): Promise<void> {
  await page.locator(`[data-testid="experiment-item"][data-experiment-id="${id}"]`).click()
  await expect.poll(() => page.getByTestId('run-experiment').isEnabled(), { timeout: 10_000 }).toBe(true)
}

describe('the run log in Chromium', () => {
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-runlog-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('shows a testbed run’s failed first step with its error, and a sim run’s status changes live', async () => {
    const port = await closedPort()
    await contract(app.url, 'testbeds.create', {
      testbed: { name: 'nowhere', kind: 'bmv2', hosts: [{ name: 'sw1', address: '127.0.0.1', port, user: 'p4lab', role: 'switch-host' }] },
    })
    const bm = await contract(app.url, 'experiments.create', { yaml: SPEC('log-on-nowhere', 'nowhere') })
    const sim = await contract(app.url, 'experiments.create', { yaml: SPEC('log-on-sim', 'sim') })

    await page.goto(app.url)
    await openExperiment(page, bm.id)
    await page.getByTestId('run-experiment').click()
    const row = page.getByTestId('run-row').first()
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 60_000, interval: 250 }).toBe('failed')
    const runId = Number(await row.getAttribute('data-run-id'))
    const run = await contract(app.url, 'runs.get', { id: runId })
    expect(run.error).toBeTruthy()

    await page.getByTestId('tab-log').click()
    const log = page.getByTestId('runlog')
    await expect.poll(() => log.getAttribute('data-loaded-run-id'), { timeout: 10_000 }).toBe(String(runId))
    // The run's error on top, as stored.
    await expect.poll(() => page.getByTestId('runlog-error').innerText(), { timeout: 10_000 }).toContain(run.error)
    // The first step (check) failed, with its error; teardown still ran.
    const stepsShown = async () =>
      (await page.getByTestId('runlog-step').evaluateAll((els) => els.map((e) => [e.getAttribute('data-state'), e.textContent ?? '']))).map(([s, t]) => `${/step (\w+)/.exec(t ?? '')?.[1]}:${s}`)
    await expect.poll(stepsShown, { timeout: 10_000 }).toEqual(['check:started', 'check:failed', 'teardown:started', 'teardown:done'])
    const failed = page.locator('[data-testid="runlog-step"][data-state="failed"]')
    await expect.poll(() => failed.innerText(), { timeout: 10_000 }).toContain('step check: failed')
    await expect.poll(async () => (await failed.innerText()).length, { timeout: 10_000 }).toBeGreaterThan('step check: failed'.length + 5)
    await expect.poll(() => page.getByTestId('runlog-status').evaluateAll((els) => els.map((e) => e.getAttribute('data-state'))), { timeout: 10_000 }).toEqual(['queued', 'deploying', 'failed'])
    // The orchestrator's lines, and the filter by source.
    const lines = page.getByTestId('runlog-line')
    await expect.poll(async () => (await lines.allInnerTexts()).some((t) => /orchestrator\s+step check: failed: /.test(t)), { timeout: 10_000 }).toBe(true)
    await expect.poll(() => lines.evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-source')))]), { timeout: 10_000 }).toContain('orchestrator')
    await page.getByTestId('runlog-source').selectOption('orchestrator')
    await vi.waitFor(async () => {
      const filtered = await lines.evaluateAll((els) => els.map((e) => e.getAttribute('data-source')))
      expect(filtered.length).toBeGreaterThan(0)
      expect(new Set(filtered)).toEqual(new Set(['orchestrator']))
    }, { timeout: 10_000, interval: 200 })
    await page.screenshot({ path: join(ARTIFACTS, 'runlog-failed.png') })

    // A sim run: the Log tab open while it runs follows its status to the end.
    await openExperiment(page, sim.id)
    await page.getByTestId('tab-log').click()
    await page.getByTestId('run-experiment').click()
    await expect
      .poll(() => page.getByTestId('runlog-status').evaluateAll((els) => els.map((e) => e.getAttribute('data-state'))), { timeout: 120_000, interval: 250 })
      .toEqual(['queued', 'deploying', 'running', 'collecting', 'done'])
    await expect.poll(() => page.getByTestId('runlog-error').count(), { timeout: 10_000 }).toBe(0)
    await expect.poll(() => page.getByTestId('runlog-step').count(), { timeout: 10_000 }).toBe(0)
    await page.screenshot({ path: join(ARTIFACTS, 'runlog-sim.png') })
    expect(errors).toEqual([])
  }, 240_000)
})

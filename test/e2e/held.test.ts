// A sweep on a testbed whose host cannot be reached, as the GUI shows it: `npm start` (web
// mode), Chromium, a BMv2 testbed whose one host drops every connection before the SSH
// handshake. The first run fails on it; the run matrix shows the two others held, and says
// above the cells for which testbed and why; Resume runs the three cells again, which tries the
// host once more. Screenshot: test-artifacts/e2e/held-*.png.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { dropper, type Dropper } from '../helpers/dropper'
import { startApp, type Started } from '../helpers/start'

const YAML = `name: held-gui
testbed: gone
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 2 }
seeds: [1, 2, 3]
`

describe('a sweep held for its testbed in the GUI', () => {
  let home: string
  let app: Started
  let browser: Browser
  let page: Page
  let host: Dropper
  let port: number
  const errors: string[] = []

  beforeAll(async () => {
    host = await dropper()
    port = host.port
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-held-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
    await host?.close()
    if (home) rmSync(home, { recursive: true, force: true })
  })

  const cells = () => page.getByTestId('matrix-cell')
  const statuses = () => cells().evaluateAll((els) => els.map((e) => e.getAttribute('data-status') ?? ''))
  const held = () => page.getByTestId('matrix-held')

  it('shows the held cells and why above the matrix, and Resume runs them again', async () => {
    const key = join(home, 'id_test')
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key], { stdio: 'ignore' })
    await contract(app.url, 'testbeds.create', { testbed: { name: 'gone', kind: 'bmv2', hosts: [{ name: 'sw1', address: '127.0.0.1', port, user: 'root', auth: 'key', keyFile: key }] } })
    const exp = await contract(app.url, 'experiments.create', { yaml: YAML })
    const { runIds } = (await contract(app.url, 'experiments.run', { id: exp.id })) as { runIds: number[] }
    expect(runIds).toHaveLength(3)

    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${exp.id}"]`).click()
    await expect.poll(() => statuses().then((s) => s.join(',')), { timeout: 30_000, interval: 200 }).toBe('failed,held,held')
    expect(host.connections()).toBe(1)
    await expect.poll(() => held().count(), { timeout: 10_000 }).toBe(1)
    expect(await held().getAttribute('data-testbed')).toBe('gone')
    expect(await held().innerText()).toMatch(
      new RegExp(`^Held for testbed gone \\(2 cells\\): not started: testbed 'gone' could not be reached when run ${runIds[0]} tried \\(host sw1: root@\\[127\\.0\\.0\\.1\\]:${port}: cannot connect: `),
    )
    expect(await page.getByTestId('resume-sweep').innerText()).toBe('Resume (3)')
    expect(await page.getByTestId('rerun-failed').innerText()).toBe('Re-run failed (3)')
    await page.screenshot({ path: join(ARTIFACTS, 'held-1-matrix.png') })

    // The host is still away: Resume tries it once more, and holds the other two again.
    await page.getByTestId('resume-sweep').click()
    await expect.poll(() => page.getByTestId('sweep-note').innerText(), { timeout: 10_000 }).toMatch(/^Queued 3 runs/)
    await expect.poll(() => held().innerText(), { timeout: 30_000, interval: 200 }).toMatch(new RegExp(`when run ${runIds[2] + 1} tried`))
    expect(await statuses()).toEqual(['failed', 'held', 'held'])
    expect(host.connections()).toBe(2)
    expect(errors).toEqual([])
  }, 120_000)
})

// Archives in the browser (web mode): an export is a real download and an import a real
// upload, so the page never names a path on the machine p4lab runs on. A small experiment is
// run, downloaded through the Export dialog, uploaded through the Import dialog, and the
// import checked in the SQLite file. Screenshots in test-artifacts/e2e/archive-*.png.
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const YAML = `name: archive-e2e
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3], flows: 30 }
seeds: [1]
`

describe('archive download and upload in Chromium', () => {
  let home: string
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-archive-'))
    app = await startApp([], { P4LAB_HOME: home, P4LAB_WEB: '1' })
    browser = await launchChromium()
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true })
    page = await context.newPage()
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('downloads an experiment as a .tar.gz and imports it back by upload', async () => {
    const exp = await contract(app.url, 'experiments.create', { yaml: YAML })
    const { runIds } = await contract(app.url, 'experiments.run', { id: exp.id })
    await expect
      .poll(async () => (await Promise.all(runIds.map((id: number) => contract(app.url, 'runs.get', { id })))).map((r) => r.status).join(','), { timeout: 120_000, interval: 500 })
      .toBe('done,done')

    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${exp.id}"]`).click()
    await page.getByTestId('export-experiment').click()
    const dialog = page.getByTestId('archive-export-dialog')
    await expect.poll(() => dialog.isVisible(), { timeout: 10_000 }).toBe(true)
    // No path to type: the page cannot name a file on the server.
    expect(await dialog.locator('input[type="text"]').count()).toBe(0)
    // A simulator experiment's archive promises no P4 of its own.
    expect(await page.getByTestId('archive-lead').innerText()).toMatch(/simulator runs have none/)
    await page.screenshot({ path: join(ARTIFACTS, 'archive-1-export-dialog.png') })

    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('archive-export-submit').click()])
    expect(download.suggestedFilename()).toBe('archive-e2e.tar.gz')
    const saved = join(mkdtempSync(join(tmpdir(), 'p4lab-e2e-downloads-')), download.suggestedFilename())
    await download.saveAs(saved)
    expect([...readFileSync(saved).subarray(0, 2)]).toEqual([0x1f, 0x8b])
    await expect.poll(() => page.getByTestId('archive-export-result').innerText(), { timeout: 10_000 }).toMatch(/Downloaded archive-e2e\.tar\.gz — [\d.]+ [kKM]?B, \d+ files, 2 runs/)
    await page.screenshot({ path: join(ARTIFACTS, 'archive-2-downloaded.png') })
    // Nothing was left on the server's side: the export went to the browser only.
    expect(existsSync(join(home, 'exports'))).toBe(false)
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('p4lab-download-'))).toEqual([])

    await page.keyboard.press('Escape')
    await page.getByTestId('import-archive').click()
    await expect.poll(() => page.getByTestId('archive-import-submit').isDisabled(), { timeout: 10_000 }).toBe(true)
    await page.getByTestId('archive-import-file').setInputFiles(saved)
    await expect.poll(() => page.getByTestId('archive-import-picked').innerText(), { timeout: 10_000 }).toMatch(/archive-e2e\.tar\.gz/)
    // Downloaded from this store, so already here by its content hash: ask for a copy.
    await page.getByTestId('archive-duplicate-copy').check()
    await page.screenshot({ path: join(ARTIFACTS, 'archive-3-import-picked.png') })
    await page.getByTestId('archive-import-submit').click()
    const result = page.getByTestId('archive-import-result')
    await expect.poll(() => result.getAttribute('data-compare-matches'), { timeout: 60_000 }).toBe('true')
    await expect.poll(() => result.innerText(), { timeout: 10_000 }).toMatch(/2 runs/)
    await page.screenshot({ path: join(ARTIFACTS, 'archive-4-imported.png') })
    const importedId = Number(await result.getAttribute('data-experiment-id'))
    expect(importedId).not.toBe(exp.id)
    await page.getByTestId('archive-open-imported').click()
    await expect.poll(() => page.getByTestId('imported-badge').isVisible(), { timeout: 10_000 }).toBe(true)
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 10_000 }).toBe(2)
    await page.screenshot({ path: join(ARTIFACTS, 'archive-5-opened.png') })

    const db = new Database(join(home, 'p4lab.db'), { readonly: true })
    try {
      const rows = db.prepare('SELECT experiment_id, status FROM runs ORDER BY id').all() as Array<{ experiment_id: number; status: string }>
      expect(rows.filter((r) => r.experiment_id === importedId).map((r) => r.status)).toEqual(['done', 'done'])
    } finally {
      db.close()
    }

    // A broken upload is refused with the archive's name and why, and imports nothing.
    await page.getByTestId('import-archive').click()
    await page.getByTestId('archive-import-file').setInputFiles({ name: 'broken.tar.gz', mimeType: 'application/gzip', buffer: Buffer.from('not an archive') })
    await page.getByTestId('archive-import-submit').click()
    await expect.poll(() => page.getByTestId('archive-error').innerText(), { timeout: 30_000 }).toMatch(/broken\.tar\.gz: archive refused/)
    await page.screenshot({ path: join(ARTIFACTS, 'archive-6-refused.png') })
    expect((await contract(app.url, 'experiments.list', {})).length).toBe(2)
    expect(errors).toEqual([])
  }, 300_000)
})

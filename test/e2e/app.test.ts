// The whole path as a user walks it: `npm start` (web mode here, there is no Electron
// binary), Chromium on the printed URL, a quickstart experiment created, run, watched
// live, its FCT and slowdown in the runs table, and its results found in the SQLite file; then an
// experiment the command line ran from a file in a folder, checked and saved in the editor, and
// Run on Slurm's way to the Clusters section when none is saved.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, launchChromium } from '../helpers/browser'
import { ROOT, startApp, type Started } from '../helpers/start'

describe('the app in Chromium', () => {
  let home: string
  let app: Started
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    page.on('pageerror', (err) => console.error('page error:', err))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('prints a URL, creates the quickstart experiment, runs it live and stores the runs', async () => {
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/)
    await page.goto(app.url)
    await page.getByTestId('new-experiment').click()
    await page.getByTestId('template-quickstart').click()
    // "validating…" must not pass for "valid": wait for the verdict with its run count.
    await expect
      .poll(() => page.getByTestId('validation-status').innerText(), { timeout: 10_000 })
      .toMatch(/^\W*valid\W+4 runs/)
    await page.screenshot({ path: join(ARTIFACTS, '1-editor.png') })
    await page.getByTestId('save-experiment').click()
    await page.getByTestId('run-experiment').click()

    // The live chart must receive points while the runs are going.
    const util = page.getByTestId('chart-util')
    await expect
      .poll(async () => Number(await util.getAttribute('data-points')), { timeout: 60_000, interval: 200 })
      .toBeGreaterThan(0)
    await page.screenshot({ path: join(ARTIFACTS, '2-running.png') })

    // Every run ends done, with its FCT statistics in the table. Polled on the asserted state
    // itself (status and mean FCT of every row), and every look in between is checked: a row
    // that says done must already show its mean FCT (never "—", which reads as no data).
    const rows = page.getByTestId('run-row')
    const doneWithoutFct: string[] = []
    let meanCells: string[] = []
    await expect
      .poll(
        async () => {
          const seen = await rows.evaluateAll((els) =>
            els.map((e) => ({ status: e.getAttribute('data-status'), mean: e.querySelector('[data-col="meanFct"]')?.textContent?.trim() ?? '' })),
          )
          for (const r of seen) if (r.status === 'done' && !/\d/.test(r.mean)) doneWithoutFct.push(r.mean)
          meanCells = seen.map((r) => r.mean)
          return seen.length >= 4 && seen.every((r) => r.status === 'done' && /\d/.test(r.mean))
        },
        { timeout: 240_000, interval: 100 },
      )
      .toBe(true)
    expect(doneWithoutFct, 'mean FCT cells of rows already done').toEqual([])
    // The slowdown columns show each run's stored slowdown (the runs were measured: never n/a).
    const slowdownCells = () => rows.evaluateAll((els) => els.flatMap((e) => ['slowdown.mean', 'slowdown.p99'].map((c) => e.querySelector(`[data-col="${c}"]`)?.textContent?.trim() ?? '')))
    await expect.poll(async () => (await slowdownCells()).filter((t) => !/^\d[\d.]*×$/.test(t)), { timeout: 10_000 }).toEqual([])
    const queue = page.getByTestId('chart-queue')
    await expect.poll(async () => Number(await queue.getAttribute('data-points')), { timeout: 30_000 }).toBeGreaterThan(0)
    // The sidebar's run counts follow the runs to their end.
    await expect
      .poll(() => page.getByTestId('experiment-item').first().innerText(), { timeout: 10_000 })
      .toMatch(/4 done/)
    await page.screenshot({ path: join(ARTIFACTS, '3-done.png'), fullPage: true })

    // The runs are in the SQLite file in the user data directory.
    const db = new Database(join(home, 'p4lab.db'), { readonly: true })
    try {
      const runs = db
        .prepare(`SELECT r.id, r.status, r.scheme, (SELECT count(*) FROM flows f WHERE f.run_id = r.id) AS flows
                  FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE e.name = 'quickstart'`)
        .all() as Array<{ id: number; status: string; scheme: string; flows: number }>
      expect(runs.length).toBe(meanCells.length)
      expect(new Set(runs.map((r) => r.scheme))).toEqual(new Set(['ecmp', 'rps']))
      for (const r of runs) {
        expect(r.status).toBe('done')
        expect(r.flows).toBeGreaterThan(0)
      }
    } finally {
      db.close()
    }
  }, 400_000)

  it('validates and saves an experiment the command line ran from a file in a folder; Run on Slurm leads to Clusters', async () => {
    // `p4lab run` keeps the file's path with the experiment; the editor must still check its
    // text, reading the flow sizes from the CDF beside that file, as the run did.
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-e2e-cli-'))
    const file = join(dir, 'from-cli.yaml')
    writeFileSync(join(dir, 'sizes.cdf'), '1000 0\n10000 0.5\n100000 1\n')
    writeFileSync(
      file,
      `name: from-cli
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: cdf, file: sizes.cdf, load: 0.3, flows: 20 }
seeds: [1]
`,
    )
    execFileSync(process.execPath, [join(ROOT, 'bin', 'p4lab.cjs'), 'run', file, '--db', join(home, 'p4lab.db')], { stdio: 'pipe' })
    await page.reload()
    await page.getByTestId('experiment-item').filter({ hasText: 'from-cli' }).click()
    const status = page.getByTestId('validation-status')
    await expect.poll(() => status.innerText(), { timeout: 10_000 }).toMatch(/^\W*valid\W+1 run$/)
    // The verdict is not cut off by the path beside it.
    expect(await status.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
    await page.getByTestId('yaml-editor').fill(readFileSync(file, 'utf8').replace('load: 0.3', 'load: 0.4'))
    await expect.poll(() => status.innerText(), { timeout: 10_000 }).toMatch(/^\W*valid\W+1 run$/)
    // Unsaved: Revert and Save as new join the line, and Save stays inside the editor's column.
    const inside = await page.getByTestId('save-experiment').evaluate((b) => b.getBoundingClientRect().right <= b.closest('.spec')!.getBoundingClientRect().right + 0.5)
    expect(inside, 'Save inside the spec column').toBe(true)
    await page.getByTestId('save-experiment').click()
    await expect.poll(() => page.getByTestId('experiment-revision').innerText(), { timeout: 10_000 }).toBe('rev 2')
    await page.screenshot({ path: join(ARTIFACTS, '4-cli-experiment.png') })

    // Run on Slurm with no cluster saved: Escape closes it, and its note leads to the Clusters section's new-cluster form.
    await page.getByTestId('run-on-slurm').click()
    await expect.poll(() => page.getByTestId('slurm-add-cluster').count(), { timeout: 10_000 }).toBe(1)
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByTestId('slurm-dialog').count(), { timeout: 10_000 }).toBe(0)
    await page.getByTestId('run-on-slurm').click()
    await page.getByTestId('slurm-add-cluster').click()
    await expect.poll(() => page.getByTestId('slurm-dialog').count(), { timeout: 10_000 }).toBe(0)
    await expect.poll(() => page.getByTestId('cluster-form').count(), { timeout: 10_000 }).toBe(1)
    expect(await page.getByTestId('nav-clusters').getAttribute('class')).toMatch(/\bon\b/)
  }, 60_000)
})

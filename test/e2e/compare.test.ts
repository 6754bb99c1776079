// The compare workflow as a user walks it: a sweep of 3 schemes × 3 loads (× 2 seeds) on a
// small leaf-spine created in the editor and run to the end; the run matrix; the runs table's
// diff only, query filter (and a bad query's caret), pins and grouping; the compare view,
// whose plotted values must equal means computed here from the SQLite file; PNG, SVG and CSV
// exports; an archive exported and imported through the GUI, and Run again on the import.
// Screenshots in test-artifacts/e2e/compare-*.png.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ARTIFACTS, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const SCHEMES = ['ecmp', 'rps', 'conga']
const LOADS = [0.3, 0.5, 0.7]
const SEEDS = [1, 2]
// 18 runs of 200 web-search flows on 16 hosts: about a second each.
const YAML = `name: compare-e2e
description: 3 schemes x 3 loads x 2 seeds on a small leaf-spine, for the compare view test.
tags: [e2e]
testbed: sim
topology: { kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [${SCHEMES.join(', ')}]
workload: { kind: web-search, load: [${LOADS.join(', ')}], flows: 200 }
seeds: [${SEEDS.join(', ')}]
telemetry: { interval: 200us }
stopAfter: 5s
`

/** RFC 4180 rows (quoted fields, doubled quotes, CRLF), enough to read the exported CSV. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  const endRow = () => {
    row.push(field)
    rows.push(row)
    row = []
    field = ''
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      endRow()
    } else field += c
  }
  if (field || row.length) endRow()
  return rows
}

interface PlotSummary {
  kind: string
  x: Array<number | string | null>
  lines: Array<{ label: string; color: string; mean: Array<number | null>; lo: Array<number | null>; hi: Array<number | null> }>
}

/** Waits until the compare view has no call in flight and none waiting for its debounce. */
async function settled(page: Page): Promise<void> {
  await page.waitForTimeout(50)
  await expect.poll(() => page.getByTestId('compare-view').getAttribute('data-settled'), { timeout: 30_000 }).toBe('true')
}

async function plotOf(page: Page, testid: string): Promise<PlotSummary> {
  return JSON.parse((await page.getByTestId(testid).getAttribute('data-plot')) ?? '{}') as PlotSummary
}

/** Downloads what a link gives and returns its bytes (kept in the artifacts folder too). */
async function download(page: Page, testid: string, keepAs: string): Promise<Buffer> {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()])
  const path = join(ARTIFACTS, keepAs)
  await dl.saveAs(path)
  return readFileSync(path)
}

/** Per scheme and load: the mean over seeds of a per-run statistic of the finished flows' FCTs, from SQLite. */
function storeMeans(dbFile: string, stat: (sortedFcts: number[]) => number): Map<string, number> {
  const db = new Database(dbFile, { readonly: true })
  try {
    const runs = db
      .prepare(`SELECT r.id, r.scheme, r.load, r.seed FROM runs r JOIN experiments e ON e.id = r.experiment_id
                WHERE e.name = 'compare-e2e' AND r.status = 'done' ORDER BY r.id`)
      .all() as Array<{ id: number; scheme: string; load: number; seed: number }>
    const fcts = db.prepare('SELECT fct_ns FROM flows WHERE run_id = ? AND fct_ns IS NOT NULL ORDER BY fct_ns')
    // Each (scheme, load, seed) cell counts once: its latest done run.
    const latest = new Map<string, (typeof runs)[number]>()
    for (const r of runs) latest.set(`${r.scheme}/${r.load}/${r.seed}`, r)
    const perCell = new Map<string, number[]>()
    for (const r of latest.values()) {
      const values = (fcts.all(r.id) as Array<{ fct_ns: number }>).map((f) => f.fct_ns)
      const key = `${r.scheme}/${r.load}`
      perCell.set(key, [...(perCell.get(key) ?? []), stat(values)])
    }
    return new Map([...perCell].map(([k, v]) => [k, v.reduce((a, b) => a + b, 0) / v.length]))
  } finally {
    db.close()
  }
}
const meanOf = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length
const p99Of = (sorted: number[]) => sorted[Math.min(sorted.length, Math.max(1, Math.ceil(0.99 * sorted.length))) - 1]

function expectPlotEqualsStore(plot: PlotSummary, store: Map<string, number>): void {
  expect(plot.lines.map((l) => l.label)).toEqual(SCHEMES)
  expect(plot.x).toEqual(LOADS)
  for (const l of plot.lines) {
    LOADS.forEach((load, i) => {
      const want = store.get(`${l.label}/${load}`)!
      expect(want, `${l.label} at ${load} in the store`).toBeGreaterThan(0)
      expect(Math.abs(l.mean[i]! - want) / want, `${l.label} at load ${load}: plotted ${l.mean[i]}, store ${want}`).toBeLessThan(1e-9)
      // The band spans the per-seed values, the mean inside it.
      expect(l.lo[i]!).toBeLessThanOrEqual(l.mean[i]!)
      expect(l.hi[i]!).toBeGreaterThanOrEqual(l.mean[i]!)
    })
  }
}

describe('the compare view in Chromium', () => {
  let home: string
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-compare-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, acceptDownloads: true })
    page = await context.newPage()
    page.on('pageerror', (err) => errors.push(String(err)))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('runs a 3 × 3 sweep, filters and diffs its runs, plots what the store holds, exports, archives and runs it again', async () => {
    await page.goto(app.url)
    await page.getByTestId('new-experiment').click()
    await page.getByTestId('template-quickstart').click()
    await page.getByTestId('yaml-editor').fill(YAML)
    await expect.poll(() => page.getByTestId('validation-status').innerText(), { timeout: 10_000 }).toMatch(/^\W*valid\W+18 runs/)
    await page.getByTestId('save-experiment').click()
    await page.getByTestId('run-experiment').click()

    // The run matrix shows every cell, and every cell ends done.
    const matrix = page.getByTestId('sweep-matrix')
    await expect.poll(() => matrix.getAttribute('data-cells'), { timeout: 30_000 }).toBe('18')
    await expect.poll(() => matrix.getAttribute('data-done'), { timeout: 300_000, interval: 500 }).toBe('18')
    await expect.poll(() => page.getByTestId('matrix-cell').count(), { timeout: 10_000 }).toBe(18)
    await expect.poll(() => page.locator('[data-testid="matrix-cell"][data-status="done"]').count(), { timeout: 10_000 }).toBe(18)
    await expect.poll(async () => (await page.getByTestId('run-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).join(','), { timeout: 20_000 }).toBe(Array(18).fill('done').join(','))
    // Nothing failed: Re-run failed has nothing to do, Resume neither.
    await expect.poll(() => page.getByTestId('rerun-failed').isDisabled(), { timeout: 10_000 }).toBe(true)
    await expect.poll(() => page.getByTestId('resume-sweep').isDisabled(), { timeout: 10_000 }).toBe(true)
    await page.getByTestId('runs-panel').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'compare-1-matrix-runs.png') })

    // Diff only: just the parameters that differ between the shown runs, the P4 program's hash among them.
    const table = page.getByTestId('runs-table')
    await page.getByTestId('runs-diff-only').check()
    await expect.poll(async () => (await table.getAttribute('data-columns'))!.split(',').filter((c) => !['mean', 'p50', 'p99', 'slowdown.mean', 'slowdown.p99', 'small.mean', 'large.mean', 'drops', 'retransmits', 'status', 'progress', 'finished', 'wall'].includes(c)), { timeout: 10_000 }).toEqual(['id', 'scheme', 'load', 'seed', 'hash.program'])
    // A query narrows the runs to one scheme: only load and seed still differ.
    await page.getByTestId('runs-query').fill('scheme = conga and load >= 0.5')
    const congaLoads = async () => (await page.getByTestId('run-row').evaluateAll((els) => els.map((e) => e.querySelector('[data-col="load"]')?.textContent?.trim() ?? ''))).sort()
    await expect.poll(congaLoads, { timeout: 10_000 }).toEqual(['0.5', '0.5', '0.7', '0.7'])
    await expect.poll(async () => (await table.getAttribute('data-columns'))!.split(',').slice(0, 3), { timeout: 10_000 }).toEqual(['id', 'load', 'seed'])
    await page.screenshot({ path: join(ARTIFACTS, 'compare-2-diff-only-query.png') })
    // A bad query: the parser's message and a caret at its column; the rows stay.
    await page.getByTestId('runs-query').fill('scheme = = conga')
    await expect.poll(() => page.getByTestId('runs-query-error').getAttribute('data-offset'), { timeout: 10_000 }).toBe('9')
    await expect.poll(() => page.getByTestId('runs-query-error').innerText(), { timeout: 10_000 }).toMatch(/column 10: expected a value/)
    await page.getByTestId('runs-query-error').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'compare-3-query-error.png') })
    await page.getByTestId('runs-query').fill('')
    await page.getByTestId('runs-diff-only').uncheck()
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 10_000 }).toBe(18)

    // Pin the last run: it moves to the top. Then group by scheme: three groups with bands.
    const lastId = await page.getByTestId('run-row').last().getAttribute('data-run-id')
    await page.getByTestId('run-row').last().getByTestId('pin-run').click()
    await expect.poll(() => page.getByTestId('run-row').first().getAttribute('data-run-id'), { timeout: 10_000 }).toBe(lastId)
    await page.getByTestId('runs-group-by').selectOption('scheme')
    await expect.poll(() => page.getByTestId('run-group').count(), { timeout: 10_000 }).toBe(3)
    const groupMean = page.locator('[data-testid="run-group"][data-value="rps"] [data-testid="group-mean"][data-key="mean"]')
    await expect.poll(async () => Number(await groupMean.getAttribute('data-hi')) - Number(await groupMean.getAttribute('data-lo')), { timeout: 10_000 }).toBeGreaterThan(0)
    await page.getByTestId('runs-panel').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'compare-4-grouped.png') })
    await page.getByTestId('runs-group-by').selectOption('')

    // The compare view: mean FCT vs load, one line per scheme, equal to the store's numbers.
    await page.getByTestId('open-compare').click()
    // Each plot is waited for until it shows what is asserted of it (vi.waitFor retries the assertions).
    const db = join(home, 'p4lab.db')
    const means = storeMeans(db, meanOf)
    await vi.waitFor(async () => expectPlotEqualsStore(await plotOf(page, 'plot-main'), means), { timeout: 20_000, interval: 200 })
    // p99 FCT of all flows (the HULA paper's Figs. 5–8 grid): nearest-rank p99 per run, averaged over seeds.
    const p99s = storeMeans(db, p99Of)
    await vi.waitFor(async () => expectPlotEqualsStore(await plotOf(page, 'plot-fct-3'), p99s), { timeout: 20_000, interval: 200 })
    // Normalised to ecmp: ecmp's own line is 1 everywhere.
    await vi.waitFor(async () => {
      const norm = await plotOf(page, 'plot-normalised')
      expect(norm.lines?.length).toBe(3)
      expect(norm.lines[0].label).toBe('ecmp')
      for (const v of norm.lines[0].mean) expect(v).toBeCloseTo(1, 12)
    }, { timeout: 20_000, interval: 200 })
    // CDFs are there, ending at 100%.
    await vi.waitFor(async () => {
      const cdf = await plotOf(page, 'plot-fct-cdf')
      expect(cdf.lines?.length).toBe(3)
      for (const l of cdf.lines) expect(Math.max(...l.mean.filter((v): v is number => v !== null))).toBe(1)
    }, { timeout: 20_000, interval: 200 })
    await expect.poll(async () => (await plotOf(page, 'plot-queue-cdf')).lines?.length ?? 0, { timeout: 20_000 }).toBe(3)
    // The differences table names what differs across the 18 runs, the program hash included.
    await expect.poll(() => page.getByTestId('compare-diffs').getAttribute('data-fields'), { timeout: 10_000 }).toBe('scheme,load,seed,hash.program')
    await settled(page)
    await page.screenshot({ path: join(ARTIFACTS, 'compare-5-view.png') })

    // Exports: a real PNG, an SVG with one line per scheme, and a CSV holding the plotted means.
    const png = await download(page, 'plot-main-png', 'compare-mean-fct-vs-load.png')
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(png.length).toBeGreaterThan(5000)
    const svg = (await download(page, 'plot-main-svg', 'compare-mean-fct-vs-load.svg')).toString('utf8')
    expect(svg).toMatch(/^<\?xml[^>]*>\s*<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    expect(svg.match(/<polyline class="line"/g)?.length).toBe(3)
    expect(svg.match(/<polygon class="band"/g)?.length).toBe(3)
    const csv = parseCsv((await download(page, 'plot-main-csv', 'compare-mean-fct-vs-load.csv')).toString('utf8'))
    expect(csv[0].slice(0, 5)).toEqual(['line', 'load', 'metric', 'unit', 'mean'])
    const plotted = await plotOf(page, 'plot-main')
    expect(csv.length).toBe(1 + 9)
    for (const row of csv.slice(1)) {
      const line = plotted.lines.find((l) => l.label === row[0])!
      expect(row.slice(2, 4)).toEqual(['mean FCT', 'ns'])
      expect(Number(row[4])).toBe(line.mean[LOADS.indexOf(Number(row[1]))])
      expect(row[10]).toBe('1 2')
    }
    await download(page, 'plot-fct-cdf-png', 'compare-fct-cdf.png')
    // The 95% CI band is wider than min–max with two seeds (t = 12.7).
    await page.getByTestId('compare-band-ci95').click()
    await expect.poll(async () => {
      const p = await plotOf(page, 'plot-main')
      return p.lines?.[0] ? p.lines[0].hi[0]! - p.lines[0].lo[0]! : 0
    }, { timeout: 10_000 }).toBeGreaterThan(plotted.lines[0].hi[0]! - plotted.lines[0].lo[0]!)
    await page.getByTestId('compare-band-minmax').click()
    await settled(page)
    // A query in the compare view filters the lines.
    await page.getByTestId('compare-query').fill('scheme != rps')
    await expect.poll(async () => (await plotOf(page, 'plot-main')).lines?.map((l) => l.label).join(','), { timeout: 10_000 }).toBe('ecmp,conga')
    await settled(page)
    // Colours stay with their scheme whatever the filter: conga keeps its colour without rps.
    const congaColour = (p: PlotSummary) => p.lines.find((l) => l.label === 'conga')?.color
    expect(congaColour(await plotOf(page, 'plot-main'))).toBe(congaColour(plotted))
    expect(congaColour(await plotOf(page, 'plot-fct-3'))).toBe(congaColour(plotted))
    await page.screenshot({ path: join(ARTIFACTS, 'compare-6-filtered.png') })
    await page.getByTestId('compare-query').fill('')
    await expect.poll(async () => (await plotOf(page, 'plot-main')).lines?.length ?? 0, { timeout: 10_000 }).toBe(3)
    await settled(page)
    await page.locator('.scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight))
    await page.screenshot({ path: join(ARTIFACTS, 'compare-7-distributions.png') })

    // Archive: export through the dialog, import it back, and run the import again on the sim.
    await page.getByTestId('nav-experiments').click()
    await page.getByTestId('export-experiment').click()
    await page.screenshot({ path: join(ARTIFACTS, 'compare-8-export-dialog.png') })
    // Web mode: the export is a download and the import an upload (no server path anywhere).
    const archived = await download(page, 'archive-export-submit', 'compare-e2e.tar.gz')
    const file = join(ARTIFACTS, 'compare-e2e.tar.gz')
    await expect.poll(() => page.getByTestId('archive-export-result').innerText(), { timeout: 10_000 }).toMatch(/18 runs/)
    expect([...archived.subarray(0, 2)]).toEqual([0x1f, 0x8b])
    await page.keyboard.press('Escape')
    await page.getByTestId('import-archive').click()
    await page.getByTestId('archive-import-file').setInputFiles(file)
    // Exported from this store, so already here by its content hash: ask for a copy.
    await page.getByTestId('archive-duplicate-copy').check()
    await page.getByTestId('archive-import-submit').click()
    const result = page.getByTestId('archive-import-result')
    await expect.poll(() => result.getAttribute('data-compare-matches'), { timeout: 60_000 }).toBe('true')
    await expect.poll(() => result.innerText(), { timeout: 10_000 }).toMatch(/18 runs/)
    await page.screenshot({ path: join(ARTIFACTS, 'compare-9-imported.png') })
    const importedId = Number(await result.getAttribute('data-experiment-id'))
    await page.getByTestId('archive-open-imported').click()
    await expect.poll(() => page.getByTestId('imported-badge').isVisible(), { timeout: 10_000 }).toBe(true)
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 10_000 }).toBe(18)
    await page.getByTestId('run-again').click()
    await page.getByTestId('run-again-testbed').selectOption('sim')
    await expect.poll(() => page.getByTestId('sweep-matrix').getAttribute('data-done'), { timeout: 10_000 }).toBe('18')
    await page.screenshot({ path: join(ARTIFACTS, 'compare-10-run-again.png') })
    await page.getByTestId('run-again-go').click()
    // Every cell again, with the archived seeds: 18 new runs, all done in the end.
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 20_000 }).toBe(36)
    await expect
      .poll(async () => (await page.getByTestId('run-row').evaluateAll((els) => els.every((e) => e.getAttribute('data-status') === 'done'))), { timeout: 300_000, interval: 500 })
      .toBe(true)
    const dbh = new Database(db, { readonly: true })
    try {
      const again = dbh.prepare('SELECT seed, COUNT(*) AS n FROM runs WHERE experiment_id = ? GROUP BY seed ORDER BY seed').all(importedId) as Array<{ seed: number; n: number }>
      expect(again).toEqual(SEEDS.map((seed) => ({ seed, n: 18 })))
      // The simulator is deterministic: each cell run again gives the archived run's statistics.
      const stats = dbh.prepare('SELECT scheme, load, seed, stats FROM runs WHERE experiment_id = ? ORDER BY id').all(importedId) as Array<{ scheme: string; load: number; seed: number; stats: string }>
      const key = (r: (typeof stats)[number]) => `${r.scheme}/${r.load}/${r.seed}`
      const first = new Map(stats.slice(0, 18).map((r) => [key(r), r.stats]))
      for (const r of stats.slice(18)) expect(r.stats, key(r)).toBe(first.get(key(r)))
    } finally {
      dbh.close()
    }
    await expect.poll(() => page.locator('[data-testid="matrix-cell"][data-status="done"]').count(), { timeout: 10_000 }).toBe(18)
    await expect.poll(() => page.getByTestId('experiment-item').first().innerText(), { timeout: 10_000 }).toMatch(/36 done/)
    await page.screenshot({ path: join(ARTIFACTS, 'compare-11-ran-again.png') })
    expect(errors).toEqual([])
  }, 600_000)
})

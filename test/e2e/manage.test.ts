// Managing runs in Chromium, MLflow-style: tag and annotate an experiment and a run, search
// across experiments with the --where language (a bad query shown at the box with its caret),
// delete a run and undo it from the toast, restore one from the Trash, and download an export
// then upload it again: recognised by its content hash as already here (skipped), then
// imported as a copy. Screenshots in test-artifacts/e2e/manage-*.png (look at them).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const A = `name: manage-a
tags: [paper]
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3], flows: 20 }
seeds: [1]
`
const B = A.replace('name: manage-a', 'name: manage-b').replace('tags: [paper]\n', '').replace('schemes: [ecmp, rps]', 'schemes: [hula]')

describe('managing runs in Chromium', () => {
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `manage-${name}.png`) })

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-manage-'))
    app = await startApp([], { P4LAB_HOME: home, P4LAB_WEB: '1' })
    browser = await launchChromium()
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true })
    page = await context.newPage()
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('tags, annotates, searches, deletes and undoes, and re-imports an export as skipped or a copy', { timeout: 300_000 }, async () => {
    const a = await contract(app.url, 'experiments.create', { yaml: A })
    const b = await contract(app.url, 'experiments.create', { yaml: B })
    const runsA: number[] = (await contract(app.url, 'experiments.run', { id: a.id })).runIds
    const runsB: number[] = (await contract(app.url, 'experiments.run', { id: b.id })).runIds
    await expect
      .poll(async () => (await Promise.all([...runsA, ...runsB].map((id) => contract(app.url, 'runs.get', { id })))).map((r) => r.status).join(','), { timeout: 120_000, interval: 500 })
      .toBe('done,done,done')

    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${a.id}"]`).click()

    // The experiment: a tag beside its YAML's, and notes.
    await page.getByTestId('experiment-manage').click()
    await page.getByTestId('experiment-tag-input').fill('fig3')
    await page.getByTestId('experiment-tag-add').click()
    await expect.poll(() => page.getByTestId('experiment-tag').allInnerTexts(), { timeout: 10_000 }).toEqual(['paper', 'fig3'])
    await page.getByTestId('experiment-notes').fill('Baseline for the figure 3 sweep')
    await page.getByTestId('experiment-notes-save').click()
    await expect.poll(() => page.getByTestId('experiment-notes-shown').innerText(), { timeout: 10_000 }).toBe('Baseline for the figure 3 sweep')
    await shot('1-experiment-tags')
    await page.getByTestId('experiment-manage').click()

    // A run: its own tag and note.
    const [r1, r2] = runsA
    await page.locator(`[data-testid="run-row"][data-run-id="${r2}"]`).click()
    await page.getByTestId('run-manage').click()
    await page.getByTestId('run-tag-input').fill('outlier')
    await page.getByTestId('run-tag-add').click()
    await page.getByTestId('run-notes').fill('queue spikes at 2 ms')
    await page.getByTestId('run-notes-save').click()
    await expect.poll(async () => (await contract(app.url, 'runs.get', { id: r2 })).notes, { timeout: 10_000 }).toBe('queue spikes at 2 ms')
    expect((await contract(app.url, 'runs.get', { id: r2 })).tags).toEqual(['outlier'])
    await expect.poll(() => page.getByTestId('selected-run-tag').allInnerTexts(), { timeout: 10_000 }).toEqual(['outlier'])
    await shot('2-run-tags')
    await page.getByTestId('run-manage').click()

    // Search across experiments, in the --where language.
    const search = page.getByTestId('experiment-search')
    const items = () => page.getByTestId('experiment-item').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-experiment-id'))))
    await search.fill('tag:outlier')
    await expect.poll(() => page.getByTestId('search-summary').innerText(), { timeout: 10_000 }).toBe('1 run in 1 experiment')
    expect(await items()).toEqual([a.id])
    await shot('3-search-tag')
    await search.fill('scheme = hula and mean > 0')
    await expect.poll(items, { timeout: 10_000 }).toEqual([b.id])
    await search.fill('experiment ~ manage')
    await expect.poll(() => page.getByTestId('search-summary').innerText(), { timeout: 10_000 }).toBe('3 runs in 2 experiments')
    await search.fill('schme = ecmp')
    await expect.poll(() => page.getByTestId('search-error').innerText(), { timeout: 10_000 }).toMatch(/^schme = ecmp\n\^\nunknown field 'schme'; known fields: /)
    expect(await items()).toEqual([])
    await shot('4-search-error')
    await search.fill('scheme = rsp')
    await expect.poll(() => page.getByTestId('search-hint').allInnerTexts(), { timeout: 10_000 }).toEqual(["no scheme 'rsp'; schemes in the runs searched: ecmp, hula, rps"])
    await shot('5-search-hint')
    await search.fill('')
    await expect.poll(items, { timeout: 10_000 }).toEqual([b.id, a.id])

    // Delete a run, then Undo from the toast.
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${a.id}"]`).click()
    await page.locator(`[data-testid="run-row"][data-run-id="${r1}"]`).click()
    await page.getByTestId('run-manage').click()
    await page.getByTestId('run-delete').click()
    await expect.poll(() => page.getByTestId('toast-message').innerText(), { timeout: 10_000 }).toBe(`Run #${r1} moved to the trash.`)
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 10_000 }).toBe(1)
    expect((await contract(app.url, 'runs.get', { id: r1 })).setAside).toBe('deleted')
    // The run matrix no longer counts its cell as done.
    await expect.poll(() => page.getByText('1/2 cells done').count(), { timeout: 10_000 }).toBe(1)
    await shot('6-deleted-toast')
    await page.getByTestId('toast-undo').click()
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 10_000 }).toBe(2)
    expect((await contract(app.url, 'runs.get', { id: r1 })).setAside).toBeNull()
    await expect.poll(() => page.getByText('2/2 cells done').count(), { timeout: 10_000 }).toBe(1)
    await shot('7-undone')

    // Deleted again and left: the Trash lists it, and Restore brings it back.
    await page.locator(`[data-testid="run-row"][data-run-id="${r1}"]`).click()
    await page.getByTestId('run-manage').click()
    await page.getByTestId('run-delete').click()
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 10_000 }).toBe(1)
    await page.getByTestId('show-deleted').click()
    await expect.poll(() => page.getByTestId('aside-run').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-run-id')))), { timeout: 10_000 }).toEqual([r1])
    await shot('8-trash')
    await page.getByTestId('restore-run').click()
    await expect.poll(() => page.getByTestId('aside-run').count(), { timeout: 10_000 }).toBe(0)
    await page.getByTestId('show-active').click()
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 10_000 }).toBe(2)

    // Download the export, upload it again: already here (skipped), then as a copy.
    await page.getByTestId('export-experiment').click()
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('archive-export-submit').click()])
    const saved = join(mkdtempSync(join(tmpdir(), 'p4lab-e2e-manage-dl-')), download.suggestedFilename())
    await download.saveAs(saved)
    await page.keyboard.press('Escape')
    await page.getByTestId('import-archive').click()
    await page.getByTestId('archive-import-file').setInputFiles(saved)
    expect(await page.getByTestId('archive-duplicate-skip').isChecked()).toBe(true)
    await shot('9-import-choice')
    await page.getByTestId('archive-import-submit').click()
    const skipped = page.getByTestId('archive-import-skipped')
    await expect.poll(() => skipped.getAttribute('data-experiment-id'), { timeout: 60_000 }).toBe(String(a.id))
    expect(await skipped.innerText()).toMatch(/Already here: this archive is experiment #\d+ “manage-a”,\s+by its content hash\. Nothing was imported\./)
    expect((await contract(app.url, 'experiments.list', {})).length).toBe(2)
    await shot('10-import-skipped')
    await page.getByTestId('archive-import-copy').click()
    const result = page.getByTestId('archive-import-result')
    await expect.poll(() => result.getAttribute('data-compare-matches'), { timeout: 60_000 }).toBe('true')
    expect(await page.getByTestId('archive-import-copy-of').innerText()).toBe(`A copy: the same archive is also experiment #${a.id} “manage-a”.`)
    await shot('11-imported-copy')
    const copyId = Number(await result.getAttribute('data-experiment-id'))
    expect(copyId).not.toBe(a.id)
    const copy = await contract(app.url, 'experiments.get', { id: copyId })
    expect(copy).toMatchObject({ name: 'manage-a (2)', tags: ['paper', 'fig3'], notes: 'Baseline for the figure 3 sweep' })
    await page.getByTestId('archive-open-imported').click()
    await expect.poll(() => page.getByTestId('run-row').count(), { timeout: 10_000 }).toBe(2)
    await shot('12-copy-opened')
    expect(errors).toEqual([])
  })
})

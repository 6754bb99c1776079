// What a new user meets first, in Chromium on a 1280 px and a 1024 px window: the templates to
// start from, each described by its whole sentence, and a new one's name said to be taken before
// Save; a sweep run again after an edit, its new runs
// going beside the finished ones, each with its progress whole and its Cancel button in view;
// runs that ended without results (cancelled) showing no value, not "n/a" (which says the run is
// from before slowdown was measured); the History and Manage popovers closing as menus do;
// Compare's overlay saying why a lone run has nothing to be overlaid with, its plots' axis
// titles fitting along them, and its filter naming a value no run has; the new-testbed form's host fields within reach, its message
// pointing up to the fields it marks; and the charts of a run that failed before any sample
// saying so. Screenshots in test-artifacts/e2e/first-look-*.png.
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parse } from 'yaml'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { ROOT, startApp, type Started } from '../helpers/start'

const TEMPLATES = join(ROOT, 'resources', 'experiments')

const SMALL = `name: first-look
testbed: sim
topology: { kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.6], flows: 40 }
seeds: [1]
`
// The same sweep with far more flows than the test waits for: its runs stay queued or running
// until the test cancels them.
const BIG = SMALL.replace('flows: 40', 'flows: 200000') + 'stopAfter: 50s\n'
const WIDTHS = [
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
]

describe('a first look at the app in Chromium', () => {
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-e2e-first-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it("describes each template by its description, not by the first line of a comment that goes on", async () => {
    const expected = Object.fromEntries(
      readdirSync(TEMPLATES)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => [f.replace(/\.yaml$/, ''), String((parse(readFileSync(join(TEMPLATES, f), 'utf8')) as { description: string }).description)]),
    )
    await page.goto(app.url)
    await page.getByTestId('new-experiment').click()
    await expect.poll(() => page.locator('[data-testid^="template-"]').count(), { timeout: 10_000 }).toBe(Object.keys(expected).length)
    const shown = Object.fromEntries(
      await page.locator('[data-testid^="template-"]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-testid')!.slice('template-'.length), e.querySelector('.desc')!.textContent!.trim()])),
    )
    await page.screenshot({ path: join(ARTIFACTS, 'first-look-templates.png') })
    expect(shown).toEqual(expected)
    expect(errors).toEqual([])
  })

  /** An experiment of one run, run to its end (made once), open in Compare. */
  let lone: number | null = null
  async function compareLoneRun(): Promise<void> {
    if (lone === null) {
      const id = (await contract(app.url, 'experiments.create', { yaml: SMALL.replace('name: first-look', 'name: first-look-one').replace('schemes: [ecmp, rps]', 'schemes: [ecmp]').replace('load: [0.3, 0.6]', 'load: [0.3]') })).id as number
      const [runId] = (await contract(app.url, 'experiments.run', { id })).runIds as number[]
      await expect.poll(async () => (await contract(app.url, 'runs.get', { id: runId })).status, { timeout: 60_000, interval: 250 }).toBe('done')
      lone = id
    }
    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${lone}"]`).click()
    await page.getByTestId('open-compare').click()
  }

  it("says a new experiment's name is taken before Save is pressed, and holds Save back", async () => {
    const quickstart = readFileSync(join(TEMPLATES, 'quickstart.yaml'), 'utf8')
    const holder = (await contract(app.url, 'experiments.create', { yaml: quickstart })).id
    await page.goto(app.url)
    await page.getByTestId('new-experiment').click()
    await page.getByTestId('template-quickstart').click()
    await expect.poll(() => page.getByTestId('validation-status').innerText(), { timeout: 10_000 }).toMatch(/valid\W+4 runs/)
    await expect.poll(() => page.getByTestId('name-taken').innerText(), { timeout: 10_000 }).toBe(`The name 'quickstart' is taken by experiment #${holder}: change name: to save this text as a new experiment.`)
    expect(await page.getByTestId('save-experiment').isDisabled()).toBe(true)
    await page.screenshot({ path: join(ARTIFACTS, 'first-look-name-taken.png') })
    await contract(app.url, 'experiments.setAside', { ids: [holder], how: 'deleted' })
    expect(errors).toEqual([])
  })

  it('says why one run has nothing to overlay in Compare, not that it recorded no series', { timeout: 120_000 }, async () => {
    await compareLoneRun()
    const overlay = page.getByTestId('plot-overlay')
    await overlay.scrollIntoViewIfNeeded()
    await expect.poll(() => overlay.locator('.empty').innerText(), { timeout: 20_000 }).toBe('One run here: overlaying needs two (tick another experiment beside this one).')
    // The second run's picker names none rather than the first run again.
    expect((await page.getByTestId('overlay-run-b').locator('option:checked').innerText()).trim()).toBe('—')
    await page.screenshot({ path: join(ARTIFACTS, 'first-look-overlay-one-run.png') })
    expect(errors).toEqual([])
  })

  it("fits every Compare plot's axis titles along their plots, the slowdown CDFs' too", { timeout: 120_000 }, async () => {
    // A lone run's Compare view has every kind of plot there is.
    await compareLoneRun()
    await expect.poll(() => page.getByTestId('slowdown-cdfs').getAttribute('data-buckets'), { timeout: 30_000 }).toBeTruthy()
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      await page.getByTestId('slowdown-cdfs').scrollIntoViewIfNeeded()
      await page.screenshot({ path: join(ARTIFACTS, `first-look-compare-cdfs-${size.width}.png`) })
      const cut = async () =>
        (await page.locator('[data-figure]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-testid'), JSON.parse(e.getAttribute('data-figure')!)] as const)))
          .flatMap(([id, f]: readonly [string | null, { axes: Array<{ label: string; fits: boolean }> }]) => f.axes.filter((a) => !a.fits).map((a) => `${id}: ${a.label}`))
      await expect.poll(() => page.locator('[data-figure]').count(), { timeout: 20_000 }).toBeGreaterThan(5)
      await expect.poll(cut, { timeout: 10_000 }).toEqual([])
    }
    await page.setViewportSize(WIDTHS[1])
  })

  it("names, under Compare's filter, the value no run has and the values there are", { timeout: 120_000 }, async () => {
    await compareLoneRun()
    await page.getByTestId('compare-query').fill('scheme = hul and load >= 0.3')
    await expect.poll(() => page.getByTestId('compare-query-hint').allInnerTexts(), { timeout: 20_000 }).toEqual(["no scheme 'hul'; schemes in the runs compared: ecmp"])
    await page.screenshot({ path: join(ARTIFACTS, 'first-look-compare-hint.png') })
    // Fixed, the hint goes.
    await page.getByTestId('compare-query').fill('scheme = ecmp')
    await expect.poll(() => page.getByTestId('compare-query-hint').count(), { timeout: 20_000 }).toBe(0)
    expect(errors).toEqual([])
  })

  it("lays a testbed's host fields out within the form, and points up to the fields it marks", async () => {
    await page.goto(app.url)
    await page.getByTestId('nav-testbeds').click()
    await page.getByTestId('add-testbed').click()
    await page.getByTestId('tb-save').click()
    await expect.poll(() => page.getByTestId('tb-form-error').innerText(), { timeout: 10_000 }).toBe('Fix the fields marked above.')
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      // Beside the list of testbeds on a 1280 px window, a host's fields fit; on a 1024 px one the
      // hosts' own scroller may hold some past the form's edge, still within reach.
      const look = await page.getByTestId('testbed-form').evaluate((form, scrolls) => {
        const box = form.getBoundingClientRect()
        const scroller = form.querySelector('[data-testid="tb-hosts"]')
        const row = form.querySelector('[data-testid="tb-host-row"]')!
        const cut = [...row.querySelectorAll('input, select, button')]
          .filter((e) => e.getBoundingClientRect().right > box.right + 0.5 && !(scrolls && scroller && scroller.scrollWidth > scroller.clientWidth))
          .map((e) => e.getAttribute('data-testid') ?? e.textContent!.trim())
        const marked = [...form.querySelectorAll('[aria-invalid="true"]')].map((e) => e.getBoundingClientRect().bottom)
        return { cut, page: form.ownerDocument.documentElement.scrollWidth - form.ownerDocument.documentElement.clientWidth, errorTop: form.querySelector('[data-testid="tb-form-error"]')!.getBoundingClientRect().top, marked }
      }, size.width < 1280)
      await page.screenshot({ path: join(ARTIFACTS, `first-look-testbed-form-${size.width}.png`) })
      expect(look.cut, `host fields out of reach at ${size.width} px`).toEqual([])
      expect(look.page, `the page scrolls sideways at ${size.width} px`).toBe(0)
      expect(look.marked.length).toBeGreaterThan(0)
      for (const bottom of look.marked) expect(bottom, 'a marked field under the message').toBeLessThan(look.errorTop)
    }
    await page.setViewportSize(WIDTHS[1])
    expect(errors).toEqual([])
  })

  it('says a run that failed before any sample ended without one, not that its charts and Traffic tab wait for them', { timeout: 120_000 }, async () => {
    // A testbed whose host answers nothing: its run fails at the check, before any traffic.
    const srv = createServer()
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    const port = (srv.address() as AddressInfo).port
    await new Promise<void>((r) => srv.close(() => r()))
    await contract(app.url, 'testbeds.create', { testbed: { name: 'nowhere', kind: 'bmv2', hosts: [{ name: 'sw1', address: '127.0.0.1', port, user: 'p4lab', role: 'switch-host' }] } })
    const id = (await contract(app.url, 'experiments.create', { yaml: SMALL.replace('name: first-look', 'name: first-look-nowhere').replace('testbed: sim', 'testbed: nowhere').replace('schemes: [ecmp, rps]', 'schemes: [ecmp]').replace('load: [0.3, 0.6]', 'load: [0.3]') })).id
    const [runId] = (await contract(app.url, 'experiments.run', { id })).runIds as number[]
    await expect.poll(async () => (await contract(app.url, 'runs.get', { id: runId })).status, { timeout: 60_000, interval: 250 }).toBe('failed')
    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${id}"]`).click()
    await page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`).click()
    for (const chart of ['chart-util', 'chart-queue']) {
      await expect.poll(() => page.getByTestId(chart).locator('.empty').innerText(), { timeout: 20_000 }).toBe(`Run #${runId} ended (failed) without recording a sample.`)
    }
    await page.screenshot({ path: join(ARTIFACTS, 'first-look-failed-charts.png') })
    // Its Traffic tab: nothing is to come, so nothing says "yet".
    await page.getByTestId('tab-traffic').click()
    await expect.poll(() => page.getByTestId('top-flows').locator('.none').innerText(), { timeout: 20_000 }).toBe('This run stored no flows.')
    expect(await page.getByTestId('flows-on-wire').locator('.none').innerText()).toBe('This run stored no flows.')
    expect(await page.getByTestId('busiest-ports').locator('.none').innerText()).toBe('This run recorded no link.util samples.')
    await page.screenshot({ path: join(ARTIFACTS, 'first-look-failed-traffic.png') })
    expect(errors).toEqual([])
  })

  describe('a sweep run again after an edit', () => {
    let experimentId: number
    let active: number[] = []
    const rows = () => page.getByTestId('run-row')

    beforeAll(async () => {
      experimentId = (await contract(app.url, 'experiments.create', { yaml: SMALL })).id
      const first = (await contract(app.url, 'experiments.run', { id: experimentId })).runIds as number[]
      await vi.waitFor(
        async () => {
          const statuses = (await Promise.all(first.map((id) => contract(app.url, 'runs.get', { id })))).map((r: { status: string }) => r.status)
          expect(statuses).toEqual(first.map(() => 'done'))
        },
        { timeout: 120_000, interval: 500 },
      )
      await contract(app.url, 'experiments.update', { id: experimentId, yaml: BIG })
      active = (await contract(app.url, 'experiments.run', { id: experimentId })).runIds as number[]
    }, 180_000)

    afterAll(async () => {
      for (const id of active) await contract(app.url, 'runs.cancel', { id }).catch(() => undefined)
    })

    it('shows every running run\'s progress whole and its Cancel button inside the panel', { timeout: 120_000 }, async () => {
      await page.goto(app.url)
      await page.locator(`[data-testid="experiment-item"][data-experiment-id="${experimentId}"]`).click()
      // Both kinds of row at once: the four done runs with their FCTs, the new ones with a progress text.
      await expect.poll(() => rows().count(), { timeout: 20_000 }).toBe(8)
      await expect.poll(() => page.locator('[data-testid="runs-table"] .ptext').count(), { timeout: 60_000, interval: 250 }).toBeGreaterThan(0)
      for (const size of WIDTHS) {
        await page.setViewportSize(size)
        await page.getByTestId('runs-table').scrollIntoViewIfNeeded()
        const look = await page.getByTestId('runs-table').evaluate((t) => {
          const room = t.parentElement!.getBoundingClientRect()
          return {
            table: t.scrollWidth,
            room: t.parentElement!.clientWidth,
            cancels: [...t.querySelectorAll('[data-testid="cancel-run"]')].map((b) => b.getBoundingClientRect()).filter((r) => r.right > room.right + 0.5 || r.left < room.left - 0.5).length,
            progress: [...t.querySelectorAll('.ptext')].map((e) => ({ text: e.textContent!.trim(), cut: e.scrollWidth > e.clientWidth })),
          }
        })
        await page.screenshot({ path: join(ARTIFACTS, `first-look-running-${size.width}.png`) })
        expect(look.table, `runs table ${look.table} px in ${look.room} px at ${size.width} px`).toBeLessThanOrEqual(look.room)
        expect(look.cancels, `Cancel buttons outside the panel at ${size.width} px`).toBe(0)
        // "2 149/200 000", never "2 149/20…", which reads as another count.
        for (const p of look.progress) {
          expect(p.text, `progress at ${size.width} px`).toMatch(/^\d[\d\u2009]*\/200\u2009000\b/)
          expect(p.cut, `progress '${p.text}' cut at ${size.width} px`).toBe(false)
        }
      }
      expect(errors).toEqual([])
    })

    it('shows no value, not n/a, in the slowdown columns of runs that ended without results', { timeout: 120_000 }, async () => {
      for (const id of active) await contract(app.url, 'runs.cancel', { id })
      const slowdowns = () =>
        rows().evaluateAll((els) =>
          els.map((e) => ({ status: e.getAttribute('data-status'), cells: ['slowdown.mean', 'slowdown.p99'].map((c) => e.querySelector(`[data-col="${c}"]`)!.textContent!.trim()) })),
        )
      await expect.poll(async () => (await slowdowns()).filter((r) => r.status === 'cancelled').length, { timeout: 60_000, interval: 250 }).toBe(active.length)
      await page.screenshot({ path: join(ARTIFACTS, 'first-look-cancelled.png') })
      for (const r of await slowdowns()) {
        if (r.status === 'done') expect(r.cells, 'a done run').toEqual([expect.stringMatching(/^\d[\d.]*×$/), expect.stringMatching(/^\d[\d.]*×$/)])
        else expect(r.cells, `a ${r.status} run`).toEqual(['—', '—'])
      }
    })

    it('closes History and Manage on Escape and on a press outside, one at a time, and keeps notes not saved', async () => {
      const history = page.getByTestId('history-pop')
      const manage = page.getByTestId('experiment-manage-pop')
      await page.goto(app.url)
      await page.locator(`[data-testid="experiment-item"][data-experiment-id="${experimentId}"]`).click()
      await page.getByTestId('experiment-history').click()
      await expect.poll(() => history.count(), { timeout: 10_000 }).toBe(1)
      await page.keyboard.press('Escape')
      await expect.poll(() => history.count(), { timeout: 10_000 }).toBe(0)
      // Manage pressed while History is open: Manage alone, not one popover over the other.
      await page.getByTestId('experiment-history').click()
      await expect.poll(() => history.count(), { timeout: 10_000 }).toBe(1)
      await page.getByTestId('experiment-manage').click()
      await expect.poll(async () => [await history.count(), await manage.count()], { timeout: 10_000 }).toEqual([0, 1])
      await page.screenshot({ path: join(ARTIFACTS, 'first-look-manage.png') })
      await page.getByTestId('runs-count').click()
      await expect.poll(() => manage.count(), { timeout: 10_000 }).toBe(0)
      // Notes typed and not saved: a press outside leaves them where they are.
      await page.getByTestId('experiment-manage').click()
      await page.getByTestId('experiment-notes').fill('half a thought')
      await page.getByTestId('runs-count').click()
      await page.keyboard.press('Escape')
      expect(await manage.count()).toBe(1)
      expect(await page.getByTestId('experiment-notes').inputValue()).toBe('half a thought')
      expect(errors).toEqual([])
    })
  })
})

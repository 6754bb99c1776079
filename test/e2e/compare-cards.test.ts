// Compare's cards on the window widths people use (1024 and 1280 px): every card's note under
// its title readable whole (it was cut to an ellipsis, or to nothing, beside the title), the
// cards still in their grid; a slowdown CDF card of a size class no flow fell in saying so in
// words, naming the class and why, not bare axes; and one whose lines hold one flow each
// drawing them as dots (a CDF of one value has no segment to draw). Screenshots in
// test-artifacts/e2e/compare-cards-*.png.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

const TOPOLOGY = 'topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }'
// 30 web-search flows a run: none of them 10 MB or more.
const SMALL = `name: cards
testbed: sim
${TOPOLOGY}
schemes: [ecmp, rps, conga]
workload: { kind: web-search, load: [0.3, 0.6], flows: 30 }
seeds: [1, 2]
`
// 60 flows with seed 2: one of them is 10 MB or more.
const ONE_LARGE = `name: one-large
testbed: sim
${TOPOLOGY}
schemes: [ecmp, rps]
workload: { kind: web-search, load: 0.5, flows: 60 }
seeds: [2]
`
const LARGE = '≥10 MB'

async function runToEnd(url: string, yaml: string): Promise<number> {
  const { id } = await contract(url, 'experiments.create', { yaml })
  await contract(url, 'experiments.run', { id })
  // Before the tests (expect.poll is theirs alone): a few seconds of simulation.
  const until = Date.now() + 120_000
  for (;;) {
    const runs = (await contract(url, 'runs.list', { experimentId: id })) as Array<{ status: string }>
    if (runs.every((r) => r.status === 'done')) return id
    if (runs.some((r) => ['incomplete', 'failed', 'interrupted', 'cancelled'].includes(r.status)) || Date.now() > until) throw new Error(`runs of ${id}: ${runs.map((r) => r.status).join(', ')}`)
    await new Promise((r) => setTimeout(r, 500))
  }
}

async function openCompare(page: Page, url: string, ids: number[]): Promise<void> {
  await page.goto(url)
  await page.getByTestId('nav-compare').click()
  for (const id of ids) await page.locator(`[data-testid="compare-exp"][data-experiment-id="${id}"] input`).check()
  await page.waitForTimeout(50)
  await expect.poll(() => page.getByTestId('compare-view').getAttribute('data-settled'), { timeout: 30_000 }).toBe('true')
  await expect.poll(() => page.getByTestId('slowdown-cdfs').getAttribute('data-buckets'), { timeout: 30_000 }).toContain(LARGE)
}

/** The slowdown CDF card of a size class. */
async function cdfCard(page: Page, bucket: string) {
  const buckets = ((await page.getByTestId('slowdown-cdfs').getAttribute('data-buckets')) ?? '').split('|')
  expect(buckets).toContain(bucket)
  return page.getByTestId(`plot-slowdown-cdf-${buckets.indexOf(bucket)}`)
}

describe("compare's cards in Chromium", () => {
  let app: Started
  let browser: Browser
  let page: Page
  let small = 0
  let oneLarge = 0
  const errors: string[] = []

  beforeAll(async () => {
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-e2e-cards-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1024, height: 768 } })
    page.on('pageerror', (err) => errors.push(String(err)))
    small = await runToEnd(app.url, SMALL)
    oneLarge = await runToEnd(app.url, ONE_LARGE)
  }, 240_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  for (const width of [1024, 1280]) {
    it(`shows every card's note whole at ${width} px, the cards in their grid`, { timeout: 90_000 }, async () => {
      await page.setViewportSize({ width, height: 800 })
      await openCompare(page, app.url, [small])
      const cards = await page.locator('.scroll .cplot').evaluateAll((els) =>
        els.map((card) => {
          const c = card.getBoundingClientRect()
          const sub = card.querySelector('.csub')
          const s = sub?.getBoundingClientRect()
          const row = card.parentElement!.getBoundingClientRect()
          return {
            id: card.getAttribute('data-testid'),
            sub: sub?.textContent ?? '',
            // Cut: an ellipsis or hidden overflow leaves the text wider or taller than its box.
            cut: sub ? sub.scrollWidth > sub.clientWidth + 1 || sub.scrollHeight > sub.clientHeight + 1 || s!.width < 40 : false,
            inCard: s ? s.left >= c.left - 0.5 && s.right <= c.right + 0.5 && s.bottom <= c.bottom + 0.5 : true,
            inRow: c.left >= row.left - 0.5 && c.right <= row.right + 0.5,
            top: Math.round(c.top),
            height: Math.round(c.height),
            row: card.parentElement!.className,
          }
        }),
      )
      await page.screenshot({ path: join(ARTIFACTS, `compare-cards-${width}-top.png`) })
      await (await cdfCard(page, LARGE)).scrollIntoViewIfNeeded()
      await page.screenshot({ path: join(ARTIFACTS, `compare-cards-${width}-slowdown-cdfs.png`) })
      const withSub = cards.filter((c) => c.sub)
      expect(withSub.filter((c) => c.cut || !c.inCard).map((c) => `${c.id}: ${c.sub}`)).toEqual([])
      // The main plot, the normalised one, probes, slowdown, the slowdown CDFs and the overlay have notes.
      expect(withSub.map((c) => c.id)).toEqual(expect.arrayContaining(['plot-main', 'plot-normalised', 'plot-probe', 'plot-slowdown', 'plot-overlay', 'plot-slowdown-cdf-0']))
      // Each card within its row's width, and the cards side by side in a row as tall as each other.
      expect(cards.filter((c) => !c.inRow).map((c) => c.id)).toEqual([])
      const sideBySide = new Map<string, Set<number>>()
      for (const c of cards) sideBySide.set(`${c.row}@${c.top}`, (sideBySide.get(`${c.row}@${c.top}`) ?? new Set()).add(c.height))
      expect([...sideBySide].filter(([, h]) => h.size > 1).map(([k]) => k)).toEqual([])
      expect(await page.locator('.scroll').evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0)
      expect(errors).toEqual([])
    })
  }

  it('says in words that no flow of a size class was drawn, instead of bare axes', { timeout: 60_000 }, async () => {
    await page.setViewportSize({ width: 1280, height: 800 })
    await openCompare(page, app.url, [small])
    const card = await cdfCard(page, LARGE)
    await card.scrollIntoViewIfNeeded()
    await card.screenshot({ path: join(ARTIFACTS, 'compare-cards-empty-class.png') })
    expect(await card.getAttribute('data-lines')).toBe('0')
    expect(await card.locator('canvas').count()).toBe(0)
    // 30 flows a run, two seeds pooled: 60 a line at load 0.6, none of them 10 MB or more.
    expect(await card.getByTestId('plot-empty').innerText()).toBe(
      'No flow of ≥10 MB at load 0.6: none of the flows these runs drew (60 flows a line) is this size, so there is no slowdown to plot.',
    )
    expect(errors).toEqual([])
  })

  it('draws a class of one flow a line as dots, and says so', { timeout: 60_000 }, async () => {
    const res = await contract(app.url, 'compare.query', { experimentIds: [oneLarge], metric: 'slowdown.mean', by: 'load', cdf: 'slowdown' })
    const large = res.cdfs.filter((c: { bucket: string }) => c.bucket === LARGE)
    expect(large.map((c: { finished: number }) => c.finished), 'one finished flow of ≥10 MB a line').toEqual([1, 1])
    await page.setViewportSize({ width: 1280, height: 800 })
    await openCompare(page, app.url, [oneLarge])
    const card = await cdfCard(page, LARGE)
    await card.scrollIntoViewIfNeeded()
    await expect.poll(() => card.getAttribute('data-figure'), { timeout: 10_000 }).not.toBeNull()
    await card.screenshot({ path: join(ARTIFACTS, 'compare-cards-one-flow.png') })
    const figure = JSON.parse((await card.getAttribute('data-figure'))!) as { lines: Array<{ label: string; dot?: boolean }> }
    expect(figure.lines.map((l) => [l.label, l.dot])).toEqual([
      ['ecmp', true],
      ['rps', true],
    ])
    expect(await card.locator('.csub').innerText()).toBe('1 of 1 flow finished, each line · a line of one value is a dot')
    // No card of this view draws a line it cannot show: a line of one value is a dot.
    for (const testid of await page.locator('[data-testid^="plot-slowdown-cdf-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!))) {
      const el = page.getByTestId(testid)
      const plot = JSON.parse((await el.getAttribute('data-plot')) ?? '{"lines":[]}') as { lines: Array<{ mean: Array<number | null> }> }
      const fig = JSON.parse((await el.getAttribute('data-figure')) ?? '{"lines":[]}') as { lines: Array<{ dot?: boolean }> }
      plot.lines.forEach((l, i) => expect(l.mean.filter((v) => v !== null).length > 1 || fig.lines[i]?.dot === true, `${testid} line ${i}`).toBe(true))
    }
    expect(errors).toEqual([])
  })
})

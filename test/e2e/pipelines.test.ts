// The Pipelines view in Chromium: `npm start` (web mode) with a fake p4c-bm2-ss first on PATH,
// an experiment with HULA's three-tier topology created through the contract (WebSocket), then
// the hula/v1model program's highlighted source, tor0's rendered CLI file and bfrt script, a
// variant copied and edited, a failed compile whose diagnostic scrolls to its line, and the
// artifacts; the failed compile's view (log, marked line, error counts) measured for contrast in
// both themes; on a 1024 and a 1280 px window the source as wide as the view beside the list,
// the side panel under it. Screenshots go to test-artifacts/e2e/pipelines-*.png.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ARTIFACTS, launchChromium, contract } from '../helpers/browser'
import { lowContrast, type LowContrast } from '../helpers/contrast'
import { startApp, type Started } from '../helpers/start'
import { fakeCompiler } from '../p4build/fake-compiler'

const THREE_TIER = `name: hula-three-tier
testbed: sim
topology: { kind: three-tier, pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 100 }
params: { flowletGap: 100us, probePeriod: 200us }
`

describe('the Pipelines view in Chromium', () => {
  let dir: string
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []
  const transcript = () => join(dir, 'p4c-stderr.txt')

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-e2e-pipelines-'))
    const fake = fakeCompiler(dir)
    writeFileSync(transcript(), '')
    app = await startApp([], { P4LAB_HOME: join(dir, 'home'), ...fake.env({ FAKE_P4C_STDERR: transcript(), FAKE_P4C_EXIT: '1' }) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  it('shows the highlighted source, the rendered control plane of tor0, a variant, a compile log linked to lines, and the artifacts', async () => {
    const exp = await contract(app.url, 'experiments.create', { yaml: THREE_TIER })
    await page.goto(app.url)
    await page.getByTestId('nav-pipelines').click()
    await page.locator('[data-testid="pipeline-program"][data-scheme="hula"][data-target="bmv2"]').click()

    // Highlighted source with line numbers.
    const source = page.getByTestId('p4-source')
    await expect.poll(() => source.getAttribute('data-path'), { timeout: 10_000 }).toBe('hula/v1model/hula.p4')
    await vi.waitFor(async () => {
      expect(await source.locator('.tok-kw').count()).toBeGreaterThan(50)
      expect(await source.locator('.tok-com').count()).toBeGreaterThan(10)
      expect(await source.locator('.tok-type').count()).toBeGreaterThan(10)
      expect(await source.locator('.ln').count()).toBeGreaterThan(200)
    }, { timeout: 10_000, interval: 200 })
    // The INT includes sit behind #ifdef P4LAB_INT; they are sources of the program all the same.
    await expect.poll(() => page.locator('[data-testid="source-file-tab"]').allInnerTexts(), { timeout: 10_000 }).toEqual(['hula.p4', 'headers.p4', 'int.p4', 'int_egress.p4'])
    await page.screenshot({ path: join(ARTIFACTS, 'pipelines-1-source.png') })

    // The experiment's topology, tor0: the simple_switch_CLI file, then the bfrt script.
    await page.getByTestId('pipeline-experiment').selectOption(String(exp.id))
    await page.locator('[data-testid="switch-option"][data-switch="tor0"]').click()
    const file = page.getByTestId('cp-file')
    await expect.poll(() => file.getAttribute('data-switch'), { timeout: 10_000 }).toBe('tor0')
    await expect.poll(() => page.getByTestId('cp-file-name').innerText(), { timeout: 10_000 }).toBe('tor0.cli')
    await vi.waitFor(async () => {
      const cli = await file.innerText()
      expect(cli).toMatch(/^table_add MyIngress\.ipv4Route MyIngress\.toHost 10\.0\.0\.1\/32 => 0 /m)
      expect(cli).toMatch(/^mc_mgrp_create \d+$/m)
    }, { timeout: 10_000, interval: 200 })
    await expect.poll(() => page.locator('[data-testid="switch-option"]').count(), { timeout: 10_000 }).toBe(10)
    await page.screenshot({ path: join(ARTIFACTS, 'pipelines-2-cli-tor0.png') })
    await page.getByTestId('cp-tab-bfrt').click()
    await expect.poll(() => page.getByTestId('cp-file-name').innerText(), { timeout: 10_000 }).toBe('tor0.py')
    await expect.poll(() => file.innerText(), { timeout: 10_000 }).toMatch(/bfrt\.hula\.pipe\.MyIngress\.\w+\.add_with_/)
    await page.screenshot({ path: join(ARTIFACTS, 'pipelines-3-bfrt-tor0.png') })

    // Copy into the experiment's variant, edit it, save.
    await page.getByTestId('copy-variant').click()
    await expect.poll(() => page.getByTestId('variant-badge').innerText(), { timeout: 10_000 }).toMatch(new RegExp(`experiment #${exp.id}`))
    const editor = page.getByTestId('variant-editor')
    await editor.focus()
    await page.keyboard.press('Control+Home')
    await page.keyboard.type('// edited in the e2e test\n')
    await expect.poll(() => source.locator('[data-line="1"]').innerText(), { timeout: 10_000 }).toBe('// edited in the e2e test')
    await expect.poll(() => source.locator('[data-line="1"] .tok-com').count(), { timeout: 10_000 }).toBe(1)
    await page.getByTestId('save-variant').click()
    await expect
      .poll(async () => (await contract(app.url, 'pipelines.source', { scheme: 'hula', target: 'bmv2', experimentId: exp.id })).files[0].text.split('\n')[0])
      .toBe('// edited in the e2e test')
    await page.screenshot({ path: join(ARTIFACTS, 'pipelines-4-variant.png') })

    // Compile: the fake compiler answers with a p4c error on the variant's bestHop line.
    const variant = await contract(app.url, 'pipelines.source', { scheme: 'hula', target: 'bmv2', experimentId: exp.id })
    const lines: string[] = variant.files[0].text.split('\n')
    const at = lines.findIndex((l) => l.includes(') bestHop;')) + 1
    const col = lines[at - 1].indexOf('bestHop') + 1
    writeFileSync(
      transcript(),
      `hula/v1model/hula.p4(${at}): [--Werror=type-error] error: bestHop\n` +
        `${lines[at - 1]}\n${' '.repeat(col - 1)}^^^^^^^\n` +
        `  ---- Actual error:\n  register element width does not match its use\n`,
    )
    await page.getByTestId('compile').click()
    await expect.poll(() => page.getByTestId('build-summary').getAttribute('data-status'), { timeout: 15_000 }).toBe('failed')
    const diag = page.getByTestId('diagnostic').first()
    await expect.poll(() => diag.innerText(), { timeout: 10_000 }).toMatch(new RegExp(`hula/v1model/hula\\.p4:${at}:${col}`))
    // p4c names the expression ('bestHop'); what is wrong is its "Actual error", shown beside it.
    await expect.poll(() => diag.innerText(), { timeout: 10_000 }).toMatch(/bestHop: register element width does not match its use/)
    // Scroll the source away, then follow the diagnostic back to its line.
    await source.evaluate((el) => (el.scrollTop = 0))
    await diag.click()
    const marked = source.locator('.line.marked')
    await expect.poll(() => marked.getAttribute('data-line'), { timeout: 10_000 }).toBe(String(at))
    await expect.poll(() => marked.isVisible(), { timeout: 10_000 }).toBe(true)
    await expect.poll(() => source.evaluate((el) => el.scrollTop), { timeout: 10_000 }).toBeGreaterThan(0)
    await expect.poll(() => source.locator('.ln.error').count(), { timeout: 10_000 }).toBe(1)
    await page.screenshot({ path: join(ARTIFACTS, 'pipelines-5-compile-log.png') })
    // The source with its marked line and error gutter, the error counts and the log keep their
    // contrast in both themes.
    const low: Array<LowContrast & { theme: string }> = []
    for (const t of ['light', 'dark'] as const) {
      if ((await page.locator('html').getAttribute('data-theme')) !== t) await page.getByTestId('theme-toggle').click()
      await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe(t)
      await page.evaluate('Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))')
      // The editor's textarea draws no text of its own: the highlighted lines under it show it.
      low.push(...(await lowContrast(page, 'main', ['[data-testid="variant-editor"]'])).map((l) => ({ ...l, theme: t })))
      await page.screenshot({ path: join(ARTIFACTS, `pipelines-5-compile-log-${t}.png`) })
    }
    writeFileSync(join(ARTIFACTS, 'pipelines-contrast-found.json'), JSON.stringify(low, null, 1))
    expect(low).toEqual([])

    await page.getByTestId('side-tab-artifacts').click()
    await expect.poll(() => page.getByTestId('artifact-row').count(), { timeout: 10_000 }).toBe(1)
    await expect.poll(() => page.getByTestId('artifact-row').first().getAttribute('data-status'), { timeout: 10_000 }).toBe('failed')
    await page.screenshot({ path: join(ARTIFACTS, 'pipelines-6-artifacts.png') })

    // Back to the experiments: the sidebar leaves the Pipelines view.
    await page.getByTestId('experiment-item').first().click()
    await expect.poll(() => page.getByTestId('pipelines-view').count(), { timeout: 10_000 }).toBe(0)
    expect(errors).toEqual([])
  }, 120_000)

  it('gives the source the width beside the program list on a 1024 and a 1280 px window, the side panel under it', async () => {
    await page.goto(app.url)
    await page.getByTestId('nav-pipelines').click()
    await page.locator('[data-testid="pipeline-program"][data-scheme="hula"][data-target="bmv2"]').click()
    await expect.poll(() => page.getByTestId('p4-source').getAttribute('data-path'), { timeout: 10_000 }).toBe('hula/v1model/hula.p4')
    const box = (sel: string) =>
      page.locator(`[data-testid="pipelines-view"] ${sel}`).evaluate((el) => {
        const r = el.getBoundingClientRect()
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }
      })
    for (const width of [1024, 1280, 1440]) {
      await page.setViewportSize({ width, height: 768 })
      await page.getByTestId('side-tab-controlplane').click()
      await page.screenshot({ path: join(ARTIFACTS, `pipelines-7-width-${width}.png`) })
      const [view, list, center, side] = [await box(''), await box('.list'), await box('.center'), await box('.side')]
      expect(side.right, `${width} px: the side panel within the view`).toBeLessThanOrEqual(view.right + 0.5)
      if (width < 1440) {
        // The source as wide as all the view beside the list (it had 244 px of 760 at 1024), the panel under it as wide.
        expect(center.width, `${width} px`).toBeGreaterThanOrEqual(view.right - list.right - 1)
        expect(side.top, `${width} px`).toBeGreaterThanOrEqual(center.bottom - 1)
        expect(side.left, `${width} px`).toBeCloseTo(center.left, 0)
        expect(side.height, `${width} px`).toBeGreaterThanOrEqual(180)
      } else {
        // A wide window keeps the panel beside the source, which has room for its lines.
        expect(side.left).toBeGreaterThanOrEqual(center.right - 1)
        expect(center.width).toBeGreaterThanOrEqual(500)
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    expect(errors).toEqual([])
  }, 60_000)
})

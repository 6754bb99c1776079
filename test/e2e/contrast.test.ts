// The designer's views keep their contrast in both themes: every visible text against its
// effective background (WCAG 2: 4.5:1 for body text, 3:1 for large text), and the graphs'
// labels against what they are drawn on (3:1). Measured in Chromium on the Testbeds view (list,
// hosts, mapping, Check's results), the testbed form with its field errors, the host-key
// dialog, the experiment's Topology tab (toolbar, inspector, problems) and Fabric tab (before
// and after a run, with the experiment's header and runs table), the Queues tab after the run
// (its heatmap's labels too), the export dialog, and the Pipelines view (a program's highlighted
// P4 source beside its rendered control plane), in the dark and the light theme.
// Screenshots: test-artifacts/e2e/contrast-*.png.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { contrastRatio, lowContrast, lowGraphContrast, type LowContrast } from '../helpers/contrast'
import { startApp, type Started } from '../helpers/start'
import { startSshd, type Sshd } from '../helpers/sshd'

const YAML = `name: contrast
testbed: sim
topology:
  kind: custom
  nodes:
    - { name: s0, tier: spine }
    - { name: l0, tier: tor }
    - { name: l1, tier: tor }
    - { name: h0, tier: host }
    - { name: h1, tier: host }
  links:
    - { a: s0, b: l0 }
    - { a: s0, b: l1, speed: 1Gbps }
    - { a: l0, b: h0 }
    - { a: l1, b: h1 }
  hostLink: 10Gbps
  fabricLink: 10Gbps
  linkDelay: 1us
  oversubscription: 10
failures:
  - { link: s0-l0, at: 5ms, recover: 8ms }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`

describe('contrast of the designer views in both themes', () => {
  let sshd: Sshd
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    sshd = await startSshd()
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-e2e-contrast-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
    await sshd?.stop()
  })

  it('measures the ratio as WCAG defines it', () => {
    expect(contrastRatio('#000', '#fff')).toBeCloseTo(21, 5)
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2)
    expect(contrastRatio('rgb(255, 255, 255)', '#0e639c')).toBeCloseTo(6.4, 1)
  })

  it('keeps every text of the designer views readable, dark and light', async () => {
    const exp = await contract(app.url, 'experiments.create', { yaml: YAML })
    await contract(app.url, 'testbeds.create', {
      testbed: { name: 'lab', kind: 'bmv2', settings: {}, hosts: [{ name: 'sw1', address: sshd.host, port: sshd.port, user: sshd.user, auth: 'key', keyFile: sshd.plainKey, role: 'switch-host' }] },
    })
    await contract(app.url, 'testbeds.setMapping', { name: 'lab', mapping: { kind: 'bmv2', hosts: [{ host: 'sw1', switches: ['s0', 'l0', 'l1'] }] } })
    await page.goto(app.url)

    const found: Array<LowContrast & { view: string; theme: string }> = []
    let theme = ''
    const setTheme = async (t: 'dark' | 'light') => {
      if ((await page.locator('html').getAttribute('data-theme')) !== t) await page.getByTestId('theme-toggle').click()
      await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe(t)
      theme = t
    }
    const look = async (view: string, selector: string, o: { graph?: string; exclude?: string[] } = {}) => {
      await page.locator(selector).first().waitFor({ timeout: 15_000 })
      // Transitions end before the colours are read.
      await page.evaluate('Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))')
      const low = [...(await lowContrast(page, selector, o.exclude)), ...(o.graph ? await lowGraphContrast(page, o.graph) : [])]
      found.push(...low.map((l) => ({ ...l, view, theme })))
      await page.screenshot({ path: join(ARTIFACTS, `contrast-${view}-${theme}.png`) })
    }

    for (const t of ['dark', 'light'] as const) {
      await page.goto(app.url)
      await setTheme(t)

      // Testbeds: the list, the hosts, the mapping; Check with the host-key dialog, then its results.
      await page.getByTestId('nav-testbeds').click()
      await page.locator('[data-testid="testbed-item"][data-testbed="lab"]').click()
      await expect.poll(() => page.getByTestId('map-switch-row').count(), { timeout: 15_000 }).toBe(3)
      await look('testbed', 'main')
      await page.getByTestId('check-testbed').click()
      if (t === 'dark') {
        // The dialog asks once per key: measured in both themes while it is open (the toggle sits
        // under the dialog's backdrop, so it gets its click event directly).
        await look('hostkey-dialog', '[data-testid="hostkey-dialog"]')
        await page.getByTestId('theme-toggle').dispatchEvent('click')
        await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('light')
        theme = 'light'
        await look('hostkey-dialog', '[data-testid="hostkey-dialog"]')
        await page.getByTestId('theme-toggle').dispatchEvent('click')
        await setTheme('dark')
        await page.getByTestId('hostkey-trust').click()
      }
      await expect.poll(() => page.getByTestId('check-host').getAttribute('data-status'), { timeout: 60_000 }).toBe('ok')
      await look('testbed-checked', 'main')

      // The form, with problems at their fields.
      await page.getByTestId('add-testbed').click()
      await page.getByTestId('tb-name').fill('bad name!')
      await page.getByTestId('tb-host-port').fill('70000')
      await page.getByTestId('tb-save').click()
      await page.getByTestId('tb-err-port').waitFor({ timeout: 10_000 })
      await look('testbed-form', 'main')

      // The experiment's Topology tab: a link selected (its form), then a host without a link (a problem).
      await page.getByTestId('experiment-item').filter({ hasText: 'contrast' }).click()
      await page.getByTestId('tab-topology').click()
      await page.getByTestId('topo-link-list').selectOption('s0-l0')
      await page.getByTestId('topo-link-form').waitFor({ timeout: 15_000 })
      await look('topology-link', 'main', { graph: '[data-testid="topo-canvas"]' })
      await page.getByTestId('topo-canvas').focus()
      await page.keyboard.press('h')
      await page.getByTestId('topo-problem').first().waitFor({ timeout: 15_000 })
      await look('topology-problem', 'main', { graph: '[data-testid="topo-canvas"]' })
      await page.keyboard.press('Control+z')

      // The Fabric tab before any run, the failing and the slow link marked.
      await page.getByTestId('tab-fabric').click()
      await page.getByTestId('fabric-before-run').waitFor({ timeout: 15_000 })
      await look('fabric', 'main', { graph: '[data-testid="fabric-graph"]' })

      // The export dialog.
      await page.getByTestId('export-experiment').click()
      await look('export-dialog', '[data-testid="archive-export-dialog"]')
      await page.keyboard.press('Escape')
    }

    // After a run: the runs table's rows and the Fabric tab drawing the run, in both themes.
    await page.getByTestId('experiment-item').filter({ hasText: 'contrast' }).click()
    await page.getByTestId('run-experiment').click()
    await expect.poll(() => page.getByTestId('run-row').first().getAttribute('data-status'), { timeout: 120_000, interval: 250 }).toMatch(/^(done|incomplete|failed)$/)
    for (const t of ['dark', 'light'] as const) {
      await setTheme(t)
      await page.getByTestId('tab-fabric').click()
      await page.getByTestId('fabric-graph').waitFor({ timeout: 15_000 })
      await look('fabric-run', 'main', { graph: '[data-testid="fabric-graph"]' })
      await page.getByTestId('tab-queues').click()
      await expect.poll(() => page.getByTestId('queue-heatmap').getAttribute('data-rows'), { timeout: 15_000 }).toMatch(/^[1-9]/)
      await look('queues-run', 'main', { graph: '[data-testid="queue-heatmap"]' })
      await page.getByTestId('tab-topology').click()
      await look('topology-run', 'main', { graph: '[data-testid="topo-canvas"]' })
    }
    expect(exp.id).toBe(1)
    writeFileSync(join(ARTIFACTS, 'contrast-found.json'), JSON.stringify(found, null, 1))
    expect(found).toEqual([])
    expect(errors).toEqual([])
  }, 240_000)

  it('keeps the Pipelines view readable, its highlighted P4 source included, dark and light', async () => {
    // floodgate/v1model shows every kind of token the highlighter colours (annotations too).
    const exp = await contract(app.url, 'experiments.create', { yaml: YAML.replace('name: contrast', 'name: contrast-pipelines') })
    await page.goto(app.url)
    const found: Array<LowContrast & { theme: string }> = []
    for (const t of ['dark', 'light'] as const) {
      if ((await page.locator('html').getAttribute('data-theme')) !== t) await page.getByTestId('theme-toggle').click()
      await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe(t)
      await page.getByTestId('nav-pipelines').click()
      await page.locator('[data-testid="pipeline-program"][data-scheme="floodgate"][data-target="bmv2"]').click()
      const source = page.getByTestId('p4-source')
      await expect.poll(() => source.getAttribute('data-path'), { timeout: 10_000 }).toBe('floodgate/v1model/floodgate.p4')
      for (const cls of ['kw', 'type', 'num', 'com', 'str', 'pp', 'anno', 'fn']) {
        await expect.poll(() => source.locator(`.tok-${cls}`).count(), { timeout: 10_000 }).toBeGreaterThan(0)
      }
      // The control plane rendered for an experiment's topology, beside the source.
      await page.getByTestId('pipeline-experiment').selectOption(String(exp.id))
      await page.getByTestId('cp-file').waitFor({ timeout: 15_000 })
      await source.locator('.tok-anno').first().scrollIntoViewIfNeeded()
      await page.evaluate('Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))')
      // Every line is measured, scrolled into view or not.
      found.push(...(await lowContrast(page, 'main')).map((l) => ({ ...l, theme: t })))
      await page.screenshot({ path: join(ARTIFACTS, `contrast-pipelines-${t}.png`) })
    }
    writeFileSync(join(ARTIFACTS, 'contrast-pipelines-found.json'), JSON.stringify(found, null, 1))
    expect(found).toEqual([])
    expect(errors).toEqual([])
  }, 120_000)
})

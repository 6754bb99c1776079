// What a new user meets first, in Chromium on a 1280 px and a 1024 px window: the templates to
// start from, each described by its whole sentence. Screenshots in test-artifacts/e2e/first-look-*.png.
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ARTIFACTS, launchChromium } from '../helpers/browser'
import { ROOT, startApp, type Started } from '../helpers/start'

const TEMPLATES = join(ROOT, 'resources', 'experiments')

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
})

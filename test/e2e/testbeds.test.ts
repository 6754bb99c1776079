// A testbed as a user adds one in the GUI: `npm start` (web mode), Chromium, a real sshd on
// 127.0.0.1. Add the testbed, press Check, confirm the host key in the dialog (its
// fingerprint must be the server's), and see the tools and versions found.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startSshd, type Sshd } from '../helpers/sshd'
import { ARTIFACTS, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'

describe('testbeds in Chromium', () => {
  let home: string
  let sshd: Sshd
  let app: Started
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-tb-'))
    sshd = await startSshd()
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    page.on('pageerror', (err) => console.error('page error:', err))
  })

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
    await sshd?.stop()
  })

  it('adds a testbed, checks it, confirms the host key and shows the tools found', async () => {
    await page.goto(app.url)
    await page.getByTestId('nav-testbeds').click()
    await expect.poll(() => page.getByTestId('testbed-item').count(), { timeout: 10_000 }).toBe(1) // the built-in sim
    await page.getByTestId('add-testbed').click()

    // A bad port is refused with the field named, and nothing is saved.
    await page.getByTestId('tb-name').fill('lab1')
    await page.getByTestId('tb-host-name').fill('sw1')
    await page.getByTestId('tb-host-address').fill(sshd.host)
    await page.getByTestId('tb-host-port').fill('70000')
    await page.getByTestId('tb-host-user').fill(sshd.user)
    await page.getByTestId('tb-host-key').fill(sshd.plainKey)
    await page.getByTestId('tb-save').click()
    // At the field it concerns, before anything is sent.
    await expect.poll(() => page.getByTestId('tb-err-port').innerText(), { timeout: 10_000 }).toBe('a port is 1-65535')
    expect(await page.getByTestId('tb-host-port').getAttribute('aria-invalid')).toBe('true')
    await page.getByTestId('tb-host-port').fill(String(sshd.port))
    await page.screenshot({ path: join(ARTIFACTS, 'tb-1-form.png') })
    await page.getByTestId('tb-save').click()
    await expect.poll(() => page.getByTestId('testbed-item').count(), { timeout: 10_000 }).toBe(2)
    await expect.poll(() => page.getByTestId('host-pinned-key').innerText(), { timeout: 10_000 }).toMatch(/not pinned yet/)

    await page.getByTestId('check-testbed').click()
    const dialog = page.getByTestId('hostkey-dialog')
    await dialog.waitFor({ timeout: 30_000 })
    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(sshd.dir, 'host_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1]
    await expect.poll(() => page.getByTestId('hostkey-fingerprint').innerText(), { timeout: 10_000 }).toBe(fp)
    await expect.poll(() => page.getByTestId('hostkey-type').innerText(), { timeout: 10_000 }).toBe('ssh-ed25519')
    await expect.poll(() => page.getByTestId('hostkey-host').innerText(), { timeout: 10_000 }).toBe('sw1')
    await page.screenshot({ path: join(ARTIFACTS, 'tb-2-hostkey.png') })

    // Cancel leaves it unknown; the host card offers to review the key again.
    await page.getByTestId('hostkey-cancel').click()
    await expect.poll(() => page.getByTestId('check-host').getAttribute('data-status'), { timeout: 10_000 }).toBe('unknown-key')
    await page.getByTestId('check-trust').click()
    await page.getByTestId('hostkey-trust').click()

    // Trust pins it, and the check runs again: now the tools table.
    await expect.poll(() => page.getByTestId('check-host').getAttribute('data-status'), { timeout: 60_000 }).toBe('ok')
    await expect.poll(() => page.getByTestId('tool-row').count(), { timeout: 10_000 }).toBeGreaterThan(5)
    const found = async (tool: string) => page.locator(`[data-testid="tool-row"][data-tool="${tool}"]`).getAttribute('data-found')
    await vi.waitFor(async () => {
      expect(await found('python3')).toBe('true')
      expect(await found('iperf3')).toBe('true')
      expect(await found('ip')).toBe('true')
      expect(await page.locator('[data-testid="tool-row"][data-tool="iperf3"] [data-col="version"]').innerText()).toMatch(/^3\.\d+/)
      expect(await found('simple_switch')).toBe('false')
    }, { timeout: 10_000, interval: 200 })
    // A missing tool is listed with what the run needs it for and where it comes from.
    await expect.poll(() => page.locator('[data-testid="missing-tool"][data-tool="simple_switch"]').innerText(), { timeout: 10_000 }).toMatch(/^simple_switch is every switch of the fabric.*Install: p4lang-bmv2 from p4lang's OBS repository home:p4lang/)
    await expect.poll(() => page.getByTestId('host-pinned-key').innerText(), { timeout: 10_000 }).toContain(fp)
    await expect.poll(() => readFileSync(join(home, 'known_hosts'), 'utf8'), { timeout: 10_000 }).toMatch(/^\|1\|/)
    await page.screenshot({ path: join(ARTIFACTS, 'tb-3-checked.png'), fullPage: true })

    // Edit: a traffic host added; the switch host keeps its pinned key.
    await page.getByTestId('edit-testbed').click()
    await page.getByTestId('tb-add-host').click()
    const row = page.getByTestId('tb-host-row').nth(1)
    await row.getByTestId('tb-host-name').fill('gen1')
    await row.getByTestId('tb-host-address').fill('localhost')
    await row.getByTestId('tb-host-port').fill(String(sshd.port))
    await row.getByTestId('tb-host-user').fill(sshd.user)
    await row.getByTestId('tb-host-key').fill(sshd.plainKey)
    await expect.poll(() => row.getByTestId('tb-host-role').inputValue(), { timeout: 10_000 }).toBe('traffic')
    await page.screenshot({ path: join(ARTIFACTS, 'tb-4-edit.png') })
    await page.getByTestId('tb-save').click()
    await expect.poll(() => page.getByTestId('host-row').count(), { timeout: 10_000 }).toBe(2)
    await expect.poll(() => page.getByTestId('host-pinned-key').first().innerText(), { timeout: 10_000 }).toContain(fp)
    await expect.poll(() => page.getByTestId('host-pinned-key').nth(1).innerText(), { timeout: 10_000 }).toMatch(/not pinned yet/)
  }, 180_000)
})

// Mapping a fabric onto a two-host BMv2 testbed in the GUI (`npm start`, Chromium): two network
// namespaces on this machine, each with its own sshd, joined by a veth. The switches of an
// experiment's leaf-spine are placed on the two hosts, the tunnel addresses given, the mapping
// saved; reopening the app shows the same mapping, and the core has stored it.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'
import { startTwoHostLab, type TwoHostLab } from '../helpers/twohost'

const YAML = `name: map-me
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`

describe('mapping a fabric onto a testbed in Chromium', () => {
  let lab: TwoHostLab
  let app: Started
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    lab = await startTwoHostLab('gui')
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-e2e-map-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } })
    page.on('pageerror', (err) => console.error('page error:', err))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
    const left = await lab?.stop()
    expect(left).toEqual({ namespaces: [], links: [] })
  }, 60_000)

  async function openTestbed(): Promise<void> {
    await page.goto(app.url)
    await page.getByTestId('nav-testbeds').click()
    await page.locator('[data-testid="testbed-item"][data-testbed="two"]').click()
    await page.getByTestId('tb-mapping').waitFor({ timeout: 10_000 })
  }

  const hostOf = (sw: string) => page.locator(`[data-testid="map-switch-row"][data-switch="${sw}"] [data-testid="map-host"]`)

  it('places the switches on the two hosts, saves, and shows the same mapping after reopening', async () => {
    const host = (name: string, s: TwoHostLab['a']['sshd']) => ({ name, address: s.host, port: s.port, user: s.user, auth: 'key', keyFile: s.plainKey })
    await contract(app.url, 'testbeds.create', { testbed: { name: 'two', kind: 'bmv2', settings: {}, hosts: [host('hostA', lab.a.sshd), host('hostB', lab.b.sshd)] } })
    await contract(app.url, 'experiments.create', { yaml: YAML })
    await openTestbed()
    await expect.poll(() => page.getByTestId('map-switch-row').count(), { timeout: 15_000 }).toBe(4)
    // Only leaf0 placed, from the keyboard (the host list is a select: ArrowDown picks the first
    // host): the preview names the switches on no host.
    await hostOf('leaf0').focus()
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => hostOf('leaf0').inputValue()).toBe('hostA')
    await expect.poll(() => page.getByTestId('map-problems').innerText(), { timeout: 10_000 }).toContain('switches leaf1, spine0, spine1 are on no host')
    await hostOf('spine0').selectOption('hostA')
    await hostOf('leaf1').selectOption('hostB')
    await hostOf('spine1').selectOption('hostB')
    await page.getByTestId('map-tunnel-hostA').fill(lab.a.underlay)
    await page.getByTestId('map-tunnel-hostB').fill(lab.b.underlay)
    await page.getByTestId('map-tunnel-hostB').press('Tab')
    await expect.poll(() => page.getByTestId('map-lines').innerText(), { timeout: 10_000 }).toContain(`hostB: switches leaf1, spine1 in namespace <run>s1; fabric hosts h1 (<run>h1); 2 veth pairs, 2 VXLAN tunnels from ${lab.b.underlay}`)
    // Saved from the keyboard: Tab from the last tunnel field does not reach Save, so focus it and press Enter.
    await page.getByTestId('map-save').focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByTestId('map-yaml').innerText(), { timeout: 10_000 }).toContain(`tunnelAddress: ${lab.b.underlay}`)
    await expect.poll(() => page.getByTestId('map-summary').innerText(), { timeout: 10_000 }).toBe('hostA: leaf0, spine0 · hostB: leaf1, spine1')
    await page.screenshot({ path: join(ARTIFACTS, 'tb-map-1-saved.png'), fullPage: true })

    // Reopening the app: the same mapping, from the database.
    await page.close()
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } })
    await openTestbed()
    await expect.poll(() => hostOf('spine1').inputValue(), { timeout: 15_000 }).toBe('hostB')
    expect(await hostOf('leaf0').inputValue()).toBe('hostA')
    expect(await hostOf('spine0').inputValue()).toBe('hostA')
    expect(await hostOf('leaf1').inputValue()).toBe('hostB')
    expect(await page.getByTestId('map-tunnel-hostA').inputValue()).toBe(lab.a.underlay)
    await expect.poll(() => page.getByTestId('map-summary').innerText(), { timeout: 10_000 }).toBe('hostA: leaf0, spine0 · hostB: leaf1, spine1')
    await page.screenshot({ path: join(ARTIFACTS, 'tb-map-2-reopened.png'), fullPage: true })
    const t = await contract(app.url, 'testbeds.get', { name: 'two' })
    expect(t.mapping).toEqual({
      kind: 'bmv2',
      tunnel: 'vxlan',
      vniBase: 4000,
      udpPort: 4789,
      hosts: [
        { host: 'hostA', switches: ['leaf0', 'spine0'], tunnelAddress: lab.a.underlay },
        { host: 'hostB', switches: ['leaf1', 'spine1'], tunnelAddress: lab.b.underlay },
      ],
    })
  }, 180_000)
})

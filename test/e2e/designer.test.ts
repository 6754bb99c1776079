// The testbed designer's acceptance test, as a user does it in Chromium, through the UI only:
// an experiment whose fabric is the k=4 fat-tree template, one spine link failed at 5 ms, a
// parallel link added, a node moved, saved; a BMv2 testbed of two hosts (two network namespaces,
// each with its own sshd, joined by a veth) added in the form, their host keys trusted through
// Check's dialog, the fabric's switches placed on both hosts and saved. The app is then stopped
// and started again on the same database and data folder: the same graph (nodes, links with the
// parallel one, the failure), the same positions and the same mapping. The YAML the editor
// exports runs on the simulator with `p4lab run` to a done run with every flow finished.
// Screenshots of each step: test-artifacts/e2e/designer-*.png.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { p4lab } from '../helpers/cli'
import { startApp, type Started } from '../helpers/start'
import { links, nodeAt, nodes, normalise, selected } from '../helpers/topo-canvas'
import { startTwoHostLab, type TwoHostLab } from '../helpers/twohost'

const YAML = `# The designer's acceptance experiment.
name: designer-e2e
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp] # one scheme keeps the run short
workload: { kind: web-search, load: 0.3, flows: 60 }
seeds: [1]
stopAfter: 2s
`

const fingerprint = (s: TwoHostLab['a']['sshd']) => execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(s.dir, 'host_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1]

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `designer-${name}.png`) })

describe('the testbed designer, end to end in Chromium', () => {
  let home: string
  let lab: TwoHostLab
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    lab = await startTwoHostLab('dsg')
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-designer-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1500, height: 1000 }, acceptDownloads: true })
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
    const left = await lab?.stop()
    expect(left).toEqual({ namespaces: [], links: [] })
  }, 60_000)

  const hostOf = (sw: string) => page.locator(`[data-testid="map-switch-row"][data-switch="${sw}"] [data-testid="map-host"]`)
  async function openTestbed(): Promise<void> {
    await page.getByTestId('nav-testbeds').click()
    await page.locator('[data-testid="testbed-item"][data-testbed="two"]').click()
    await page.getByTestId('tb-mapping').waitFor({ timeout: 10_000 })
  }

  it('designs a fabric, maps it on two hosts, keeps it all across a restart, and runs the exported YAML', async () => {
    // 1. The experiment, and its fabric from the k-ary fat-tree template with k = 4.
    await page.goto(app.url)
    await page.getByTestId('new-experiment').click()
    await page.getByTestId('template-quickstart').click()
    await page.getByTestId('yaml-editor').fill(YAML)
    await expect.poll(() => page.getByTestId('validation-status').innerText(), { timeout: 15_000 }).toMatch(/^\W*valid\W+1 run/)
    await page.getByTestId('save-experiment').click()
    await page.getByTestId('tab-topology').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(8)
    await page.getByTestId('topo-template').selectOption('fat-tree')
    await page.getByTestId('topo-param-k').fill('4')
    await page.getByTestId('topo-generate').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(36)
    expect(Object.keys(await links(page))).toHaveLength(48)
    await shot(page, '1-fat-tree')

    // 2. A spine (core) link fails at 5 ms.
    await page.getByTestId('topo-link-list').selectOption('core0-agg0')
    await page.getByTestId('topo-fail-at').fill('5ms')
    await page.getByTestId('topo-fail-apply').click()
    await expect.poll(async () => (await links(page))['core0-agg0'], { timeout: 10_000 }).toContain('failing')
    // The graph is redrawn when the new text's fabric comes back: wait for it before clicking nodes.
    await expect.poll(() => page.getByTestId('topo-status').innerText(), { timeout: 15_000 }).toContain('valid')

    // 3. A parallel link beside it: click core0, Shift+click agg0, Link.
    const core0 = await nodeAt(page, 'core0')
    await page.mouse.click(core0.x, core0.y)
    await page.keyboard.down('Shift')
    const agg0 = await nodeAt(page, 'agg0')
    await page.mouse.click(agg0.x, agg0.y)
    await page.keyboard.up('Shift')
    await expect.poll(async () => (await selected(page)).sort()).toEqual(['agg0', 'core0'])
    await page.getByTestId('topo-link').click()
    await expect.poll(async () => Object.keys(await links(page)), { timeout: 10_000 }).toContain('core0-agg0/2')
    expect((await links(page))['core0-agg0']).toContain('failing')
    await expect.poll(() => page.getByTestId('topo-status').innerText(), { timeout: 15_000 }).toContain('valid')

    // 4. Double-click a node: its details beside the graph, the keyboard still on the graph.
    const agg3 = await nodeAt(page, 'agg3')
    await page.mouse.dblclick(agg3.x, agg3.y)
    await expect.poll(() => page.getByTestId('topo-node-info').locator('h3').innerText(), { timeout: 10_000 }).toBe('agg3')
    expect(await page.locator(':focus').getAttribute('data-testid')).toBe('topo-canvas')

    // 5. Move a node by hand, and save.
    const core3 = await nodeAt(page, 'core3')
    await page.mouse.move(core3.x, core3.y)
    await page.mouse.down()
    await page.mouse.move(core3.x + 70, core3.y - 45, { steps: 6 })
    await page.mouse.up()
    await expect.poll(async () => (await contract(app.url, 'experiments.layout', { id: 1 })).positions.core3, { timeout: 10_000 }).toBeDefined()
    await page.getByTestId('topo-fit').click()
    await expect.poll(() => page.getByTestId('topo-status').innerText(), { timeout: 15_000 }).toContain('valid')
    await page.getByTestId('topo-save').click()
    // Saved: the button is back to Save, disabled until the next change.
    await expect.poll(() => page.getByTestId('topo-save').innerText(), { timeout: 15_000 }).toBe('Save')
    await expect.poll(() => page.getByTestId('topo-save').isDisabled(), { timeout: 15_000 }).toBe(true)
    await shot(page, '2-edited-saved')
    const before = { nodes: await nodes(page), links: await links(page) }
    expect(before.links['core0-agg0/2']).not.toContain('failing')

    // 6. The testbed: two hosts typed as user@host:port, as a user copies them from a terminal.
    await page.getByTestId('nav-testbeds').click()
    await page.getByTestId('add-testbed').click()
    await page.getByTestId('tb-name').fill('two')
    await page.getByTestId('tb-kind-bmv2').click()
    await page.getByTestId('tb-add-host').click()
    const rows = page.getByTestId('tb-host-row')
    for (const [i, name, s] of [
      [0, 'hostA', lab.a.sshd],
      [1, 'hostB', lab.b.sshd],
    ] as const) {
      const row = rows.nth(i)
      await row.getByTestId('tb-host-name').fill(name)
      await row.getByTestId('tb-host-address').fill(`${s.user}@${s.host}:${s.port}`)
      await row.getByTestId('tb-host-address').blur()
      await expect.poll(() => row.getByTestId('tb-host-port').inputValue()).toBe(String(s.port))
      expect(await row.getByTestId('tb-host-address').inputValue()).toBe(s.host)
      expect(await row.getByTestId('tb-host-user').inputValue()).toBe(s.user)
      await row.getByTestId('tb-host-role').selectOption('switch-host')
      await row.getByTestId('tb-host-key').fill(s.plainKey)
    }
    await shot(page, '3-testbed-form')
    await page.getByTestId('tb-save').click()
    await expect.poll(() => page.getByTestId('host-row').count(), { timeout: 10_000 }).toBe(2)

    // 7. Check: each host's key is unknown; the dialog shows it and the user trusts it.
    await page.getByTestId('check-testbed').click()
    for (const [name, s] of [
      ['hostA', lab.a.sshd],
      ['hostB', lab.b.sshd],
    ] as const) {
      await expect.poll(() => page.getByTestId('hostkey-host').innerText(), { timeout: 60_000 }).toBe(name)
      expect(await page.getByTestId('hostkey-fingerprint').innerText()).toBe(fingerprint(s))
      if (name === 'hostA') await shot(page, '4-hostkey-dialog')
      await page.getByTestId('hostkey-trust').click()
    }
    // The last Check (after the second key) has ended: no key left to confirm, the button free again.
    const statuses = () => page.getByTestId('check-host').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))
    await expect.poll(async () => (await statuses()).includes('unknown-key') || (await page.getByTestId('check-testbed').innerText()) !== 'Check', { timeout: 120_000 }).toBe(false)
    // Both keys pinned (the tools Check looks for are not the point here: on a loaded machine its
    // probes may go unanswered, which it reports as an error, not as ready).
    await expect.poll(() => page.getByTestId('host-pinned-key').allInnerTexts(), { timeout: 10_000 }).toEqual([
      expect.stringContaining(fingerprint(lab.a.sshd)),
      expect.stringContaining(fingerprint(lab.b.sshd)),
    ])

    // 8. The fabric's switches over both hosts: core0 on hostB by hand, the rest spread; tunnels from the underlay.
    await page.getByTestId('map-experiment').selectOption({ label: 'designer-e2e' })
    await expect.poll(() => page.getByTestId('map-switch-row').count(), { timeout: 15_000 }).toBe(20)
    await hostOf('core0').selectOption('hostB')
    await page.getByTestId('map-spread').click()
    await page.getByTestId('map-tunnel-hostA').fill(lab.a.underlay)
    await page.getByTestId('map-tunnel-hostB').fill(lab.b.underlay)
    await page.getByTestId('map-tunnel-hostB').press('Tab')
    await expect.poll(() => page.getByTestId('map-lines').innerText(), { timeout: 15_000 }).toContain(`VXLAN tunnels from ${lab.b.underlay}`)
    await page.getByTestId('map-save').click()
    await expect.poll(() => page.getByTestId('map-yaml').innerText(), { timeout: 10_000 }).toContain(`tunnelAddress: ${lab.b.underlay}`)
    const summary = await page.getByTestId('map-summary').innerText()
    expect(summary).toMatch(/^hostA: .+ · hostB: .*\bcore0\b/)
    const mapping = (await contract(app.url, 'testbeds.get', { name: 'two' })).mapping
    expect(mapping.hosts.map((h: { host: string }) => h.host)).toEqual(['hostA', 'hostB'])
    expect(mapping.hosts[0].switches.length + mapping.hosts[1].switches.length).toBe(20)
    expect(Math.min(mapping.hosts[0].switches.length, mapping.hosts[1].switches.length)).toBeGreaterThan(5)
    await page.getByTestId('tb-mapping').scrollIntoViewIfNeeded()
    await shot(page, '5-mapped')

    // 9. Reopening the app: a new server on the same database and data folder, a new page.
    await app.stop()
    app = await startApp([], { P4LAB_HOME: home })
    await page.close()
    page = await browser.newPage({ viewport: { width: 1500, height: 1000 }, acceptDownloads: true })
    page.on('pageerror', (err) => errors.push(String(err)))
    await page.goto(app.url)
    await page.getByTestId('experiment-item').filter({ hasText: 'designer-e2e' }).click()
    await page.getByTestId('tab-topology').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(36)
    await page.getByTestId('topo-fit').click()
    const after = { nodes: await nodes(page), links: await links(page) }
    expect(after.links).toEqual(before.links)
    const a = normalise(after.nodes)
    for (const [name, [x, y]] of Object.entries(normalise(before.nodes))) {
      expect(Math.abs(a[name][0] - x), name).toBeLessThan(0.01)
      expect(Math.abs(a[name][1] - y), name).toBeLessThan(0.01)
    }
    await shot(page, '6-reopened-graph')
    await openTestbed()
    await expect.poll(() => page.getByTestId('map-summary').innerText(), { timeout: 15_000 }).toBe(summary)
    await page.getByTestId('map-experiment').selectOption({ label: 'designer-e2e' })
    await expect.poll(() => hostOf('core0').inputValue(), { timeout: 15_000 }).toBe('hostB')
    for (const h of mapping.hosts as Array<{ host: string; switches: string[] }>) for (const s of h.switches) expect(await hostOf(s).inputValue(), s).toBe(h.host)
    expect(await page.getByTestId('map-tunnel-hostA').inputValue()).toBe(lab.a.underlay)
    expect((await contract(app.url, 'testbeds.get', { name: 'two' })).mapping).toEqual(mapping)
    await page.getByTestId('tb-mapping').scrollIntoViewIfNeeded()
    await shot(page, '7-reopened-mapping')

    // 10. The editor's Export YAML, run on the simulator by the CLI in a fresh home.
    await page.getByTestId('experiment-item').filter({ hasText: 'designer-e2e' }).click()
    await page.getByTestId('tab-topology').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 15_000 }).toBe(36)
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByTestId('topo-export').click()])
    expect(download.suggestedFilename()).toBe('designer-e2e.yaml')
    const work = mkdtempSync(join(tmpdir(), 'p4lab-e2e-designer-run-'))
    const file = join(work, download.suggestedFilename())
    await download.saveAs(file)
    const yaml = readFileSync(file, 'utf8')
    expect(yaml).toContain("# The designer's acceptance experiment.")
    expect(yaml).toContain('schemes: [ecmp] # one scheme keeps the run short')
    expect(yaml).toMatch(/failures:\n {2}- \{ link: core0-agg0, at: 5ms \}/)
    expect(yaml).toContain('- { a: core0, b: agg0 }\n')
    const r = p4lab(['run', file, '--json'], work, { timeoutMs: 360_000 })
    expect(r.code, r.stderr).toBe(0)
    const runs = JSON.parse(r.stdout).runs as Array<{ status: string; flows: number; finished: number }>
    expect(runs).toHaveLength(1)
    expect(runs[0].status).toBe('done')
    expect(runs[0].flows).toBe(60)
    expect(runs[0].finished).toBe(60)
    expect(errors).toEqual([])
  }, 600_000)
})

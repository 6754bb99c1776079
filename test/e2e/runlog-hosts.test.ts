// The run log of a run on a fabric spread over two hosts (helpers/twohost.ts, stand-in switches:
// there is no BMv2 here), in Chromium: the Log tab has a line per host with its latest step, and
// hostB's failed step is there with why. hostB's simple_switch does not start, so the run fails at
// deploy on hostB; both hosts are torn down.
import { createHash } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, launchChromium, contract } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'
import { startTwoHostLab, type TwoHostLab } from '../helpers/twohost'

const YAML = `name: two-host-log
testbed: two
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 4 }
seeds: [1]
`

/** OpenSSH's SHA256 fingerprint of a public key line. */
function fingerprint(publicLine: string): string {
  return 'SHA256:' + createHash('sha256').update(Buffer.from(publicLine.split(' ')[1], 'base64')).digest('base64').replace(/=+$/, '')
}

describe('the run log of a run over two hosts, in Chromium', () => {
  let lab: TwoHostLab
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    const failing = `#!/bin/sh
if [ "$1" = "--version" ]; then PATH=\${PATH#*:} exec simple_switch --version; fi
echo "simple_switch: cannot open the device (a p4lab test: hostB's switch does not start)" >&2
exit 1
`
    lab = await startTwoHostLab('gul', { standIn: true, binB: { simple_switch: failing } })
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-e2e-hosts-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } })
    page.on('pageerror', (err) => errors.push(String(err)))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
    const left = await lab?.stop()
    expect(left).toEqual({ namespaces: [], links: [] })
  }, 60_000)

  it('shows a line per host: hostA torn down, hostB with its failed deploy step and why', async () => {
    const host = (name: string, s: TwoHostLab['a']['sshd']) => ({ name, address: s.host, port: s.port, user: s.user, auth: 'key', keyFile: s.plainKey })
    await contract(app.url, 'testbeds.create', {
      testbed: { name: 'two', kind: 'bmv2', settings: { bringUp: 'netns', calibrate: false }, hosts: [host('hostA', lab.a.sshd), host('hostB', lab.b.sshd)] },
    })
    for (const [name, s] of [
      ['hostA', lab.a.sshd],
      ['hostB', lab.b.sshd],
    ] as const) {
      await contract(app.url, 'testbeds.trust', { testbed: 'two', host: name, fingerprint: fingerprint(s.hostPublicLine()) })
    }
    await contract(app.url, 'testbeds.setMapping', {
      name: 'two',
      yaml: `mapping:
  kind: bmv2
  hosts:
    - { host: hostA, switches: [leaf0, spine0], tunnelAddress: ${lab.a.underlay} }
    - { host: hostB, switches: [leaf1, spine1], tunnelAddress: ${lab.b.underlay} }
`,
    })
    const exp = await contract(app.url, 'experiments.create', { yaml: YAML })

    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${exp.id}"]`).click()
    await expect.poll(() => page.getByTestId('run-experiment').isEnabled(), { timeout: 10_000 }).toBe(true)
    await page.getByTestId('run-experiment').click()
    const row = page.getByTestId('run-row').first()
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 180_000, interval: 500 }).toBe('failed')
    const runId = Number(await row.getAttribute('data-run-id'))
    const run = await contract(app.url, 'runs.get', { id: runId })
    expect(run.error).toMatch(/^deploy failed on hostB: /)

    await page.getByTestId('tab-log').click()
    await expect.poll(() => page.getByTestId('runlog').getAttribute('data-loaded-run-id'), { timeout: 10_000 }).toBe(String(runId))
    const hosts = page.getByTestId('runlog-host')
    await expect.poll(() => hosts.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-host')}:${e.getAttribute('data-state')}`).sort()), { timeout: 10_000 }).toEqual([
      'hostA:done',
      'hostB:failed',
    ])
    // The latest step of each is its teardown; hostB's failed deploy step stays shown, with why.
    const a = page.locator('[data-testid="runlog-host"][data-host="hostA"]')
    const b = page.locator('[data-testid="runlog-host"][data-host="hostB"]')
    expect(await a.innerText()).toContain('hostA teardown: clean done')
    const bText = await b.innerText()
    expect(bText).toContain('hostB teardown: clean done')
    expect(bText).toContain("deploy switches: simple_switch for leaf1 exited right after it started: simple_switch: cannot open the device (a p4lab test: hostB's switch does not start)")
    // host.progress has its own section, not the generic events list.
    expect(await page.locator('[data-testid="runlog-event"][data-kind="host.progress"]').count()).toBe(0)
    await page.getByTestId('runlog-hosts').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'runlog-hosts.png') })
    expect(errors).toEqual([])
  }, 300_000)
})

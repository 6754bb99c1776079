// A Slurm sweep as a user starts it in the GUI: `npm start` (web mode), Chromium, a real
// one-node Slurm cluster behind the test sshd. Save the cluster (a passphrase-protected key),
// Check it and confirm its host key, then Run on Slurm from the experiment: the run matrix
// shows each cell's Slurm state and goes from pending to done, across the app being closed
// and started again mid-sweep. Then a second sweep cancelled from the GUI.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startSlurm, type SlurmCluster } from '../helpers/slurm'
import { startSshd, type Sshd } from '../helpers/sshd'
import { startApp, type Started } from '../helpers/start'

const YAML = `name: slurm-gui
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.5], flows: 40 }
seeds: [1, 2]
`

describe('a Slurm sweep from the GUI', () => {
  let cluster: SlurmCluster
  let sshd: Sshd
  let home: string
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    cluster = await startSlurm()
    sshd = await startSshd({ config: [`SetEnv SLURM_CONF=${cluster.conf}`] })
    home = mkdtempSync(join(tmpdir(), 'p4lab-e2e-slurm-'))
    app = await startApp([], { P4LAB_HOME: home })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
    page.on('pageerror', (err) => errors.push(String(err)))
    page.on('dialog', (d) => void d.accept())
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
    await sshd?.stop()
    await cluster?.stop()
    if (home) rmSync(home, { recursive: true, force: true })
  })

  const cells = () => page.getByTestId('matrix-cell')
  const attrs = (name: string) => cells().evaluateAll((els, n) => els.map((e) => e.getAttribute(n) ?? ''), name)

  it('saves and checks a cluster, runs the sweep on it, follows it to done across an app restart, and cancels another', async () => {
    // Made before the page loads: the sidebar lists what is there when it opens.
    const exp = await contract(app.url, 'experiments.create', { yaml: YAML })
    await page.goto(app.url)
    await page.getByTestId('nav-clusters').click()
    await page.getByTestId('add-cluster').click()
    await page.getByTestId('cl-name').fill('lab')
    await page.getByTestId('cl-user').fill(sshd.user)
    await page.getByTestId('cl-host').fill(sshd.host)
    await page.getByTestId('cl-port').fill(String(sshd.port))
    await page.getByTestId('cl-key').fill(sshd.secretKey)
    await page.getByTestId('cl-passphrase').fill(sshd.keyPassphrase)
    await page.getByTestId('cl-work').fill(join(cluster.work, 'gui'))
    await page.getByTestId('cl-partition').fill(cluster.partition)
    // A bad time limit is refused, naming the field; nothing is saved.
    await page.getByTestId('cl-time').fill('soon')
    await page.getByTestId('cl-save').click()
    await expect.poll(() => page.getByTestId('cl-form-error').innerText(), { timeout: 10_000 }).toMatch(/"soon" is not a Slurm time limit.*cluster\.time/)
    await page.getByTestId('cl-time').fill('10')
    await page.screenshot({ path: join(ARTIFACTS, 'slurm-1-cluster-form.png') })
    await page.getByTestId('cl-save').click()
    await expect.poll(() => page.getByTestId('cluster-item').count(), { timeout: 10_000 }).toBe(1)

    // Check: first contact shows the login node's key; trusting it pins it and checks again.
    await page.getByTestId('check-cluster').click()
    await page.getByTestId('hostkey-dialog').waitFor({ timeout: 30_000 })
    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(sshd.dir, 'host_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1]
    await expect.poll(() => page.getByTestId('hostkey-fingerprint').innerText(), { timeout: 10_000 }).toBe(fp)
    await page.getByTestId('hostkey-trust').click()
    await expect.poll(() => page.getByTestId('cluster-check').getAttribute('data-ready'), { timeout: 60_000 }).toBe('true')
    expect(await page.getByTestId('cluster-check-item').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-item')}=${e.getAttribute('data-ok')}`))).toEqual([
      'sbatch=true', 'squeue=true', 'sacct=true', 'scancel=true', 'node >= 20=true', 'shared work folder=true',
    ])
    await page.screenshot({ path: join(ARTIFACTS, 'slurm-2-cluster-checked.png') })

    // The experiment, and Run on Slurm with one task at a time: the matrix starts pending.
    await page.getByTestId('nav-experiments').click()
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${exp.id}"]`).click()
    await page.getByTestId('run-on-slurm').click()
    await expect.poll(() => page.getByTestId('slurm-partition').inputValue(), { timeout: 10_000 }).toBe(cluster.partition)
    await page.getByTestId('slurm-max-parallel').fill('1')
    await page.screenshot({ path: join(ARTIFACTS, 'slurm-3-run-dialog.png') })
    await page.getByTestId('slurm-submit').click()
    await expect.poll(() => cells().count(), { timeout: 30_000 }).toBe(8)
    await expect.poll(async () => (await attrs('data-slurm')).filter((s) => s === 'PENDING').length, { timeout: 30_000, interval: 200 }).toBeGreaterThan(0)
    // The cells still pending in Slurm are queued runs, not done ones.
    const seen = await cells().evaluateAll((els) => els.map((e) => `${e.getAttribute('data-slurm')}:${e.getAttribute('data-status')}`))
    for (const c of seen) if (c.startsWith('PENDING:')) expect(c).toBe('PENDING:queued')
    await page.screenshot({ path: join(ARTIFACTS, 'slurm-4-pending.png') })
    await expect.poll(async () => (await attrs('data-status')).filter((s) => s === 'done').length, { timeout: 120_000, interval: 200 }).toBeGreaterThan(0)

    // The app closes mid-sweep; started again on the same data, it picks the job up from the store.
    const statusesAtClose = await attrs('data-status')
    expect(statusesAtClose.filter((s) => s === 'done').length).toBeLessThan(8)
    await app.stop()
    app = await startApp([], { P4LAB_HOME: home })
    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${exp.id}"]`).click()
    await expect.poll(() => cells().count(), { timeout: 30_000 }).toBe(8)
    await expect.poll(async () => (await attrs('data-status')).join(','), { timeout: 240_000, interval: 500 }).toBe(Array(8).fill('done').join(','))
    await expect.poll(async () => (await attrs('data-slurm')).join(','), { timeout: 10_000 }).toBe(Array(8).fill('COMPLETED').join(','))
    await expect.poll(() => page.getByTestId('slurm-job').getAttribute('data-ended'), { timeout: 10_000 }).toBe('true')
    await expect.poll(() => page.getByTestId('sweep-matrix').getAttribute('data-done'), { timeout: 10_000 }).toBe('8')
    await page.screenshot({ path: join(ARTIFACTS, 'slurm-5-done.png'), fullPage: true })

    // A second sweep, cancelled from the GUI: nothing left in squeue, the cells not done show cancelled.
    await page.getByTestId('run-on-slurm').click()
    await page.getByTestId('slurm-max-parallel').fill('1')
    await page.getByTestId('slurm-submit').click()
    await expect.poll(() => page.getByTestId('slurm-cancel').count(), { timeout: 30_000 }).toBe(1)
    const jobId = (await contract(app.url, 'slurm.jobs', { experimentId: exp.id })).at(-1).jobId as string
    await page.getByTestId('slurm-cancel').click()
    await expect.poll(() => page.locator('[data-testid="slurm-job"][data-ended="true"]').count(), { timeout: 120_000 }).toBe(1)
    expect(cluster.queued().filter((id) => id.startsWith(`${jobId}_`))).toEqual([])
    await expect.poll(async () => (await attrs('data-slurm')).filter((s) => s === 'CANCELLED').length, { timeout: 10_000 }).toBeGreaterThan(0)
    // The matrix refetches a moment after the last run changes: every cell ends done or cancelled.
    await expect.poll(async () => (await attrs('data-status')).filter((s) => s !== 'done' && s !== 'cancelled'), { timeout: 10_000 }).toEqual([])
    await page.screenshot({ path: join(ARTIFACTS, 'slurm-6-cancelled.png'), fullPage: true })
    expect(errors).toEqual([])
  }, 600_000)
})

// Where the topology editor puts nodes, as a user meets it on a 1024 px and a 1440 px window: a
// host added with H on a leaf-spine fabric is linked to its leaf with the keyboard alone (Shift+↑
// reaches the leaf though the new host sits at the far end of the host row); adding a 22nd host
// and linking it moves no node already drawn; a 64-host fabric fits at a zoom its labels can be
// read at, each ToR's hosts in a block under it (Shift+↑ from a host in the block's last row
// reaches the ToR), 32 leaves of 2 hosts in bands of leaves; a 16-host one keeps its hosts in one
// row; and positions a user saved are drawn as saved. Screenshots in
// test-artifacts/e2e/topology-layout-*.png.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARTIFACTS, contract, launchChromium } from '../helpers/browser'
import { startApp, type Started } from '../helpers/start'
import { canvas, experiment, links, nodeAt, nodes, normalise, selected, type Nodes } from '../helpers/topo-canvas'

/** 21 hosts, the most a row holds: the 22nd used to lay every node out again, in blocks. */
const HOSTS_21 = experiment('layout-leaf-spine-21', '{ kind: leaf-spine, leaves: 3, spines: 2, hostsPerLeaf: 7, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }')
const SMALL = experiment('layout-leaf-spine-16', '{ kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }')
const HOSTS_64 = [
  {
    key: 'three-tier',
    yaml: experiment('layout-three-tier-64', '{ kind: three-tier, pods: 2, torsPerPod: 4, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }'),
    nodes: 64 + 8 + 4 + 2,
    tor: /^tor\d+$/,
  },
  {
    key: 'leaf-spine',
    yaml: experiment('layout-leaf-spine-64', '{ kind: leaf-spine, leaves: 8, spines: 4, hostsPerLeaf: 8, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }'),
    nodes: 64 + 8 + 4,
    tor: /^leaf\d+$/,
  },
  {
    // Flat and wide: was one row of 64 hosts, drawn at a zoom of 0.1.
    key: '32-leaf',
    yaml: experiment('layout-leaf-spine-32-leaves', '{ kind: leaf-spine, leaves: 32, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 20Gbps, linkDelay: 1us, queuePackets: 100 }'),
    nodes: 64 + 32 + 2,
    tor: /^leaf\d+$/,
  },
]
const WIDTHS = [
  { width: 1024, height: 768 },
  { width: 1440, height: 900 },
]
/** The zoom at which a host's 9.5 px label is still made out (about 3 px). */
const READABLE = 0.3

/**
 * The nodes of `before` that `after` draws elsewhere, beyond one zoom and pan for all (the view
 * fits the graph again when a node is added): 2 px allowed for the rounding of both.
 */
function movedFrom(before: Nodes, after: Nodes): string[] {
  const names = Object.keys(before)
  const [a, b] = [names.reduce((m, n) => (before[n][0] < before[m][0] ? n : m)), names.reduce((m, n) => (before[n][0] > before[m][0] ? n : m))]
  const scale = (after[b][0] - after[a][0]) / (before[b][0] - before[a][0])
  const [tx, ty] = [after[a][0] - scale * before[a][0], after[a][1] - scale * before[a][1]]
  return names.filter((n) => !after[n] || Math.abs(after[n][0] - (scale * before[n][0] + tx)) > 2 || Math.abs(after[n][1] - (scale * before[n][1] + ty)) > 2)
}

describe("the topology editor's layout in Chromium", () => {
  let app: Started
  let browser: Browser
  let page: Page
  const errors: string[] = []
  const ids: Record<string, number> = {}

  beforeAll(async () => {
    app = await startApp([], { P4LAB_HOME: mkdtempSync(join(tmpdir(), 'p4lab-e2e-layout-')) })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: WIDTHS[0] })
    page.on('pageerror', (err) => errors.push(String(err)))
    for (const [key, yaml] of [['small', SMALL], ['21', HOSTS_21], ...HOSTS_64.map((f) => [f.key, f.yaml])]) ids[key] = (await contract(app.url, 'experiments.create', { yaml })).id
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await app?.stop()
  })

  async function open(key: string, count: number): Promise<void> {
    await page.goto(app.url)
    await page.locator(`[data-testid="experiment-item"][data-experiment-id="${ids[key]}"]`).click()
    await page.getByTestId('tab-topology').click()
    await expect.poll(async () => Object.keys(await nodes(page)).length, { timeout: 20_000 }).toBe(count)
    await canvas(page).scrollIntoViewIfNeeded()
  }
  const zoom = async () => Number(await canvas(page).getAttribute('data-zoom'))

  it('links a host added with H to the leaf above it with the keyboard alone', async () => {
    await page.setViewportSize(WIDTHS[0])
    await open('small', 16 + 4 + 2)
    const before = await nodes(page)
    // Every host in one row, as a small fabric always was.
    expect(new Set(Object.entries(before).filter(([n]) => /^h\d+$/.test(n)).map(([, p]) => p[1])).size).toBe(1)
    await canvas(page).focus()
    await page.keyboard.press('h')
    await expect.poll(() => selected(page)).toEqual(['h16'])
    const at = (await nodes(page)).h16
    expect(at[0], 'the new host is right of every leaf').toBeGreaterThan(Math.max(...['leaf0', 'leaf1', 'leaf2', 'leaf3'].map((l) => before[l][0])))
    await page.keyboard.press('Shift+ArrowUp')
    await expect.poll(async () => (await selected(page)).sort()).toEqual(['h16', 'leaf3'])
    await page.keyboard.press('l')
    await expect.poll(async () => Object.keys(await links(page))).toContain('leaf3-h16')
    await page.screenshot({ path: join(ARTIFACTS, 'topology-layout-keyboard-link-1024.png') })
    expect(errors).toEqual([])
  }, 60_000)

  it('adds a host to a 21-host fabric and links it without moving any node already drawn', async () => {
    await page.setViewportSize(WIDTHS[0])
    await open('21', 21 + 3 + 2)
    const before = await nodes(page)
    await canvas(page).focus()
    await page.keyboard.press('h')
    await expect.poll(() => selected(page)).toEqual(['h21'])
    await expect.poll(async () => Object.keys(await nodes(page)).length).toBe(27)
    const added = await nodes(page)
    // The view fits the graph again (one zoom and pan for all); no node moves on it.
    expect(movedFrom(before, added), 'nodes moved by adding h21').toEqual([])
    // The new host at the end of the host row.
    const hosts = Object.keys(before).filter((n) => /^h\d+$/.test(n))
    expect(added.h21[1]).toBe(added.h0[1])
    expect(added.h21[0]).toBeGreaterThan(Math.max(...hosts.map((h) => added[h][0])))
    await page.screenshot({ path: join(ARTIFACTS, 'topology-layout-21-add-host-1024.png') })
    // Linked from the keyboard to the leaf above it: still nothing moves.
    await page.keyboard.press('Shift+ArrowUp')
    await expect.poll(async () => (await selected(page)).sort()).toEqual(['h21', 'leaf2'])
    await page.keyboard.press('l')
    await expect.poll(async () => Object.keys(await links(page))).toContain('leaf2-h21')
    expect(movedFrom(added, await nodes(page)), 'nodes moved by linking h21').toEqual([])
    // R lays the 22 hosts out by tier: in a block under each leaf.
    await page.keyboard.press('r')
    await expect.poll(async () => new Set(Object.entries(await nodes(page)).filter(([n]) => /^h\d+$/.test(n)).map(([, p]) => p[1])).size).toBeGreaterThan(1)
    expect(errors).toEqual([])
  }, 60_000)

  for (const f of HOSTS_64) {
    it(`fits a 64-host ${f.key} fabric at a readable zoom, each ToR's hosts under it`, async () => {
      for (const size of WIDTHS) {
        await page.setViewportSize(size)
        await open(f.key, f.nodes)
        await page.getByTestId('topo-fit').click()
        await expect.poll(zoom, { timeout: 10_000 }).toBeGreaterThanOrEqual(READABLE)
        // Whole on its canvas.
        const [x1, y1, x2, y2, w, h] = JSON.parse((await canvas(page).getAttribute('data-box'))!) as number[]
        expect([x1 >= 0, y1 >= 0, x2 <= w, y2 <= h], `drawing ${x1},${y1}–${x2},${y2} on ${w}×${h}`).toEqual([true, true, true, true])
        await page.screenshot({ path: join(ARTIFACTS, `topology-layout-64-${f.key}-${size.width}.png`) })

        // Each host is under its own ToR: nearer it across than any other ToR, and below it.
        const at = await nodes(page)
        const tors = Object.keys(at).filter((n) => f.tor.test(n))
        const own = new Map(Object.keys(await links(page)).flatMap((l) => {
          const m = /^(\w+)-(h\d+)$/.exec(l)
          return m ? [[m[2], m[1]] as const] : []
        }))
        expect(own.size).toBe(64)
        const misplaced = [...own].filter(([host, tor]) => {
          // The ToRs of the band above the host (a wide fabric's ToRs wrap into several).
          const bandY = Math.max(...tors.map((t) => at[t][1]).filter((y) => y < at[host][1]))
          const band = tors.filter((t) => at[t][1] === bandY)
          const nearest = band.reduce((a, b) => (Math.abs(at[b][0] - at[host][0]) < Math.abs(at[a][0] - at[host][0]) ? b : a))
          return nearest !== tor
        })
        expect(misplaced.map(([host, tor]) => `${host} (of ${tor})`), 'hosts not under their ToR').toEqual([])

        // From a host in the last row of its block, Shift+↑ adds its ToR, not the host above it.
        const block = [...own].filter(([, tor]) => tor === tors[0]).map(([host]) => host)
        const last = block.reduce((a, b) => (at[b][1] > at[a][1] ? b : a))
        const p = await nodeAt(page, last)
        await page.mouse.click(p.x, p.y)
        await expect.poll(() => selected(page)).toEqual([last])
        await page.keyboard.press('Shift+ArrowUp')
        await expect.poll(() => selected(page)).toEqual([last, tors[0]])
      }
      expect(errors).toEqual([])
    }, 90_000)
  }

  it('draws a layout the user saved as saved', async () => {
    // Every node where an older editor put it: all 64 hosts in one row.
    const f = HOSTS_64[0]
    await page.setViewportSize(WIDTHS[1])
    await open(f.key, f.nodes)
    const names = Object.keys(await nodes(page))
    const hosts = names.filter((n) => /^h\d+$/.test(n)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
    const level: Record<string, number> = { spine: 0, agg: 1, tor: 2 }
    const positions: Record<string, { x: number; y: number }> = {}
    for (const tier of Object.keys(level)) {
      const row = names.filter((n) => n.startsWith(tier)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      row.forEach((n, i) => (positions[n] = { x: (i - (row.length - 1) / 2) * 90, y: level[tier] * 110 }))
    }
    hosts.forEach((n, i) => (positions[n] = { x: (i - (hosts.length - 1) / 2) * 54, y: 330 }))
    await contract(app.url, 'experiments.saveLayout', { id: ids[f.key], positions })
    await open(f.key, f.nodes)
    const want: Nodes = Object.fromEntries(Object.entries(positions).map(([n, p]) => [n, [p.x, p.y]]))
    const drawn = normalise(await nodes(page))
    const off = Object.entries(normalise(want)).filter(([n, [x, y]]) => Math.abs(drawn[n][0] - x) > 0.01 || Math.abs(drawn[n][1] - y) > 0.01)
    expect(off.map(([n]) => n)).toEqual([])
    await page.screenshot({ path: join(ARTIFACTS, 'topology-layout-64-saved-1440.png') })
    expect(errors).toEqual([])
  }, 60_000)
})

// Where the topology editor draws each node: by tier, spines on top and hosts at the bottom,
// with a wide tier of hosts in blocks under their ToRs, wide ToR tiers wrapped into bands, and
// fabrics with a wide aggregation row pod by pod (podGrid.ts); and where a node added in the
// editor goes without moving the others. Pure (no DOM, no Cytoscape), tested in node.
import { bestPodGrid, placeCores, podOrigin, READABLE_ZOOM, type GridSpacing, type PodGrid } from './podGrid'
import type { EdTopology, Tier } from './topoYaml'
import { TIER_LEVEL } from './topoYaml'

export interface Point {
  x: number
  y: number
}

const X_GAP = 90
const Y_GAP = 110
/** Hosts sit closer than switches: a host is drawn narrower (36 px to a switch's 58). */
const HOST_GAP = X_GAP * 0.6
/** Between the rows of a ToR's block of hosts: a host is drawn 18 px high. */
const HOST_ROW_GAP = 40
/** Between the nearest hosts of two ToRs' blocks, more than within a block so that each reads as one. */
const BLOCK_GAP = 72
/**
 * The widest a row of hosts is drawn, centre to centre: the editor on a 1024 px window is about
 * 340 px across inside its padding, and a wider row fits there only below a zoom of 0.3, where a
 * host's label can no longer be read.
 */
const ROW_MAX = 1100
/** The editor's graph on a 1024 px window inside its padding, about: what a wrapped fabric is shaped to fill. */
const CANVAS = { w: 340, h: 400 }
/** A switch node's size (TopoCanvas.vue), for the drawing's extent. */
const NODE = { w: 58, h: 22 }
const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

/**
 * Positions by tier, spines on top, hosts at the bottom; in a tier, nodes in pod then name order,
 * centred. When the hosts' or the ToRs' row would be wider than ROW_MAX, each ToR's hosts go in
 * a block of a few columns under it instead, the ToRs spread to make room (a host linked to no
 * ToR, such as one just added, follows the blocks in their first row). When even that is wider
 * than ROW_MAX (32 leaves of 2 hosts: a row of 64 hosts, or of 32 blocks), the ToRs with their
 * blocks wrap into bands one under another, shaped to fill the editor's graph on a 1024 px
 * window. A fabric of pods whose aggregation row is wider than ROW_MAX (a fat-tree of k = 6) is
 * laid out pod by pod instead (layoutPods). A saved position wins over the computed one.
 */
export function layoutByTier(topo: EdTopology, saved: Readonly<Record<string, Point>> = {}): Map<string, Point> {
  const tiers = new Map<Tier, EdTopology['nodes']>()
  for (const n of topo.nodes) tiers.set(n.tier, [...(tiers.get(n.tier) ?? []), n])
  const out = new Map<string, Point>()
  const present = (['spine', 'agg', 'tor', 'host'] as Tier[]).filter((t) => tiers.has(t))
  const sorted = (tier: Tier) => [...tiers.get(tier)!].sort((a, b) => (a.pod ?? -1) - (b.pod ?? -1) || byName(a.name, b.name))
  const row = (tier: Tier, gap: number) => {
    const list = sorted(tier)
    list.forEach((n, i) => out.set(n.name, { x: (i - (list.length - 1) / 2) * gap, y: present.indexOf(tier) * Y_GAP }))
  }
  for (const tier of present) if (tier !== 'tor' && tier !== 'host') row(tier, X_GAP)
  const hosts = tiers.has('host') ? sorted('host') : []
  const tors = tiers.has('tor') ? sorted('tor') : []
  const torY = present.indexOf('tor') * Y_GAP
  const hostY = present.indexOf('host') * Y_GAP
  const above = { width: Math.max(0, ...present.filter((t) => t !== 'tor' && t !== 'host').map((t) => (tiers.get(t)!.length - 1) * X_GAP)), height: torY }
  const wide = Math.max((hosts.length - 1) * HOST_GAP, (tors.length - 1) * X_GAP) > ROW_MAX
  const aggs = tiers.has('agg') ? sorted('agg') : []
  const podded = aggs.length > 0 && tors.length > 0 && [...aggs, ...tors].every((n) => n.pod !== null)
  const blocks = wide && hosts.length > 0 && tors.length > 0 ? hostBlocks(topo, tors, hosts, above) : null
  if (podded && (aggs.length - 1) * X_GAP > ROW_MAX) {
    layoutPods(topo, tiers.get('spine') ? sorted('spine') : [], aggs, tors, hosts, out)
  } else if (blocks) {
    const { cols, pitch, perBand } = blocks
    const span = (cols - 1) * HOST_GAP
    const bandH = hostY - torY + (blocks.rows - 1) * HOST_ROW_GAP + Y_GAP
    tors.forEach((t, i) => {
      const band = Math.floor(i / perBand)
      // A shorter last band takes the middle columns of the bands above it.
      const skip = Math.floor((perBand - Math.min(perBand, tors.length - band * perBand)) / 2)
      const x = ((i % perBand) + skip - (perBand - 1) / 2) * pitch
      out.set(t.name, { x, y: torY + band * bandH })
      blocks.of.get(t.name)?.forEach((h, j) => out.set(h, { x: x - span / 2 + (j % cols) * HOST_GAP, y: hostY + band * bandH + Math.floor(j / cols) * HOST_ROW_GAP }))
    })
    const after = ((Math.min(perBand, tors.length) - 1) / 2) * pitch + span / 2 + BLOCK_GAP
    blocks.loose.forEach((h, i) => out.set(h, { x: after + i * HOST_GAP, y: hostY }))
  } else {
    if (tors.length > 0) row('tor', X_GAP)
    if (hosts.length > 0) row('host', HOST_GAP)
  }
  for (const [name, p] of Object.entries(saved)) if (out.has(name)) out.set(name, { x: p.x, y: p.y })
  return out
}

/**
 * Where a node added to `tier` goes while every node already drawn keeps its place (the layout
 * by tier would move them: the 22nd host turns the row of hosts into blocks): after the last
 * node of its tier's first row, as far as that row's nodes are apart (a block's hosts: as far as
 * blocks are); for a tier not drawn yet, halfway between the tiers above and below it.
 */
export function placeNew(topo: EdTopology, positions: ReadonlyMap<string, Point>, tier: Tier): Point {
  const at = (t: (l: number) => boolean) => topo.nodes.filter((n) => t(TIER_LEVEL[n.tier]) && positions.has(n.name)).map((n) => positions.get(n.name)!)
  const level = TIER_LEVEL[tier]
  const same = at((l) => l === level)
  if (same.length > 0) {
    const top = Math.min(...same.map((p) => p.y))
    const first = same.filter((p) => p.y - top < SAME_ROW)
    const gap = tier !== 'host' ? X_GAP : same.length > first.length ? BLOCK_GAP : HOST_GAP
    return { x: Math.max(...first.map((p) => p.x)) + gap, y: top }
  }
  const all = [...positions.values()]
  const x = all.length > 0 ? (Math.min(...all.map((p) => p.x)) + Math.max(...all.map((p) => p.x))) / 2 : 0
  const above = at((l) => l > level).map((p) => p.y)
  const below = at((l) => l < level).map((p) => p.y)
  if (above.length > 0 && below.length > 0) return { x, y: (Math.max(...above) + Math.min(...below)) / 2 }
  if (above.length > 0) return { x, y: Math.max(...above) + Y_GAP }
  if (below.length > 0) return { x, y: Math.min(...below) - Y_GAP }
  return { x, y: 0 }
}

/** A pod layout's spacing: within a pod (switches of a row, tiers, hosts in their blocks) and the grid's (podGrid.ts). */
interface PodSpacing {
  x: number
  y: number
  hostGap: number
  hostRowGap: number
  blockGap: number
  grid: GridSpacing
}
/** Pods' blocks further apart than a pod's ToRs' blocks of hosts, wrapped cores' rows half a tier apart. */
const POD_SPACING: PodSpacing = {
  x: X_GAP,
  y: Y_GAP,
  hostGap: HOST_GAP,
  hostRowGap: HOST_ROW_GAP,
  blockGap: BLOCK_GAP,
  grid: { xGap: X_GAP, yGap: Y_GAP, podGap: X_GAP * 1.5, coreRowGap: Y_GAP / 2, canvas: CANVAS, node: NODE },
}
/**
 * Closer, for a fabric the usual spacing fits only below READABLE_ZOOM (a fat-tree of k = 8 and
 * up): switches and hosts a few pixels more than their width apart, tiers two thirds as far, the
 * cores further up so that their links to the first pods pass between the switches there; at
 * k = 8, 0.35 instead of 0.26. A block's rows of hosts stay more than SAME_ROW apart.
 */
const POD_SPACING_CLOSE: PodSpacing = {
  x: 72,
  y: 76,
  hostGap: 44,
  hostRowGap: 30,
  blockGap: 52,
  grid: { xGap: 80, yGap: 80, podGap: 90, coreRowGap: 44, coreGap: 120, canvas: CANVAS, node: NODE },
}

/**
 * A fabric whose aggregation row is wider than ROW_MAX (a fat-tree of k = 6 has 18 aggregation
 * switches, k = 8 has 32), laid out pod by pod in the grid of podGrid.ts: each pod a block of its
 * aggregation switches over its ToRs over their hosts (in blocks of a few columns). The columns of
 * host blocks are, with the pods a row, those that draw the fabric largest on the editor's graph;
 * closer when the usual spacing would not draw it readably.
 */
function layoutPods(topo: EdTopology, cores: EdTopology['nodes'], aggs: EdTopology['nodes'], tors: EdTopology['nodes'], hosts: EdTopology['nodes'], out: Map<string, Point>): void {
  const { of, loose } = hostsByTor(topo, tors, hosts)
  const pods = [...new Set([...aggs, ...tors].map((n) => n.pod!))].sort((a, b) => a - b)
  const inPod = (list: EdTopology['nodes'], pod: number) => list.filter((n) => n.pod === pod)
  const most = Math.max(0, ...[...of.values()].map((b) => b.length))
  let best: { s: PodSpacing; cols: number; pitch: number; podW: number; podH: number; grid: PodGrid } | null = null
  const tryWith = (s: PodSpacing) => {
    for (let c0 = Math.min(2, Math.max(1, most)); c0 <= Math.max(1, most); c0++) {
      const cols = most > 0 ? Math.ceil(most / Math.ceil(most / c0)) : 1
      const pitch = most > 0 ? Math.max(s.x, (cols - 1) * s.hostGap + s.blockGap) : s.x
      const podW = Math.max(...pods.map((p) => Math.max((inPod(aggs, p).length - 1) * s.x, (inPod(tors, p).length - 1) * pitch + (cols - 1) * s.hostGap)))
      const podH = s.y + (most > 0 ? s.y + (Math.ceil(most / cols) - 1) * s.hostRowGap : 0)
      const grid = bestPodGrid(pods.length, cores.length, podW, podH, s.grid)
      if (!best || grid.zoom > best.grid.zoom) best = { s, cols, pitch, podW, podH, grid }
    }
  }
  tryWith(POD_SPACING)
  if (best!.grid.zoom < READABLE_ZOOM) tryWith(POD_SPACING_CLOSE)
  const { s, cols, pitch, podW, podH, grid } = best!
  const top = placeCores(cores, grid, s.grid, out)
  const span = (cols - 1) * s.hostGap
  pods.forEach((pod, q) => {
    const { cx, y } = podOrigin(q, pods.length, podW, podH, top, grid, s.grid)
    const podAggs = inPod(aggs, pod)
    podAggs.forEach((n, i) => out.set(n.name, { x: cx + (i - (podAggs.length - 1) / 2) * s.x, y }))
    const podTors = inPod(tors, pod)
    podTors.forEach((t, i) => {
      const x = cx + (i - (podTors.length - 1) / 2) * pitch
      out.set(t.name, { x, y: y + s.y })
      of.get(t.name)?.forEach((h, j) => out.set(h, { x: x - span / 2 + (j % cols) * s.hostGap, y: y + 2 * s.y + Math.floor(j / cols) * s.hostRowGap }))
    })
  })
  const after = (Math.min(grid.perRow, pods.length) / 2) * (podW + s.grid.podGap)
  loose.forEach((h, i) => out.set(h, { x: after + i * s.hostGap, y: top + 2 * s.y }))
}

/** Each ToR's hosts (those whose first link to a ToR goes to it), in name order, and the hosts linked to none. */
function hostsByTor(topo: EdTopology, tors: EdTopology['nodes'], hosts: EdTopology['nodes']): { of: Map<string, string[]>; loose: string[] } {
  const isTor = new Set(tors.map((t) => t.name))
  const tor = new Map<string, string>()
  for (const l of topo.links) {
    if (isTor.has(l.a) && !tor.has(l.b)) tor.set(l.b, l.a)
    else if (isTor.has(l.b) && !tor.has(l.a)) tor.set(l.a, l.b)
  }
  const of = new Map<string, string[]>()
  const loose: string[] = []
  for (const h of hosts) {
    const t = tor.get(h.name)
    if (t) of.set(t, [...(of.get(t) ?? []), h.name])
    else loose.push(h.name)
  }
  return { of, loose }
}

interface HostBlocks {
  of: Map<string, string[]>
  loose: string[]
  cols: number
  /** Rows of the tallest block. */
  rows: number
  /** Between ToRs in a band. */
  pitch: number
  /** ToRs in a band (all of them when the fabric fits in one). */
  perBand: number
}

/**
 * Each ToR's hosts (those whose first link to a ToR goes to it), in name order, and the hosts
 * linked to none; the columns a block takes, as many as keep the row of blocks within ROW_MAX
 * (but two at least) and then evened out over its rows (32 hosts in 10 columns would leave a row
 * of 2: 8 columns of 4); and the distance between ToRs that leaves room for their blocks. Null
 * when no host is under a ToR. When the blocks cannot fit in ROW_MAX, the ToRs wrap into bands:
 * the columns and ToRs per band that draw the fabric largest on the editor's graph (`above`: the
 * widest tier over the ToRs, and how far down the ToRs start).
 */
function hostBlocks(topo: EdTopology, tors: EdTopology['nodes'], hosts: EdTopology['nodes'], above: { width: number; height: number }): HostBlocks | null {
  const { of, loose } = hostsByTor(topo, tors, hosts)
  if (of.size === 0) return null
  const most = Math.max(...[...of.values()].map((b) => b.length))
  const pitchOf = (cols: number) => Math.max(X_GAP, (cols - 1) * HOST_GAP + BLOCK_GAP)
  const widthOf = (cols: number, perBand = tors.length) => (perBand - 1) * pitchOf(cols) + (cols - 1) * HOST_GAP
  const evened = (cols: number) => Math.ceil(most / Math.ceil(most / cols))
  let cols = most
  while (cols > 2 && widthOf(cols) > ROW_MAX) cols--
  cols = evened(cols)
  // No block in one column (its hosts' links would run one behind another, hidden), unless its ToR has one host.
  if (widthOf(cols) <= ROW_MAX) return { of, loose, cols, rows: Math.ceil(most / cols), pitch: pitchOf(cols), perBand: tors.length }
  let best: (HostBlocks & { zoom: number }) | null = null
  for (let c0 = Math.min(2, most); c0 <= most; c0++) {
    const c = evened(c0)
    const fit = Math.floor((ROW_MAX - (c - 1) * HOST_GAP) / pitchOf(c)) + 1
    const bands = Math.ceil(tors.length / Math.max(1, fit))
    const perBand = Math.ceil(tors.length / bands)
    const rows = Math.ceil(most / c)
    const height = above.height + bands * (Y_GAP + (rows - 1) * HOST_ROW_GAP + Y_GAP) - Y_GAP
    const zoom = Math.min(CANVAS.w / Math.max(widthOf(c, perBand), above.width), CANVAS.h / height)
    if (!best || zoom > best.zoom) best = { of, loose, cols: c, rows, pitch: pitchOf(c), perBand, zoom }
  }
  return best
}

/** Nodes less than this apart up or down are in one row (half the gap between a block's rows of hosts). */
export const SAME_ROW = HOST_ROW_GAP / 2

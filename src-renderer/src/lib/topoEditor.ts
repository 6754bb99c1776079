// The topology editor's model beside the YAML: the templates it generates from, where nodes sit
// (by tier, or where the user put them), which problems fall on which node or link, and the
// undo history. Pure (no DOM, no Cytoscape), tested in node.
import type { EdTopology, Tier } from './topoYaml'
import { TIER_LEVEL } from './topoYaml'

export interface TemplateParam {
  key: string
  label: string
  value: number
  min: number
  step?: number
}

export interface TopologyTemplate {
  id: string
  label: string
  summary: string
  params: TemplateParam[]
  /** The topology mapping for these parameter values. */
  mapping: (p: Record<string, number>) => Record<string, unknown>
  /** The parameter values a topology block of this template's kind would have here (null: another kind, or unreadable). */
  read: (block: Readonly<Record<string, unknown>>) => Record<string, number> | null
}

const rate = (gbps: number): string => (Number.isInteger(gbps) ? `${gbps}Gbps` : `${Math.round(gbps * 1000)}Mbps`)

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const RATE_RE = /^(\d+(?:\.\d+)?|\.\d+)\s*([kKmMgGtT]?)(?:bps|b\/s)?$/
const RATE_PREFIX: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12 }
/** A rate as the spec writes it (10Gbps, 100Mbps, or bit/s), in bit/s; null when it is not one. */
function bps(v: unknown): number | null {
  if (typeof v === 'number') return num(v)
  const m = typeof v === 'string' ? RATE_RE.exec(v.trim()) : null
  return m ? Number(m[1]) * RATE_PREFIX[m[2].toLowerCase()] : null
}
const DURATION_RE = /^(\d+(?:\.\d+)?|\.\d+)\s*(ns|us|\u00b5s|\u03bcs|ms|s)$/
const DURATION_NS: Record<string, number> = { ns: 1, us: 1e3, '\u00b5s': 1e3, '\u03bcs': 1e3, ms: 1e6, s: 1e9 }
/** A duration as the spec writes it (1us, or ns), in ns; null when it is not one. */
function ns(v: unknown): number | null {
  if (typeof v === 'number') return num(v)
  const m = typeof v === 'string' ? DURATION_RE.exec(v.trim()) : null
  return m ? Number(m[1]) * DURATION_NS[m[2]] : null
}

export const TOPOLOGY_TEMPLATES: readonly TopologyTemplate[] = [
  {
    id: 'leaf-spine',
    label: 'Leaf-spine',
    summary: 'Leaves under spines; the fabric links sized for the oversubscription asked (host capacity ÷ uplink capacity per leaf).',
    params: [
      { key: 'leaves', label: 'Leaves', value: 4, min: 2 },
      { key: 'spines', label: 'Spines', value: 2, min: 1 },
      { key: 'hostsPerLeaf', label: 'Hosts per leaf', value: 4, min: 1 },
      { key: 'hostGbps', label: 'Host link (Gbps)', value: 10, min: 0.001, step: 0.1 },
      { key: 'oversubscription', label: 'Oversubscription', value: 1, min: 0.1, step: 0.5 },
    ],
    mapping: (p) => ({
      kind: 'leaf-spine',
      leaves: p.leaves,
      spines: p.spines,
      hostsPerLeaf: p.hostsPerLeaf,
      hostLink: rate(p.hostGbps),
      fabricLink: rate((p.hostsPerLeaf * p.hostGbps) / (p.spines * p.oversubscription)),
      linkDelay: '1us',
    }),
    read: (b) => {
      const [leaves, spines, hostsPerLeaf, host] = [num(b.leaves), num(b.spines), num(b.hostsPerLeaf), bps(b.hostLink)]
      if (b.kind !== 'leaf-spine' || leaves === null || spines === null || hostsPerLeaf === null || host === null) return null
      const fabric = bps(b.fabricLink)
      const oversubscription = num(b.oversubscription) ?? (fabric ? (hostsPerLeaf * host) / (spines * (num(b.linksPerSpine) ?? 1) * fabric) : null)
      // Rounded as typed: the template writes the uplink rate to the Mbps, so 1 and 0.99992 write the same.
      return oversubscription === null ? null : { leaves, spines, hostsPerLeaf, hostGbps: host / 1e9, oversubscription: Math.round(oversubscription * 1000) / 1000 }
    },
  },
  {
    id: 'fat-tree',
    label: 'k-ary fat-tree',
    summary: 'k pods of k/2 edge and k/2 aggregation switches under (k/2)² cores, k/2 hosts per edge switch.',
    params: [
      { key: 'k', label: 'k (even)', value: 4, min: 2, step: 2 },
      { key: 'hostGbps', label: 'Link (Gbps)', value: 10, min: 0.001, step: 0.1 },
    ],
    mapping: (p) => ({ kind: 'fat-tree', k: p.k, hostLink: rate(p.hostGbps), fabricLink: rate(p.hostGbps), linkDelay: '1us' }),
    read: (b) => {
      const [k, host] = [num(b.k), bps(b.hostLink)]
      return b.kind === 'fat-tree' && k !== null && host !== null ? { k, hostGbps: host / 1e9 } : null
    },
  },
  {
    id: 'hula-3tier',
    label: "HULA's 3-tier",
    summary: 'The fabric of the HULA paper (ACM SOSR 2016): 2 pods of 2 ToRs and 2 aggregation switches, 2 spines, 8 hosts per ToR, 10G hosts and 40G fabric.',
    params: [],
    mapping: () => ({ kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: '10Gbps', fabricLink: '40Gbps', linkDelay: '1us', queuePackets: 250 }),
    read: (b) => (b.kind === 'three-tier' ? {} : null),
  },
  {
    id: 'dhlb-fat-tree',
    label: "DHLB's fat-tree",
    summary: 'The fat-tree of the DHLB experiments: 4 spines, 8 leaves and 8 ToRs (k = 4), 100 Mbps hosts and 200 Mbps fabric, 4 hosts per ToR so that hosts and uplinks match (1:1).',
    params: [],
    mapping: () => ({ kind: 'fat-tree', k: 4, hostsPerTor: 4, hostLink: '100Mbps', fabricLink: '200Mbps', linkDelay: '1us', queuePackets: 100 }),
    read: (b) => (b.kind === 'fat-tree' ? {} : null),
  },
]

/**
 * A topology block with the spec's defaults filled in and its rates and delays as numbers, so
 * that two blocks that build the same fabric compare equal (10Gbps and 10000Mbps, a left-out
 * linkDelay and 1us, a leaf-spine's oversubscription and the uplink rate it gives).
 */
function normalised(block: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { linkDelay: 1_000, queuePackets: 100 }
  for (const [k, v] of Object.entries(block)) {
    out[k] = k === 'hostLink' || k === 'fabricLink' ? (bps(v) ?? v) : k === 'linkDelay' ? (ns(v) ?? v) : v
  }
  if (out.kind === 'fat-tree' && out.hostsPerTor === undefined && typeof out.k === 'number') out.hostsPerTor = out.k / 2
  if (out.kind === 'leaf-spine') {
    out.linksPerSpine ??= 1
    const [o, hosts, spines, links, host] = [out.oversubscription, out.hostsPerLeaf, out.spines, out.linksPerSpine, out.hostLink]
    if (out.fabricLink === undefined && [o, hosts, spines, links, host].every((x) => typeof x === 'number')) {
      out.fabricLink = ((hosts as number) * (host as number)) / ((spines as number) * (links as number) * (o as number))
    }
    delete out.oversubscription
  }
  return out
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))
  return JSON.stringify(a) === JSON.stringify(b)
}

/** Whether two topology blocks build the same fabric (as far as their written fields say). */
function sameTopology(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const [x, y] = [normalised(a), normalised(b)]
  const keys = new Set([...Object.keys(x), ...Object.keys(y)])
  return [...keys].every((k) => sameValue(x[k], y[k]))
}

/** What the editor's generate row says of the fabric in the text. */
export interface FabricOrigin {
  /** The fabric's kind and parameters as written, or for a custom one its size. */
  summary: string
  /** The template, with its values, that generates exactly this topology block; null when none does. */
  template: { id: string; values: Record<string, number> } | null
}

const shown = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(shown).join(', ')}]`
    : v !== null && typeof v === 'object'
      ? `{ ${Object.entries(v).map(([k, x]) => `${k}: ${shown(x)}`).join(', ')} }`
      : String(v)

/**
 * The template that makes the topology block (a reopened k=4 fat-tree shows the fat-tree
 * template with k = 4, not the first template's defaults), or none: a custom topology, or a
 * generator with settings no template has, which the summary then says in so many words.
 */
export function fabricOrigin(block: Readonly<Record<string, unknown>> | null): FabricOrigin | null {
  if (!block || typeof block.kind !== 'string') return null
  if (block.kind === 'custom') {
    const count = (v: unknown, one: string) => `${Array.isArray(v) ? v.length : 0} ${one}${Array.isArray(v) && v.length === 1 ? '' : 's'}`
    return { summary: `custom, ${count(block.nodes, 'node')} and ${count(block.links, 'link')} written out one by one; no template makes it: pick one to replace it`, template: null }
  }
  const params = Object.entries(block)
    .filter(([k]) => k !== 'kind')
    .map(([k, v]) => `${k} ${shown(v)}`)
    .join(', ')
  const said = `${block.kind}: ${params}`
  for (const t of TOPOLOGY_TEMPLATES) {
    const values = t.read(block)
    if (values && sameTopology(t.mapping(values), block)) return { summary: said, template: { id: t.id, values } }
  }
  return { summary: `${said}; no template makes exactly this fabric: pick one to replace it`, template: null }
}

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

/** Between two pods' blocks side by side, more than between a pod's ToRs' blocks of hosts. */
const POD_GAP = X_GAP * 1.5
/** Between the rows of a wrapped tier of cores, each row half a column aside from the one above. */
const CORE_ROW_GAP = Y_GAP / 2

/**
 * A fabric whose aggregation row is wider than ROW_MAX (a fat-tree of k = 6 has 18 aggregation
 * switches, k = 8 has 32), laid out pod by pod: each pod a block of its aggregation switches over
 * its ToRs over their hosts (in blocks of a few columns), the pods in a grid under the cores. The
 * columns of host blocks and the pods per row are those that draw the fabric largest on the
 * editor's graph at 1024 px; cores wider than the grid wrap into rows of it, each row half a
 * column aside from the one above so that a link from an upper row passes between the lower row's.
 */
function layoutPods(topo: EdTopology, cores: EdTopology['nodes'], aggs: EdTopology['nodes'], tors: EdTopology['nodes'], hosts: EdTopology['nodes'], out: Map<string, Point>): void {
  const { of, loose } = hostsByTor(topo, tors, hosts)
  const pods = [...new Set([...aggs, ...tors].map((n) => n.pod!))].sort((a, b) => a - b)
  const inPod = (list: EdTopology['nodes'], pod: number) => list.filter((n) => n.pod === pod)
  const most = Math.max(0, ...[...of.values()].map((b) => b.length))
  let best: { cols: number; perRow: number; pitch: number; podW: number; podH: number; coresPerRow: number; zoom: number } | null = null
  for (let c0 = Math.min(2, Math.max(1, most)); c0 <= Math.max(1, most); c0++) {
    const cols = most > 0 ? Math.ceil(most / Math.ceil(most / c0)) : 1
    const pitch = most > 0 ? Math.max(X_GAP, (cols - 1) * HOST_GAP + BLOCK_GAP) : X_GAP
    const podW = Math.max(...pods.map((p) => Math.max((inPod(aggs, p).length - 1) * X_GAP, (inPod(tors, p).length - 1) * pitch + (cols - 1) * HOST_GAP)))
    const podH = Y_GAP + (most > 0 ? Y_GAP + (Math.ceil(most / cols) - 1) * HOST_ROW_GAP : 0)
    for (let perRow = 1; perRow <= pods.length; perRow++) {
      const width = perRow * podW + (perRow - 1) * POD_GAP
      const coresPerRow = Math.min(cores.length, Math.floor(width / X_GAP) + 1)
      const coreRows = cores.length > 0 ? Math.ceil(cores.length / Math.max(1, coresPerRow)) : 0
      const gridRows = Math.ceil(pods.length / perRow)
      const height = (coreRows > 0 ? (coreRows - 1) * CORE_ROW_GAP + Y_GAP : 0) + gridRows * podH + (gridRows - 1) * Y_GAP
      const coreW = (Math.min(cores.length, coresPerRow) - 1) * X_GAP + (coreRows > 1 ? X_GAP / 2 : 0)
      const zoom = Math.min(CANVAS.w / (Math.max(width, coreW) + NODE.w), CANVAS.h / (height + NODE.h))
      if (!best || zoom > best.zoom) best = { cols, perRow, pitch, podW, podH, coresPerRow, zoom }
    }
  }
  const { cols, perRow, pitch, podW, podH } = best!
  const coreRows = cores.length > 0 ? Math.ceil(cores.length / Math.max(1, best!.coresPerRow)) : 0
  const coresPerRow = Math.ceil(cores.length / Math.max(1, coreRows))
  cores.forEach((n, i) => {
    const row = Math.floor(i / coresPerRow)
    const count = Math.min(coresPerRow, cores.length - row * coresPerRow)
    const x = ((i % coresPerRow) - (count - 1) / 2) * X_GAP + (coreRows > 1 ? (row % 2 === 0 ? -X_GAP / 4 : X_GAP / 4) : 0)
    out.set(n.name, { x, y: row * CORE_ROW_GAP })
  })
  const top = coreRows > 0 ? (coreRows - 1) * CORE_ROW_GAP + Y_GAP : 0
  const span = (cols - 1) * HOST_GAP
  pods.forEach((pod, q) => {
    const gridRow = Math.floor(q / perRow)
    // A shorter last row of pods takes the middle columns of the rows above it.
    const skip = Math.floor((perRow - Math.min(perRow, pods.length - gridRow * perRow)) / 2)
    const cx = ((q % perRow) + skip - (perRow - 1) / 2) * (podW + POD_GAP)
    const y = top + gridRow * (podH + Y_GAP)
    const podAggs = inPod(aggs, pod)
    podAggs.forEach((n, i) => out.set(n.name, { x: cx + (i - (podAggs.length - 1) / 2) * X_GAP, y }))
    const podTors = inPod(tors, pod)
    podTors.forEach((t, i) => {
      const x = cx + (i - (podTors.length - 1) / 2) * pitch
      out.set(t.name, { x, y: y + Y_GAP })
      of.get(t.name)?.forEach((h, j) => out.set(h, { x: x - span / 2 + (j % cols) * HOST_GAP, y: y + 2 * Y_GAP + Math.floor(j / cols) * HOST_ROW_GAP }))
    })
  })
  const after = (Math.min(perRow, pods.length) / 2) * (podW + POD_GAP)
  loose.forEach((h, i) => out.set(h, { x: after + i * HOST_GAP, y: top + 2 * Y_GAP }))
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

export interface ProblemLike {
  path: string
  message: string
  line?: number
  node?: string
  link?: string
}

/** Where a problem falls on the graph: its own node/link fields, else read from its path. */
export function problemTarget(p: ProblemLike, topo: EdTopology): { node?: string; link?: string } {
  if (p.node) return { node: p.node }
  if (p.link) return { link: p.link }
  let m = /^topology\.nodes\[(\d+)\]/.exec(p.path)
  if (m && !topo.generated) return topo.nodes[Number(m[1])] ? { node: topo.nodes[Number(m[1])].name } : {}
  m = /^topology\.links\[(\d+)\]/.exec(p.path)
  if (m && !topo.generated) return topo.links[Number(m[1])] ? { link: topo.links[Number(m[1])].name } : {}
  m = /^failures\[(\d+)\]/.exec(p.path)
  if (m) return topo.failures[Number(m[1])] ? { link: topo.failures[Number(m[1])].link } : {}
  m = /^topology\.slow\.(.+)$/.exec(p.path)
  if (m) return { link: m[1] }
  return {}
}

/** Each node's and link's problems, for the marks on the graph. */
export function problemsByElement(problems: readonly ProblemLike[], topo: EdTopology): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const p of problems) {
    const t = problemTarget(p, topo)
    const key = t.node ?? t.link
    if (key) out.set(key, [...(out.get(key) ?? []), p.message])
  }
  return out
}

/** The upper end of a new link between two nodes is the higher tier. */
export function orderEnds(topo: EdTopology, a: string, b: string): [string, string] {
  const tier = (n: string) => TIER_LEVEL[topo.nodes.find((x) => x.name === n)?.tier ?? 'host']
  return tier(b) > tier(a) ? [b, a] : [a, b]
}

/** Texts the editor went through: undo and redo walk it; a new edit drops what was undone. */
export class TextHistory {
  private past: string[] = []
  private future: string[] = []
  constructor(private readonly limit = 200) {}

  /** Before an edit: remember the text it started from. */
  push(before: string): void {
    this.past.push(before)
    if (this.past.length > this.limit) this.past.shift()
    this.future = []
  }

  undo(current: string): string | null {
    const prev = this.past.pop()
    if (prev === undefined) return null
    this.future.push(current)
    return prev
  }

  redo(current: string): string | null {
    const next = this.future.pop()
    if (next === undefined) return null
    this.past.push(current)
    return next
  }

  get canUndo(): boolean {
    return this.past.length > 0
  }

  get canRedo(): boolean {
    return this.future.length > 0
  }
}

export type Direction = 'left' | 'right' | 'up' | 'down'

/** Nodes less than this apart up or down are in one row (half the gap between a block's rows of hosts). */
const SAME_ROW = HOST_ROW_GAP / 2

/**
 * The node an arrow key moves to from `from`; the top-left node when nothing is picked. Left and
 * right: the nearest within a 45° cone, a step aside counting twice a step ahead (a row's
 * neighbour, and nothing past the row's end). Up and down: the nearest row that way, then the
 * node in it nearest across, however far aside: a tier's row can be far wider than the one above
 * it, so the ToR over a host at the row's end (where H adds one) lies well aside, and the next
 * tier must come before the one beyond it. A node in the same row, only a little higher or lower,
 * counts there only when it is within the cone. Given each node's tier `level`, up and down look
 * first at the tiers that way (higher going up, lower going down), so that from a host in a lower
 * row of its ToR's block Shift+↑ reaches the ToR, not the host above it, and from a ToR the tier
 * above it, not the hosts of the ToRs drawn above; the rows of one tier are the way only when no
 * other tier is.
 */
export function nodeInDirection(
  positions: ReadonlyMap<string, Point>,
  from: string | null,
  dir: Direction,
  level?: ReadonlyMap<string, number>,
): string | null {
  const start = from === null ? undefined : positions.get(from)
  if (!start) {
    let best: [string, Point] | null = null
    for (const e of positions) if (!best || e[1].y < best[1].y || (e[1].y === best[1].y && e[1].x < best[1].x)) best = e
    return best?.[0] ?? null
  }
  const sideways = dir === 'left' || dir === 'right'
  let ahead: Array<{ name: string; along: number; across: number }> = []
  for (const [name, p] of positions) {
    if (name === from) continue
    const dx = p.x - start.x
    const dy = p.y - start.y
    const along = dir === 'right' ? dx : dir === 'left' ? -dx : dir === 'down' ? dy : -dy
    const across = sideways ? Math.abs(dy) : Math.abs(dx)
    if (along > 0 && (across <= along || (!sideways && along >= SAME_ROW))) ahead.push({ name, along, across })
  }
  const own = level?.get(from!)
  if (!sideways && own !== undefined) {
    const tierWay = ahead.filter((c) => {
      const l = level!.get(c.name)
      return l !== undefined && (dir === 'up' ? l > own : l < own)
    })
    if (tierWay.length > 0) ahead = tierWay
  }
  if (ahead.length === 0) return null
  const nearest = Math.min(...ahead.map((c) => c.along))
  const [score, candidates] = sideways
    ? [(c: (typeof ahead)[number]) => c.along + 2 * c.across, ahead]
    : [(c: (typeof ahead)[number]) => c.across + c.along / 1e6, ahead.filter((c) => c.along < nearest + SAME_ROW)]
  return candidates.reduce((a, b) => (score(b) < score(a) ? b : a)).name
}

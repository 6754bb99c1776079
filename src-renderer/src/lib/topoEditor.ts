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
}

const rate = (gbps: number): string => (Number.isInteger(gbps) ? `${gbps}Gbps` : `${Math.round(gbps * 1000)}Mbps`)

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
  },
  {
    id: 'hula-3tier',
    label: "HULA's 3-tier",
    summary: 'The fabric of the HULA paper (ACM SOSR 2016): 2 pods of 2 ToRs and 2 aggregation switches, 2 spines, 8 hosts per ToR, 10G hosts and 40G fabric.',
    params: [],
    mapping: () => ({ kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: '10Gbps', fabricLink: '40Gbps', linkDelay: '1us', queuePackets: 250 }),
  },
  {
    id: 'dhlb-fat-tree',
    label: "DHLB's fat-tree",
    summary: 'The fat-tree of the DHLB experiments: 4 spines, 8 leaves and 8 ToRs (k = 4), 100 Mbps hosts and 200 Mbps fabric, 4 hosts per ToR so that hosts and uplinks match (1:1).',
    params: [],
    mapping: () => ({ kind: 'fat-tree', k: 4, hostsPerTor: 4, hostLink: '100Mbps', fabricLink: '200Mbps', linkDelay: '1us', queuePackets: 100 }),
  },
]

export interface Point {
  x: number
  y: number
}

const X_GAP = 90
const Y_GAP = 110
const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

/**
 * Positions by tier, spines on top, hosts at the bottom; in a tier, nodes in pod then name order,
 * centred. A saved position wins over the computed one.
 */
export function layoutByTier(topo: EdTopology, saved: Readonly<Record<string, Point>> = {}): Map<string, Point> {
  const tiers = new Map<Tier, EdTopology['nodes']>()
  for (const n of topo.nodes) tiers.set(n.tier, [...(tiers.get(n.tier) ?? []), n])
  const out = new Map<string, Point>()
  const present = (['spine', 'agg', 'tor', 'host'] as Tier[]).filter((t) => tiers.has(t))
  present.forEach((tier, row) => {
    const list = [...tiers.get(tier)!].sort((a, b) => (a.pod ?? -1) - (b.pod ?? -1) || byName(a.name, b.name))
    const gap = tier === 'host' ? X_GAP * 0.6 : X_GAP
    list.forEach((n, i) => out.set(n.name, { x: (i - (list.length - 1) / 2) * gap, y: row * Y_GAP }))
  })
  for (const [name, p] of Object.entries(saved)) if (out.has(name)) out.set(name, { x: p.x, y: p.y })
  return out
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

/**
 * The node an arrow key moves to from `from`: the nearest one in that direction, within a 45°
 * cone of it (a row's neighbour before the row below); the top-left node when nothing is picked.
 */
export function nodeInDirection(positions: ReadonlyMap<string, Point>, from: string | null, dir: Direction): string | null {
  const start = from === null ? undefined : positions.get(from)
  if (!start) {
    let best: [string, Point] | null = null
    for (const e of positions) if (!best || e[1].y < best[1].y || (e[1].y === best[1].y && e[1].x < best[1].x)) best = e
    return best?.[0] ?? null
  }
  let best: string | null = null
  let bestScore = Infinity
  for (const [name, p] of positions) {
    if (name === from) continue
    const dx = p.x - start.x
    const dy = p.y - start.y
    const along = dir === 'right' ? dx : dir === 'left' ? -dx : dir === 'down' ? dy : -dy
    const across = dir === 'left' || dir === 'right' ? Math.abs(dy) : Math.abs(dx)
    if (along <= 0 || across > along) continue
    const score = along + 2 * across
    if (score < bestScore) {
      bestScore = score
      best = name
    }
  }
  return best
}

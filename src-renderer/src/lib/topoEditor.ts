// The topology editor's model beside the YAML: the templates it generates from, which problems
// fall on which node or link, the undo history and the arrow keys' moves; where nodes sit is
// topoLayout.ts. Pure (no DOM, no Cytoscape), tested in node.
import { SAME_ROW, type Point } from './topoLayout'
import type { EdTopology } from './topoYaml'
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

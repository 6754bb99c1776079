import { buildCustom } from './custom'
import { linkName, reverseLinkName } from './names'
import type { Fabric, FabricSpec, LeafSpineSpec, NodeRole, TopoLink, TopoNode } from './types'

/** Accumulates nodes and links; ports are numbered in the order links are added. */
class Builder {
  readonly nodes: TopoNode[] = []
  readonly links: TopoLink[] = []
  private readonly pairs = new Map<string, number>()

  node(name: string, role: NodeRole, level: number, pod = -1): number {
    const id = this.nodes.length
    this.nodes.push({ id, name, role, level, pod, ports: [] })
    return id
  }

  /** Links upper node a to lower node b. Call in the port order each side should get. */
  link(a: number, b: number, bps: number, delayNs: number): void {
    const id = this.links.length
    const A = this.nodes[a]
    const B = this.nodes[b]
    const key = `${a},${b}`
    const nth = (this.pairs.get(key) ?? 0) + 1
    this.pairs.set(key, nth)
    this.links.push({ id, name: linkName(A.name, B.name, nth), a, aPort: -1, b, bPort: -1, bps, delayNs })
  }

  /**
   * Assigns ports: every node's down-facing links first (in the order added), then its
   * up-facing ones. Removed links are dropped before numbering, so ports stay dense.
   */
  finish(spec: Exclude<FabricSpec, { kind: 'custom' }>): Fabric {
    const byName = new Map<string, TopoLink>()
    for (const l of this.links) byName.set(l.name, l)
    const find = (name: string): TopoLink => {
      const l = byName.get(name) ?? byName.get(reverseLinkName(name))
      if (!l) throw new Error(`no link '${name}' in this ${spec.kind} fabric`)
      return l
    }
    const removed = new Set((spec.remove ?? []).map((n) => find(n).id))
    for (const [name, bps] of Object.entries(spec.rates ?? {})) {
      if (!(bps > 0)) throw new Error(`the rate of link '${name}' must be positive`)
      find(name).bps = bps
    }
    const kept = this.links.filter((l) => !removed.has(l.id))
    const links = kept.map((l, id) => ({ ...l, id }))
    for (const n of this.nodes) n.ports = []
    // Down-facing ports: for each upper node, its links to lower nodes, in order.
    for (const l of links) {
      l.aPort = this.nodes[l.a].ports.length
      this.nodes[l.a].ports.push(l.id)
    }
    for (const l of links) {
      l.bPort = this.nodes[l.b].ports.length
      this.nodes[l.b].ports.push(l.id)
    }
    const hosts = this.nodes.filter((n) => n.role === 'host').map((n) => n.id)
    const tors = this.nodes.filter((n) => n.role === 'tor').map((n) => n.id)
    const switches = this.nodes
      .filter((n) => n.role !== 'host')
      .sort((x, y) => x.level - y.level || x.id - y.id)
      .map((n) => n.id)
    const torOfHost = hosts.map((h) => {
      const up = links[this.nodes[h].ports[0]]
      return up.a
    })
    return { kind: spec.kind, nodes: this.nodes, links, hosts, tors, switches, torOfHost }
  }
}

function positiveInt(v: number, what: string): void {
  if (!Number.isInteger(v) || v < 1) throw new Error(`${what} must be a positive integer, got ${v}`)
}

function buildLeafSpine(b: Builder, s: Extract<FabricSpec, { kind: 'leaf-spine' }>): void {
  positiveInt(s.leaves, 'leaves')
  positiveInt(s.spines, 'spines')
  positiveInt(s.hostsPerLeaf, 'hostsPerLeaf')
  const parallel = s.linksPerSpine ?? 1
  positiveInt(parallel, 'linksPerSpine')
  const uplinkBps = leafSpineUplinkBps(s)
  const leaves: number[] = []
  const hosts: number[] = []
  for (let l = 0; l < s.leaves; l++) leaves.push(b.node(`leaf${l}`, 'tor', 1))
  const spines = Array.from({ length: s.spines }, (_, i) => b.node(`spine${i}`, 'spine', 2))
  for (let l = 0; l < s.leaves; l++) {
    for (let h = 0; h < s.hostsPerLeaf; h++) hosts.push(b.node(`h${l * s.hostsPerLeaf + h}`, 'host', 0))
  }
  // A node's down ports are numbered in the order its down links are added.
  for (let l = 0; l < s.leaves; l++) {
    for (let h = 0; h < s.hostsPerLeaf; h++) b.link(leaves[l], hosts[l * s.hostsPerLeaf + h], s.hostLinkBps, s.linkDelayNs)
  }
  for (const sp of spines) for (const lf of leaves) for (let k = 0; k < parallel; k++) b.link(sp, lf, uplinkBps, s.linkDelayNs)
}

/**
 * The rate of a leaf's uplinks: fabricLinkBps, or with `oversubscription` the rate that makes a
 * leaf's host bandwidth that many times its uplink bandwidth. Throws, with the arithmetic, when
 * that rate is not a whole number of bit/s or disagrees with a fabricLink also given.
 */
export function leafSpineUplinkBps(s: Pick<LeafSpineSpec, 'hostsPerLeaf' | 'spines' | 'linksPerSpine' | 'hostLinkBps' | 'fabricLinkBps' | 'oversubscription'>): number {
  const ratio = s.oversubscription
  if (ratio === undefined) return s.fabricLinkBps
  if (!(ratio > 0)) throw new Error(`oversubscription must be positive, got ${ratio}`)
  const uplinks = s.spines * (s.linksPerSpine ?? 1)
  const down = s.hostsPerLeaf * s.hostLinkBps
  const bps = down / (uplinks * ratio)
  const how =
    `${s.hostsPerLeaf} hosts × ${rateText(s.hostLinkBps)} = ${rateText(down)} per leaf, over ${s.spines} spines × ${s.linksPerSpine ?? 1} links × oversubscription ${ratio}` +
    ` gives ${rateText(down)} / ${uplinks * ratio} = ${rateText(bps)} per uplink`
  if (Math.abs(bps - Math.round(bps)) > 1e-6) {
    throw new Error(`${how}, not a whole number of bit/s; choose hostsPerLeaf, hostLink, spines or oversubscription so that it divides`)
  }
  const whole = Math.round(bps)
  if (s.fabricLinkBps > 0 && s.fabricLinkBps !== whole) {
    throw new Error(`${how}, but fabricLink is ${rateText(s.fabricLinkBps)}; give one of fabricLink and oversubscription, or make them agree`)
  }
  return whole
}

function rateText(bps: number): string {
  for (const [unit, f] of [['Tbps', 1e12], ['Gbps', 1e9], ['Mbps', 1e6], ['Kbps', 1e3]] as const) {
    if (bps >= f) return `${+(bps / f).toFixed(3)}${unit}`
  }
  return `${+bps.toFixed(3)}bps`
}

function buildFatTree(b: Builder, s: Extract<FabricSpec, { kind: 'fat-tree' }>): void {
  if (!Number.isInteger(s.k) || s.k < 2 || s.k % 2 !== 0) throw new Error(`k must be an even integer >= 2, got ${s.k}`)
  const half = s.k / 2
  const edges: number[][] = []
  const aggs: number[][] = []
  for (let p = 0; p < s.k; p++) {
    edges.push(Array.from({ length: half }, (_, i) => b.node(`edge${p * half + i}`, 'tor', 1, p)))
  }
  for (let p = 0; p < s.k; p++) {
    aggs.push(Array.from({ length: half }, (_, i) => b.node(`agg${p * half + i}`, 'agg', 2, p)))
  }
  const cores = Array.from({ length: half * half }, (_, i) => b.node(`core${i}`, 'spine', 3))
  const perTor = s.hostsPerTor ?? half
  if (!Number.isInteger(perTor) || perTor < 1) throw new Error(`hostsPerTor must be a positive integer, got ${perTor}`)
  const hosts: number[] = []
  for (let p = 0; p < s.k; p++) {
    for (let e = 0; e < half; e++) {
      for (let h = 0; h < perTor; h++) hosts.push(b.node(`h${(p * half + e) * perTor + h}`, 'host', 0, p))
    }
  }
  for (let p = 0; p < s.k; p++) {
    for (let e = 0; e < half; e++) {
      for (let h = 0; h < perTor; h++) b.link(edges[p][e], hosts[(p * half + e) * perTor + h], s.hostLinkBps, s.linkDelayNs)
    }
  }
  for (let p = 0; p < s.k; p++) {
    for (const a of aggs[p]) for (const e of edges[p]) b.link(a, e, s.fabricLinkBps, s.linkDelayNs)
  }
  // Core c serves aggregation switch floor(c / half) of every pod.
  for (let c = 0; c < cores.length; c++) {
    for (let p = 0; p < s.k; p++) b.link(cores[c], aggs[p][Math.floor(c / half)], s.fabricLinkBps, s.linkDelayNs)
  }
}

function buildThreeTier(b: Builder, s: Extract<FabricSpec, { kind: 'three-tier' }>): void {
  for (const k of ['pods', 'torsPerPod', 'aggsPerPod', 'spines', 'hostsPerTor'] as const) positiveInt(s[k], k)
  const tors: number[][] = []
  const aggs: number[][] = []
  for (let p = 0; p < s.pods; p++) {
    tors.push(Array.from({ length: s.torsPerPod }, (_, i) => b.node(`tor${p * s.torsPerPod + i}`, 'tor', 1, p)))
  }
  for (let p = 0; p < s.pods; p++) {
    aggs.push(Array.from({ length: s.aggsPerPod }, (_, i) => b.node(`agg${p * s.aggsPerPod + i}`, 'agg', 2, p)))
  }
  const spines = Array.from({ length: s.spines }, (_, i) => b.node(`spine${i}`, 'spine', 3))
  const hosts: number[] = []
  const torList = tors.flat()
  for (let t = 0; t < torList.length; t++) {
    for (let h = 0; h < s.hostsPerTor; h++) hosts.push(b.node(`h${t * s.hostsPerTor + h}`, 'host', 0, b.nodes[torList[t]].pod))
  }
  for (let t = 0; t < torList.length; t++) {
    for (let h = 0; h < s.hostsPerTor; h++) b.link(torList[t], hosts[t * s.hostsPerTor + h], s.hostLinkBps, s.linkDelayNs)
  }
  for (let p = 0; p < s.pods; p++) {
    for (const a of aggs[p]) for (const t of tors[p]) b.link(a, t, s.fabricLinkBps, s.linkDelayNs)
  }
  for (const sp of spines) for (const a of aggs.flat()) b.link(sp, a, s.fabricLinkBps, s.linkDelayNs)
}

/** Builds the fabric graph of a topology spec, with its removed links and rate overrides applied. */
export function buildFabric(spec: FabricSpec): Fabric {
  const derived = spec.kind === 'leaf-spine' && spec.oversubscription !== undefined
  if (!(spec.hostLinkBps > 0) || !(derived || spec.fabricLinkBps > 0)) throw new Error('link rates must be positive')
  if (!(spec.linkDelayNs >= 0)) throw new Error('link delay must be non-negative')
  if (spec.kind === 'custom') return buildCustom(spec)
  const b = new Builder()
  switch (spec.kind) {
    case 'leaf-spine':
      buildLeafSpine(b, spec)
      break
    case 'fat-tree':
      buildFatTree(b, spec)
      break
    case 'three-tier':
      buildThreeTier(b, spec)
      break
  }
  return b.finish(spec)
}



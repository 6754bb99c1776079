// A custom topology: nodes and links written out, built into the same Fabric the generators
// give, so the simulator, the control plane and the drivers need not know the difference.
//
// Tiers set levels: host 0, ToR 1, aggregation 2, spine 3 (2 when there is no aggregation
// tier, as in a leaf-spine). A link's upper end is the node of the higher tier, whichever end
// the file writes first. Ports: explicit ones (`spine0:3`) keep their number; the others take
// each node's lowest free port in link order. A node's ports must then run from 0 without a
// gap, since every consumer indexes ports densely.

import { linkName, NODE_NAME_RE, reverseLinkName } from './names'
import type { CustomSpec, Fabric, NodeRole, TopoLink, TopoNode } from './types'

/** A problem of a custom topology, with where it is (relative to the topology block) and what it concerns. */
export class TopologyError extends Error {
  constructor(
    message: string,
    readonly path: Array<string | number>,
    readonly node?: string,
    readonly link?: string,
  ) {
    super(message)
    this.name = 'TopologyError'
  }
}

const TIERS_PLURAL: Record<NodeRole, string> = { host: 'hosts', tor: 'ToRs', agg: 'aggregation switches', spine: 'spines' }
const A_TIER: Record<NodeRole, string> = { host: 'a host', tor: 'a ToR', agg: 'an aggregation switch', spine: 'a spine' }

function levels(spec: CustomSpec): Record<NodeRole, number> {
  const hasAgg = spec.nodes.some((n) => n.tier === 'agg')
  return { host: 0, tor: 1, agg: 2, spine: hasAgg ? 3 : 2 }
}

/** Builds the fabric of a custom topology; throws a TopologyError naming the node or link at fault. */
export function buildCustom(spec: CustomSpec): Fabric {
  const level = levels(spec)
  const nodes: TopoNode[] = []
  const byName = new Map<string, number>()
  spec.nodes.forEach((n, i) => {
    if (!NODE_NAME_RE.test(n.name)) {
      throw new TopologyError(`node name '${n.name}' may hold letters, digits, '_' and '.' only (it is written in link names such as spine0-agg0)`, ['nodes', i, 'name'], n.name)
    }
    if (byName.has(n.name)) throw new TopologyError(`node '${n.name}' is already defined at nodes[${byName.get(n.name)}]`, ['nodes', i, 'name'], n.name)
    if (n.pod !== undefined && (n.tier === 'spine' || n.tier === 'host')) {
      throw new TopologyError(`${n.name} is ${A_TIER[n.tier]}; pod applies to ToRs and aggregation switches (a host's pod is its ToR's)`, ['nodes', i, 'pod'], n.name)
    }
    byName.set(n.name, i)
    nodes.push({ id: i, name: n.name, role: n.tier, level: level[n.tier], pod: n.pod ?? -1, ports: [] })
  })

  // Orient, name and price every link; `remove` is applied before ports are numbered.
  const pairs = new Map<string, number>()
  const written: Array<{ link: TopoLink; index: number; flipped: boolean; aPort?: number; bPort?: number }> = []
  spec.links.forEach((l, i) => {
    const end = (name: string, side: 'a' | 'b'): number => {
      const id = byName.get(name)
      if (id === undefined) throw new TopologyError(`links[${i}]: no node '${name}' in nodes`, ['links', i, side], name)
      return id
    }
    const x = end(l.a, 'a')
    const y = end(l.b, 'b')
    const X = nodes[x]
    const Y = nodes[y]
    if (x === y) throw new TopologyError(`links[${i}]: a link joins two different nodes, got ${X.name} twice`, ['links', i], X.name)
    if (X.level === Y.level) {
      throw new TopologyError(
        `links[${i}]: ${X.name} and ${Y.name} are both ${TIERS_PLURAL[X.role]}; a link joins two tiers (host, tor, agg, spine), since routing and probes go up, then down`,
        ['links', i],
        undefined,
        `${X.name}-${Y.name}`,
      )
    }
    const up = X.level > Y.level
    const [a, b] = up ? [x, y] : [y, x]
    const [aPort, bPort] = up ? [l.aPort, l.bPort] : [l.bPort, l.aPort]
    const A = nodes[a]
    const B = nodes[b]
    const key = `${a},${b}`
    const nth = (pairs.get(key) ?? 0) + 1
    pairs.set(key, nth)
    const name = linkName(A.name, B.name, nth)
    if (B.role === 'host' && A.role !== 'tor') {
      throw new TopologyError(`links[${i}]: host ${B.name} links to ${A.name}, ${A_TIER[A.role]}; a host's one link goes to a ToR`, ['links', i], B.name, name)
    }
    if (l.loss !== undefined && !(l.loss >= 0 && l.loss < 1)) throw new TopologyError(`links[${i}]: loss must be in [0, 1), got ${l.loss}`, ['links', i, 'loss'], undefined, name)
    const bps = l.bps ?? (B.role === 'host' ? spec.hostLinkBps : spec.fabricLinkBps)
    const link: TopoLink = { id: -1, name, a, aPort: -1, b, bPort: -1, bps, delayNs: l.delayNs ?? spec.linkDelayNs }
    if (l.loss) link.loss = l.loss
    written.push({ link, index: i, flipped: !up, ...(aPort !== undefined ? { aPort } : {}), ...(bPort !== undefined ? { bPort } : {}) })
  })

  const find = (name: string, field: Array<string | number>) => {
    const w = written.find((x) => x.link.name === name || x.link.name === reverseLinkName(name))
    if (!w) throw new TopologyError(`no link '${name}' in this custom fabric`, field, undefined, name)
    return w
  }
  const removed = new Set((spec.remove ?? []).map((n, i) => find(n, ['remove', i]).index))
  for (const [name, bps] of Object.entries(spec.rates ?? {})) {
    if (!(bps > 0)) throw new TopologyError(`the rate of link '${name}' must be positive`, ['slow', name], undefined, name)
    find(name, ['slow', name]).link.bps = bps
  }
  const kept = written.filter((w) => !removed.has(w.index))

  // Ports: explicit ones first (a clash names both links), then the lowest free in link order.
  const owner = nodes.map(() => new Map<number, { index: number; name: string }>())
  const claim = (node: number, port: number, w: (typeof kept)[number], side: 'a' | 'b') => {
    // Where the file wrote this end: it may have put the lower node first.
    const field = ['links', w.index, (side === 'a') !== w.flipped ? 'a' : 'b']
    if (!Number.isInteger(port) || port < 0) throw new TopologyError(`links[${w.index}]: port ${port} of ${nodes[node].name} must be an integer from 0`, field, nodes[node].name, w.link.name)
    const prev = owner[node].get(port)
    if (prev) {
      throw new TopologyError(
        `port ${port} of ${nodes[node].name} is taken twice: by links[${prev.index}] (${prev.name}) and links[${w.index}] (${w.link.name})`,
        field,
        nodes[node].name,
        w.link.name,
      )
    }
    owner[node].set(port, { index: w.index, name: w.link.name })
  }
  for (const w of kept) {
    if (w.aPort !== undefined) claim(w.link.a, w.aPort, w, 'a')
    if (w.bPort !== undefined) claim(w.link.b, w.bPort, w, 'b')
  }
  const next = nodes.map(() => 0)
  const free = (node: number): number => {
    while (owner[node].has(next[node])) next[node]++
    return next[node]
  }
  for (const w of kept) {
    w.link.aPort = w.aPort ?? free(w.link.a)
    if (w.aPort === undefined) owner[w.link.a].set(w.link.aPort, { index: w.index, name: w.link.name })
    w.link.bPort = w.bPort ?? free(w.link.b)
    if (w.bPort === undefined) owner[w.link.b].set(w.link.bPort, { index: w.index, name: w.link.name })
  }
  const links = kept.map((w, id) => ({ ...w.link, id }))
  for (const n of nodes) n.ports = new Array<number>(owner[n.id].size).fill(-1)
  for (const l of links) {
    const set = (node: number, port: number) => {
      const n = nodes[node]
      if (port >= n.ports.length) {
        const w = kept[l.id]
        throw new TopologyError(
          `${n.name} has ${n.ports.length} link${n.ports.length === 1 ? '' : 's'} but links[${w.index}] (${l.name}) puts one on port ${port}; ports are numbered from 0 without a gap, so ${n.name}'s run from 0 to ${n.ports.length - 1}`,
          ['links', w.index],
          n.name,
          l.name,
        )
      }
      n.ports[port] = l.id
    }
    set(l.a, l.aPort)
    set(l.b, l.bPort)
  }

  const hosts = nodes.filter((n) => n.role === 'host').map((n) => n.id)
  for (const h of hosts) {
    const n = nodes[h]
    const at = spec.nodes.findIndex((x) => x.name === n.name)
    if (n.ports.length !== 1) {
      const why = n.ports.length === 0 ? 'has no link' : `has ${n.ports.length} links (${n.ports.map((id) => links[id].name).join(', ')})`
      throw new TopologyError(`host ${n.name} ${why}; a host has exactly one link, to its ToR`, ['nodes', at], n.name)
    }
    n.pod = nodes[links[n.ports[0]].a].pod
  }
  const tors = nodes.filter((n) => n.role === 'tor').map((n) => n.id)
  const switches = nodes
    .filter((n) => n.role !== 'host')
    .sort((x, y) => x.level - y.level || x.id - y.id)
    .map((n) => n.id)
  const torOfHost = hosts.map((h) => links[nodes[h].ports[0]].a)
  return { kind: 'custom', nodes, links, hosts, tors, switches, torOfHost }
}

/**
 * A fabric written out as a custom topology: every node with its tier and pod, every link with
 * its ports, and its speed, delay and loss where they differ from the defaults given. Built
 * again, it gives the same nodes, links, names and ports: a template to start editing from.
 */
export function customFromFabric(f: Fabric, defaults: { hostLinkBps: number; fabricLinkBps: number; linkDelayNs: number }): CustomSpec {
  const nodes = f.nodes.map((n) => ({ name: n.name, tier: n.role, ...(n.pod >= 0 && (n.role === 'tor' || n.role === 'agg') ? { pod: n.pod } : {}) }))
  const links = f.links.map((l) => {
    const host = f.nodes[l.b].role === 'host'
    return {
      a: f.nodes[l.a].name,
      b: f.nodes[l.b].name,
      aPort: l.aPort,
      bPort: l.bPort,
      ...(l.bps !== (host ? defaults.hostLinkBps : defaults.fabricLinkBps) ? { bps: l.bps } : {}),
      ...(l.delayNs !== defaults.linkDelayNs ? { delayNs: l.delayNs } : {}),
      ...(l.loss ? { loss: l.loss } : {}),
    }
  })
  return { kind: 'custom', ...defaults, nodes, links }
}

// What the import formats leave out, filled in: tiers and pods. The P4 tutorials' topology.json,
// p4-utils' p4app.json and containerlab's .clab.yml know hosts and switches, not tiers. A
// switch with a host is a ToR; the other switches get their tier by their hop distance from
// the nearest ToR (1: aggregation, 2: spine; in a two-tier fabric the switches one hop up are
// spines). Pods are the groups of ToRs and aggregation switches joined without a spine.

import { NODE_NAME_RE, type CustomLinkSpec, type CustomNodeSpec, type NodeRole } from '../../model/topology'

/** A problem of an imported file, naming the entry at fault (`links[3]`, `hosts.h1`). */
export class ImportError extends Error {
  constructor(
    readonly entry: string,
    message: string,
  ) {
    super(`${entry}: ${message}`)
    this.name = 'ImportError'
  }
}

export interface ImportedNode {
  name: string
  kind: 'host' | 'switch'
  /** Given by the file itself (a p4lab export's labels); inferred otherwise. */
  tier?: NodeRole
  pod?: number
  entry: string
}

export interface ImportedLink extends CustomLinkSpec {
  entry: string
}

export interface Imported {
  format: string
  nodes: ImportedNode[]
  links: ImportedLink[]
  /** What was inferred or assumed, for the comment on the imported YAML. */
  notes: string[]
}

export function checkName(name: string, entry: string): void {
  if (!NODE_NAME_RE.test(name)) {
    throw new ImportError(entry, `node name '${name}' cannot be carried over: p4lab names hold letters, digits, '_' and '.' only ('-', ':' and '/' are part of link names); rename it in the file`)
  }
}

/** Tiers and pods for every node; throws an ImportError naming what cannot be carried over. */
export function inferTiers(imp: Imported): { nodes: CustomNodeSpec[]; links: CustomLinkSpec[]; notes: string[] } {
  const byName = new Map(imp.nodes.map((n) => [n.name, n]))
  const adj = new Map<string, string[]>(imp.nodes.map((n) => [n.name, []]))
  imp.links.forEach((l) => {
    for (const [end, side] of [[l.a, 'a'], [l.b, 'b']] as const) {
      if (!byName.has(end)) throw new ImportError(l.entry, `${side === 'a' ? 'first' : 'second'} end '${end}' is not a host or switch of the file`)
    }
    if (l.a === l.b) throw new ImportError(l.entry, `a link joins two different nodes, got ${l.a} twice`)
    adj.get(l.a)!.push(l.b)
    adj.get(l.b)!.push(l.a)
  })
  for (const n of imp.nodes) {
    if (n.kind !== 'host') continue
    const peers = adj.get(n.name)!
    if (peers.length !== 1) throw new ImportError(n.entry, `host ${n.name} has ${peers.length} links; p4lab's hosts have exactly one, to their ToR`)
    if (byName.get(peers[0])!.kind === 'host') throw new ImportError(n.entry, `host ${n.name} links straight to host ${peers[0]}; a host's one link goes to a switch`)
  }
  const given = imp.nodes.every((n) => n.tier !== undefined)
  const notes = [...imp.notes]
  const tier = new Map<string, NodeRole>()
  const pod = new Map<string, number>()
  if (given) {
    for (const n of imp.nodes) {
      tier.set(n.name, n.tier!)
      if (n.pod !== undefined) pod.set(n.name, n.pod)
    }
    notes.push('tiers and pods as the file labels them (p4lab.tier, p4lab.pod)')
  } else {
    const tors = imp.nodes.filter((n) => n.kind === 'switch' && adj.get(n.name)!.some((m) => byName.get(m)!.kind === 'host'))
    if (tors.length === 0) throw new ImportError('links', 'no switch has a host attached, so there is no ToR to start from; p4lab needs hosts on ToRs')
    // Hop distance of every switch from the nearest ToR, over switch-to-switch links.
    const dist = new Map<string, number>(tors.map((t) => [t.name, 0]))
    const queue = tors.map((t) => t.name)
    for (let i = 0; i < queue.length; i++) {
      for (const m of adj.get(queue[i])!) {
        if (byName.get(m)!.kind === 'switch' && !dist.has(m)) {
          dist.set(m, dist.get(queue[i])! + 1)
          queue.push(m)
        }
      }
    }
    const far = Math.max(...dist.values())
    for (const n of imp.nodes) {
      if (n.kind === 'host') {
        tier.set(n.name, 'host')
        continue
      }
      const d = dist.get(n.name)
      if (d === undefined) throw new ImportError(n.entry, `switch ${n.name} is not connected to any switch with hosts`)
      if (d > 2) throw new ImportError(n.entry, `switch ${n.name} is ${d} hops from the nearest ToR; p4lab models at most three switch tiers (ToR, aggregation, spine)`)
      tier.set(n.name, d === 0 ? 'tor' : d === 1 && far === 2 ? 'agg' : 'spine')
    }
    notes.push(
      far === 2
        ? 'tiers inferred: switches with hosts are ToRs, those one hop from a ToR aggregation switches, two hops spines'
        : 'tiers inferred: switches with hosts are ToRs (leaves), the switches above them spines',
    )
    if (far === 2) {
      // Pods: ToRs and aggregation switches joined without passing a spine.
      let next = 0
      for (const t of tors) {
        if (pod.has(t.name)) continue
        const stack = [t.name]
        pod.set(t.name, next)
        while (stack.length > 0) {
          const x = stack.pop()!
          for (const m of adj.get(x)!) {
            const tm = tier.get(m)
            if ((tm === 'tor' || tm === 'agg') && !pod.has(m)) {
              pod.set(m, next)
              stack.push(m)
            }
          }
        }
        next++
      }
      notes.push(`pods inferred: ToRs and aggregation switches joined without a spine form a pod (${next} pod${next === 1 ? '' : 's'})`)
    }
  }
  imp.links.forEach((l) => {
    const [ta, tb] = [tier.get(l.a)!, tier.get(l.b)!]
    if (ta === tb) throw new ImportError(l.entry, `${l.a} and ${l.b} are both in tier ${ta}; p4lab's links join two tiers (routing and probes go up, then down)`)
  })
  const nodes = imp.nodes.map((n) => ({ name: n.name, tier: tier.get(n.name)!, ...(pod.has(n.name) ? { pod: pod.get(n.name)! } : {}) }))
  const links = imp.links.map(({ entry: _entry, ...l }) => l)
  return { nodes, links, notes }
}

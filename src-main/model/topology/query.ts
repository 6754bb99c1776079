import { reverseLinkName } from './names'
import type { Fabric, TopoLink } from './types'

/** The node at the other end of a port, and the port it arrives on there. */
export function peer(f: Fabric, node: number, port: number): { node: number; port: number; link: TopoLink } {
  const link = f.links[f.nodes[node].ports[port]]
  return link.a === node ? { node: link.b, port: link.bPort, link } : { node: link.a, port: link.aPort, link }
}

/** Whether a port of a node faces up (towards a higher tier). */
export function isUpPort(f: Fabric, node: number, port: number): boolean {
  return f.nodes[peer(f, node, port).node].level > f.nodes[node].level
}

export function linkByName(f: Fabric, name: string): TopoLink {
  const rev = reverseLinkName(name)
  const l = f.links.find((x) => x.name === name || x.name === rev)
  if (!l) throw new Error(`no link '${name}' in this ${f.kind} fabric`)
  return l
}

export function nodeByName(f: Fabric, name: string): number {
  const n = f.nodes.find((x) => x.name === name)
  if (!n) throw new Error(`no node '${name}' in this ${f.kind} fabric`)
  return n.id
}

/** Hop distance from every node to the target node (BFS over all links), -1 if unreachable. */
export function distancesTo(f: Fabric, target: number): Int32Array {
  const dist = new Int32Array(f.nodes.length).fill(-1)
  dist[target] = 0
  const queue = [target]
  for (let i = 0; i < queue.length; i++) {
    const n = queue[i]
    for (let p = 0; p < f.nodes[n].ports.length; p++) {
      const m = peer(f, n, p).node
      // Hosts do not forward: a path may end at a host but never pass through one.
      if (dist[m] < 0 && (f.nodes[m].role !== 'host' || m === target)) {
        dist[m] = dist[n] + 1
        if (f.nodes[m].role !== 'host') queue.push(m)
      }
    }
  }
  return dist
}

/**
 * The ports of a switch that lie on a shortest path to the target node: the next-hop set
 * ECMP hashes over, and the candidate set adaptive schemes choose from.
 */
export function shortestNextHops(f: Fabric, node: number, dist: Int32Array): number[] {
  const out: number[] = []
  const d = dist[node]
  if (d <= 0) return out
  for (let p = 0; p < f.nodes[node].ports.length; p++) {
    const m = peer(f, node, p).node
    if (dist[m] === d - 1) out.push(p)
  }
  return out
}

// Probe replication rules, as multicast groups keyed by ingress port.
//
// HULA: a ToR sends its probe up; an aggregation switch that gets
// it from a ToR sends it to its other ToRs and to all spines; a spine sends it to the other
// aggregation switches (of other pods); an aggregation switch that gets it from a spine
// sends it only down. A ToR consumes probes that come down.
//
// DHLB: ToRs send up to their leaves (our aggregation switches); a leaf that gets
// it from a spine sends it down to its ToRs, from a ToR to every port but the ingress one; a
// spine sends it to all other leaves. In DHLB's own fabric (a fat-tree) a spine reaches one
// leaf per pod, so "all other leaves" are the other pods' leaves, which is what we render
// (spineScope 'other-pods'). Taken literally on a 3-tier fabric, where a spine reaches every
// leaf of a pod, the probe would come back into its own pod and down to the ToR that sent it
// (scope 'all-others'; the replication walk test shows that).
//
// In a two-tier leaf-spine the leaves are the ToRs: a spine sends to all other leaves.

import { isUpPort, peer, type Fabric } from '../topology'
import type { McastGroup, ProbeReplication } from './types'

export type ProbeRule = 'hula' | 'dhlb'
export type SpineScope = 'other-pods' | 'all-others'

export interface ReplicationPlan {
  groups: McastGroup[]
  perPort: ProbeReplication[]
}

/**
 * Where a probe that arrives at `node` on `port` goes under the rule: the egress ports (empty:
 * consumed) and the rule in words. The simulator's probe forwarding and the rendered multicast
 * groups both come from here.
 */
export function probeEgress(f: Fabric, node: number, port: number, rule: ProbeRule = 'hula', spineScope: SpineScope = 'other-pods'): { ports: number[]; rule: string } {
  const n = f.nodes[node]
  const all = Array.from({ length: n.ports.length }, (_, p) => p)
  const isHostPort = (p: number): boolean => f.nodes[peer(f, node, p).node].role === 'host'
  const R = rule.toUpperCase()
  if (n.role === 'tor') {
    if (isHostPort(port)) return { ports: all.filter((p) => isUpPort(f, node, p)), rule: `${R}: a ToR sends its own probe up` }
    return { ports: [], rule: `${R}: a ToR consumes a probe from above` }
  }
  if (n.role === 'agg') {
    if (isUpPort(f, node, port)) return { ports: all.filter((p) => !isUpPort(f, node, p) && !isHostPort(p)), rule: `${R}: from a spine, only down to the ToRs` }
    return { ports: all.filter((q) => q !== port), rule: `${R}: from a ToR, to the other ToRs and every spine` }
  }
  // Spine (or core). In a leaf-spine its down ports lead to the leaves (ToRs).
  const inPod = f.nodes[peer(f, node, port).node].pod
  if (spineScope === 'all-others' || inPod < 0) {
    return { ports: all.filter((q) => q !== port), rule: `${R}: a spine sends to every other leaf` }
  }
  return {
    ports: all.filter((q) => q !== port && f.nodes[peer(f, node, q).node].pod !== inPod),
    rule: `${R}: a spine sends to the aggregation switches of the other pods`,
  }
}

/** The replication of one switch: groups (deduplicated by port set) and the group per ingress port. */
export function probeReplication(f: Fabric, node: number, rule: ProbeRule, spineScope: SpineScope = 'other-pods'): ReplicationPlan {
  const all = Array.from({ length: f.nodes[node].ports.length }, (_, p) => p)
  const R = rule.toUpperCase()
  const decide = (p: number): { ports: number[]; rule: string } => probeEgress(f, node, p, rule, spineScope)
  const groups: McastGroup[] = []
  const perPort: ProbeReplication[] = []
  for (const p of all) {
    const d = decide(p)
    if (d.ports.length === 0) {
      perPort.push({ ingressPort: p, group: 0, rule: d.rule })
      continue
    }
    const key = d.ports.join(',')
    let g = groups.find((x) => x.ports.join(',') === key)
    if (!g) {
      g = { id: groups.length + 1, ports: d.ports, purpose: `${R} probe replication: ${d.rule.slice(R.length + 2)}` }
      groups.push(g)
    }
    perPort.push({ ingressPort: p, group: g.id, rule: d.rule })
  }
  return { groups, perPort }
}

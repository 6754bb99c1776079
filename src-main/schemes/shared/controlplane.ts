// The tables every program has (p4/README.md, "Tables every program has"):
//   MyIngress.ipv4Route  hdr.ipv4.dstAddr (lpm)  toHost(port: 9, dmac: 48) | toTor(tor: 16) | drop()
//   MyIngress.nextHop    meta.dstTor (exact), meta.bucket (exact, 0..15)  setEgress(port: 9) | drop()
// Next-hop groups are bucket tables: NH_BUCKETS = 16 entries per destination ToR, members
// repeated round-robin (bucket b takes member b mod n).

import type { P4Iface, RenderContext } from '../../model/controlplane/module'
import type { TableEntry } from '../../model/controlplane/types'

export const NH_BUCKETS = 16

/** Names shared by every program (same on v1model and TNA: the controls are MyIngress/MyEgress). */
export const COMMON_NAMES: Record<string, string> = {
  ipv4Route: 'MyIngress.ipv4Route',
  nextHop: 'MyIngress.nextHop',
  toHost: 'MyIngress.toHost',
  toTor: 'MyIngress.toTor',
  setEgress: 'MyIngress.setEgress',
  drop: 'MyIngress.drop',
}

export const COMMON_PARAMS: Record<string, string[]> = {
  toHost: ['port', 'dmac'],
  toTor: ['tor'],
  setEgress: ['port'],
  drop: [],
}

export function iface(programName: string, names: Record<string, string> = {}, params: Record<string, string[]> = {}): P4Iface {
  return { programName, names: { ...COMMON_NAMES, ...names }, actionParams: { ...COMMON_PARAMS, ...params } }
}

/** Host routes, ToR subnets and next-hop buckets of a switch. */
export function routingEntries(ctx: RenderContext): TableEntry[] {
  const { sw, state, iface: I } = ctx
  const out: TableEntry[] = []
  for (const h of sw.hostRoutes) {
    out.push({
      table: I.names.ipv4Route,
      action: I.names.toHost,
      match: [{ kind: 'lpm', value: h.ip, prefixLen: 32 }],
      params: [ctx.port(h.port), h.mac],
      comment: 'hosts on this switch',
    })
  }
  for (const g of sw.nextHops) {
    const t = state.tors[g.dstTor]
    out.push({
      table: I.names.ipv4Route,
      action: I.names.toTor,
      match: [{ kind: 'lpm', value: t.subnet, prefixLen: t.prefixLen }],
      params: [g.dstTor],
      comment: 'ToR subnets: the destination ToR index',
    })
  }
  for (const g of sw.nextHops) {
    for (let b = 0; b < NH_BUCKETS; b++) {
      out.push({
        table: I.names.nextHop,
        action: I.names.setEgress,
        match: [
          { kind: 'exact', value: g.dstTor },
          { kind: 'exact', value: b },
        ],
        params: [ctx.port(g.ports[b % g.ports.length])],
        comment: `next hops to ${g.dstTorName} (ToR ${g.dstTor}): ports ${g.ports.join(' ')}, ${NH_BUCKETS} buckets round-robin`,
      })
    }
  }
  return out
}

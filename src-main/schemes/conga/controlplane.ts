// CONGA (p4/conga/v1model/conga.p4, p4/conga/tna/conga.p4; p4/README.md "conga"). Leaf-spine only.
//   MyIngress.switchInfo  keyless  setSwitchId(id: 16, uplinks: 8)   (table_set_default)
//   MyIngress.uplinkPort  meta.lbTag (exact)  setUplink(port: 9) | drop()
// A leaf's id is its ToR index (the overlay's srcLeaf, the congestion tables' leaf index);
// LBTag i is its i-th uplink. Spines get uplinks 0 and forward by nextHop. A leaf may have
// at most CONGA_MAX_UPLINKS uplinks, a constant of each program: p4/conga/v1model/conga.p4 compares
// the metrics of LBTags 0..3 (m0..m3) for a new flowlet, so 4; p4/conga/tna/conga.p4 keeps only the
// best tag per leaf and is bounded by the 4-bit LBTag, so 16. More are refused.
// Registers start at 0 (metric 0, no feedback yet): nothing to initialise.

import type { SchemeModule } from '../../model/controlplane/module'
import type { CpTarget, TableEntry } from '../../model/controlplane/types'
import { iface, routingEntries } from '../shared/controlplane'

/** CONGA_MAX_UPLINKS of p4/conga/v1model/conga.p4 (bmv2) and p4/conga/tna/conga.p4 (tofino). */
export const CONGA_MAX_UPLINKS: Record<CpTarget, number> = { bmv2: 4, tofino: 16 }

export const conga: SchemeModule = {
  scheme: 'conga',
  fabrics: ['leaf-spine'],
  registers: () => [],
  iface: () =>
    iface(
      'conga',
      { switchInfo: 'MyIngress.switchInfo', setSwitchId: 'MyIngress.setSwitchId', uplinkPort: 'MyIngress.uplinkPort', setUplink: 'MyIngress.setUplink' },
      { setSwitchId: ['id', 'uplinks'], setUplink: ['port'] },
    ),
  render: (ctx) => {
    const { sw } = ctx
    const I = ctx.iface.names
    const ups = sw.ports.filter((p) => p.facing === 'up').map((p) => p.port)
    const max = CONGA_MAX_UPLINKS[ctx.target]
    if (sw.role === 'tor' && ups.length > max) {
      const file = ctx.target === 'bmv2' ? 'p4/conga/v1model/conga.p4' : 'p4/conga/tna/conga.p4'
      throw new Error(
        `conga: leaf ${sw.name} has ${ups.length} uplinks; ${file} handles at most CONGA_MAX_UPLINKS = ${max}` +
          (ctx.target === 'bmv2' ? ` (a new flowlet compares the metrics of LBTags 0..${max - 1}; the Tofino program takes ${CONGA_MAX_UPLINKS.tofino})` : ' (LBTag is 4 bits)'),
      )
    }
    const isLeaf = sw.role === 'tor'
    const entries: TableEntry[] = [
      {
        table: I.switchInfo,
        action: I.setSwitchId,
        isDefault: true,
        match: [],
        params: isLeaf ? [sw.torIndex, ups.length] : [sw.switchId, 0],
        comment: isLeaf ? `leaf id (ToR index) and uplink count` : 'spine: no uplinks, forwards by nextHop',
      },
    ]
    if (isLeaf) {
      ups.forEach((p, tag) =>
        entries.push({
          table: I.uplinkPort,
          action: I.setUplink,
          match: [{ kind: 'exact', value: tag }],
          params: [ctx.port(p)],
          comment: 'LBTag -> uplink port',
        }),
      )
    }
    entries.push(...routingEntries(ctx))
    return { entries, registers: [], mcastGroups: [], mirrors: [] }
  },
}

// CONGA (p4/v1model/conga.p4, p4/tna/conga.p4; p4/README.md "conga"). Leaf-spine only.
//   Ingress.switchInfo  keyless  setSwitchId(id: 16, uplinks: 8)   (table_set_default)
//   Ingress.uplinkPort  meta.lbTag (exact)  setUplink(port: 9) | drop()
// A leaf's id is its ToR index (the overlay's srcLeaf, the congestion tables' leaf index);
// LBTag i is its i-th uplink. Spines get uplinks 0 and forward by nextHop. The program
// compares at most four uplink metrics (m0..m3), so a leaf with more uplinks is refused.
// Registers start at 0 (metric 0, no feedback yet): nothing to initialise.

import type { SchemeModule } from '.'
import type { TableEntry } from '../types'
import { iface, routingEntries } from './common'

export const CONGA_MAX_UPLINKS = 4

export const conga: SchemeModule = {
  scheme: 'conga',
  fabrics: ['leaf-spine'],
  registers: () => [],
  iface: () =>
    iface(
      'conga',
      { switchInfo: 'Ingress.switchInfo', setSwitchId: 'Ingress.setSwitchId', uplinkPort: 'Ingress.uplinkPort', setUplink: 'Ingress.setUplink' },
      { setSwitchId: ['id', 'uplinks'], setUplink: ['port'] },
    ),
  render: (ctx) => {
    const { sw } = ctx
    const I = ctx.iface.names
    const ups = sw.ports.filter((p) => p.facing === 'up').map((p) => p.port)
    if (sw.role === 'tor' && ups.length > CONGA_MAX_UPLINKS) {
      throw new Error(`conga: leaf ${sw.name} has ${ups.length} uplinks; the program handles at most ${CONGA_MAX_UPLINKS}`)
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

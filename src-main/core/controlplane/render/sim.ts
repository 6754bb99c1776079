// The embedded simulator's forwarding tables (SimRoutes in src-main/sim/types.ts), from the
// same state the CLI files and bfrt scripts come from: per switch node id, the candidate
// egress ports towards each destination ToR index, and at ToRs the port of each local host.

import type { SimRoutes, SwitchRoutes } from '../../../sim/types'
import type { ControlPlaneState } from '../../../model/controlplane/types'

export function renderSimRoutes(state: ControlPlaneState): SimRoutes {
  const switches: Record<number, SwitchRoutes> = {}
  for (const sw of state.switches) {
    const toTor: number[][] = state.tors.map(() => [])
    for (const g of sw.nextHops) toTor[g.dstTor] = [...g.ports]
    const r: SwitchRoutes = { toTor }
    if (sw.role === 'tor') r.hosts = sw.hostRoutes.map((h) => [h.host, h.port] as [number, number])
    switches[sw.node] = r
  }
  return { switches }
}

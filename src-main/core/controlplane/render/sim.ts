// The embedded simulator's forwarding tables, from the same state the CLI files and bfrt
// scripts come from. Shape: per switch node id, the candidate egress ports towards each
// destination ToR index, and the port of each local host.
// TODO(sim): src-main/sim/types.ts is getting a SimRoutes type of this shape; switch to it
// when it lands (SimSwitchRoutes in ../types is the local stand-in).

import type { ControlPlaneState, SimSwitchRoutes } from '../types'

export type SimRoutesLocal = Record<number, SimSwitchRoutes>

export function renderSimRoutes(state: ControlPlaneState): SimRoutesLocal {
  const out: SimRoutesLocal = {}
  for (const sw of state.switches) {
    const torPorts: number[][] = state.tors.map(() => [])
    for (const g of sw.nextHops) torPorts[g.dstTor] = [...g.ports]
    const hostPorts: Record<number, number> = {}
    for (const h of sw.hostRoutes) hostPorts[h.host] = h.port
    out[sw.node] = { torPorts, hostPorts }
  }
  return out
}

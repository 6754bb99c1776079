// Forwarding tables as data (SimRoutes), their computation from the fabric graph when the
// config brings none, and their compilation into the switches' live candidate groups.
//
// The groups given (or computed) are the base; the live groups are the base minus dead
// ports. Under 'global' failover a port is also withdrawn when the switch behind it has no
// live way on toward the destination ToR (routing has converged over the live links), so
// no switch sends into a dead end; under 'local' only the dead ports themselves go.

import { distancesTo, peer, shortestNextHops } from '../../model/topology/query'
import type { Fabric } from '../../model/topology/types'
import type { Switch } from '../net/switch'
import type { SimRoutes } from '../types'

/** Shortest-path routes of a fabric: the ECMP groups of every switch toward every ToR. */
export function computeRoutes(f: Fabric): SimRoutes {
  const switches: SimRoutes['switches'] = {}
  for (const s of f.switches) switches[s] = { toTor: [], hosts: [] }
  for (const tor of f.tors) {
    const dist = distancesTo(f, tor)
    for (const s of f.switches) switches[s].toTor.push(s === tor ? [] : shortestNextHops(f, s, dist))
  }
  f.hosts.forEach((h, i) => {
    const tor = f.torOfHost[i]
    switches[tor].hosts!.push([i, peer(f, h, 0).port])
  })
  return { switches }
}

export class RouteTable {
  /** base[s][t]: the given candidate ports of switch s toward ToR t. */
  private readonly base: Int32Array[][]
  /** Per switch: peer switch (dense) or -1, per port. */
  private readonly peerSw: Int32Array[]
  private readonly nTors: number

  constructor(
    private readonly f: Fabric,
    routes: SimRoutes,
    private readonly switches: Switch[],
    /** Host index → offset of its port in its ToR's cand; filled here. */
    hostSlot: Int32Array,
    private readonly torSwitch: Int32Array,
  ) {
    const nTors = (this.nTors = f.tors.length)
    const denseOf = new Map<number, number>()
    f.switches.forEach((node, s) => denseOf.set(node, s))
    this.peerSw = f.switches.map((node) =>
      Int32Array.from(f.nodes[node].ports, (_, p) => denseOf.get(peer(f, node, p).node) ?? -1),
    )
    const hostPort = new Int32Array(f.hosts.length).fill(-1)
    this.base = f.switches.map((node) => {
      const name = f.nodes[node].name
      const r = routes.switches[node]
      if (r === undefined) throw new Error(`routes: no table for switch ${name} (node ${node})`)
      if (!Array.isArray(r.toTor) || r.toTor.length !== nTors) {
        throw new Error(`routes.switches[${node}] (${name}): toTor must list ${nTors} groups, one per ToR, got ${r.toTor?.length}`)
      }
      const nPorts = f.nodes[node].ports.length
      const checkPort = (p: number, where: string): void => {
        if (!Number.isInteger(p) || p < 0 || p >= nPorts) {
          throw new Error(`routes.switches[${node}] (${name}).${where}: port ${p} is not one of its ports 0..${nPorts - 1}`)
        }
      }
      for (const [h, p] of r.hosts ?? []) {
        checkPort(p, `hosts`)
        if (f.torOfHost[h] !== node) throw new Error(`routes.switches[${node}] (${name}).hosts: host ${h} is not attached to it`)
        hostPort[h] = p
      }
      return r.toTor.map((g, t) => {
        g.forEach((p, i) => checkPort(p, `toTor[${t}][${i}]`))
        return Int32Array.from(g)
      })
    })
    f.hosts.forEach((_, h) => {
      if (hostPort[h] < 0) throw new Error(`routes: ToR ${f.nodes[f.torOfHost[h]].name} has no port for host ${h}`)
    })
    // Each switch's cand holds its groups, then one slot per local host.
    switches.forEach((sw, s) => {
      let size = 0
      for (const g of this.base[s]) size += g.length
      const local: number[] = []
      if (sw.torIndex >= 0) f.hosts.forEach((_, h) => f.torOfHost[h] === f.switches[s] && local.push(h))
      sw.cand = new Int32Array(size + local.length)
      sw.off = new Int32Array(nTors)
      sw.len = new Int32Array(nTors)
      local.forEach((h, i) => {
        hostSlot[h] = size + i
        sw.cand[size + i] = hostPort[h]
      })
    })
  }

  /** Recomputes every switch's live groups from the port states (portUp[s][p]). */
  refresh(portUp: Uint8Array[], mode: 'global' | 'local'): void {
    const S = this.switches.length
    const state = new Uint8Array(S) // 0 unknown, 1 in progress, 2 done
    const live: Int32Array[] = new Array<Int32Array>(S)
    for (let t = 0; t < this.nTors; t++) {
      const dest = this.torSwitch[t]
      state.fill(0)
      const solve = (s: number): Int32Array => {
        if (state[s] === 2) return live[s]
        state[s] = 1
        const out: number[] = []
        for (const p of this.base[s][t]) {
          if (portUp[s][p] === 0) continue
          const q = this.peerSw[s][p]
          if (q < 0) continue // a host never forwards
          if (mode === 'global' && q !== dest && (state[q] === 1 || solve(q).length === 0)) continue
          out.push(p)
        }
        state[s] = 2
        return (live[s] = Int32Array.from(out))
      }
      for (let s = 0; s < S; s++) {
        if (s === dest) continue
        const g = solve(s)
        const sw = this.switches[s]
        // Groups are written in ToR order, each at most its base size, so offsets are fixed.
        const off = t === 0 ? 0 : sw.off[t - 1] + this.base[s][t - 1].length
        sw.off[t] = off
        sw.len[t] = g.length
        sw.cand.set(g, off)
      }
      const dsw = this.switches[dest]
      dsw.off[t] = t === 0 ? 0 : dsw.off[t - 1] + this.base[dest][t - 1].length
      dsw.len[t] = 0
    }
  }
}

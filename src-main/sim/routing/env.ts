// The engine's implementation of StageEnv: views of the built fabric, plus the services a
// scheme needs (sending, timers, the event log, telemetry series).

import { isUpPort, peer } from '../../model/topology/query'
import type { SimContext } from '../engine/context'
import { KIND_STAGE_TIMER } from '../engine/context'
import { KIND_PROBE } from '../engine/packets'
import type { Rng } from '../engine/rng'
import type { FlowTable } from '../tcp/flows'
import type { SeriesGroup } from '../telemetry'
import type { SimFabric } from '../topo/build'
import type { SimSeriesDef } from '../types'
import type { StageEnv } from './stage'

export function createStageEnv(
  ctx: SimContext,
  fab: SimFabric,
  flows: FlowTable,
  rng: Rng,
  params: Record<string, number>,
  seriesGroups: SeriesGroup[],
): StageEnv {
  const f = fab.graph
  const nS = f.switches.length
  const P = fab.portBase[nS]
  const dense = new Map<number, number>()
  f.switches.forEach((node, s) => dense.set(node, s))
  const peerSwitch = new Int32Array(P)
  const peerPort = new Int32Array(P)
  const portIsUp = new Uint8Array(P)
  f.switches.forEach((node, s) => {
    f.nodes[node].ports.forEach((_, p) => {
      const q = peer(f, node, p)
      const g = fab.portBase[s] + p
      peerSwitch[g] = dense.get(q.node) ?? -1
      peerPort[g] = q.port
      portIsUp[g] = isUpPort(f, node, p) ? 1 : 0
    })
  })
  const switches = fab.switches
  const counters = ctx.counters
  return {
    ctx,
    fabric: f,
    flows,
    rng,
    params: Object.freeze({ ...params }),
    nSwitches: nS,
    nTors: f.tors.length,
    switchNode: Int32Array.from(f.switches),
    switchTor: fab.switchTor,
    switchLevel: Int32Array.from(f.switches, (node) => f.nodes[node].level),
    torSwitch: fab.torSwitch,
    torOfHost: fab.torOfHost,
    portBase: fab.portBase,
    links: fab.switchPorts,
    portUp: fab.portUpFlat,
    peerSwitch,
    peerPort,
    portIsUp,
    buffer: fab.buffer,
    send(s: number, port: number, p: number): boolean {
      const pkts = ctx.pkts
      if (pkts.kind[p] >= KIND_PROBE) {
        counters.controlPackets++
        counters.controlBytes += pkts.wireBytes[p]
      }
      return switches[s].ports[port].enqueue(p)
    },
    addTimer(local: number): number {
      return ctx.addElement(KIND_STAGE_TIMER, local)
    },
    schedule(timer: number, atPs: number): void {
      ctx.heap.schedule(timer, atPs)
    },
    logEvent(kind: string, detail: string): void {
      ctx.logEvent(kind, detail)
    },
    addSeries(defs: SimSeriesDef[], fill: (out: Float64Array) => void): void {
      seriesGroups.push({ defs, fill })
    },
  }
}

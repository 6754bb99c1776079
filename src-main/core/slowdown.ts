// FCT slowdown of a run's flows (model/slowdown.ts): the ideal FCT of each flow on the run's
// own fabric and transport, as its record holds them, and the statistics the run stores.
import { buildFabric } from '../model/topology'
import { idealFctOverPaths, pathProfiles, type IdealTransport, type PathHop } from '../model/slowdown'
import type { FabricSpec } from '../model/topology/types'
import { ACK_WIRE_BYTES, TCP_HEADER_BYTES } from '../sim/tcp/flows'
import { DEFAULT_HOST_QUEUE_PACKETS } from '../sim/types'
import type { FctStats, SlowdownStats } from '../contract'
import { percentile, warmupEndNs, warmupShare, type FlowArrays } from './stats'

export interface SlowdownInputs {
  topology: FabricSpec & { hostQueuePackets?: number }
  transport: { mssBytes: number; initCwndPackets: number }
}

/** A flow's ideal FCT (ns) on an idle fabric, or null where there is none (an unbounded flow, no path). */
export type IdealFct = (src: number, dst: number, sizeBytes: number) => number | null

/** The ideal-FCT function of a run's fabric and transport; paths are enumerated once per host pair. */
export function idealFctFor(s: SlowdownInputs): IdealFct {
  const fabric = buildFabric(s.topology)
  const t: IdealTransport = { mssBytes: s.transport.mssBytes, headerBytes: TCP_HEADER_BYTES, ackBytes: ACK_WIRE_BYTES, initCwndPackets: s.transport.initCwndPackets,
    hostQueuePackets: s.topology.hostQueuePackets ?? DEFAULT_HOST_QUEUE_PACKETS,
  }
  const paths = new Map<number, PathHop[][]>()
  const nHosts = fabric.hosts.length
  return (src, dst, sizeBytes) => {
    if (!(sizeBytes > 0) || !Number.isFinite(sizeBytes)) return null
    if (!(src >= 0 && src < nHosts && dst >= 0 && dst < nHosts) || src === dst) return null
    const key = src * nHosts + dst
    let p = paths.get(key)
    if (!p) paths.set(key, (p = pathProfiles(fabric, src, dst)))
    return idealFctOverPaths(sizeBytes, p, t)
  }
}

/** The ideal-FCT function of a spec (its topology and transport), or null when it has none to go by. */
export function idealFctOfSpec(spec: unknown): IdealFct | null {
  const s = spec as Partial<SlowdownInputs> | null | undefined
  if (!s?.topology || !s.transport || !(s.transport.mssBytes > 0) || !(s.transport.initCwndPackets > 0)) return null
  try {
    return idealFctFor(s as SlowdownInputs)
  } catch {
    return null
  }
}

/** Per-flow slowdown (FCT / ideal FCT) of the finished flows with an ideal that start at or after `fromNs`; NaN for the others. */
export function flowSlowdowns(f: FlowArrays & { src: ArrayLike<number>; dst: ArrayLike<number> }, ideal: IdealFct, fromNs = -Infinity): Float64Array {
  const n = f.sizeBytes.length
  const out = new Float64Array(n).fill(NaN)
  for (let i = 0; i < n; i++) {
    if (f.finishNs[i] < 0 || f.startNs[i] < fromNs) continue
    const id = ideal(f.src[i], f.dst[i], f.sizeBytes[i])
    if (id !== null && id > 0) out[i] = (f.finishNs[i] - f.startNs[i]) / id
  }
  return out
}

/** Mean and percentiles (nearest rank) of the finished flows' slowdowns; null when no flow has one. */
export function slowdownStats(f: FlowArrays & { src: ArrayLike<number>; dst: ArrayLike<number> }, ideal: IdealFct, fromNs = -Infinity): SlowdownStats | null {
  const all = flowSlowdowns(f, ideal, fromNs)
  const vals = all.filter((v) => !Number.isNaN(v)).sort()
  if (vals.length === 0) return null
  let sum = 0
  for (const v of vals) sum += v
  return { flows: vals.length, mean: sum / vals.length, p50: percentile(vals, 50)!, p95: percentile(vals, 95)!, p99: percentile(vals, 99)! }
}

/**
 * A run's FCT statistics with its slowdown added, from the spec it ran with, over the same
 * measurement window as the FCTs (the warm-up flows left out). A spec that gives no fabric to go
 * by (or one the flows do not fit) gives slowdown null: shown as n/a, never guessed.
 */
export function withSlowdown(stats: FctStats, flows: FlowArrays & { src: ArrayLike<number>; dst: ArrayLike<number> }, spec: unknown): FctStats {
  const ideal = idealFctOfSpec(spec)
  const w = spec as { workload?: object } | null
  const fromNs = w?.workload ? warmupEndNs(flows.startNs, warmupShare({ workload: w.workload })) : -Infinity
  return { ...stats, slowdown: ideal ? slowdownStats(flows, ideal, fromNs) : null }
}

// Link speeds on BMv2. simple_switch forwards well under 1 Gbps, and its queues only build
// up when the egress rate is set below the arrival rate, so every port's rate is scaled by one
// factor chosen so the fastest link fits under a ceiling (default 1 Gbps). One factor for
// the whole fabric keeps the ratios between links (a 40G:10G fabric stays 4:1). The rate is
// given to `set_queue_rate <rate_pps> [<egress_port>]` in packets per second of full-size
// packets, the depth to `set_queue_depth <nb_pkts> [<egress_port>]` in packets (checked in
// p4lang/behavioral-model docs/runtime_CLI.md, "set_queue_depth" and "set_queue_rate").
// The run records the mapping this returns. A target that measured what its switches can
// forward (targets/bmv2/calibrate.ts) passes a smaller scale of its own: every rate this
// renders (set_queue_rate, DHLB's load bands, Floodgate's windows) then follows it.

import type { ControlPlaneState } from './types'

export interface Bmv2QueueOptions {
  /** Fastest rate a scaled link may have, in bit/s. Default 1e9. */
  ceilingBps?: number
  /** A scale to use instead of the ceiling's (a calibrated or a fixed one); it must keep the fastest link under the ceiling. */
  scale?: number
}

export interface Bmv2PortQueue {
  switch: string
  port: number
  /** The fabric's rate of the link on this port. */
  bps: number
  /** The rate BMv2 runs it at: bps x scale. */
  scaledBps: number
  /** What set_queue_rate gets: scaledBps / (8 x packetBytes), rounded, at least 1. */
  pps: number
  depthPackets: number
}

export interface Bmv2QueueMapping {
  ceilingBps: number
  packetBytes: number
  /** Multiplier from fabric rates to BMv2 rates (<= 1; 1 when every link already fits). */
  scale: number
  ports: Bmv2PortQueue[]
}

export function bmv2QueueMapping(state: ControlPlaneState, opts: Bmv2QueueOptions = {}): Bmv2QueueMapping {
  const ceilingBps = opts.ceilingBps ?? 1e9
  if (!(ceilingBps > 0)) throw new Error(`the BMv2 rate ceiling must be positive, got ${ceilingBps}`)
  const packetBytes = state.params.packetBytes
  if (opts.scale !== undefined && !(opts.scale > 0 && Number.isFinite(opts.scale))) throw new Error(`a BMv2 rate scale must be a positive number, got ${opts.scale}`)
  const fastest = fastestQueueBps(state)
  const scale = opts.scale ?? ceilingScale(fastest, ceilingBps)
  if (fastest * scale > ceilingBps * (1 + 1e-9)) {
    throw new Error(`a rate scale of ${scale} runs the fastest link at ${(fastest * scale) / 1e6} Mbps, above the BMv2 rate ceiling of ${ceilingBps / 1e6} Mbps; lower the scale or raise the ceiling`)
  }
  const ports: Bmv2PortQueue[] = []
  for (const s of state.switches) {
    for (const q of s.queues) {
      const scaledBps = q.bps * scale
      ports.push({
        switch: s.name,
        port: q.port,
        bps: q.bps,
        scaledBps,
        pps: Math.max(1, Math.round(scaledBps / (8 * packetBytes))),
        depthPackets: q.depthPackets,
      })
    }
  }
  return { ceilingBps, packetBytes, scale, ports }
}

/** The fastest egress queue's rate of the fabric (bit/s). */
export function fastestQueueBps(state: ControlPlaneState): number {
  let fastest = 0
  for (const s of state.switches) for (const q of s.queues) fastest = Math.max(fastest, q.bps)
  return fastest
}

/** The factor that brings the fastest link down to the ceiling (1 when it already fits). */
export function ceilingScale(fastestBps: number, ceilingBps: number): number {
  return fastestBps > ceilingBps ? ceilingBps / fastestBps : 1
}

// The seam between the fabric and a forwarding scheme. The engine owns the routes (which
// ports lead toward which ToR, kept live as links fail and recover); a scheme owns the
// choice among them and whatever state and messages that choice needs. See README.md.

import type { Fabric } from '../../model/topology/types'
import type { SimContext } from '../engine/context'
import type { Rng } from '../engine/rng'
import type { Link } from '../net/link'
import type { SwitchBuffer } from '../net/ports'
import type { FlowTable } from '../tcp/flows'
import type { SimSeriesDef } from '../types'

/** select() result: drop the packet (counted as unroutable). */
export const PORT_DROP = -1
/** select() result: the stage kept the packet (a VOQ); it will env.send() or release it later. */
export const PORT_HELD = -2

/**
 * What a scheme sees of the fabric. Switches are numbered densely (`s`, 0..nSwitches-1,
 * in Fabric.switches order: ToRs first); a switch's port p is global port
 * `portBase[s] + p`, the index of every per-port array here.
 */
export interface StageEnv {
  /** Clock (ctx.now, integer ps), packet pool (ctx.pkts), heap, counters. */
  readonly ctx: SimContext
  readonly fabric: Fabric
  readonly flows: FlowTable
  /** The forwarding PRNG stream (independent of the workload's). */
  readonly rng: Rng
  /** SimConfig.schemeParams (flowletGapNs, probePeriodNs, ...); {} when absent. */
  readonly params: Readonly<Record<string, number>>
  readonly nSwitches: number
  readonly nTors: number
  /** Dense switch index → fabric node id, ToR index (or -1), level, pod. */
  readonly switchNode: Int32Array
  readonly switchTor: Int32Array
  readonly switchLevel: Int32Array
  /** ToR index → dense switch index. */
  readonly torSwitch: Int32Array
  /** Host index → ToR index. */
  readonly torOfHost: Int32Array
  /** portBase[s] is switch s's port 0; portBase[nSwitches] is the number of switch ports. */
  readonly portBase: Int32Array
  /** Per global port: the egress link (queue state: depth(), queuedBytes(), bps, up). */
  readonly links: readonly Link[]
  /** Per global port: 1 while the link is up. */
  readonly portUp: Uint8Array
  /** Per global port: the switch at the other end (dense index), or -1 for a host. */
  readonly peerSwitch: Int32Array
  /** Per global port: the port number at the other end (a host's is 0). */
  readonly peerPort: Int32Array
  /** Per global port: 1 if it faces a higher tier. */
  readonly portIsUp: Uint8Array
  /** Sends packet p out of switch s's port (probes, credits, released VOQ packets). Counts control bytes. False: the port dropped it. */
  send(s: number, port: number, p: number): boolean
  /** The switches' shared buffer (SimConfig.buffer), or null with per-port queues. */
  readonly buffer: SwitchBuffer | null
  /** A timer element of the stage's own; when it fires the engine calls stage.onTimer(local). */
  addTimer(local: number): number
  /** (Re)arms a timer element at an absolute time in ps; one pending time per timer. */
  schedule(timer: number, atPs: number): void
  /** An entry in the run's event log (bounded), e.g. ('hula.bestHop', 'tor0 dst tor3: 2 -> 3'). */
  logEvent(kind: string, detail: string): void
  /**
   * Registers series sampled every telemetry interval: `fill(out)` writes defs.length values
   * into out[0..]. Call from the factory (before the run starts).
   */
  addSeries(defs: SimSeriesDef[], fill: (out: Float64Array) => void): void
}

/**
 * A scheme's forwarding stage: one object per run serving every switch, with its per-switch
 * state in typed arrays indexed by s (and by port, ToR or flow as it needs).
 */
export interface ForwardingStage {
  /**
   * If true, select() is called at every switch hop, even when one candidate is left
   * (e.g. a destination ToR reading CONGA's CE, or Floodgate's window on the last hop).
   * If false, single-candidate hops skip it.
   */
  readonly seesEveryHop: boolean
  /**
   * Picks the egress port of a data packet or ACK `p` that arrived at switch `s` on
   * `inPort`: one of cand[off .. off+len), the live candidates toward its destination
   * (len >= 1; dead ports are already removed), or PORT_DROP / PORT_HELD. Runs once per
   * packet per hop: no allocation here.
   */
  select(s: number, inPort: number, p: number, cand: Int32Array, off: number, len: number): number
  /** A probe or credit packet arrived at switch s: the stage forwards (env.send) or releases it. */
  onControl?(s: number, inPort: number, p: number): void
  /** A timer from env.addTimer fired. */
  onTimer?(local: number): void
  /** A port of switch s went down or came back (after the engine updated the candidate groups). */
  onLinkChange?(s: number, port: number, up: boolean): void
  /** Called once when the run starts (time 0): arm timers, send the first probes. */
  start?(): void
  /**
   * A stage that holds packets outside the ports' queues (Floodgate's VOQs): per global
   * port, the most bytes held for it at once, its queue included. The buffer measures per
   * tier take the larger of this and the port's own maxQueuedBytes.
   */
  readonly maxHeldBytes?: Float64Array
}

export type StageFactory = (env: StageEnv) => ForwardingStage

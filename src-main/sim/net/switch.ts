// A switch: a compiled route table and a direct call into the output link. A data packet
// or ACK looks up its destination host's ToR; at that ToR it takes the host's port, and
// anywhere else the live candidate group toward that ToR (routing/routes.ts keeps the
// groups free of dead ports). One candidate means no choice; otherwise the scheme's
// forwarding stage picks. Probes and credits are the stage's own business.

import type { SimContext } from '../engine/context'
import { KIND_PAUSE, KIND_PROBE, type PacketPool } from '../engine/packets'
import { PORT_DROP, type ForwardingStage } from '../routing/stage'
import type { Link } from './link'
import type { PacketSink } from './ports'

export class Switch implements PacketSink {
  /** Egress link of each port. */
  readonly ports: Link[] = []
  /** Live candidate ports, concatenated: toward ToR t at [off[t], off[t] + len[t]); then one slot per local host. */
  cand: Int32Array = new Int32Array(0)
  off: Int32Array = new Int32Array(0)
  len: Int32Array = new Int32Array(0)
  stage: ForwardingStage | null = null
  private seesEveryHop = false
  /** Shared buffer only: this switch's global port 0 + 1, so a packet carries its ingress port (pkts.inPort); 0 otherwise. */
  inPortBase = 0
  private readonly pkts: PacketPool

  constructor(
    /** Dense switch index (routing/stage.ts). */
    readonly index: number,
    readonly name: string,
    /** ToR index, or -1. */
    readonly torIndex: number,
    private readonly ctx: SimContext,
    /** Host index → its ToR index (shared by all switches). */
    private readonly torOfHost: Int32Array,
    /** Host index → offset of its port in its ToR's cand (shared). */
    private readonly hostSlot: Int32Array,
  ) {
    this.pkts = ctx.pkts
  }

  setStage(stage: ForwardingStage): void {
    this.stage = stage
    this.seesEveryHop = stage.seesEveryHop
  }

  receive(p: number, inPort: number): void {
    const pkts = this.pkts
    if (pkts.kind[p] >= KIND_PROBE) {
      // A PFC frame stops (or restarts) our egress on the port it came in on.
      if (pkts.kind[p] === KIND_PAUSE) this.ports[inPort].onPauseFrame(p)
      else this.stage!.onControl!(this.index, inPort, p)
      return
    }
    if (this.inPortBase !== 0) pkts.inPort[p] = this.inPortBase + inPort
    const dst = pkts.dst[p]
    const t = this.torOfHost[dst]
    let off: number
    let len: number
    if (t === this.torIndex) {
      off = this.hostSlot[dst]
      len = 1
    } else {
      off = this.off[t]
      len = this.len[t]
    }
    let port: number
    if (len === 1 && !this.seesEveryHop) {
      port = this.cand[off]
    } else if (len === 0) {
      port = PORT_DROP
    } else {
      port = this.stage!.select(this.index, inPort, p, this.cand, off, len)
    }
    if (port >= 0) this.ports[port].enqueue(p)
    else if (port === PORT_DROP) this.dropUnroutable(p)
  }

  dropUnroutable(p: number): void {
    const c = this.ctx.counters
    c.drops++
    c.unroutableDrops++
    this.ctx.pkts.release(p)
  }
}

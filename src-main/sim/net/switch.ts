// A switch is a precomputed route table plus a pluggable forwarding stage. route[dst] is
// the output port when only one port leads to that host (a leaf's own hosts, a spine's
// leaves); -1 means "any uplink", and the scheme (ECMP, RPS, later CONGA/HULA...) picks
// which. Forwarding is then an array lookup and a direct call into the output queue.

import type { PacketPool } from '../engine/packets'
import type { PacketSink } from './pipe'
import type { Queue } from './queue'

/** A forwarding scheme's per-switch decision: which uplink (0-based) a packet takes. */
export interface UplinkSelector {
  selectUplink(p: number): number
}

export class Switch implements PacketSink {
  readonly ports: Queue[] = []
  /** Output port per destination host, or -1 to let the selector choose an uplink. */
  route: Int32Array = new Int32Array(0)
  /** Port number of the first uplink; uplinks are consecutive. */
  uplinkBase = 0
  selector: UplinkSelector | null = null

  constructor(
    readonly name: string,
    private readonly pkts: PacketPool,
  ) {}

  receive(p: number): void {
    const port = this.route[this.pkts.dst[p]]
    if (port >= 0) this.ports[port].enqueue(p)
    else this.ports[this.uplinkBase + this.selector!.selectUplink(p)].enqueue(p)
  }
}

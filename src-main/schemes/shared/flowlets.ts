// A flowlet table for the schemes that forward at flowlet granularity (CONGA, CONGA′,
// HULA, DHLB): per switch, `slots` entries indexed by the packet's 5-tuple hash (a
// collision shares an entry, as in hardware). An entry remembers the port its flowlet
// took and when its last packet passed; a gap longer than the flowlet gap starts a new
// flowlet, which the scheme routes afresh. Typed arrays only; nothing per packet.

import { fmix32 } from '../../sim/engine/rng'

export class FlowletTable {
  /** Port of the entry's current flowlet, or -1 when empty. */
  readonly port: Int16Array
  /** When the entry last saw a packet (ps). */
  readonly lastPs: Float64Array
  /** Flowlets started per entry (a scheme may hash this into its flowlet id). */
  readonly count: Int32Array
  readonly slotsPerSwitch: number
  private readonly mask: number

  constructor(
    switches: number,
    /** Entries per switch; rounded up to a power of two. */
    slots: number,
    /** The flowlet gap, in ps. */
    readonly gapPs: number,
  ) {
    let n = 1
    while (n < slots) n *= 2
    this.mask = n - 1
    this.port = new Int16Array(switches * n).fill(-1)
    this.lastPs = new Float64Array(switches * n)
    this.count = new Int32Array(switches * n)
    this.slotsPerSwitch = n
  }

  /** The entry of a packet hash at switch s. */
  entry(s: number, hash: number): number {
    return s * this.slotsPerSwitch + (fmix32(hash ^ 0x2545f491) & this.mask)
  }

  /**
   * The port of the packet's flowlet if it is still running at nowPs (and refreshes it),
   * or -1 if the gap has passed or the entry is empty: the caller picks a port and set()s it.
   */
  current(e: number, nowPs: number): number {
    const p = this.port[e]
    if (p < 0 || nowPs - this.lastPs[e] > this.gapPs) return -1
    this.lastPs[e] = nowPs
    return p
  }

  /** Starts a new flowlet on `port`. */
  set(e: number, port: number, nowPs: number): void {
    this.port[e] = port
    this.lastPs[e] = nowPs
    this.count[e]++
  }

  /** Forgets flowlets on a port (it went down): their next packet is routed afresh. */
  clearPort(s: number, port: number): void {
    const base = s * this.slotsPerSwitch
    for (let e = base; e < base + this.slotsPerSwitch; e++) if (this.port[e] === port) this.port[e] = -1
  }
}

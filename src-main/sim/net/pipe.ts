// A pipe is a link's propagation delay. Its delay is constant, so packets leave in the
// order they entered: a FIFO ring of (packet, arrival time) in typed arrays suffices, and
// only the head needs a wake-up. That keeps one pending event per pipe however many
// packets are in flight on it (htsim's trick for long fat links).

import type { SimContext } from '../engine/context'
import { KIND_PIPE } from '../engine/context'

/** Whatever sits at the far end of a link: a switch or a host. */
export interface PacketSink {
  receive(p: number): void
}

export class Pipe {
  readonly elem: number
  next: PacketSink | null = null
  private pkt: Int32Array
  private arrivePs: Float64Array
  private head = 0
  private count = 0

  constructor(
    private readonly ctx: SimContext,
    readonly delayPs: number,
    index: number,
  ) {
    this.elem = ctx.addElement(KIND_PIPE, index)
    this.pkt = new Int32Array(64)
    this.arrivePs = new Float64Array(64)
  }

  accept(p: number): void {
    if (this.count === this.pkt.length) this.grow()
    const mask = this.pkt.length - 1
    const tail = (this.head + this.count) & mask
    const at = this.ctx.now + this.delayPs
    this.pkt[tail] = p
    this.arrivePs[tail] = at
    if (++this.count === 1) this.ctx.heap.schedule(this.elem, at)
  }

  /** The head packet has arrived at the far end. */
  onEvent(): void {
    const mask = this.pkt.length - 1
    const p = this.pkt[this.head]
    this.head = (this.head + 1) & mask
    if (--this.count > 0) this.ctx.heap.schedule(this.elem, this.arrivePs[this.head])
    this.ctx.counters.packetHops++
    this.next!.receive(p)
  }

  private grow(): void {
    const n = this.pkt.length
    const pkt = new Int32Array(n * 2)
    const at = new Float64Array(n * 2)
    for (let i = 0; i < n; i++) {
      const j = (this.head + i) & (n - 1)
      pkt[i] = this.pkt[j]
      at[i] = this.arrivePs[j]
    }
    this.pkt = pkt
    this.arrivePs = at
    this.head = 0
  }
}

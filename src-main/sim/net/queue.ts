// An output queue: drop-tail FIFO in front of a link's serializer. It wakes up only when
// the packet on the wire finishes serializing, so it holds at most one pending event.
// The ring holds every packet the port owns, the one being serialized included (it is at
// the head), which is what drop-tail capacity and the queue.depth series count.
// Busy time is accumulated exactly in picoseconds, so link.util is never above 1.
// A host NIC also reports each data packet it finishes to the host's HostTx, which
// hands the freed slot to a flow blocked on the NIC (see net/host.ts).

import type { SimContext } from '../engine/context'
import { KIND_QUEUE } from '../engine/context'
import { PKT_ACK } from '../engine/packets'
import type { HostTx } from './host'
import type { Pipe } from './pipe'

export class Queue {
  readonly elem: number
  /** Serialization cost; exact whenever 8e12 / bps is an integer (1, 10, 25, 40, 100G...). */
  readonly psPerByte: number
  pipe: Pipe | null = null
  /** Picoseconds spent serializing, up to the start of the packet now on the wire. */
  busyPs = 0
  /** When the head packet started serializing; meaningful while count > 0. */
  txStartPs = 0
  count = 0
  /** Set on a host NIC only: its host's admission control, and the host id. */
  hostTx: HostTx | null = null
  host = -1
  private ring: Int32Array
  private head = 0

  constructor(
    private readonly ctx: SimContext,
    readonly bps: number,
    /** Drop-tail limit in packets; Infinity for a host NIC (HostTx backpressures senders). */
    readonly capacity: number,
    index: number,
  ) {
    this.elem = ctx.addElement(KIND_QUEUE, index)
    this.psPerByte = 8e12 / bps
    let n = 16
    while (n < capacity && n < 1024) n *= 2
    this.ring = new Int32Array(n)
  }

  enqueue(p: number): void {
    if (this.count >= this.capacity) {
      this.ctx.counters.drops++
      this.ctx.pkts.release(p)
      return
    }
    if (this.count === this.ring.length) this.grow()
    this.ring[(this.head + this.count) & (this.ring.length - 1)] = p
    if (++this.count === 1) this.startTx(p)
  }

  /** The head packet is fully on the wire. */
  onEvent(): void {
    const ctx = this.ctx
    const p = this.ring[this.head]
    this.head = (this.head + 1) & (this.ring.length - 1)
    this.busyPs += ctx.now - this.txStartPs
    const hostTx = this.hostTx
    const data = hostTx !== null && (ctx.pkts.flags[p] & PKT_ACK) === 0
    this.pipe!.accept(p)
    if (--this.count > 0) this.startTx(this.ring[this.head])
    if (data) hostTx!.onDataSent(this.host)
  }

  /** Busy picoseconds up to now, the packet being serialized included. */
  busyUntilNow(): number {
    return this.count > 0 ? this.busyPs + (this.ctx.now - this.txStartPs) : this.busyPs
  }

  private startTx(p: number): void {
    const ctx = this.ctx
    this.txStartPs = ctx.now
    ctx.heap.schedule(this.elem, ctx.now + Math.ceil(ctx.pkts.wireBytes[p] * this.psPerByte))
  }

  private grow(): void {
    const n = this.ring.length
    const ring = new Int32Array(n * 2)
    for (let i = 0; i < n; i++) ring[i] = this.ring[(this.head + i) & (n - 1)]
    this.ring = ring
    this.head = 0
  }
}

// The TCP sink: a cumulative ACK for every data segment (no delayed ACK), out-of-order
// segments kept in a per-flow bitmap indexed by segment (allocated only once a flow sees a
// hole, and dropped when the flow completes), and the reordering count: first
// transmissions arriving behind a higher segment. Retransmissions are excluded, so under
// ECMP (one FIFO path per flow) the count is zero by construction.

import type { SimContext } from '../engine/context'
import { PKT_ACK, PKT_ECHO_RTX, PKT_RTX } from '../engine/packets'
import type { Queue } from '../net/queue'
import { ACK_WIRE_BYTES, type FlowTable } from './flows'

export class TcpReceivers {
  /** Next segment expected in order. */
  readonly rcvNxt: Int32Array
  /** One past the highest segment received. */
  readonly highestRcvd: Int32Array
  private readonly ooo: Array<Uint32Array | null>

  constructor(
    private readonly ctx: SimContext,
    private readonly flows: FlowTable,
    private readonly nics: Queue[],
  ) {
    this.rcvNxt = new Int32Array(flows.n)
    this.highestRcvd = new Int32Array(flows.n)
    this.ooo = new Array<Uint32Array | null>(flows.n).fill(null)
  }

  onData(p: number): void {
    const ctx = this.ctx
    const pkts = ctx.pkts
    const f = pkts.flow[p]
    const seg = pkts.seq[p]
    const rtx = pkts.flags[p] & PKT_RTX
    const sentPs = pkts.sentPs[p]
    pkts.release(p)

    const highest = this.highestRcvd[f]
    if (seg >= highest) this.highestRcvd[f] = seg + 1
    else if (seg + 1 < highest && rtx === 0) ctx.counters.reorderedPackets++
    let nxt = this.rcvNxt[f]
    if (seg === nxt) {
      const flows = this.flows
      const nSeg = flows.nSeg[f]
      const before = nxt
      nxt++
      const bitmap = this.ooo[f]
      if (bitmap !== null) {
        while (nxt < nSeg && (bitmap[nxt >>> 5] & (1 << (nxt & 31))) !== 0) {
          bitmap[nxt >>> 5] &= ~(1 << (nxt & 31))
          nxt++
        }
        if (nxt === nSeg) this.ooo[f] = null
      }
      this.rcvNxt[f] = nxt
      ctx.counters.payloadBytesDelivered += flows.bytesBelow(f, nxt) - flows.bytesBelow(f, before)
    } else if (seg > nxt) {
      let bitmap = this.ooo[f]
      if (bitmap === null) bitmap = this.ooo[f] = new Uint32Array((this.flows.nSeg[f] + 31) >>> 5)
      bitmap[seg >>> 5] |= 1 << (seg & 31)
    }
    this.sendAck(f, nxt, sentPs, rtx !== 0)
  }

  private sendAck(f: number, ack: number, echoPs: number, echoRtx: boolean): void {
    const ctx = this.ctx
    const pkts = ctx.pkts
    const flows = this.flows
    const a = pkts.alloc()
    pkts.flow[a] = f
    pkts.seq[a] = ack
    pkts.wireBytes[a] = ACK_WIRE_BYTES
    pkts.flags[a] = echoRtx ? PKT_ACK | PKT_ECHO_RTX : PKT_ACK
    pkts.dst[a] = flows.src[f]
    pkts.hash[a] = flows.ackHash[f]
    pkts.sentPs[a] = echoPs
    ctx.counters.ackPacketsSent++
    this.nics[flows.dst[f]].enqueue(a)
  }
}

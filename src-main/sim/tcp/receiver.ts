// The TCP sink: a cumulative ACK for every data segment (no delayed ACK), echoing CE as ECE
// on that ACK (DCTCP's receiver without delayed ACKs), and the reordering count: first
// transmissions arriving behind a higher segment. Retransmissions are excluded, so under
// ECMP (one FIFO path per flow) the count is zero by construction.
//
// Out-of-order segments are kept in a per-flow ring bitmap over [rcvNxt, rcvNxt + bits),
// allocated only once a flow sees a hole and doubled when a segment lands beyond it, so an
// unbounded flow costs what its reordering window needs, not what its size would.

import type { SimContext } from '../engine/context'
import { KIND_ACK, PKT_ACK, PKT_CE, PKT_CNP, PKT_ECE, PKT_ECHO_RTX, PKT_RTX } from '../engine/packets'
import type { Link } from '../net/link'
import { ACK_WIRE_BYTES, type FlowTable } from './flows'

const FIRST_BITMAP_BITS = 1024

export class TcpReceivers {
  /** Next segment expected in order. */
  readonly rcvNxt: Int32Array
  /** One past the highest segment received. */
  readonly highestRcvd: Int32Array
  /** Ring bitmaps of segments received above rcvNxt; bit s & (32·length − 1) is segment s. */
  private readonly ooo: Array<Uint32Array | null>
  /** DCQCN: a CE mark makes a CNP at most once per flow per this interval (0: DCTCP's ECN-echo only). */
  private readonly cnpIntervalPs: number
  private readonly lastCnpPs: Float64Array

  constructor(
    private readonly ctx: SimContext,
    private readonly flows: FlowTable,
    private readonly nics: Link[],
    cnpIntervalNs = 0,
  ) {
    this.cnpIntervalPs = cnpIntervalNs * 1000
    this.lastCnpPs = new Float64Array(cnpIntervalNs > 0 ? flows.n : 0).fill(-Infinity)
    this.rcvNxt = new Int32Array(flows.n)
    this.highestRcvd = new Int32Array(flows.n)
    this.ooo = new Array<Uint32Array | null>(flows.n).fill(null)
  }

  onData(p: number): void {
    const ctx = this.ctx
    const pkts = ctx.pkts
    const f = pkts.flow[p]
    const seg = pkts.seq[p]
    const flags = pkts.flags[p]
    const rtx = flags & PKT_RTX
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
        const mask = bitmap.length * 32 - 1
        for (;;) {
          const b = nxt & mask
          const w = b >>> 5
          const bit = 1 << (b & 31)
          if (nxt >= nSeg || (bitmap[w] & bit) === 0) break
          bitmap[w] &= ~bit
          nxt++
        }
        if (nxt === nSeg) this.ooo[f] = null
      }
      this.rcvNxt[f] = nxt
      ctx.counters.payloadBytesDelivered += flows.bytesBelow(f, nxt) - flows.bytesBelow(f, before)
    } else if (seg > nxt) {
      this.markOutOfOrder(f, seg, nxt)
    }
    this.sendAck(f, nxt, sentPs, rtx !== 0, (flags & PKT_CE) !== 0)
  }

  private markOutOfOrder(f: number, seg: number, nxt: number): void {
    let bitmap = this.ooo[f]
    if (bitmap === null) bitmap = this.ooo[f] = new Uint32Array(FIRST_BITMAP_BITS >>> 5)
    let bits = bitmap.length * 32
    if (seg - nxt >= bits) {
      // Re-lay the set bits of [nxt, nxt + bits) into a ring large enough for seg.
      while (seg - nxt >= bits) bits *= 2
      const old = bitmap
      const oldMask = old.length * 32 - 1
      bitmap = this.ooo[f] = new Uint32Array(bits >>> 5)
      for (let s = nxt; s < nxt + old.length * 32; s++) {
        const b = s & oldMask
        if ((old[b >>> 5] & (1 << (b & 31))) !== 0) {
          const nb = s & (bits - 1)
          bitmap[nb >>> 5] |= 1 << (nb & 31)
        }
      }
    }
    const b = seg & (bits - 1)
    bitmap[b >>> 5] |= 1 << (b & 31)
  }

  private sendAck(f: number, ack: number, echoPs: number, echoRtx: boolean, ece: boolean): void {
    const ctx = this.ctx
    const pkts = ctx.pkts
    const flows = this.flows
    const a = pkts.alloc()
    pkts.flow[a] = f
    pkts.seq[a] = ack
    pkts.wireBytes[a] = ACK_WIRE_BYTES
    pkts.kind[a] = KIND_ACK
    let flags = PKT_ACK | (echoRtx ? PKT_ECHO_RTX : 0) | (ece ? PKT_ECE : 0)
    if (ece && this.cnpIntervalPs > 0 && ctx.now - this.lastCnpPs[f] >= this.cnpIntervalPs) {
      this.lastCnpPs[f] = ctx.now
      flags |= PKT_CNP
    }
    pkts.flags[a] = flags
    pkts.src[a] = flows.dst[f]
    pkts.dst[a] = flows.src[f]
    pkts.hash[a] = flows.ackHash[f]
    pkts.sentPs[a] = echoPs
    ctx.counters.ackPacketsSent++
    this.nics[flows.dst[f]].enqueue(a)
  }
}

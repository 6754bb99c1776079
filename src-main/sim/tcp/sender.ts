// TCP senders (NewReno, and DCTCP on top of it) for all flows at once: per-flow state is a set of typed-array
// columns indexed by flow id (no object per flow), counted in segments. Each flow owns one
// element, its retransmission timer. The timer is lazy: an ACK only moves `deadline`;
// the heap entry is left alone unless the deadline moved earlier, and when it fires early
// it re-arms itself. That saves a heap operation per ACK, which is most of the traffic.
//
// Algorithms: slow start and congestion avoidance (RFC 5681), fast retransmit on the
// third dupACK and NewReno fast recovery with partial ACKs (RFC 6582), RTO from SRTT and
// RTTVAR (RFC 6298) with a floor, exponential backoff and go-back-N after a timeout.
// RTT samples come from the timestamp echoed in the ACK, skipped when the acknowledged
// segment was a retransmission (Karn).
//
// Sending goes through the host's NIC admission (net/host.ts): a flow whose window allows
// more but whose NIC is full blocks and is resumed when a slot frees. Retransmissions
// (fast retransmit, partial ACK) wait for a slot too, as `rtxSeg`, and go out before new
// data. Congestion-window validation (RFC 7661 in spirit): cwnd grows on an ACK only if
// the flow was cwnd-limited, i.e. had a full window in flight, so a flow held back by its
// NIC or short of data does not inflate cwnd it has not used. The retransmission timer
// follows RFC 6298 5.1: sending when nothing is outstanding (re)starts it, so time spent
// blocked with nothing in flight never counts toward an RTO.
//
// DCTCP (RFC 8257) adds, per flow: ECT on every data packet; from the ECN-echo on ACKs, the
// fraction F of acknowledged segments that were marked, folded once per window into
// α ← (1 − g)·α + g·F (α starts at 1); and on an ECE, at most once per window and not
// during loss recovery, cwnd ← cwnd·(1 − α/2) and ssthresh ← cwnd. Loss handling is NewReno's.

import type { SimContext } from '../engine/context'
import { KIND_FLOW_TIMER } from '../engine/context'
import { KIND_DATA, PKT_ECE, PKT_ECHO_RTX, PKT_ECT, PKT_RTX } from '../engine/packets'
import type { Link } from '../net/link'
import type { HostAdmission } from '../net/ports'
import type { TransportConfig } from '../types'
import { TCP_HEADER_BYTES, type FlowTable } from './flows'

const DUPACK_THRESHOLD = 3
/** Backoff stops doubling after 2^6 × RTO. */
const MAX_BACKOFF = 6
const NO_SSTHRESH = 1e15

export class TcpSenders {
  readonly sndUna: Int32Array
  readonly sndNxt: Int32Array
  /** One past the highest segment ever sent; anything below it is a retransmission. */
  readonly sndMax: Int32Array
  readonly cwnd: Float64Array
  readonly ssthresh: Float64Array
  readonly dupAcks: Int32Array
  /** sndMax when loss was last detected; ACKs at or beyond it end recovery. */
  readonly recover: Int32Array
  readonly inRecovery: Uint8Array
  readonly srtt: Float64Array
  readonly rttvar: Float64Array
  readonly rtoPs: Float64Array
  readonly backoff: Int32Array
  /** When the retransmission timer expires, if no ACK moves it. */
  readonly deadline: Float64Array
  /** A retransmission waiting for a NIC slot, or -1. */
  readonly rtxSeg: Int32Array
  /** Element id of flow 0's timer; flow f's timer is elemBase + f. */
  readonly elemBase: number
  /** DCTCP: α per flow, and the acknowledged / marked segments since the window began. */
  readonly alpha: Float64Array
  private readonly dAcked: Int32Array
  private readonly dMarked: Int32Array
  /** DCTCP: α is updated when the cumulative ACK reaches this (sndNxt when the window began). */
  private readonly windowEnd: Int32Array
  /** DCTCP: no further ECE reduction until the cumulative ACK passes this. */
  private readonly cwrEnd: Int32Array
  private readonly dctcp: boolean
  private readonly g: number
  private readonly mss: number
  private readonly initCwnd: number
  protected readonly minRtoPs: number
  /** PKT_ECT on every data packet (DCTCP, DCQCN), or 0. */
  protected readonly ect: number

  constructor(
    protected readonly ctx: SimContext,
    protected readonly flows: FlowTable,
    protected readonly nics: Link[],
    protected readonly hostTx: HostAdmission,
    transport: TransportConfig,
  ) {
    const n = flows.n
    this.sndUna = new Int32Array(n)
    this.sndNxt = new Int32Array(n)
    this.sndMax = new Int32Array(n)
    this.cwnd = new Float64Array(n)
    this.ssthresh = new Float64Array(n)
    this.dupAcks = new Int32Array(n)
    this.recover = new Int32Array(n)
    this.inRecovery = new Uint8Array(n)
    this.srtt = new Float64Array(n)
    this.rttvar = new Float64Array(n)
    this.rtoPs = new Float64Array(n)
    this.backoff = new Int32Array(n)
    this.deadline = new Float64Array(n)
    this.rtxSeg = new Int32Array(n).fill(-1)
    this.dctcp = transport.kind === 'dctcp'
    this.ect = transport.kind === 'newreno' ? 0 : PKT_ECT
    this.g = transport.dctcpG ?? 1 / 16
    const m = this.dctcp ? n : 0
    this.alpha = new Float64Array(m)
    this.dAcked = new Int32Array(m)
    this.dMarked = new Int32Array(m)
    this.windowEnd = new Int32Array(m)
    this.cwrEnd = new Int32Array(m)
    this.mss = transport.mssBytes
    this.initCwnd = transport.initCwndPackets
    this.minRtoPs = transport.minRtoNs * 1000
    this.elemBase = ctx.nElements
    for (let f = 0; f < n; f++) ctx.addElement(KIND_FLOW_TIMER, f)
  }

  start(f: number): void {
    this.cwnd[f] = this.initCwnd
    this.ssthresh[f] = NO_SSTHRESH
    // No handshake is modelled, so there is no first RTT sample: start at the floor.
    this.rtoPs[f] = this.minRtoPs
    this.trySend(f)
    if (this.dctcp) {
      this.alpha[f] = 1
      this.windowEnd[f] = this.sndNxt[f]
    }
    this.armTimer(f)
  }

  /** A persistent connection got more data (its nSeg grew): send what the window allows. */
  append(f: number): void {
    if (this.flows.finishPs[f] < 0) this.trySend(f)
  }

  onAck(p: number): void {
    const ctx = this.ctx
    const pkts = ctx.pkts
    const f = pkts.flow[p]
    const ack = pkts.seq[p]
    const flags = pkts.flags[p]
    const echoRtx = flags & PKT_ECHO_RTX
    const echoPs = pkts.sentPs[p]
    pkts.release(p)
    if (this.flows.finishPs[f] >= 0) return

    const una = this.sndUna[f]
    if (ack > una) {
      if (echoRtx === 0) this.sampleRtt(f, ctx.now - echoPs)
      const acked = ack - una
      if (this.rtxSeg[f] >= 0 && this.rtxSeg[f] < ack) this.rtxSeg[f] = -1
      // Cwnd-limited: the window was full when this ACK arrived (not held back by the NIC,
      // nor out of data).
      const cwndLimited = this.sndNxt[f] - una >= Math.floor(this.cwnd[f])
      this.sndUna[f] = ack
      if (this.sndNxt[f] < ack) this.sndNxt[f] = ack
      this.backoff[f] = 0
      const msgs = this.flows.msgs
      if (msgs !== null ? msgs.acked(f, ack, ctx.now) : ack >= this.flows.nSeg[f]) {
        this.finish(f)
        return
      }
      if (this.dctcp && this.onDctcpAck(f, ack, acked, (flags & PKT_ECE) !== 0)) {
        // Reduced for congestion: no growth on this ACK.
      } else if (this.inRecovery[f] !== 0) {
        if (ack >= this.recover[f]) {
          this.inRecovery[f] = 0
          this.dupAcks[f] = 0
          this.cwnd[f] = this.ssthresh[f]
        } else {
          // Partial ACK: the next hole is lost too; resend it without waiting for dupACKs.
          this.rtxSeg[f] = ack
          this.cwnd[f] = Math.max(this.cwnd[f] - acked + 1, 1)
        }
      } else {
        this.dupAcks[f] = 0
        if (cwndLimited) {
          const cwnd = this.cwnd[f]
          this.cwnd[f] = cwnd < this.ssthresh[f] ? cwnd + acked : cwnd + acked / cwnd
        }
      }
      this.armTimer(f)
    } else if (ack === una && this.sndMax[f] > una) {
      const dups = ++this.dupAcks[f]
      if (this.inRecovery[f] !== 0) {
        this.cwnd[f] += 1
      } else if (dups === DUPACK_THRESHOLD && ack >= this.recover[f]) {
        ctx.counters.fastRetransmits++
        this.ssthresh[f] = Math.max((this.sndNxt[f] - una) / 2, 2)
        this.recover[f] = this.sndMax[f]
        this.inRecovery[f] = 1
        this.rtxSeg[f] = una
        this.cwnd[f] = this.ssthresh[f] + DUPACK_THRESHOLD
        this.armTimer(f)
      }
    }
    this.trySend(f)
  }

  /**
   * DCTCP's per-ACK work for an ACK that advanced sndUna to `ack`; true if it reduced
   * cwnd. Never reduces during loss recovery (NewReno already did).
   */
  private onDctcpAck(f: number, ack: number, acked: number, ece: boolean): boolean {
    this.dAcked[f] += acked
    if (ece) this.dMarked[f] += acked
    if (ack >= this.windowEnd[f]) {
      const g = this.g
      this.alpha[f] = (1 - g) * this.alpha[f] + (g * this.dMarked[f]) / this.dAcked[f]
      this.dAcked[f] = 0
      this.dMarked[f] = 0
      this.windowEnd[f] = this.sndNxt[f]
    }
    if (!ece || this.inRecovery[f] !== 0 || ack <= this.cwrEnd[f]) return false
    const cwnd = Math.max(this.cwnd[f] * (1 - this.alpha[f] / 2), 1)
    this.cwnd[f] = cwnd
    this.ssthresh[f] = Math.max(cwnd, 2)
    this.cwrEnd[f] = this.sndNxt[f]
    return true
  }

  /** Mean α over the DCTCP flows that have started and not finished (NaN if none). */
  meanAlpha(): number {
    let sum = 0
    let n = 0
    const flows = this.flows
    const now = this.ctx.now
    for (let f = 0; f < flows.n; f++) {
      if (flows.startPs[f] <= now && flows.finishPs[f] < 0) {
        sum += this.alpha[f]
        n++
      }
    }
    return n > 0 ? sum / n : NaN
  }

  /** The flow's timer element fired. */
  onTimer(f: number): void {
    if (this.flows.finishPs[f] >= 0 || this.sndMax[f] === this.sndUna[f]) return
    const ctx = this.ctx
    if (ctx.now < this.deadline[f]) {
      ctx.heap.schedule(this.elemBase + f, this.deadline[f])
      return
    }
    ctx.counters.timeouts++
    const una = this.sndUna[f]
    this.ssthresh[f] = Math.max((this.sndNxt[f] - una) / 2, 2)
    this.cwnd[f] = 1
    this.recover[f] = this.sndMax[f]
    this.inRecovery[f] = 0
    this.dupAcks[f] = 0
    // Go-back-N: resend everything from the first unacknowledged segment, in slow start.
    this.rtxSeg[f] = -1
    this.sndNxt[f] = una
    if (this.backoff[f] < MAX_BACKOFF) this.backoff[f]++
    this.trySend(f)
    // The timer element is still on the heap while it runs, so re-arm it explicitly.
    this.deadline[f] = ctx.now + this.rtoPs[f] * (1 << this.backoff[f])
    ctx.heap.schedule(this.elemBase + f, this.deadline[f])
  }

  /** A NIC slot freed up for flow f, which was blocked on it. */
  resume(f: number): void {
    if (this.flows.finishPs[f] < 0) this.trySend(f)
  }

  /** Sends what the window allows while the NIC has room; blocks the flow if it fills. */
  protected trySend(f: number): void {
    const hostTx = this.hostTx
    const h = this.flows.src[f]
    const rtx = this.rtxSeg[f]
    if (rtx >= 0) {
      if (!hostTx.hasRoom(h)) {
        hostTx.block(f, h)
        return
      }
      this.rtxSeg[f] = -1
      this.sendSegment(f, rtx)
    }
    const limit = Math.min(this.flows.nSeg[f], this.sndUna[f] + Math.floor(this.cwnd[f]))
    let nxt = this.sndNxt[f]
    while (nxt < limit) {
      if (!hostTx.hasRoom(h)) {
        hostTx.block(f, h)
        break
      }
      this.sendSegment(f, nxt++)
    }
    if (nxt > this.sndNxt[f]) this.sndNxt[f] = nxt
  }

  protected sendSegment(f: number, seg: number): void {
    const ctx = this.ctx
    const pkts = ctx.pkts
    const flows = this.flows
    const payload = flows.segBytes(f, seg)
    const p = pkts.alloc()
    pkts.flow[p] = f
    pkts.seq[p] = seg
    pkts.wireBytes[p] = payload + TCP_HEADER_BYTES
    pkts.kind[p] = KIND_DATA
    pkts.src[p] = flows.src[f]
    pkts.dst[p] = flows.dst[f]
    pkts.hash[p] = flows.dataHash[f]
    pkts.sentPs[p] = ctx.now
    // Nothing outstanding means the timer is off (RFC 6298 5.1): start it with this send.
    if (this.sndMax[f] === this.sndUna[f]) this.armTimer(f)
    const c = ctx.counters
    c.dataPacketsSent++
    c.payloadBytesSent += payload
    const ect = this.ect
    if (seg < this.sndMax[f]) {
      pkts.flags[p] = PKT_RTX | ect
      c.retransmits++
    } else {
      pkts.flags[p] = ect
      this.sndMax[f] = seg + 1
    }
    this.nics[flows.src[f]].enqueue(p)
  }

  protected sampleRtt(f: number, rtt: number): void {
    const srtt = this.srtt[f]
    if (srtt === 0) {
      this.srtt[f] = rtt
      this.rttvar[f] = rtt / 2
    } else {
      this.rttvar[f] = 0.75 * this.rttvar[f] + 0.25 * Math.abs(srtt - rtt)
      this.srtt[f] = 0.875 * srtt + 0.125 * rtt
    }
    this.rtoPs[f] = Math.max(this.minRtoPs, Math.ceil(this.srtt[f] + 4 * this.rttvar[f]))
  }

  /** (Re)starts the retransmission timer at now + RTO × 2^backoff. */
  protected armTimer(f: number): void {
    const ctx = this.ctx
    const at = ctx.now + this.rtoPs[f] * (1 << this.backoff[f])
    this.deadline[f] = at
    const el = this.elemBase + f
    if (!ctx.heap.isPending(el) || ctx.heap.timeOf(el) > at) ctx.heap.schedule(el, at)
  }

  protected finish(f: number): void {
    const ctx = this.ctx
    this.flows.finishPs[f] = ctx.now
    this.flows.finishOrder[this.flows.done++] = f
    ctx.heap.cancel(this.elemBase + f)
  }
}

// DCQCN ("Congestion Control for Large-Scale RDMA Deployments", ACM SIGCOMM 2015): a
// rate-based sender of the RoCEv2 kind, for every flow at once, in typed arrays.
//
// Switches mark ECN with RED on the egress queue's bytes (Kmin, Kmax, Pmax; net/link.ts).
// The receiver turns marks into CNPs, at most one per flow per 50 µs; a CNP rides on the
// ACK of the marked packet (tcp/receiver.ts), which reaches the sender when a separate CNP
// frame would. The sender (the reaction point) keeps a current rate Rc and a target Rt,
// both starting at line rate, and α starting at 1:
//   - on a CNP: Rt ← Rc, Rc ← Rc·(1 − α/2), α ← (1 − g)·α + g; the timers, the byte
//     counter and the increase stages start over;
//   - every 55 µs without a CNP: α ← (1 − g)·α;
//   - each expiry of the rate timer, and each B bytes sent, is an increase event: while both
//     counts are below F, fast recovery (Rc ← (Rt + Rc)/2); once one reaches F, additive
//     increase (Rt += R_AI first); once both do, hyper increase (Rt += i·R_HAI).
// The timers are evaluated lazily, when the flow next sends or hears a CNP, which gives the
// same rates as ticking them (their effects only depend on how many expired, in order), and
// costs no event. The flow's one element paces its packets (one wake per packet sent) and
// carries the retransmission timer.
//
// Reliability is go-back-N, as RoCE NICs do: on three duplicate ACKs (a hole: the NIC's NAK)
// or a timeout, the sender resends from the first unacknowledged packet. Under PFC there is
// no loss, so this only matters on lossy fabrics.

import type { SimContext } from '../engine/context'
import { PKT_CNP } from '../engine/packets'
import type { Link } from '../net/link'
import type { HostAdmission } from '../net/ports'
import type { DcqcnParams, TransportConfig } from '../types'
import { TCP_HEADER_BYTES, type FlowTable } from './flows'
import { TcpSenders } from './sender'

/**
 * The DCQCN paper's parameters, each with its source. Where the paper gives none the value
 * is ours, said so, and a setting to sweep.
 */
export const DCQCN_DEFAULTS: DcqcnParams = {
  // The paper's RED settings at its 40G switches: Kmin = 5 KB, Kmax = 200 KB, Pmax = 1 %.
  kminBytes: 5_000,
  kmaxBytes: 200_000,
  pmax: 0.01,
  // The paper: g = 1/256.
  g: 1 / 256,
  // The paper: a CNP at most every 50 µs per flow.
  cnpIntervalNs: 50_000,
  // The paper: α timer 55 µs.
  alphaTimerNs: 55_000,
  // The paper: rate-increase timer 55 µs and byte counter 10 MB, F = 5 stages, R_AI = 40 Mb/s.
  rateTimerNs: 55_000,
  byteCounterBytes: 10_000_000,
  fastRecoverySteps: 5,
  raiBps: 40e6,
  // Not given in the paper; ten times R_AI, as common public DCQCN simulations use; sweep it.
  rhaiBps: 400e6,
  // Not given in the paper; a floor so a flow never stalls; sweep it.
  minRateBps: 10e6,
}

const DUPACK_THRESHOLD = 3
const MAX_BACKOFF = 6
/** At most this many lazy increase events are replayed; past it the rates are at line rate anyway. */
const MAX_CATCH_UP = 4096

export function dcqcnParams(t: TransportConfig): DcqcnParams {
  const p = { ...DCQCN_DEFAULTS, ...(t.dcqcn ?? {}) }
  for (const [k, v] of Object.entries(p)) {
    if (!(typeof v === 'number' && Number.isFinite(v) && v > 0)) throw new Error(`transport.dcqcn.${k} must be a number > 0, got ${String(v)}`)
  }
  if (!(p.g <= 1)) throw new Error(`transport.dcqcn.g must be in (0, 1], got ${p.g}`)
  if (!(p.pmax <= 1)) throw new Error(`transport.dcqcn.pmax must be in (0, 1], got ${p.pmax}`)
  if (!(p.kmaxBytes > p.kminBytes)) throw new Error(`transport.dcqcn.kmax (${p.kmaxBytes} B) must be above kmin (${p.kminBytes} B)`)
  if (!Number.isInteger(p.fastRecoverySteps)) throw new Error(`transport.dcqcn.fastRecoverySteps must be an integer, got ${p.fastRecoverySteps}`)
  return p
}

export class DcqcnSenders extends TcpSenders {
  /** Current and target rate, bits/s, and the line rate of the flow's host. */
  readonly rc: Float64Array
  readonly rt: Float64Array
  private readonly line: Float64Array
  readonly dAlpha: Float64Array
  /** When the α timer and the rate timer last expired (or restarted), ps. */
  private readonly alphaAt: Float64Array
  private readonly rateAt: Float64Array
  /** Bytes sent since the byte counter last expired; expiries of the timer and the counter since the last CNP. */
  private readonly bytesSince: Float64Array
  private readonly timerCount: Int32Array
  private readonly byteCount: Int32Array
  /** Earliest time the flow may put its next packet on the NIC. */
  readonly nextSendPs: Float64Array
  cnps = 0
  private readonly p: DcqcnParams
  private readonly alphaPs: number
  private readonly ratePs: number

  constructor(ctx: SimContext, flows: FlowTable, nics: Link[], hostTx: HostAdmission, transport: TransportConfig) {
    super(ctx, flows, nics, hostTx, transport)
    this.p = dcqcnParams(transport)
    this.alphaPs = this.p.alphaTimerNs * 1000
    this.ratePs = this.p.rateTimerNs * 1000
    const n = flows.n
    this.rc = new Float64Array(n)
    this.rt = new Float64Array(n)
    this.line = new Float64Array(n)
    this.dAlpha = new Float64Array(n)
    this.alphaAt = new Float64Array(n)
    this.rateAt = new Float64Array(n)
    this.bytesSince = new Float64Array(n)
    this.timerCount = new Int32Array(n)
    this.byteCount = new Int32Array(n)
    this.nextSendPs = new Float64Array(n)
  }

  override start(f: number): void {
    const now = this.ctx.now
    const line = this.nics[this.flows.src[f]].bps
    this.line[f] = line
    this.rc[f] = line
    this.rt[f] = line
    this.dAlpha[f] = 1
    this.alphaAt[f] = now
    this.rateAt[f] = now
    this.nextSendPs[f] = now
    this.rtoPs[f] = this.minRtoPs
    this.trySend(f)
  }

  override onAck(p: number): void {
    const ctx = this.ctx
    const pkts = ctx.pkts
    const f = pkts.flow[p]
    const ack = pkts.seq[p]
    const flags = pkts.flags[p]
    const echoPs = pkts.sentPs[p]
    pkts.release(p)
    if (this.flows.finishPs[f] >= 0) return
    if ((flags & PKT_CNP) !== 0) this.onCnp(f)
    const una = this.sndUna[f]
    if (ack > una) {
      this.sampleRtt(f, ctx.now - echoPs)
      this.sndUna[f] = ack
      if (this.sndNxt[f] < ack) this.sndNxt[f] = ack
      this.dupAcks[f] = 0
      this.backoff[f] = 0
      if (ack >= this.flows.nSeg[f]) {
        this.finish(f)
        return
      }
      // The flow's one event may be a pacing wake later than the new deadline (a slow flow): move it up.
      const at = (this.deadline[f] = ctx.now + this.rtoPs[f])
      const el = this.elemBase + f
      if (!ctx.heap.isPending(el) || ctx.heap.timeOf(el) > at) ctx.heap.schedule(el, at)
    } else if (ack === una && this.sndMax[f] > una && ++this.dupAcks[f] === DUPACK_THRESHOLD && ack >= this.recover[f]) {
      // A hole: go back to it (RoCE's go-back-N on a NAK).
      ctx.counters.fastRetransmits++
      this.recover[f] = this.sndMax[f]
      this.sndNxt[f] = una
      this.trySend(f)
    }
  }

  override onTimer(f: number): void {
    if (this.flows.finishPs[f] >= 0) return
    const ctx = this.ctx
    const now = ctx.now
    if (this.sndMax[f] > this.sndUna[f] && now >= this.deadline[f]) {
      ctx.counters.timeouts++
      this.sndNxt[f] = this.sndUna[f]
      this.recover[f] = this.sndMax[f]
      this.dupAcks[f] = 0
      if (this.backoff[f] < MAX_BACKOFF) this.backoff[f]++
      this.deadline[f] = now + this.rtoPs[f] * (1 << this.backoff[f])
    }
    this.trySend(f)
  }

  override resume(f: number): void {
    if (this.flows.finishPs[f] < 0) this.trySend(f)
  }

  /** Sends at most one packet if its pacing time has come and the NIC has room; then sets the flow's one wake-up. */
  protected override trySend(f: number): void {
    const ctx = this.ctx
    const now = ctx.now
    const h = this.flows.src[f]
    const nSeg = this.flows.nSeg[f]
    if (this.sndNxt[f] < nSeg && now >= this.nextSendPs[f]) {
      if (!this.hostTx.hasRoom(h)) {
        this.hostTx.block(f, h)
      } else {
        const seg = this.sndNxt[f]++
        if (this.sndMax[f] === this.sndUna[f]) this.deadline[f] = now + this.rtoPs[f] * (1 << this.backoff[f])
        this.sendSegment(f, seg)
        const bytes = this.flows.segBytes(f, seg) + TCP_HEADER_BYTES
        this.afterSend(f, bytes, now)
        this.nextSendPs[f] = now + Math.ceil((bytes * 8e12) / this.rc[f])
      }
    }
    let t = Infinity
    if (this.sndNxt[f] < nSeg) t = this.nextSendPs[f] > now ? this.nextSendPs[f] : Infinity
    if (this.sndMax[f] > this.sndUna[f] && this.deadline[f] < t) t = this.deadline[f]
    if (t !== Infinity) ctx.heap.schedule(this.elemBase + f, t)
  }

  /** The byte counter, and the timers that expired meanwhile. */
  private afterSend(f: number, bytes: number, now: number): void {
    this.catchUp(f, now)
    this.bytesSince[f] += bytes
    while (this.bytesSince[f] >= this.p.byteCounterBytes) {
      this.bytesSince[f] -= this.p.byteCounterBytes
      this.byteCount[f]++
      this.increase(f)
    }
  }

  /** Applies every α-timer and rate-timer expiry up to now, in order. */
  private catchUp(f: number, now: number): void {
    const ka = Math.floor((now - this.alphaAt[f]) / this.alphaPs)
    if (ka > 0) {
      this.dAlpha[f] *= Math.pow(1 - this.p.g, ka)
      this.alphaAt[f] += ka * this.alphaPs
    }
    const kr = Math.floor((now - this.rateAt[f]) / this.ratePs)
    if (kr > 0) {
      this.rateAt[f] += kr * this.ratePs
      const n = Math.min(kr, MAX_CATCH_UP)
      for (let i = 0; i < n; i++) {
        this.timerCount[f]++
        this.increase(f)
      }
    }
  }

  private increase(f: number): void {
    const F = this.p.fastRecoverySteps
    const t = this.timerCount[f]
    const b = this.byteCount[f]
    const line = this.line[f]
    if (t >= F && b >= F) this.rt[f] = Math.min(line, this.rt[f] + (Math.min(t, b) - F + 1) * this.p.rhaiBps)
    else if (t >= F || b >= F) this.rt[f] = Math.min(line, this.rt[f] + this.p.raiBps)
    this.rc[f] = Math.min(line, (this.rt[f] + this.rc[f]) / 2)
  }

  private onCnp(f: number): void {
    const now = this.ctx.now
    this.cnps++
    this.catchUp(f, now)
    const a = this.dAlpha[f]
    this.rt[f] = this.rc[f]
    this.rc[f] = Math.max(this.p.minRateBps, this.rc[f] * (1 - a / 2))
    this.dAlpha[f] = (1 - this.p.g) * a + this.p.g
    this.alphaAt[f] = now
    this.rateAt[f] = now
    this.bytesSince[f] = 0
    this.timerCount[f] = 0
    this.byteCount[f] = 0
  }

  /** Mean current rate over the flows that have started and not finished, bits/s (NaN if none). */
  meanRate(): number {
    let sum = 0
    let n = 0
    const flows = this.flows
    const now = this.ctx.now
    for (let f = 0; f < flows.n; f++) {
      if (flows.startPs[f] <= now && flows.finishPs[f] < 0) {
        sum += this.rc[f]
        n++
      }
    }
    return n > 0 ? sum / n : NaN
  }
}

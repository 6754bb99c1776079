// One shared packet buffer per switch, with dynamic thresholds and optional PFC, beside
// the default per-port drop-tail queues (a switch uses one or the other for the run).
//
// Dynamic thresholds (Choudhury and Hahne, "Dynamic Queue Length Thresholds for
// Shared-Memory Packet Switches", IEEE/ACM ToN 1998), as Broadcom's Trident and Tomahawk
// apply them: an egress queue of the lossy class may grow while its bytes are below
// α × (free shared buffer), so one hot port can take at most α/(1+α) of the pool and the
// rest stays for the others.
//
// PFC (IEEE 802.1Qbb) for the lossless class (data and ACKs; probes and credits stay lossy):
// lossless bytes are counted per ingress port. When a port's share passes its XOFF
// threshold (itself dynamic: α_pfc × free shared buffer, as the DCQCN paper's switches
// set it), a PAUSE frame goes back out of that port; what still arrives before the upstream
// stops goes into that port's headroom, reserved out of the switch's size, so a lossless
// packet is never dropped for lack of buffer as long as the headroom covers one link RTT
// and the packets in serialization at both ends. When the port drains to XOFF − xonOffset
// with its headroom empty, a resume frame follows. Pause frames carry the largest pause
// time (65535 quanta of 512 bit times); a port still over XOFF re-pauses when half of it
// has passed. Control frames (probes, credits, PFC) are not charged: switches keep a small
// reserved queue for them, and a credit must never be lost. The PFC frames go on the wire (net/link.ts insertControl): after the packet being
// serialized, taking 64 B of link time, arriving after the link delay.
//
// Accounting is lazy like the links' own: a packet's bytes leave the pool when its
// serialization ends, which the link finds when it next looks (advance). Before an
// admission the switch's links are brought up to date (sync) only if a departure may have
// happened since (nextDepPs), so an idle port costs nothing. While a switch has a paused
// ingress port, its links also wake at each departure so that the resume is sent at the
// instant the port drains, not at the next arrival.

import type { SimContext } from '../engine/context'
import { KIND_ACK, KIND_PAUSE, KIND_PROBE, PKT_HDRM } from '../engine/packets'
import type { BufferConfig } from '../types'
import type { BufferedPort, SwitchBuffer } from './ports'

/** The pause time a PAUSE frame asks for: 65535 quanta of 512 bit times (IEEE 802.1Qbb's largest). */
export const PAUSE_QUANTA = 65535
/** Bytes of a PFC frame on the wire (a minimum Ethernet frame). */
export const PAUSE_FRAME_BYTES = 64

export class SharedBuffer implements SwitchBuffer {
  readonly size: number
  /** Per switch: bytes the shared pool may hold (the size minus its ports' headroom). */
  readonly limit: Float64Array
  readonly shared: Float64Array
  readonly hdrmTotal: Float64Array
  /** Per switch: the most bytes held at once (shared + headroom). */
  readonly maxUsed: Float64Array
  /** Per global port: lossy bytes queued at the egress; lossless bytes and headroom charged to the ingress. */
  readonly egressLossy: Float64Array
  readonly ingress: Float64Array
  readonly hdrm: Float64Array
  readonly headroom: Float64Array
  /** Per global port: a PAUSE is in force upstream (we sent it), since pauseSentPs. */
  readonly pausedIn: Uint8Array
  readonly pauseSentPs: Float64Array
  readonly pauseNs: Float64Array
  /** Per switch: ingress ports paused now, and the earliest time a queued packet may have left. */
  readonly pausedCount: Int32Array
  readonly nextDepPs: Float64Array
  readonly portSwitch: Int32Array
  readonly portBase: Int32Array
  readonly alpha: number
  readonly pfc: boolean
  readonly pfcAlpha: number
  readonly xonOffset: number
  /** Egress link of each global port (toward that port's neighbour). */
  readonly links: BufferedPort[]
  private pending: Int32Array
  private nPending = 0
  /** A packet moving inside its switch (carry), admitted without a second charge. */
  private carried = -1
  losslessDrops = 0
  lossyDrops = 0
  pauseFrames = 0
  resumeFrames = 0

  constructor(
    private readonly ctx: SimContext,
    cfg: BufferConfig,
    portBase: Int32Array,
    links: BufferedPort[],
    mtuBytes: number,
    switchNames: string[],
  ) {
    const nS = portBase.length - 1
    const P = portBase[nS]
    this.size = cfg.sizeBytes
    this.alpha = cfg.alpha
    this.pfc = cfg.pfc !== undefined
    this.pfcAlpha = cfg.pfc?.alpha ?? 0
    this.xonOffset = cfg.pfc?.xonOffsetBytes ?? 0
    this.portBase = portBase
    this.links = links
    this.limit = new Float64Array(nS)
    this.shared = new Float64Array(nS)
    this.hdrmTotal = new Float64Array(nS)
    this.maxUsed = new Float64Array(nS)
    this.pausedCount = new Int32Array(nS)
    this.nextDepPs = new Float64Array(nS).fill(Infinity)
    this.egressLossy = new Float64Array(P)
    this.ingress = new Float64Array(P)
    this.hdrm = new Float64Array(P)
    this.headroom = new Float64Array(P)
    this.pausedIn = new Uint8Array(P)
    this.pauseSentPs = new Float64Array(P)
    this.pauseNs = new Float64Array(P)
    this.portSwitch = new Int32Array(P)
    this.pending = new Int32Array(16)
    for (let s = 0; s < nS; s++) {
      let reserved = 0
      for (let g = portBase[s]; g < portBase[s + 1]; g++) {
        this.portSwitch[g] = s
        const l = links[g]
        this.pauseNs[g] = (PAUSE_QUANTA * 512 * 1e9) / l.bps
        if (this.pfc) {
          const rtt = (l.bps / 8) * ((2 * l.delayPs) / 1e12)
          this.headroom[g] = cfg.pfc!.headroomBytes ?? Math.ceil(rtt + 3 * mtuBytes + PAUSE_FRAME_BYTES)
          reserved += this.headroom[g]
        }
      }
      this.limit[s] = cfg.sizeBytes - reserved
      if (this.limit[s] < 2 * mtuBytes) {
        throw new Error(
          `buffer.size ${cfg.sizeBytes} B at switch ${switchNames[s]} leaves ${Math.max(0, this.limit[s])} B of shared buffer after the PFC headroom of its ${portBase[s + 1] - portBase[s]} ports (${reserved} B); raise buffer.size or set buffer.pfc.headroom lower`,
        )
      }
    }
  }

  /**
   * Egress port g (of its switch) is offered packet p of `bytes`: charge it or refuse it.
   * False means the caller drops it (counted here as lossy or lossless).
   */
  admit(g: number, p: number, bytes: number): boolean {
    const s = this.portSwitch[g]
    if (p === this.carried) {
      this.carried = -1
      return true
    }
    const now = this.ctx.now
    if (now >= this.nextDepPs[s]) this.sync(s, now)
    const pkts = this.ctx.pkts
    // Control frames (probes, credits) use the switch's reserved control queue: never charged, never refused.
    if (pkts.kind[p] >= KIND_PROBE) return true
    const gi = pkts.inPort[p] - 1
    const free = this.limit[s] - this.shared[s]
    if (this.pfc && gi >= 0 && pkts.kind[p] <= KIND_ACK) {
      const xoff = this.pfcAlpha * free
      if (this.hdrm[gi] === 0 && this.ingress[gi] + bytes <= xoff && bytes <= free) {
        this.ingress[gi] += bytes
        this.shared[s] += bytes
      } else if (this.hdrm[gi] + bytes <= this.headroom[gi]) {
        this.hdrm[gi] += bytes
        this.hdrmTotal[s] += bytes
        pkts.flags[p] |= PKT_HDRM
      } else {
        this.losslessDrops++
        return false
      }
      if (this.pausedIn[gi] === 0) {
        if (this.hdrm[gi] > 0 || this.ingress[gi] >= xoff) this.sendPfc(gi, true)
      } else if (now - this.pauseSentPs[gi] >= 500 * this.pauseNs[gi]) {
        this.sendPfc(gi, true)
      }
    } else {
      if (bytes > free || this.egressLossy[g] >= this.alpha * free) {
        this.lossyDrops++
        return false
      }
      this.egressLossy[g] += bytes
      this.shared[s] += bytes
    }
    const used = this.shared[s] + this.hdrmTotal[s]
    if (used > this.maxUsed[s]) this.maxUsed[s] = used
    return true
  }

  carry(p: number): void {
    this.carried = p
  }

  abandon(g: number, p: number): void {
    if (p !== this.carried) return
    this.carried = -1
    this.release(g, p)
    this.flushResumes()
  }

  /** A departure at egress port g is due at `atPs` (the link's next serialization end). */
  noteDeparture(g: number, atPs: number): void {
    const s = this.portSwitch[g]
    if (atPs < this.nextDepPs[s]) this.nextDepPs[s] = atPs
  }

  /** Packet p left egress port g (its serialization ended, or the link dropped it). */
  release(g: number, p: number): void {
    const pkts = this.ctx.pkts
    // Control and PFC frames were never charged.
    if (pkts.kind[p] >= KIND_PROBE) return
    const bytes = pkts.wireBytes[p]
    const s = this.portSwitch[g]
    const gi = pkts.inPort[p] - 1
    const flags = pkts.flags[p]
    if ((flags & PKT_HDRM) !== 0) {
      pkts.flags[p] = flags & ~PKT_HDRM
      this.hdrm[gi] -= bytes
      this.hdrmTotal[s] -= bytes
    } else if (this.pfc && gi >= 0 && pkts.kind[p] <= KIND_ACK) {
      this.ingress[gi] -= bytes
      this.shared[s] -= bytes
    } else {
      this.egressLossy[g] -= bytes
      this.shared[s] -= bytes
    }
    if (gi >= 0 && this.pausedIn[gi] !== 0) {
      if (this.nPending === this.pending.length) {
        const n = new Int32Array(2 * this.pending.length)
        n.set(this.pending)
        this.pending = n
      }
      this.pending[this.nPending++] = gi
    }
  }

  /** After releases: resume every paused ingress port that has drained below XON. */
  flushResumes(): void {
    for (let i = 0; i < this.nPending; i++) {
      const gi = this.pending[i]
      if (this.pausedIn[gi] === 0 || this.hdrm[gi] > 0) continue
      const s = this.portSwitch[gi]
      const xoff = this.pfcAlpha * (this.limit[s] - this.shared[s])
      if (this.ingress[gi] === 0 || this.ingress[gi] + this.xonOffset <= xoff) this.sendPfc(gi, false)
    }
    this.nPending = 0
  }

  /** True while switch s has a paused ingress port: its links should wake at departures. */
  wantsDepartures(s: number): boolean {
    return this.pausedCount[s] > 0
  }

  /** Brings every egress link of switch s up to date at `now` (their departures release bytes). */
  private sync(s: number, now: number): void {
    let next = Infinity
    for (let g = this.portBase[s]; g < this.portBase[s + 1]; g++) {
      const d = this.links[g].releaseDeparted(now)
      if (d < next) next = d
    }
    this.nextDepPs[s] = next
    if (this.nPending > 0) this.flushResumes()
  }

  private sendPfc(gi: number, pause: boolean): void {
    const ctx = this.ctx
    const s = this.portSwitch[gi]
    if (pause) {
      // The first paused port of the switch: from now on its links wake at every departure,
      // so the resume goes out the instant the port drains, whoever else looks or not.
      if (this.pausedIn[gi] === 0 && this.pausedCount[s]++ === 0) {
        for (let g = this.portBase[s]; g < this.portBase[s + 1]; g++) if (g !== gi) this.links[g].wakeAtDeparture()
      }
      this.pausedIn[gi] = 1
      this.pauseSentPs[gi] = ctx.now
      this.pauseFrames++
    } else {
      this.pausedIn[gi] = 0
      this.pausedCount[s]--
      this.resumeFrames++
    }
    const pkts = ctx.pkts
    const f = pkts.alloc()
    pkts.kind[f] = KIND_PAUSE
    pkts.wireBytes[f] = PAUSE_FRAME_BYTES
    pkts.flags[f] = 0
    pkts.flow[f] = -1
    pkts.src[f] = -1
    pkts.dst[f] = -1
    pkts.seq[f] = 0
    pkts.hash[f] = 0
    pkts.hdr0[f] = pause ? 1 : 0
    pkts.hdr1[f] = pause ? Math.round(this.pauseNs[gi]) : 0
    pkts.sentPs[f] = ctx.now
    this.links[gi].insertControl(f)
  }
}

// PFC (IEEE 802.1Qbb) at the sending end of a link: what a PAUSE or resume frame from the
// far end does to this end's lossless class (data and ACKs; probes and credits stay lossy).
// The switch that sends the frames, and decides when, is net/buffer.ts.
//
// A pause stops new lossless packets from starting: the ones committed to the serializer's
// schedule but not started are taken back off it (the one being serialized finishes) into
// a held FIFO, lossy ones are committed again in order, and every lossless packet offered
// while paused joins the FIFO. On a resume frame, or when the pause time runs out, the held
// packets are committed again in order. The link owns one of these only once a frame has
// reached it, so a fabric without PFC never pays for it.

import { KIND_ACK, type PacketPool } from '../engine/packets'

/** What PFC needs of its link (net/link.ts): the serializer's schedule of committed packets. */
export interface PausableLink {
  /** Puts an admitted packet on the schedule, after everything committed. */
  commit(p: number, now: number): void
  /** Brings the queue up to now (packets whose serialization has ended leave it). */
  advance(now: number): void
  /** Takes every packet not yet started off the schedule, in order; the one serializing stays. */
  takeBackUnstarted(now: number): Int32Array | null
  /** Sets the link's one pending event from its state (it reads pausedUntil). */
  reschedule(): void
  /** The lossless class sends again: a NIC's blocked flows must hear of its next departure. */
  resumed(): void
}

export class PfcPause {
  paused = false
  /** While paused: the pause time runs out here, and the held packets go. */
  untilPs = 0
  /** PFC frames received, and the longest time from a pause's decision downstream to its taking effect here. */
  framesIn = 0
  maxLagPs = 0
  private held: Int32Array | null = null
  private head = 0
  private len = 0
  /** Wire bytes of the lossless packets waiting for the pause to end (what a switch holds for this port beyond its schedule). */
  heldBytes = 0

  constructor(
    private readonly link: PausableLink,
    private readonly pkts: PacketPool,
  ) {}

  /** Lossless packets waiting for the pause to end. */
  heldCount(): number {
    return this.len
  }

  /**
   * Packet p is offered while paused: true if it waits in the held FIFO (a lossless packet
   * before the pause time ran out); otherwise the caller commits it, after any resume.
   */
  holds(p: number, now: number): boolean {
    if (this.pkts.kind[p] > KIND_ACK) return false
    if (now < this.untilPs) {
      this.hold(p)
      return true
    }
    this.resume(now)
    return false
  }

  /** A PFC frame (KIND_PAUSE) from the far end reached this end: pause for its pause time, or resume. */
  onFrame(f: number, now: number): void {
    const pkts = this.pkts
    const pause = pkts.hdr0[f] !== 0
    const until = now + pkts.hdr1[f] * 1000
    const lag = now - pkts.sentPs[f]
    pkts.release(f)
    this.framesIn++
    if (!pause) {
      if (this.paused) this.resume(now)
      return
    }
    if (lag > this.maxLagPs) this.maxLagPs = lag
    this.untilPs = until
    if (this.paused) return
    this.paused = true
    const back = this.link.takeBackUnstarted(now)
    if (back !== null) {
      for (let i = 0; i < back.length; i++) {
        const p = back[i]
        if (pkts.kind[p] <= KIND_ACK) this.hold(p)
        else this.link.commit(p, now)
      }
    }
    this.link.reschedule()
  }

  /** The lossless class may send again: commit what it held, in order. */
  resume(now: number): void {
    this.paused = false
    // The queue must be current: commit() tells the shared buffer of a new next departure
    // only when it finds the queue empty.
    this.link.advance(now)
    while (this.len > 0) this.link.commit(this.shift(), now)
    this.link.resumed()
  }

  /** Takes the oldest held packet out (the link going down drops them). */
  shift(): number {
    const h = this.held!
    const p = h[this.head]
    this.head = (this.head + 1) % h.length
    this.len--
    this.heldBytes -= this.pkts.wireBytes[p]
    return p
  }

  private hold(p: number): void {
    let h = this.held
    if (h === null || this.len === h.length) {
      const n = new Int32Array(h === null ? 64 : 2 * h.length)
      for (let i = 0; i < this.len; i++) n[i] = h![(this.head + i) % h!.length]
      this.held = h = n
      this.head = 0
    }
    h[(this.head + this.len++) % h.length] = p
    this.heldBytes += this.pkts.wireBytes[p]
  }
}

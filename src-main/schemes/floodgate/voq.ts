// The VOQs are the half of Floodgate that holds packets; a base layer of the stage rather than a member object, so per-packet code reads its typed arrays off the same `this`, with no extra hop.
//
// A VOQ per (switch-facing egress port g, destination host h), k = g·H + h: a FIFO of packet
// handles linked through next[p] (one Int32Array indexed by packet handle), with its packet
// and byte counts; VOQs of a switch share voqBufferBytes. With PAUSE, what a source ToR holds
// past the threshold is counted as waiting at the sender (hdr2 = 0: not charged to the buffer).
// A held packet carries its ingress port + 1 in hdr3 (0: it came from a host), so that its
// bytes can be credited upstream when it leaves.
//
// The buffer the Floodgate paper reports per tier counts what a switch holds for a port,
// wherever it holds it: maxHeldBytes[g] is the most bytes at once in g's queue (the packets
// a PFC pause holds off its schedule included) plus the charged VOQs of (g, h) for every h. It is updated where that sum grows (a VOQ takes a
// packet, g's queue takes one while its VOQs hold some); when they hold none, the link's own
// maxQueuedBytes is the same measure, so run.ts takes the larger of the two.

import type { PacketPool } from '../../sim/engine/packets'
import { hopBdpBytes, type FloodgateParams } from './sim-params'
import type { StageEnv } from '../../sim/routing/stage'

export abstract class FloodgateVoqs {
  protected readonly env: StageEnv
  protected readonly pkts: PacketPool
  /** Hosts: destinations per port. */
  protected readonly H: number
  private readonly voqBufferBytes: number
  protected readonly pause: boolean
  /** PAUSE threshold per global port (read at a source ToR's host-facing ports). */
  protected readonly pauseTh: Float64Array
  protected readonly voqHead: Int32Array
  private readonly voqTail: Int32Array
  readonly voqCount: Int32Array
  readonly voqBytes: Float64Array
  private next: Int32Array
  /** Charged VOQ bytes per switch. */
  readonly voqBuf: Float64Array
  private readonly paused: Uint8Array
  /** Per (switch, host): VOQ packets. */
  protected readonly voqSH: Int32Array
  pauseFrames = 0
  maxVoqBuf = 0
  /** Per global port: charged bytes in its VOQs (those waiting "at the sender" excluded). */
  readonly voqPortBytes: Float64Array
  /** Per global port: the most bytes held for it at once, its queue plus its charged VOQs. */
  readonly maxHeldBytes: Float64Array

  constructor(env: StageEnv, prm: FloodgateParams) {
    this.env = env
    this.pkts = env.ctx.pkts
    this.voqBufferBytes = prm.voqBufferBytes
    this.pause = prm.pause
    const H = (this.H = env.fabric.hosts.length)
    const nS = env.nSwitches
    const P = env.portBase[nS]
    this.pauseTh = new Float64Array(P)
    for (let g = 0; g < P; g++) this.pauseTh[g] = prm.pauseThresholdBytes ?? prm.windowBdpFactor * hopBdpBytes(env, g)
    const cells = P * H
    this.voqHead = new Int32Array(cells).fill(-1)
    this.voqTail = new Int32Array(cells).fill(-1)
    this.voqCount = new Int32Array(cells)
    this.voqBytes = new Float64Array(cells)
    this.paused = new Uint8Array(cells)
    this.next = new Int32Array(this.pkts.capacity).fill(-1)
    this.voqBuf = new Float64Array(nS)
    this.voqSH = new Int32Array(nS * H)
    this.voqPortBytes = new Float64Array(P)
    this.maxHeldBytes = new Float64Array(P)
  }

  /** Global port g's queue just grew, or its VOQs did: record their sum if it is a new peak. */
  protected noteHeld(g: number): void {
    // A PFC pause holds the port's lossless packets off its schedule: they are held all the same.
    const link = this.env.links[g]
    const held = link.queuedBytes() + (link.pfc === null ? 0 : link.pfc.heldBytes) + this.voqPortBytes[g]
    if (held > this.maxHeldBytes[g]) this.maxHeldBytes[g] = held
  }

  /**
   * Appends p (toward host h, `bytes` on the wire) to VOQ k at switch s. It came in on global
   * port gIn; gi is gIn when that faces a switch, else -1. False when the switch's VOQ
   * buffer has no room for it: the caller drops it.
   */
  protected hold(s: number, gIn: number, gi: number, k: number, h: number, p: number, bytes: number): boolean {
    const pkts = this.pkts
    // At a source ToR with PAUSE, what passes the threshold waits at the sender.
    const atSender = this.pause && gi < 0 && this.env.switchTor[s] >= 0 && this.voqBytes[k] >= this.pauseTh[gIn]
    const buffer = this.env.buffer
    if (!atSender) {
      // With a shared buffer the VOQ of (g, h) is one more queue of egress port g in it
      // (dynamic threshold, or PFC on its ingress port); otherwise the VOQs share voqBufferBytes.
      if (buffer !== null ? !buffer.admit((k / this.H) | 0, p, bytes) : this.voqBuf[s] + bytes > this.voqBufferBytes) return false
    }
    if (p >= this.next.length) this.growNext()
    this.next[p] = -1
    if (this.voqCount[k] === 0) this.voqHead[k] = p
    else this.next[this.voqTail[k]] = p
    this.voqTail[k] = p
    this.voqCount[k]++
    this.voqBytes[k] += bytes
    this.voqSH[s * this.H + h]++
    pkts.hdr3[p] = gi + 1
    pkts.hdr2[p] = atSender ? 0 : 1
    if (!atSender) {
      const b = (this.voqBuf[s] += bytes)
      if (b > this.maxVoqBuf) this.maxVoqBuf = b
      const g = (k / this.H) | 0
      this.voqPortBytes[g] += bytes
      this.noteHeld(g)
    }
    if (this.pause && gi < 0 && this.paused[k] === 0 && this.voqBytes[k] >= this.pauseTh[gIn]) {
      this.paused[k] = 1
      this.pauseFrames++
    }
    return true
  }

  /** Takes the head packet off VOQ k at switch s. */
  protected popVoq(s: number, k: number): number {
    const p = this.voqHead[k]
    const pkts = this.pkts
    const bytes = pkts.wireBytes[p]
    this.voqHead[k] = this.next[p]
    if (--this.voqCount[k] === 0) this.voqTail[k] = -1
    this.voqBytes[k] -= bytes
    this.voqSH[s * this.H + (k % this.H)]--
    if (pkts.hdr2[p] !== 0) {
      this.voqBuf[s] -= bytes
      this.voqPortBytes[(k / this.H) | 0] -= bytes
      // In a shared buffer the packet keeps its charge: it moves to its egress queue (carry),
      // or the caller drops it and gives the bytes back (uncharge).
      if (this.env.buffer !== null) this.charged = p
    }
    if (this.paused[k] !== 0 && this.voqBytes[k] < this.pauseThOf(s)) {
      this.paused[k] = 0
      this.pauseFrames++
    }
    return p
  }

  /** Shared buffer: the packet popVoq last returned still holds its charge (-1: none). */
  protected charged = -1

  /** The packet just popped off VOQ k leaves the switch without going out (a dead link): free its bytes. */
  protected uncharge(k: number, p: number): void {
    const buffer = this.env.buffer
    if (buffer === null || this.charged !== p) return
    this.charged = -1
    buffer.release((k / this.H) | 0, p)
    buffer.flushResumes()
  }

  /** The pause threshold at source ToR s: its port 0 faces a host, and all its hosts' links have one rate. */
  private pauseThOf(s: number): number {
    return this.pauseTh[this.env.portBase[s]]
  }

  private growNext(): void {
    const n = new Int32Array(this.pkts.capacity).fill(-1)
    n.set(this.next)
    this.next = n
  }
}

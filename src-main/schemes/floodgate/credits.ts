// The credit machinery is the half of Floodgate that talks to the upstream switch; a base layer of the stage rather than a member object, so per-packet code reads its typed arrays off the same `this`, with no extra hop.
//
// ring*: per egress port, the packets that came from an upstream switch and have been
// accepted by the port, with their departure time (the link commits each packet's
// serialization end at enqueue, so it is exact): when a packet has left, its bytes are owed
// to its upstream as credit. Bounded by the port's queue capacity, because it is drained
// before every push. credAcc[k']: bytes owed upstream per (ingress port g', destination h),
// k' = g'·H + h.
//
// Credits are batched per upstream port: at each tick of the timer (multiples of T) every
// port that owes anything sends ONE credit frame carrying an entry (destination, bytes) for
// each destination it owes, sized by how many it carries: max(creditFrameBytes, 20 B of
// Ethernet header, FCS and entry count + creditEntryBytes per entry), split at the MTU. The
// Floodgate paper's overhead (0.175 % of bandwidth) is one small frame per link per T; a
// frame per (port, destination) would grow with the number of active destinations instead
// (1.02 % on the incast-mix template, whose ports carry credits for a dozen hosts a tick).
// With creditOnBytes, a destination reaching creditBytes sends its port's batch at once (the
// public code's byte trigger). A frame that finds its port's queue full waits for the next tick.

import { KIND_CREDIT } from '../../sim/engine/packets'
import { newControlPacket } from '../shared/probes'
import type { FloodgateParams } from './sim-params'
import { FloodgateVoqs } from './voq'
import type { StageEnv } from '../../sim/routing/stage'

/** Ethernet header (14 B), FCS (4 B) and the entry count (2 B) of a credit frame. */
export const CREDIT_HEADER_BYTES = 20
/** Largest credit frame: an Ethernet frame with a 1,500 B payload. */
const CREDIT_MAX_FRAME = 1518

/** The entries of one credit frame on the wire, keyed by its packet handle until it arrives. */
export interface CreditBatch {
  n: number
  dst: Int32Array
  bytes: Float64Array
}

export abstract class FloodgateCredits extends FloodgateVoqs {
  protected readonly intervalPs: number
  private readonly creditBytes: number
  private readonly creditOnBytes: boolean
  private readonly frameBytes: number
  private readonly entryBytes: number
  private readonly maxEntries: number
  private readonly portSwitch: Int32Array
  /** Per global port facing a switch: the peer's global port (where its credits come from). */
  protected readonly peerGlobal: Int32Array
  protected readonly credAcc: Float64Array
  private readonly credDirty: Uint8Array
  /** Per port, the keys it owes credit for, in the order they first owed: a list through dirtyNext. */
  private readonly dirtyNext: Int32Array
  private readonly dirtyHead: Int32Array
  private readonly dirtyTail: Int32Array
  /** The ports that owe credit. */
  private readonly owedListed: Uint8Array
  private readonly owedPorts: Int32Array
  private nOwed = 0
  private ringMask: number
  private ringDepart: Float64Array
  private ringKey: Int32Array
  private ringBytes: Int32Array
  private readonly ringHead: Int32Array
  private readonly ringLen: Int32Array
  private readonly portListed: Uint8Array
  private readonly portList: Int32Array
  private nPorts = 0
  /** Bytes of those accepted onto g for h that have left the next switch (key: the next switch's ingress port). */
  protected readonly departedVia: Float64Array
  private readonly timer: number
  private timerArmed = false
  private readonly inFlightBatches = new Map<number, CreditBatch>()
  private readonly spareBatches: CreditBatch[] = []
  creditPackets = 0
  creditBytesSent = 0
  /** (destination, bytes) entries carried: what one frame per destination would have sent as frames. */
  creditEntries = 0

  constructor(env: StageEnv, prm: FloodgateParams) {
    super(env, prm)
    this.intervalPs = prm.intervalPs
    this.creditBytes = prm.creditBytes
    this.creditOnBytes = prm.creditOnBytes
    this.frameBytes = prm.creditFrameBytes
    this.entryBytes = prm.creditEntryBytes
    this.maxEntries = Math.max(1, Math.floor((Math.max(CREDIT_MAX_FRAME, prm.creditFrameBytes) - CREDIT_HEADER_BYTES) / prm.creditEntryBytes))
    const H = this.H
    const nS = env.nSwitches
    const P = env.portBase[nS]
    this.portSwitch = new Int32Array(P)
    for (let s = 0; s < nS; s++) for (let g = env.portBase[s]; g < env.portBase[s + 1]; g++) this.portSwitch[g] = s
    this.peerGlobal = new Int32Array(P).fill(-1)
    let widestQueue = 1
    for (let g = 0; g < P; g++) {
      if (env.peerSwitch[g] < 0) continue
      this.peerGlobal[g] = env.portBase[env.peerSwitch[g]] + env.peerPort[g]
      const link = env.links[g]
      if (Number.isFinite(link.capacity)) widestQueue = Math.max(widestQueue, link.capacity)
    }
    const cells = P * H
    this.credAcc = new Float64Array(cells)
    this.credDirty = new Uint8Array(cells)
    this.dirtyNext = new Int32Array(cells).fill(-1)
    this.dirtyHead = new Int32Array(P).fill(-1)
    this.dirtyTail = new Int32Array(P).fill(-1)
    this.owedListed = new Uint8Array(P)
    this.owedPorts = new Int32Array(P)
    let R = 4
    while (R < widestQueue + 2) R *= 2
    this.ringMask = R - 1
    this.ringDepart = new Float64Array(P * R)
    this.ringKey = new Int32Array(P * R)
    this.ringBytes = new Int32Array(P * R)
    this.ringHead = new Int32Array(P)
    this.ringLen = new Int32Array(P)
    this.portListed = new Uint8Array(P)
    this.portList = new Int32Array(P)
    this.departedVia = new Float64Array(cells)
    this.timer = env.addTimer(0)
  }

  /** Bytes of a credit frame carrying n entries. */
  creditFrameSize(n: number): number {
    return Math.max(this.frameBytes, CREDIT_HEADER_BYTES + n * this.entryBytes)
  }

  /** The credit timer: what every listed port has finished sending is owed, and what is owed is sent, a frame per port. */
  onTimer(): void {
    this.timerArmed = false
    const now = this.env.ctx.now
    let n = 0
    for (let i = 0; i < this.nPorts; i++) {
      const g = this.portList[i]
      this.drain(g, now)
      if (this.ringLen[g] > 0) this.portList[n++] = g
      else this.portListed[g] = 0
    }
    this.nPorts = n
    n = 0
    for (let i = 0; i < this.nOwed; i++) {
      const gi = this.owedPorts[i]
      this.sendBatch(gi)
      if (this.dirtyHead[gi] >= 0) this.owedPorts[n++] = gi
      else this.owedListed[gi] = 0
    }
    this.nOwed = n
    this.arm()
  }

  /**
   * Port g just accepted `bytes` that came in through port key / H for destination key % H:
   * they are owed upstream once the link's committed departure time has passed.
   */
  protected departs(g: number, key: number, bytes: number): void {
    this.drain(g, this.env.ctx.now)
    // A shared buffer bounds a port's queue by bytes, not by its capacity in packets: grow.
    if (this.ringLen[g] > this.ringMask) this.growRings()
    const mask = this.ringMask
    const r = g * (mask + 1) + ((this.ringHead[g] + this.ringLen[g]) & mask)
    const link = this.env.links[g]
    // Held by a PFC pause: it leaves after the pause, at a time not known yet (drain).
    this.ringDepart[r] = link.heldCount() > 0 ? Infinity : link.lastTxEndPs
    this.ringKey[r] = key
    this.ringBytes[r] = bytes
    this.ringLen[g]++
    if (this.portListed[g] === 0) {
      this.portListed[g] = 1
      this.portList[this.nPorts++] = g
    }
    this.arm()
  }

  private growRings(): void {
    const R = this.ringMask + 1
    const R2 = 2 * R
    const P = this.ringHead.length
    const depart = new Float64Array(P * R2)
    const key = new Int32Array(P * R2)
    const bytes = new Int32Array(P * R2)
    for (let g = 0; g < P; g++) {
      for (let i = 0; i < this.ringLen[g]; i++) {
        const from = g * R + ((this.ringHead[g] + i) & this.ringMask)
        depart[g * R2 + i] = this.ringDepart[from]
        key[g * R2 + i] = this.ringKey[from]
        bytes[g * R2 + i] = this.ringBytes[from]
      }
      this.ringHead[g] = 0
    }
    this.ringDepart = depart
    this.ringKey = key
    this.ringBytes = bytes
    this.ringMask = R2 - 1
  }

  /** Link g went down and dropped what it held: what we sent through it left our buffer. */
  protected oweRing(g: number): void {
    const mask = this.ringMask
    while (this.ringLen[g] > 0) {
      const r = g * (mask + 1) + this.ringHead[g]
      this.owe(this.ringKey[r], this.ringBytes[r])
      this.ringHead[g] = (this.ringHead[g] + 1) & mask
      this.ringLen[g]--
    }
  }

  /** Credits every packet port g has finished sending by now. */
  protected drain(g: number, now: number): void {
    const mask = this.ringMask
    const row = g * (mask + 1)
    while (this.ringLen[g] > 0) {
      const r = row + this.ringHead[g]
      if (this.ringDepart[r] === Infinity) {
        // Held by a pause that has ended: it is on the schedule now, and leaves by the link's
        // last committed departure (an upper bound: its credit may come a little late, never early).
        const link = this.env.links[g]
        if (link.heldCount() > 0) return
        this.ringDepart[r] = link.lastTxEndPs
      }
      if (this.ringDepart[r] > now) return
      this.owe(this.ringKey[r], this.ringBytes[r])
      this.ringHead[g] = (this.ringHead[g] + 1) & mask
      this.ringLen[g]--
    }
  }

  /** `bytes` for destination key % H left this switch, having come in through port key / H. */
  protected owe(key: number, bytes: number): void {
    this.departedVia[key] += bytes
    this.credAcc[key] += bytes
    const gi = (key / this.H) | 0
    if (this.credDirty[key] === 0) {
      this.credDirty[key] = 1
      if (this.dirtyHead[gi] < 0) this.dirtyHead[gi] = key
      else this.dirtyNext[this.dirtyTail[gi]] = key
      this.dirtyTail[gi] = key
      this.dirtyNext[key] = -1
      if (this.owedListed[gi] === 0) {
        this.owedListed[gi] = 1
        this.owedPorts[this.nOwed++] = gi
      }
    }
    if (this.creditOnBytes && this.credAcc[key] >= this.creditBytes) this.sendBatch(gi)
    this.arm()
  }

  /**
   * Sends what port gi owes, every destination's in one frame (more only past the MTU).
   * Keys whose credit was reset (a link change) leave the list without an entry.
   */
  private sendBatch(gi: number): void {
    const env = this.env
    const up = env.portUp[gi] !== 0
    const link = env.links[gi]
    const s = this.portSwitch[gi]
    const H = this.H
    while (this.dirtyHead[gi] >= 0) {
      // Never drop a credit: a frame that finds the queue full waits for the next tick.
      if (up && link.depth() >= link.capacity) return
      const batch = this.spareBatches.pop() ?? { n: 0, dst: new Int32Array(this.maxEntries), bytes: new Float64Array(this.maxEntries) }
      batch.n = 0
      while (this.dirtyHead[gi] >= 0 && batch.n < this.maxEntries) {
        const key = this.dirtyHead[gi]
        this.dirtyHead[gi] = this.dirtyNext[key]
        this.credDirty[key] = 0
        const owed = this.credAcc[key]
        this.credAcc[key] = 0 // sent, or the link is down: both ends reset their state when it returns
        if (owed <= 0 || !up) continue
        batch.dst[batch.n] = key - gi * H
        batch.bytes[batch.n] = owed
        batch.n++
      }
      if (this.dirtyHead[gi] < 0) this.dirtyTail[gi] = -1
      if (batch.n === 0) {
        this.spareBatches.push(batch)
        continue
      }
      const bytes = this.creditFrameSize(batch.n)
      const p = newControlPacket(this.pkts, KIND_CREDIT, bytes, env.ctx.now)
      this.pkts.hdr0[p] = -1
      this.pkts.hdr1[p] = batch.n
      // A frame lost with its link leaves its batch here until the handle carries another credit.
      const lost = this.inFlightBatches.get(p)
      if (lost !== undefined) this.spareBatches.push(lost)
      this.inFlightBatches.set(p, batch)
      this.creditPackets++
      this.creditBytesSent += bytes
      this.creditEntries += batch.n
      if (env.send(s, gi - env.portBase[s], p) && this.voqPortBytes[gi] > 0) this.noteHeld(gi)
    }
  }

  /** The entries of credit frame p, which has arrived (undefined: not a frame of this stage). Give them back with freeCredits. */
  protected takeCredits(p: number): CreditBatch | undefined {
    const batch = this.inFlightBatches.get(p)
    if (batch !== undefined) this.inFlightBatches.delete(p)
    return batch
  }

  protected freeCredits(batch: CreditBatch): void {
    this.spareBatches.push(batch)
  }

  private arm(): void {
    if (this.timerArmed) return
    if (this.nOwed === 0 && this.nPorts === 0) return
    const T = this.intervalPs
    this.env.schedule(this.timer, (Math.floor(this.env.ctx.now / T) + 1) * T)
    this.timerArmed = true
  }
}

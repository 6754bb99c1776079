// The credit machinery is the half of Floodgate that talks to the upstream switch; a base layer of the stage rather than a member object, so per-packet code reads its typed arrays off the same `this`, with no extra hop.
//
// ring*: per egress port, the packets that came from an upstream switch and have been
// accepted by the port, with their departure time (the link commits each packet's
// serialization end at enqueue, so it is exact): when a packet has left, its bytes are owed
// to its upstream as credit. Bounded by the port's queue capacity, because it is drained
// before every push. credAcc[k']: bytes owed upstream per (ingress port g', destination h),
// k' = g'·H + h, sent as a KIND_CREDIT frame when they reach creditBytes or at the next tick
// of the timer (multiples of T); a credit that finds its port's queue full waits for the next tick.

import { KIND_CREDIT } from '../../sim/engine/packets'
import { newControlPacket } from '../shared/probes'
import type { FloodgateParams } from './sim-params'
import { FloodgateVoqs } from './voq'
import type { StageEnv } from '../../sim/routing/stage'

export abstract class FloodgateCredits extends FloodgateVoqs {
  protected readonly intervalPs: number
  private readonly creditBytes: number
  private readonly creditOnBytes: boolean
  private readonly frameBytes: number
  private readonly portSwitch: Int32Array
  /** Per global port facing a switch: the peer's global port (where its credits come from). */
  protected readonly peerGlobal: Int32Array
  protected readonly credAcc: Float64Array
  private readonly credDirty: Uint8Array
  private dirty: Int32Array
  private nDirty = 0
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
  creditPackets = 0
  creditBytesSent = 0

  constructor(env: StageEnv, prm: FloodgateParams) {
    super(env, prm)
    this.intervalPs = prm.intervalPs
    this.creditBytes = prm.creditBytes
    this.creditOnBytes = prm.creditOnBytes
    this.frameBytes = prm.creditFrameBytes
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
    this.dirty = new Int32Array(1024)
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

  /** The credit timer: what every listed port has finished sending is owed, and what is owed is sent. */
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
    for (let i = 0; i < this.nDirty; i++) {
      const key = this.dirty[i]
      if (this.credAcc[key] > 0) this.sendCredit(key)
      if (this.credAcc[key] > 0) this.dirty[n++] = key
      else this.credDirty[key] = 0
    }
    this.nDirty = n
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
    if (this.credDirty[key] === 0) {
      this.credDirty[key] = 1
      if (this.nDirty === this.dirty.length) {
        const d = new Int32Array(this.dirty.length * 2)
        d.set(this.dirty)
        this.dirty = d
      }
      this.dirty[this.nDirty++] = key
    }
    if (this.creditOnBytes && this.credAcc[key] >= this.creditBytes) this.sendCredit(key)
    this.arm()
  }

  private sendCredit(key: number): void {
    const env = this.env
    const H = this.H
    const gi = (key / H) | 0
    const h = key - gi * H
    const s = this.portSwitch[gi]
    if (env.portUp[gi] === 0) {
      this.credAcc[key] = 0 // the link is down; both ends reset their state when it returns
      return
    }
    const link = env.links[gi]
    if (link.depth() >= link.capacity) return // never drop a credit: retry at the next sweep
    const pkts = this.pkts
    const p = newControlPacket(pkts, KIND_CREDIT, this.frameBytes, env.ctx.now)
    pkts.hdr0[p] = h
    pkts.hdr1[p] = this.credAcc[key]
    this.credAcc[key] = 0
    this.creditPackets++
    this.creditBytesSent += this.frameBytes
    if (env.send(s, gi - env.portBase[s], p) && this.voqPortBytes[gi] > 0) this.noteHeld(gi)
  }

  private arm(): void {
    if (this.timerArmed) return
    if (this.nDirty === 0 && this.nPorts === 0) return
    const T = this.intervalPs
    this.env.schedule(this.timer, (Math.floor(this.env.ctx.now / T) + 1) * T)
    this.timerArmed = true
  }
}

// Floodgate (Liu et al., CoNEXT'21): per-destination, hop-by-hop credit flow
// control, so that an incast's backlog waits in VOQs upstream instead of filling the shared
// queues that other traffic crosses. Path choice is ECMP (5-tuple hash); Floodgate only
// decides when a data packet may leave.
//
// State (typed arrays; k = g·H + h for a switch-facing egress port g and a destination host h):
//   win[k]       window bytes the switch may still send through g toward h. Starts at
//                W_g = windowBdpFactor × BDP(next hop) + C_g × T, with BDP = C_g × 2 × delay
//                (the public ns-3 code: 1.5 × hop BDP, plus C × T when credits are batched).
//   voq*[k]      the VOQ of (g, h): a FIFO of held packet handles linked through next[p]
//                (one Int32Array indexed by packet handle), with its packet and byte counts.
//   ring*        per egress port, the packets that came from an upstream switch and have been
//                accepted by the port, with their departure time (the link commits each
//                packet's serialization end at enqueue, so it is exact): when a packet has
//                left, its bytes are owed to its upstream as credit. Bounded by the port's
//                queue capacity, because it is drained before every push.
//   credAcc[k']  bytes owed upstream per (ingress port g', destination h), k' = g'·H + h.
// Messages: KIND_CREDIT frames on the link toward the upstream switch, one per upstream port
// per credit interval T (10 us), carrying an entry (destination host, bytes credited) for
// every destination that port is owed for, sized by their number: max(creditFrameBytes (64 B),
// 20 B + creditEntryBytes (6 B) per entry), split at the MTU (credits.ts). The timer ticks at
// multiples of T, as a switch's would, so no byte waits more than T, which is what the
// window's C × T term pays for. (A per-counter "T since the oldest byte" rule, swept in
// steps, lets credits wait up to 1.25 T and cost a 40G hop 9% of its throughput in a test;
// this does not.) With creditOnBytes, a destination owed creditBytes (10,240 B) sends its
// port's frame at once: the public code's "every 10 µs or every 10,240 B". A credit is
// never dropped: a frame that finds its port's queue full waits for the next tick.
//
// Forwarding a data packet p toward h on egress g (select):
//   g faces a host       forward (the destination ToR's host port; public code: "it is
//                        unnecessary to block the host under this ToR"; the upstream window
//                        already bounds what reaches it);
//   VOQ(g,h) is empty and win ≥ bytes   win −= bytes, forward;
//   otherwise            append to VOQ(g,h) and return PORT_HELD.
// A credit for (g,h) adds to win (capped at W_g) and releases the VOQ's head packets while the
// window covers them. ACKs bypass windows and VOQs (they are 64 B and their own path's
// credits would have to come from the sender side). Every packet is put on its link by the
// stage (env.send), so it can read the departure time; select always returns PORT_HELD.
//
// Buffer: VOQs of a switch share voqBufferBytes (20 MB, the public code's switch buffer);
// a packet that does not fit is dropped (and its bytes credited upstream: they left).
// Optional per-destination PAUSE (pause: 1): a source ToR's VOQ(g,h) holding more than
// pauseThresholdBytes (default 1.5 × the host link's BDP, the public code's static
// threshold) pauses the hosts sending to h. Modelled as: what hosts send to h beyond the
// threshold waits "at the sender" (it is queued in order but not charged to the switch
// buffer, so it is never dropped); pause and resume frames are counted, not put on links.
// The real hosts have no per-destination pause in this simulator's NIC model.
//
// Code: the stage is three layers of one object, so per-packet code stays on one `this`:
// floodgate-voq.ts (VOQs, buffer, PAUSE) ← floodgate-credits.ts (departure rings, credits
// owed, the credit timer) ← FloodgateStage here (windows, path choice, the entry points);
// parameters and their defaults in floodgate-params.ts.
//
// Differences from p4/floodgate/v1model/floodgate.p4: that program has no VOQ (it forwards over-window
// packets and ECN-marks them), credits per destination ToR on a byte count only, one entry
// a frame, on arrival rather than departure; this file does what the paper says: VOQs per
// destination host, credits on departure, batched per port on the timer (or byte count),
// optional PAUSE.

import { KIND_CREDIT, KIND_DATA } from '../../sim/engine/packets'
import { fmix32 } from '../../sim/engine/rng'
import { FloodgateCredits } from './credits'
import { floodgateParams, hopBdpBytes } from './sim-params'
import { PORT_HELD, type ForwardingStage, type StageEnv } from '../../sim/routing/stage'

export class FloodgateStage extends FloodgateCredits implements ForwardingStage {
  readonly seesEveryHop = true
  /** Window size W_g per global port (0 for host-facing ports). */
  readonly windowBytes: Float64Array
  readonly win: Float64Array
  private readonly salt: Int32Array
  /** Bytes accepted onto g for h (those that have left the next switch: departedVia). */
  private readonly sentOn: Float64Array
  /** Per (switch, host): window in use summed over ports. */
  private readonly inflightSH: Float64Array
  voqDrops = 0

  constructor(env: StageEnv) {
    const prm = floodgateParams(env)
    super(env, prm)
    const H = this.H
    const nS = env.nSwitches
    const P = env.portBase[nS]
    this.windowBytes = new Float64Array(P)
    for (let g = 0; g < P; g++) {
      if (env.peerSwitch[g] < 0) continue
      const Bps = env.links[g].bps / 8
      this.windowBytes[g] = Math.floor(prm.windowBdpFactor * hopBdpBytes(env, g) + Bps * (this.intervalPs / 1e12))
    }
    const cells = P * H
    this.win = new Float64Array(cells)
    for (let g = 0; g < P; g++) if (this.windowBytes[g] > 0) this.win.fill(this.windowBytes[g], g * H, (g + 1) * H)
    this.sentOn = new Float64Array(cells)
    this.inflightSH = new Float64Array(nS * H)
    this.salt = new Int32Array(nS)
    for (let s = 0; s < nS; s++) this.salt[s] = fmix32(s + 0x51ed27) | 0
    this.addTelemetry()
  }

  select(s: number, inPort: number, p: number, cand: Int32Array, off: number, len: number): number {
    const pkts = this.pkts
    const port = len === 1 ? cand[off] : cand[off + ((fmix32(pkts.hash[p] ^ this.salt[s]) & 0x7fffffff) % len)]
    const env = this.env
    const base = env.portBase[s]
    if (pkts.kind[p] !== KIND_DATA) {
      // An ACK onto a port whose VOQs hold bytes grows what is held for it: send it here to see.
      const ga = base + port
      if (this.voqPortBytes[ga] === 0) return port
      if (env.send(s, port, p)) this.noteHeld(ga)
      return PORT_HELD
    }
    const gIn = base + inPort
    const gi = env.peerSwitch[gIn] >= 0 ? gIn : -1
    const g = base + port
    if (env.peerSwitch[g] < 0) {
      this.forward(s, port, p, gi)
      return PORT_HELD
    }
    const H = this.H
    const h = pkts.dst[p]
    const k = g * H + h
    const bytes = pkts.wireBytes[p]
    if (this.voqCount[k] === 0 && this.win[k] >= bytes) {
      this.win[k] -= bytes
      this.inflightSH[s * H + h] += bytes
      this.forward(s, port, p, gi)
      return PORT_HELD
    }
    if (!this.hold(s, gIn, gi, k, h, p, bytes)) {
      const c = env.ctx.counters
      c.drops++
      this.voqDrops++
      pkts.release(p)
      if (gi >= 0) this.owe(gi * H + h, bytes)
    }
    return PORT_HELD
  }

  onControl(s: number, inPort: number, p: number): void {
    const pkts = this.pkts
    const batch = pkts.kind[p] === KIND_CREDIT ? this.takeCredits(p) : undefined
    pkts.release(p)
    if (batch === undefined) return
    const g = this.env.portBase[s] + inPort
    const H = this.H
    for (let i = 0; i < batch.n; i++) {
      const h = batch.dst[i]
      const k = g * H + h
      const old = this.win[k]
      const w = Math.min(this.windowBytes[g], old + batch.bytes[i])
      this.win[k] = w
      this.inflightSH[s * H + h] -= w - old
      this.releaseVoq(s, g, k)
    }
    this.freeCredits(batch)
  }

  onLinkChange(s: number, port: number, up: boolean): void {
    const env = this.env
    const g = env.portBase[s] + port
    if (env.peerSwitch[g] < 0) return
    const H = this.H
    if (!up) {
      // The link dropped what it held: what we sent through it left our buffer.
      this.oweRing(g)
      for (let h = 0; h < H; h++) {
        const k = g * H + h
        while (this.voqCount[k] > 0) {
          const p = this.popVoq(s, k)
          this.uncharge(k, p)
          const gi = this.pkts.hdr3[p] - 1
          const bytes = this.pkts.wireBytes[p]
          this.pkts.release(p)
          const c = env.ctx.counters
          c.drops++
          c.linkDownDrops++
          if (gi >= 0) this.owe(gi * H + h, bytes)
        }
      }
    }
    // Either way the two ends start over: a full window, nothing owed across this link.
    for (let h = 0; h < H; h++) {
      const k = g * H + h
      this.inflightSH[s * H + h] -= this.windowBytes[g] - this.win[k]
      this.win[k] = this.windowBytes[g]
      this.credAcc[k] = 0
      this.sentOn[k] = 0
      const kp = this.peerGlobal[g] * H + h
      this.departedVia[kp] = 0
      this.departedVia[k] = 0
    }
  }

  /** W_g − win: bytes sent through g toward h and not yet credited back. */
  inFlight(g: number, h: number): number {
    return this.windowBytes[g] - this.win[g * this.H + h]
  }

  /**
   * Bytes sent through g toward h that are on the wire or still inside the next switch
   * (its queues or its VOQ), by the departure times the links committed.
   */
  presentBytes(g: number, h: number): number {
    const now = this.env.ctx.now
    const down = this.env.peerSwitch[g]
    const base = this.env.portBase[down]
    for (let q = base; q < this.env.portBase[down + 1]; q++) this.drain(q, now)
    return this.sentOn[g * this.H + h] - this.departedVia[this.peerGlobal[g] * this.H + h]
  }

  private forward(s: number, port: number, p: number, gi: number): void {
    const env = this.env
    const g = env.portBase[s] + port
    const h = this.pkts.dst[p]
    const bytes = this.pkts.wireBytes[p]
    const accepted = env.send(s, port, p)
    if (env.peerSwitch[g] >= 0) {
      if (accepted) {
        this.sentOn[g * this.H + h] += bytes
        if (this.voqPortBytes[g] > 0) this.noteHeld(g)
      } else {
        // Drop-tail took it (the port's queue is shared by every destination's window): it
        // will never reach the next switch, so no credit comes back for it. Give it back.
        this.win[g * this.H + h] += bytes
        this.inflightSH[s * this.H + h] -= bytes
      }
    }
    if (gi < 0) return
    const key = gi * this.H + h
    if (!accepted) {
      this.owe(key, bytes) // dropped: it left our buffer all the same
      return
    }
    this.departs(g, key, bytes)
  }

  private releaseVoq(s: number, g: number, k: number): void {
    const pkts = this.pkts
    const H = this.H
    const port = g - this.env.portBase[s]
    while (this.voqCount[k] > 0) {
      const p = this.voqHead[k]
      const bytes = pkts.wireBytes[p]
      if (this.win[k] < bytes) break
      this.popVoq(s, k)
      this.win[k] -= bytes
      const h = k - g * H
      this.inflightSH[s * H + h] += bytes
      const gi = pkts.hdr3[p] - 1
      pkts.hdr2[p] = 0
      pkts.hdr3[p] = 0
      // Its bytes move from the VOQ of (g, h) to g's queue: charged once, in the same place.
      if (this.charged === p) {
        this.charged = -1
        this.env.buffer!.carry(p)
      }
      this.forward(s, port, p, gi)
    }
  }

  private addTelemetry(): void {
    const env = this.env
    const H = this.H
    const nS = env.nSwitches
    const name = (s: number): string => env.fabric.nodes[env.switchNode[s]].name
    const hostName = (h: number): string => env.fabric.nodes[env.fabric.hosts[h]].name
    const perDst = nS * H <= 4096
    const defs: Array<{ kind: string; entity: Record<string, string | number>; unit: string }> = []
    for (const kind of ['floodgate.window', 'floodgate.voq'] as const) {
      for (let s = 0; s < nS; s++) {
        if (perDst) for (let h = 0; h < H; h++) defs.push({ kind, entity: { switch: name(s), dst: hostName(h) }, unit: kind === 'floodgate.window' ? 'bytes' : 'packets' })
        else defs.push({ kind, entity: { switch: name(s), dst: 'all' }, unit: kind === 'floodgate.window' ? 'bytes' : 'packets' })
      }
    }
    defs.push({ kind: 'floodgate.creditBytes', entity: {}, unit: 'count' })
    defs.push({ kind: 'floodgate.voqDrops', entity: {}, unit: 'count' })
    defs.push({ kind: 'floodgate.pauseFrames', entity: {}, unit: 'count' })
    defs.push({ kind: 'floodgate.creditShare', entity: {}, unit: 'ratio' })
    const fabricPorts: number[] = []
    for (let g = 0; g < env.portBase[nS]; g++) if (env.peerSwitch[g] >= 0) fabricPorts.push(g)
    let lastFabricBytes = 0
    let lastCreditShare = 0
    let lastCredit = 0
    let lastDrops = 0
    let lastPause = 0
    env.addSeries(defs, (out) => {
      let i = 0
      for (const arr of [this.inflightSH, this.voqSH]) {
        for (let s = 0; s < nS; s++) {
          if (perDst) for (let h = 0; h < H; h++) out[i++] = arr[s * H + h]
          else {
            let sum = 0
            for (let h = 0; h < H; h++) sum += arr[s * H + h]
            out[i++] = sum
          }
        }
      }
      out[i++] = this.creditBytesSent - lastCredit
      out[i++] = this.voqDrops - lastDrops
      out[i++] = this.pauseFrames - lastPause
      let fabricBytes = 0
      for (const g of fabricPorts) fabricBytes += env.links[g].busyUntilNow() / env.links[g].psPerByte
      const sent = fabricBytes - lastFabricBytes
      out[i] = sent > 0 ? (this.creditBytesSent - lastCreditShare) / sent : 0
      lastFabricBytes = fabricBytes
      lastCreditShare = this.creditBytesSent
      lastCredit = this.creditBytesSent
      lastDrops = this.voqDrops
      lastPause = this.pauseFrames
    })
  }
}

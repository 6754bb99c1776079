// CONGA (Alizadeh et al., SIGCOMM'14): congestion-aware flowlet load balancing
// for a 2-tier leaf-spine, decided at the source leaf from leaf-to-leaf feedback.
//
// State (typed arrays, sized at construction):
//   dre           a DRE register per global port (dre.ts): X += bytes sent, X ← X·(1−α)
//                 every T_dre, metric = X/(C·τ) in 3 bits. Leaves' uplinks and spines'
//                 downlinks are the fabric hops a path's congestion is made of.
//   flowlets      per switch, hash-indexed entries (FlowletTable's arrays: port, last seen,
//                 flowlets started). An entry is valid with an age bit that a sweep every
//                 T_fl (= flowletGapNs) sets and a packet clears; a sweep finding it set
//                 invalidates the entry. Computed lazily: an entry last touched in sweep
//                 period k is valid until sweep k+2, so a flowlet ends after T_fl..2·T_fl idle.
//   congTo        at each source leaf: Congestion-To-Leaf[dstLeaf][LBTag] (3 bits) with the
//                 time it was last refreshed; an entry not refreshed for metricAgingNs is
//                 halved for each such period (aging toward 0, so a path once seen congested
//                 is tried again).
//   congFrom      at each destination leaf: Congestion-From-Leaf[srcLeaf][LBTag], the last CE
//                 seen, plus the last value fed back (an entry is "changed" until fed back).
//   fbPtr         per (leaf, other leaf): the round-robin pointer over LBTags for feedback.
//
// Messages: no packets of its own. Every data packet and ACK between two leaves carries,
// in the scheme's header fields of the packet pool:
//   hdr0 = LBTag + 1   the source leaf's uplink (4 bits; 0 = no CONGA header)
//   hdr1 = CE          max of the 3-bit DRE metrics of the fabric ports it crossed
//   hdr2 = FB_LBTag + 1, hdr3 = FB_Metric   feedback piggy-backed for the leaf it goes to:
//                      one Congestion-From-Leaf entry, changed entries first, else
//                      round-robin over LBTags (0 = none).
//
// Choice rule: a packet that starts a new flowlet at its source leaf takes the live uplink
// minimizing max(local DRE metric, Congestion-To-Leaf[dst][uplink]); among ties it keeps
// the entry's cached port if that is one of them, else picks at random (env.rng). Other
// hops (spine → leaf) have a single candidate. seesEveryHop: the destination leaf must read
// CE and feedback even though its host port is the only candidate.
//
// Parameters (schemeParams): flowletGapNs (100 µs, HULA's and the other templates'; CONGA's
// testbed used 500 µs), drePeriodNs (T_dre, 50 µs: inside the 30–200 µs public simulators
// use, and the value p4/conga/v1model/conga.p4 uses), dreAlpha (0.2), metricAgingNs (1 ms, our
// choice: the paper gives no number we have), flowletSlots (4096, as conga.p4).
//
// Differences from p4/conga/v1model/conga.p4 (which cannot do better in v1model): the P4 program
// breaks ties toward the lowest LBTag, feeds back plain round-robin and does not age remote
// metrics; this file does all three as the paper says.

import type { PacketPool } from '../../sim/engine/packets'
import { fmix32 } from '../../sim/engine/rng'
import { CONGA_PARAMS } from './params'
import { Dre } from '../shared/dre'
import { FlowletTable } from '../shared/flowlets'
import type { ForwardingStage, StageEnv } from '../../sim/routing/stage'

/** LBTag is 4 bits. */
export const MAX_UPLINKS = 16
const NO_METRIC = 255

export class CongaStage implements ForwardingStage {
  readonly seesEveryHop = true
  readonly dre: Dre
  protected readonly env: StageEnv
  protected readonly pkts: PacketPool
  protected readonly flowlets: FlowletTable
  private readonly flPeriodPs: number
  private readonly agingPs: number
  private readonly nT: number
  /** Per global port: its LBTag at a ToR (index among the ToR's up ports), else -1. */
  readonly uplinkTag: Int8Array
  /** Per ToR: its uplink count (LBTags 0 .. nUp-1), and the global port of each LBTag. */
  readonly nUp: Int32Array
  private readonly tagPort: Int32Array
  /** [(srcTor·nT + dstTor)·16 + tag] */
  readonly congTo: Uint8Array
  private readonly congToPs: Float64Array
  readonly congFrom: Uint8Array
  private readonly congFromValid: Uint8Array
  private readonly fedBack: Uint8Array
  private readonly fbPtr: Uint8Array
  private readonly ties: Int32Array
  private readonly salt: Int32Array
  /** Per ToR: its pod (-1 in a leaf-spine). */
  protected readonly torPod: Int32Array

  constructor(env: StageEnv, scheme = 'conga') {
    this.env = env
    this.pkts = env.ctx.pkts
    const prm = env.params
    const gapNs = prm.flowletGapNs ?? CONGA_PARAMS.flowletGap.default
    const periodNs = prm.drePeriodNs ?? CONGA_PARAMS.drePeriod.default
    const alpha = prm.dreAlpha ?? CONGA_PARAMS.dreAlpha.default
    const agingNs = prm.metricAgingNs ?? CONGA_PARAMS.metricAging.default
    const slots = prm.flowletSlots ?? CONGA_PARAMS.flowletSlots.default
    for (const [k, v] of [['flowletGapNs', gapNs], ['drePeriodNs', periodNs], ['metricAgingNs', agingNs], ['flowletSlots', slots]] as const) {
      if (!(v > 0)) throw new Error(`${scheme}: ${k} must be > 0, got ${v}`)
    }
    const P = env.portBase[env.nSwitches]
    const bps = new Float64Array(P)
    for (let g = 0; g < P; g++) bps[g] = env.links[g].bps
    this.dre = new Dre(bps, periodNs * 1000, alpha)
    this.flPeriodPs = gapNs * 1000
    this.agingPs = agingNs * 1000
    this.flowlets = new FlowletTable(env.nSwitches, slots, this.flPeriodPs)
    const nT = (this.nT = env.nTors)
    this.uplinkTag = new Int8Array(P).fill(-1)
    this.nUp = new Int32Array(nT)
    this.tagPort = new Int32Array(nT * MAX_UPLINKS).fill(-1)
    let widest = 1
    for (let t = 0; t < nT; t++) {
      const s = env.torSwitch[t]
      for (let g = env.portBase[s]; g < env.portBase[s + 1]; g++) {
        if (env.portIsUp[g] === 0) continue
        const tag = this.nUp[t]++
        if (tag >= MAX_UPLINKS) {
          throw new Error(`${scheme}: ToR ${env.fabric.nodes[env.switchNode[s]].name} has more than ${MAX_UPLINKS} uplinks; LBTag is 4 bits`)
        }
        this.uplinkTag[g] = tag
        this.tagPort[t * MAX_UPLINKS + tag] = g
      }
      widest = Math.max(widest, env.portBase[s + 1] - env.portBase[s])
    }
    const cells = nT * nT * MAX_UPLINKS
    this.congTo = new Uint8Array(cells)
    this.congToPs = new Float64Array(cells)
    this.congFrom = new Uint8Array(cells)
    this.congFromValid = new Uint8Array(cells)
    this.fedBack = new Uint8Array(cells).fill(NO_METRIC)
    this.fbPtr = new Uint8Array(nT * nT)
    this.ties = new Int32Array(widest)
    this.salt = new Int32Array(env.nSwitches)
    for (let s = 0; s < env.nSwitches; s++) this.salt[s] = fmix32(s + 0x3c6ef372) | 0
    this.torPod = Int32Array.from(env.fabric.tors, (node) => env.fabric.nodes[node].pod)
    this.checkFabric(scheme)
    this.addTelemetry()
  }

  /** CONGA is defined on a 2-tier leaf-spine; CONGA′ (conga-prime.ts) takes any fabric. */
  protected checkFabric(scheme: string): void {
    if (this.env.fabric.kind !== 'leaf-spine') {
      throw new Error(
        `${scheme} is defined for a 2-tier leaf-spine (the CONGA paper), but the topology is a ${this.env.fabric.kind}: ` +
          `use conga-prime (CONGA inside each pod, flowlet ECMP across pods) on 3-tier and fat-tree fabrics`,
      )
    }
  }

  /** Whether traffic from srcTor to dstTor is balanced by CONGA (else flowlet ECMP). */
  protected congaPair(_srcTor: number, _dstTor: number): boolean {
    return true
  }

  select(s: number, _inPort: number, p: number, cand: Int32Array, off: number, len: number): number {
    const env = this.env
    const pkts = this.pkts
    const now = env.ctx.now
    const t = env.switchTor[s]
    const base = env.portBase[s]
    let port: number
    if (t >= 0) {
      const dT = env.torOfHost[pkts.dst[p]]
      if (dT !== t) {
        // Source leaf: the packet came from one of our hosts.
        if (this.congaPair(t, dT)) {
          port = this.sourceLeaf(s, t, dT, p, cand, off, len, now)
        } else {
          port = len === 1 ? cand[off] : this.flowletEcmp(s, p, cand, off, len, now)
        }
      } else {
        const tag = pkts.hdr0[p]
        if (tag !== 0) this.destinationLeaf(t, env.torOfHost[pkts.src[p]], p, tag - 1, now)
        port = cand[off]
      }
    } else {
      port = len === 1 ? cand[off] : this.flowletEcmp(s, p, cand, off, len, now)
    }
    const g = base + port
    this.dre.add(g, pkts.wireBytes[p], now)
    if (pkts.hdr0[p] !== 0 && env.peerSwitch[g] >= 0) {
      const m = this.dre.metric(g, now)
      if (m > pkts.hdr1[p]) pkts.hdr1[p] = m
    }
    return port
  }

  onLinkChange(s: number, port: number, up: boolean): void {
    if (!up) this.flowlets.clearPort(s, port)
  }

  /** Congestion-To-Leaf[srcTor → dstTor via tag], aged. */
  remoteMetric(srcTor: number, dstTor: number, tag: number, nowPs: number): number {
    const i = (srcTor * this.nT + dstTor) * MAX_UPLINKS + tag
    const m = this.congTo[i]
    if (m === 0) return 0
    const periods = Math.floor((nowPs - this.congToPs[i]) / this.agingPs)
    return periods <= 0 ? m : periods >= 3 ? 0 : m >> periods
  }

  /** The flowlet entry's port if its flowlet is still running (age bit not yet swept twice). */
  protected runningPort(e: number, cand: Int32Array, off: number, len: number, now: number): number {
    const fl = this.flowlets
    const port = fl.port[e]
    if (port < 0) return -1
    if (Math.floor(now / this.flPeriodPs) - Math.floor(fl.lastPs[e] / this.flPeriodPs) >= 2) return -1
    // A port withdrawn from the live group (a failure further on) ends the flowlet.
    for (let i = off; i < off + len; i++) {
      if (cand[i] === port) {
        fl.lastPs[e] = now
        return port
      }
    }
    return -1
  }

  private sourceLeaf(s: number, t: number, dT: number, p: number, cand: Int32Array, off: number, len: number, now: number): number {
    const env = this.env
    const pkts = this.pkts
    const fl = this.flowlets
    const e = fl.entry(s, pkts.hash[p])
    let port = this.runningPort(e, cand, off, len, now)
    if (port < 0) {
      port = this.choose(s, t, dT, fl.port[e], cand, off, len, now)
      fl.set(e, port, now)
    }
    pkts.hdr0[p] = this.uplinkTag[env.portBase[s] + port] + 1
    pkts.hdr1[p] = 0
    this.piggyBack(t, dT, p)
    return port
  }

  private choose(s: number, t: number, dT: number, cached: number, cand: Int32Array, off: number, len: number, now: number): number {
    const base = this.env.portBase[s]
    const ties = this.ties
    let best = NO_METRIC
    let n = 0
    let keep = false
    for (let i = off; i < off + len; i++) {
      const port = cand[i]
      const g = base + port
      const local = this.dre.metric(g, now)
      const remote = this.remoteMetric(t, dT, this.uplinkTag[g], now)
      const c = local > remote ? local : remote
      if (c < best) {
        best = c
        n = 0
        keep = false
      }
      if (c === best) {
        ties[n++] = port
        if (port === cached) keep = true
      }
    }
    if (keep) return cached
    return n === 1 ? ties[0] : ties[this.env.rng.nextInt(n)]
  }

  /** At the source leaf t, on a packet to leaf dT: one Congestion-From-Leaf[dT][*] entry. */
  private piggyBack(t: number, dT: number, p: number): void {
    const n = this.nUp[dT]
    if (n === 0) return
    const row = (t * this.nT + dT) * MAX_UPLINKS
    const ptrAt = t * this.nT + dT
    const start = this.fbPtr[ptrAt] % n
    let pick = -1
    for (let i = 0; i < n; i++) {
      const tag = (start + i) % n
      const c = row + tag
      if (this.congFromValid[c] !== 0 && this.congFrom[c] !== this.fedBack[c]) {
        pick = tag
        break
      }
    }
    if (pick < 0) {
      for (let i = 0; i < n; i++) {
        const tag = (start + i) % n
        if (this.congFromValid[row + tag] !== 0) {
          pick = tag
          break
        }
      }
    }
    if (pick < 0) {
      this.pkts.hdr2[p] = 0
      return
    }
    const c = row + pick
    this.pkts.hdr2[p] = pick + 1
    this.pkts.hdr3[p] = this.congFrom[c]
    this.fedBack[c] = this.congFrom[c]
    this.fbPtr[ptrAt] = (pick + 1) % n
  }

  /** At the destination leaf t, a packet from leaf sT: store its CE, take its feedback. */
  private destinationLeaf(t: number, sT: number, p: number, tag: number, now: number): void {
    const pkts = this.pkts
    const c = (t * this.nT + sT) * MAX_UPLINKS + tag
    this.congFrom[c] = pkts.hdr1[p]
    this.congFromValid[c] = 1
    const fb = pkts.hdr2[p]
    if (fb !== 0) {
      const i = (t * this.nT + sT) * MAX_UPLINKS + (fb - 1)
      this.congTo[i] = pkts.hdr3[p]
      this.congToPs[i] = now
    }
  }

  /**
   * Flowlet-level ECMP: a new flowlet hashes the 5-tuple with the entry's flowlet count
   * (its flowlet id), so successive flowlets of one flow spread over the group.
   */
  protected flowletEcmp(s: number, p: number, cand: Int32Array, off: number, len: number, now: number): number {
    const fl = this.flowlets
    const e = fl.entry(s, this.pkts.hash[p])
    let port = this.runningPort(e, cand, off, len, now)
    if (port < 0) {
      const id = fl.count[e] + 1
      port = cand[off + ((fmix32(this.pkts.hash[p] ^ Math.imul(id, 0x9e3779b1) ^ this.salt[s]) & 0x7fffffff) % len)]
      fl.set(e, port, now)
    }
    return port
  }

  private addTelemetry(): void {
    const env = this.env
    const name = (s: number): string => env.fabric.nodes[env.switchNode[s]].name
    const defs: Array<{ kind: string; entity: Record<string, string | number>; unit: string }> = []
    const cells: number[] = []
    for (let a = 0; a < this.nT; a++) {
      for (let b = 0; b < this.nT; b++) {
        if (a === b || !this.congaPair(a, b)) continue
        for (let tag = 0; tag < this.nUp[a]; tag++) {
          defs.push({ kind: 'conga.metric', entity: { leaf: name(env.torSwitch[a]), dstLeaf: name(env.torSwitch[b]), uplink: tag }, unit: 'level' })
          cells.push(a, b, tag)
        }
      }
    }
    // Fabric ports only (a ToR's uplinks, every port of a higher tier): what CE is made of.
    const ports: number[] = []
    for (let s = 0; s < env.nSwitches; s++) {
      for (let g = env.portBase[s]; g < env.portBase[s + 1]; g++) {
        if (env.peerSwitch[g] < 0) continue
        defs.push({ kind: 'conga.dre', entity: { switch: name(s), port: g - env.portBase[s] }, unit: 'ratio' })
        ports.push(g)
      }
    }
    const nCells = cells.length / 3
    env.addSeries(defs, (out) => {
      const now = env.ctx.now
      for (let i = 0; i < nCells; i++) out[i] = this.remoteMetric(cells[3 * i], cells[3 * i + 1], cells[3 * i + 2], now)
      for (let j = 0; j < ports.length; j++) out[nCells + j] = this.dre.ratio(ports[j], now)
    })
  }
}

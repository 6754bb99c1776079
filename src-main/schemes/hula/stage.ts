// HULA (Katta et al., SOSR'16). Every ToR sends a probe up every probe period T_p;
// probes spread over the fabric by the replication rule (probes.ts) and tell each switch,
// per destination ToR, which of its ports starts the path whose most utilized link is the
// least utilized (min-max). New flowlets take that best hop; a flowlet keeps its port.
//
// Messages: the probe, 64 B (KIND_PROBE): hdr0 = torID (the origin ToR), hdr1 = minUtil
// (the path's max utilization, 8 bits: 0..255 for 0..100 %), hdr2 = round (the origin's
// sequence number, one per T_p). A switch forwards a probe carrying its own best path's
// utilization (distance-vector style), so the metric is min over next hops of max over links.
//
// State:
//   util estimator per egress port: U = D + U × (1 − Δt/τ), τ = utilTauNs (probes.ts)
//   bestHop[s × T + t]   port toward ToR t (-1: none yet, or its port went down)
//   pathUtil[s × T + t]  that path's max utilization (0..255)
//   updateTime[s × T + t] when the entry was last refreshed (ps)
//   sentRound[g × T + t] the last round of ToR t's probe sent out of global port g: at most
//                        one probe per ToR per link per T_p (the HULA paper's optimisation)
//   flowlets             FlowletTable per switch (flowletGapNs)
// Update rule, per probe (as p4/hula/v1model/hula.p4): take the probe's port as the best hop if
// there is none, if the probe's path is less utilized, if it comes from the current best hop
// (in-place refresh, even when worse), or if the best hop was not refreshed for keepAliveNs.
//
// Differences from the P4 program: the estimator reads the link's exact busy time instead of
// counting IPv4 lengths in ingress; probes are deduplicated per link and round (BMv2 forwards
// every copy through the multicast group); a port that goes down clears the best hops on it
// at once (what a switch with port status does; the rest of the fabric still learns by
// keep-alive); and a packet whose best hop is no longer a live candidate takes a hashed live
// candidate (ECMP), where BMv2 would send it into the dead port until keep-alive.
//
// Telemetry: hula.bestHop{switch,dstTor} (port, -1 none), hula.pathUtil{switch,dstTor} (ratio, 8-bit/256),
// hula.bestHopChanges{} (count per interval), probe.count{} and probe.bytes{}; events
// 'hula.bestHop' on changes (bounded, see EVENT_BUDGET).

import { fmix32 } from '../../sim/engine/rng'
import type { PacketPool } from '../../sim/engine/packets'
import type { FlowletTable } from '../shared/flowlets'
import { utilTauTooShort } from '../shared/rules'
import { HULA_PARAMS } from './params'
import { addProbeSeries, inGroup, newProbe, param, probeStageParts, seriesSwitches, type ProbeReplication, type UtilEstimator } from '../shared/probes'
import type { ForwardingStage, StageEnv } from '../../sim/routing/stage'
import type { SimSeriesDef } from '../../sim/types'

/** Defaults, in the names the stage reads them under (declared once, in params.ts). */
export const HULA_DEFAULTS = {
  flowletGapNs: HULA_PARAMS.flowletGap.default,
  probePeriodNs: HULA_PARAMS.probePeriod.default,
  keepAliveNs: HULA_PARAMS.keepAlive.default,
  utilTauNs: HULA_PARAMS.utilTau.default,
  flowletSlots: HULA_PARAMS.flowletSlots.default,
  linkDownClear: HULA_PARAMS.linkDownClear.default,
  probeBytes: HULA_PARAMS.probeBytes.default,
}

/** 8-bit utilization, as in the probe header: floor(ratio × 256), saturated at 255. */
const UTIL_MAX = 255
const UTIL_SCALE = 256
/**
 * Most 'hula.bestHop' events logged, per kind: changes to a better path, and changes forced
 * by keep-alive or a dead port. Under load best hops move every few probe periods; the
 * bound keeps them from crowding the run's event log (link events included).
 */
const EVENT_BUDGET = 1000

type Reason = 'better' | 'keepalive' | 'linkdown'

export class HulaStage implements ForwardingStage {
  readonly seesEveryHop = false
  readonly bestHop: Int16Array
  readonly pathUtil: Uint8Array
  readonly updateTime: Float64Array
  private readonly sentRound: Int32Array
  private readonly round: Int32Array
  private readonly everSet: Uint8Array
  private readonly flowlets: FlowletTable
  private readonly est: UtilEstimator
  private readonly rep: ProbeReplication
  private readonly salt: Int32Array
  private readonly pkts: PacketPool
  /** Hot-path views of the env, read once per packet. */
  private readonly ctx: StageEnv['ctx']
  private readonly torOfHost: Int32Array
  private readonly nT: number
  private readonly periodPs: number
  private readonly keepAlivePs: number
  private readonly linkDownClear: boolean
  private readonly probeBytes: number
  private readonly timers: Int32Array
  private readonly names: string[]
  private changes = 0
  private eventsBetter = 0
  private eventsForced = 0

  constructor(private readonly env: StageEnv) {
    const S = env.nSwitches
    const T = (this.nT = env.nTors)
    const P = env.portBase[S]
    const gapNs = param(env, 'hula', 'flowletGapNs', HULA_DEFAULTS.flowletGapNs)
    const periodNs = param(env, 'hula', 'probePeriodNs', HULA_DEFAULTS.probePeriodNs)
    const tauNs = param(env, 'hula', 'utilTauNs', Math.max(HULA_DEFAULTS.utilTauNs, 2 * periodNs))
    if (utilTauTooShort(tauNs, periodNs)) throw new Error(`hula: utilTauNs (${tauNs}) must be at least 2 × probePeriodNs (${periodNs}) (the HULA paper: τ ≥ 2 T_p)`)
    this.periodPs = Math.round(periodNs * 1000)
    this.keepAlivePs = Math.round(param(env, 'hula', 'keepAliveNs', HULA_DEFAULTS.keepAliveNs) * 1000)
    this.probeBytes = Math.round(param(env, 'hula', 'probeBytes', HULA_DEFAULTS.probeBytes))
    // A switch, 0 or 1, so not through param() (which wants a positive number).
    const clear = env.params.linkDownClear ?? HULA_DEFAULTS.linkDownClear
    if (clear !== 0 && clear !== 1) throw new Error(`hula: linkDownClear must be 0 or 1, got ${clear}`)
    this.linkDownClear = clear === 1
    this.bestHop = new Int16Array(S * T).fill(-1)
    this.pathUtil = new Uint8Array(S * T)
    this.updateTime = new Float64Array(S * T)
    this.everSet = new Uint8Array(S * T)
    this.sentRound = new Int32Array(P * T)
    this.round = new Int32Array(T)
    ;({ flowlets: this.flowlets, est: this.est, rep: this.rep, timers: this.timers, names: this.names } = probeStageParts(env, {
      flowletSlots: param(env, 'hula', 'flowletSlots', HULA_DEFAULTS.flowletSlots),
      flowletGapNs: gapNs,
      utilTauNs: tauNs,
    }))
    this.pkts = env.ctx.pkts
    this.ctx = env.ctx
    this.torOfHost = env.torOfHost
    this.salt = new Int32Array(S)
    for (let s = 0; s < S; s++) this.salt[s] = fmix32(s + 0x48554c41) | 0
    this.addSeries()
  }

  select(s: number, _inPort: number, p: number, cand: Int32Array, off: number, len: number): number {
    const pkts = this.pkts
    const now = this.ctx.now
    const fl = this.flowlets
    const e = fl.entry(s, pkts.hash[p])
    const cur = fl.current(e, now)
    if (cur >= 0 && inGroup(cur, cand, off, len)) return cur
    // A new flowlet (or one whose port is gone): the current best hop.
    let port = this.bestHop[s * this.nT + this.torOfHost[pkts.dst[p]]]
    if (port < 0 || !inGroup(port, cand, off, len)) {
      port = cand[off + ((fmix32(pkts.hash[p] ^ this.salt[s]) & 0x7fffffff) % len)]
    }
    fl.set(e, port, now)
    return port
  }

  onControl(s: number, inPort: number, p: number): void {
    const pkts = this.pkts
    const env = this.env
    const t = pkts.hdr0[p]
    if (env.switchTor[s] === t) {
      pkts.release(p)
      return
    }
    const now = env.ctx.now
    const q = Math.floor(this.est.read(env.portBase[s] + inPort) * UTIL_SCALE)
    const linkUtil = q > UTIL_MAX ? UTIL_MAX : q
    const probeUtil = pkts.hdr1[p] > linkUtil ? pkts.hdr1[p] : linkUtil
    const i = s * this.nT + t
    const best = this.bestHop[i]
    if (best < 0 || probeUtil < this.pathUtil[i] || best === inPort || now - this.updateTime[i] > this.keepAlivePs) {
      if (best !== inPort) {
        const reason: Reason = best >= 0 && probeUtil >= this.pathUtil[i] ? 'keepalive' : 'better'
        this.changed(s, t, best, inPort, probeUtil, reason)
      }
      this.bestHop[i] = inPort
      this.pathUtil[i] = probeUtil
      this.updateTime[i] = now
    }
    this.forward(s, inPort, p, this.pathUtil[i])
  }

  onTimer(t: number): void {
    const env = this.env
    const s = env.torSwitch[t]
    const r = ++this.round[t]
    const now = env.ctx.now
    const rep = this.rep
    for (let k = rep.originOff[t]; k < rep.originOff[t + 1]; k++) {
      const port = rep.origin[k]
      if (env.portUp[env.portBase[s] + port] === 0) continue
      env.send(s, port, newProbe(this.pkts, this.probeBytes, t, 0, r, 1, now))
    }
    env.schedule(this.timers[t], now + this.periodPs)
  }

  onLinkChange(s: number, port: number, up: boolean): void {
    if (up) return
    // The engine already keeps packets off the dead port (select falls back to a live one);
    // without the shortcut, probes and the keep-alive alone move the best hops.
    if (this.linkDownClear) {
      for (let t = 0; t < this.nT; t++) {
        const i = s * this.nT + t
        if (this.bestHop[i] === port) {
          this.changed(s, t, port, -1, 0, 'linkdown')
          this.bestHop[i] = -1
        }
      }
    }
    this.flowlets.clearPort(s, port)
  }

  start(): void {
    // ToRs are not synchronised: spread their first probes over one period.
    for (let t = 0; t < this.nT; t++) this.env.schedule(this.timers[t], Math.floor((t * this.periodPs) / this.nT))
  }

  /** Replicates probe p (arrived on inPort) with metric m, once per ToR, link and round. */
  private forward(s: number, inPort: number, p: number, m: number): void {
    const env = this.env
    const pkts = this.pkts
    const t = pkts.hdr0[p]
    const r = pkts.hdr2[p]
    const hops = pkts.hdr3[p] + 1
    const now = env.ctx.now
    const rep = this.rep
    const g = env.portBase[s] + inPort
    for (let k = rep.off[g]; k < rep.off[g + 1]; k++) {
      const port = rep.list[k]
      const out = env.portBase[s] + port
      if (env.portUp[out] === 0 || this.sentRound[out * this.nT + t] >= r) continue
      this.sentRound[out * this.nT + t] = r
      env.send(s, port, newProbe(pkts, this.probeBytes, t, m, r, hops, now))
    }
    pkts.release(p)
  }

  private changed(s: number, t: number, from: number, to: number, util: number, reason: Reason): void {
    this.changes++
    const i = s * this.nT + t
    const first = this.everSet[i] === 0
    this.everSet[i] = 1
    // The first best hop an entry learns is not news.
    if (first && from < 0) return
    const forced = reason !== 'better'
    if (forced ? this.eventsForced++ >= EVENT_BUDGET : this.eventsBetter++ >= EVENT_BUDGET) return
    const dst = this.names[this.env.torSwitch[t]]
    const u = reason === 'linkdown' ? '' : `, util ${(util / UTIL_SCALE).toFixed(3)}`
    this.env.logEvent('hula.bestHop', `${this.names[s]} dst ${dst}: ${from} -> ${to} (${reason}${u})`)
  }

  private addSeries(): void {
    const env = this.env
    const T = this.nT
    const entries: number[] = []
    for (const s of seriesSwitches(env, 2 * (T - 1))) {
      for (let t = 0; t < T; t++) if (env.switchTor[s] !== t) entries.push(s * T + t)
    }
    const defs: SimSeriesDef[] = entries.flatMap((i) => {
      const entity = { switch: this.names[Math.floor(i / T)], dstTor: this.names[env.torSwitch[i % T]] }
      return [
        { kind: 'hula.bestHop', entity, unit: 'port' },
        { kind: 'hula.pathUtil', entity: { ...entity }, unit: 'ratio' },
      ]
    })
    defs.push({ kind: 'hula.bestHopChanges', entity: {}, unit: 'count' })
    let lastChanges = 0
    env.addSeries(defs, (out) => {
      let k = 0
      for (const i of entries) {
        out[k++] = this.bestHop[i]
        out[k++] = this.pathUtil[i] / UTIL_SCALE
      }
      out[k] = this.changes - lastChanges
      lastChanges = this.changes
    })
    addProbeSeries(env)
  }
}

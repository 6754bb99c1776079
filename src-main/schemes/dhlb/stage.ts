// DHLB (the DHLB paper): ToRs send INT probes that record, hop by hop, the load degree of the link
// they arrived on and keep the smallest degree along the path; each switch keeps a
// load-information table of its paths (per destination ToR, the degree through each
// candidate next hop) and splits new flowlets over the candidates in proportion to degree.
// A controller sets how often probes go: F = σ/θ, never faster than T_probe = 2δ
// (probe-period.ts, with how θ is calibrated).
//
// Load degree of a link, from its utilization (the estimator of probes.ts):
//   [0, 25 %) → 5, [25, 50 %) → 3, [50, 70 %) → 2, [70, 90 %) → 1, ≥ 90 % → 0.
//
// Messages: the probe, 64 B (KIND_PROBE; the header plus up to four 7 B hop records fits
// a minimum frame): hdr0 = originTor, hdr1 = minDegree (5 when it leaves the ToR),
// hdr2 = round (origin's sequence number), hdr3 = hopCount. The hop records themselves
// (switch id, ports, degree) are not materialised: the sim reads what it needs at each hop.
// Replication as HULA's rule (probes.ts, the control plane's replication.ts), every copy
// forwarded: a DHLB probe stands for one path, so copies are not merged.
//
// State:
//   degree[g × T + t]  min degree of the paths to ToR t whose first hop is global port g
//   degRound, degTime  the round and time of the last write. Probes of one round that reach
//                      g over different paths keep the largest degree (the best path behind
//                      that next hop; the next switch splits again); a newer round
//                      overwrites. An entry not refreshed for 3 probe periods counts as 0.
//   flowlets           FlowletTable per switch (flowletGapNs = δ)
//   period             the current probe period (ps), set by the controller
//
// The controller (a timer every probeControlIntervalNs): every ToR reports the utilization
// of its uplinks over the last interval (both directions of each, from its port counters),
// and σ is the mean of the ToRs' reports, as in the DHLB paper; links between aggregation
// and spine switches do not enter it. The reports reach the controller out of band, with
// no delay modelled. T_probe = clamp(θ/σ, probePeriodNs, probeMaxPeriodNs), so F = σ/θ.
// θ (probeThetaNs) defaults to the calibration of probe-period.ts: 2δ × σ at 90 % load on
// this fabric, so that T_probe reaches its floor at 90 % load. probePeriodNs (the floor)
// must be ≥ 2δ (the DHLB paper: T_probe ≥ 2δ, δ ≈ one RTT). adaptiveProbes: 0 keeps the
// period at probePeriodNs.
//
// Utilization of a link, for the load degrees: the estimator of probes.ts,
// U = D + U × (1 − Δt/τ), HULA's. The DHLB paper's own estimator,
// µ = δ × (packetSize + µ_{n−1}) − Δt × µ_{n−1}, is this one with δ = 1 and Δt counted in
// units of τ; the paper gives neither unit.
//
// Differences from p4/dhlb/v1model/dhlb.p4: the P4 program records degrees for up-facing ports
// only (at most four slots) and falls back to ECMP going down; the sim records every
// candidate next hop, so a 3-tier spine choosing between two aggregation switches splits
// by degree too. The P4 split is a 16-bucket lookup (largest remainder); the sim draws
// with probability exactly degree/sum. The P4 program keeps the last probe's degree per
// slot and has no aging; the adaptive period is the controller's, which BMv2/Tofino runs
// set once (pktgen or host agent period = probePeriodNs).
//
// Telemetry: dhlb.loadDegree{switch,dstTor,port} (degree, -1 before any probe),
// dhlb.probePeriod{} (ns), dhlb.meanLoad{} (σ from the ToRs' reports, ratio), probe.count{}, probe.bytes{}.

import { distancesTo, shortestNextHops } from '../../model/topology/query'
import type { PacketPool } from '../../sim/engine/packets'
import type { Rng } from '../../sim/engine/rng'
import type { SimSeriesDef } from '../../sim/types'
import type { FlowletTable } from '../shared/flowlets'
import { DHLB_PARAMS, MAX_PERIOD_FACTOR, probePeriodTooShort } from './params'
import { calibratedThetaNs, hostToUplinkRatio, probePeriodNs, sigmaFromReports } from './probe-period'
import { addProbeSeries, inGroup, MAX_TABLE_SERIES, newProbe, param, probeStageParts, type ProbeReplication, type UtilEstimator } from '../shared/probes'
import type { ForwardingStage, StageEnv } from '../../sim/routing/stage'

/** Defaults, in the names the stage reads them under (declared once, in params.ts). */
export const DHLB_DEFAULTS = {
  flowletGapNs: DHLB_PARAMS.flowletGap.default,
  /** The shortest probe period, 2δ. */
  probePeriodNs: DHLB_PARAMS.probePeriod.default,
  /** Multiple of probePeriodNs: the longest period (at low load). */
  maxPeriodFactor: MAX_PERIOD_FACTOR,
  probeControlIntervalNs: DHLB_PARAMS.probeControlInterval.default,
  utilTauNs: DHLB_PARAMS.utilTau.default,
  flowletSlots: DHLB_PARAMS.flowletSlots.default,
  probeBytes: DHLB_PARAMS.probeBytes.default,
}

export const MAX_DEGREE = 5

/** The DHLB paper's bands: utilization → load degree. */
export function loadDegree(util: number): number {
  if (util < 0.25) return 5
  if (util < 0.5) return 3
  if (util < 0.7) return 2
  if (util < 0.9) return 1
  return 0
}

/** Entries older than this many probe periods count as degree 0. */
const STALE_PERIODS = 3

export class DhlbStage implements ForwardingStage {
  readonly seesEveryHop = false
  private readonly degree: Uint8Array
  private readonly degRound: Int32Array
  private readonly degTime: Float64Array
  private readonly round: Int32Array
  private readonly flowlets: FlowletTable
  private readonly est: UtilEstimator
  private readonly rep: ProbeReplication
  private readonly pkts: PacketPool
  /** Hot-path views of the env, read once per packet. */
  private readonly ctx: StageEnv['ctx']
  private readonly torOfHost: Int32Array
  private readonly rng: Rng
  private readonly nT: number
  private readonly timers: Int32Array
  private readonly controlTimer: number
  private readonly names: string[]
  readonly minPeriodPs: number
  readonly maxPeriodPs: number
  private readonly thetaPs: number
  private readonly controlPs: number
  private readonly adaptive: boolean
  private readonly probeBytes: number
  /** The probe period now (ps). */
  periodPs: number
  /** σ measured at the last control step. */
  meanLoad = 0
  /** θ in ns: probeThetaNs, or calibrated (probe-period.ts). */
  readonly thetaNs: number
  /** Per ToR, the link directions of its uplinks: reportPorts[reportOff[t] .. reportOff[t+1]) (global ports). */
  private readonly reportOff: Int32Array
  private readonly reportPorts: Int32Array
  private readonly lastBusy: Float64Array
  /** Each ToR's last report (utilization of its uplinks), NaN while it has no live uplink. */
  readonly reports: Float64Array
  private readonly liveReports: Float64Array
  private lastControlPs = 0

  constructor(private readonly env: StageEnv) {
    const S = env.nSwitches
    const T = (this.nT = env.nTors)
    const P = env.portBase[S]
    const gapNs = param(env, 'dhlb', 'flowletGapNs', DHLB_DEFAULTS.flowletGapNs)
    const minNs = param(env, 'dhlb', 'probePeriodNs', Math.max(DHLB_DEFAULTS.probePeriodNs, 2 * gapNs))
    if (probePeriodTooShort(minNs, gapNs)) throw new Error(`dhlb: probePeriodNs (${minNs}) must be at least 2 × flowletGapNs (${gapNs}) (the DHLB paper: T_probe ≥ 2δ)`)
    const maxNs = param(env, 'dhlb', 'probeMaxPeriodNs', DHLB_DEFAULTS.maxPeriodFactor * minNs)
    if (maxNs < minNs) throw new Error(`dhlb: probeMaxPeriodNs (${maxNs}) must be at least probePeriodNs (${minNs})`)
    this.minPeriodPs = Math.round(minNs * 1000)
    this.maxPeriodPs = Math.round(maxNs * 1000)
    this.reportOff = new Int32Array(T + 1)
    const reportPorts: number[] = []
    const tors: Array<{ hostBps: number; upBps: number }> = []
    for (let t = 0; t < T; t++) {
      const s = env.torSwitch[t]
      let hostBps = 0
      let upBps = 0
      for (let g = env.portBase[s]; g < env.portBase[s + 1]; g++) {
        const peer = env.peerSwitch[g]
        if (peer < 0) hostBps += env.links[g].bps
        else if (env.portIsUp[g] !== 0) {
          upBps += env.links[g].bps
          reportPorts.push(g, env.portBase[peer] + env.peerPort[g])
        }
      }
      tors.push({ hostBps, upBps })
      this.reportOff[t + 1] = reportPorts.length
    }
    this.reportPorts = Int32Array.from(reportPorts)
    this.lastBusy = new Float64Array(reportPorts.length)
    this.reports = new Float64Array(T).fill(NaN)
    this.liveReports = new Float64Array(T)
    this.thetaNs = param(env, 'dhlb', 'probeThetaNs', calibratedThetaNs(minNs, hostToUplinkRatio(tors)))
    if (!(this.thetaNs > 0)) throw new Error(`dhlb: probeThetaNs must be positive, got ${this.thetaNs}`)
    this.thetaPs = Math.round(this.thetaNs * 1000)
    this.controlPs = Math.round(param(env, 'dhlb', 'probeControlIntervalNs', DHLB_DEFAULTS.probeControlIntervalNs) * 1000)
    this.adaptive = (env.params.adaptiveProbes ?? DHLB_PARAMS.adaptiveProbes.default) !== 0
    this.periodPs = this.minPeriodPs
    this.probeBytes = Math.round(param(env, 'dhlb', 'probeBytes', DHLB_DEFAULTS.probeBytes))
    const tauNs = param(env, 'dhlb', 'utilTauNs', Math.max(DHLB_DEFAULTS.utilTauNs, 2 * minNs))
    this.degree = new Uint8Array(P * T)
    this.degRound = new Int32Array(P * T)
    this.degTime = new Float64Array(P * T)
    this.round = new Int32Array(T)
    ;({ flowlets: this.flowlets, est: this.est, rep: this.rep, timers: this.timers, names: this.names } = probeStageParts(env, {
      flowletSlots: param(env, 'dhlb', 'flowletSlots', DHLB_DEFAULTS.flowletSlots),
      flowletGapNs: gapNs,
      utilTauNs: tauNs,
    }))
    this.controlTimer = env.addTimer(T)
    this.pkts = env.ctx.pkts
    this.ctx = env.ctx
    this.torOfHost = env.torOfHost
    this.rng = env.rng
    this.addSeries()
  }

  select(s: number, _inPort: number, p: number, cand: Int32Array, off: number, len: number): number {
    const pkts = this.pkts
    const now = this.ctx.now
    const fl = this.flowlets
    const e = fl.entry(s, pkts.hash[p])
    const cur = fl.current(e, now)
    if (cur >= 0 && inGroup(cur, cand, off, len)) return cur
    const port = this.pick(s, this.torOfHost[pkts.dst[p]], cand, off, len)
    fl.set(e, port, now)
    return port
  }

  /** A new flowlet's port: a candidate drawn with probability degree/sum; all zero: uniform. */
  pick(s: number, t: number, cand: Int32Array, off: number, len: number): number {
    const base = this.env.portBase[s]
    let sum = 0
    for (let i = off; i < off + len; i++) sum += this.degreeNow((base + cand[i]) * this.nT + t)
    if (sum === 0) return cand[off + this.rng.nextInt(len)]
    let r = this.rng.nextInt(sum)
    for (let i = off; i < off + len; i++) {
      r -= this.degreeNow((base + cand[i]) * this.nT + t)
      if (r < 0) return cand[i]
    }
    return cand[off + len - 1]
  }

  /** The degree of switch s's port toward ToR t, or -1 when no probe has set it. */
  degreeOf(s: number, t: number, port: number): number {
    const k = (this.env.portBase[s] + port) * this.nT + t
    return this.degRound[k] > 0 ? this.degree[k] : -1
  }

  /** Sets a table entry as a probe of the current round would (tests, what-if tools). */
  setDegree(s: number, t: number, port: number, degree: number): void {
    const k = (this.env.portBase[s] + port) * this.nT + t
    this.degree[k] = degree
    this.degRound[k] = Math.max(1, this.round[t])
    this.degTime[k] = this.env.ctx.now
  }

  onControl(s: number, inPort: number, p: number): void {
    const pkts = this.pkts
    const env = this.env
    const t = pkts.hdr0[p]
    if (env.switchTor[s] === t) {
      pkts.release(p)
      return
    }
    const g = env.portBase[s] + inPort
    const d = loadDegree(this.est.read(g))
    const md = pkts.hdr1[p] < d ? pkts.hdr1[p] : d
    const r = pkts.hdr2[p]
    const k = g * this.nT + t
    if (this.degRound[k] !== r) {
      this.degRound[k] = r
      this.degree[k] = md
    } else if (md > this.degree[k]) {
      this.degree[k] = md
    }
    this.degTime[k] = env.ctx.now
    const rep = this.rep
    const hops = pkts.hdr3[p] + 1
    const now = env.ctx.now
    for (let i = rep.off[g]; i < rep.off[g + 1]; i++) {
      const port = rep.list[i]
      if (env.portUp[env.portBase[s] + port] === 0) continue
      env.send(s, port, newProbe(pkts, this.probeBytes, t, md, r, hops, now))
    }
    pkts.release(p)
  }

  onTimer(local: number): void {
    const env = this.env
    const now = env.ctx.now
    if (local === this.nT) {
      this.control(now)
      env.schedule(this.controlTimer, now + this.controlPs)
      return
    }
    const t = local
    const s = env.torSwitch[t]
    const r = ++this.round[t]
    const rep = this.rep
    for (let k = rep.originOff[t]; k < rep.originOff[t + 1]; k++) {
      const port = rep.origin[k]
      if (env.portUp[env.portBase[s] + port] === 0) continue
      env.send(s, port, newProbe(this.pkts, this.probeBytes, t, MAX_DEGREE, r, 0, now))
    }
    env.schedule(this.timers[t], now + this.periodPs)
  }

  onLinkChange(s: number, port: number, up: boolean): void {
    if (!up) this.flowlets.clearPort(s, port)
  }

  start(): void {
    for (let t = 0; t < this.nT; t++) this.env.schedule(this.timers[t], Math.floor((t * this.minPeriodPs) / this.nT))
    if (this.adaptive) this.env.schedule(this.controlTimer, this.controlPs)
  }

  /** The ToRs' reports over the last interval, σ their mean, then T_probe = clamp(θ/σ, min, max). */
  private control(now: number): void {
    const env = this.env
    const dt = now - this.lastControlPs
    if (dt <= 0) return
    const ports = this.reportPorts
    let live = 0
    for (let t = 0; t < this.nT; t++) {
      let sum = 0
      let n = 0
      for (let i = this.reportOff[t]; i < this.reportOff[t + 1]; i++) {
        const g = ports[i]
        const busy = env.links[g].busyUntilNow()
        if (env.portUp[g] !== 0) {
          sum += (busy - this.lastBusy[i]) / dt
          n++
        }
        this.lastBusy[i] = busy
      }
      this.reports[t] = n > 0 ? sum / n : NaN
      if (n > 0) this.liveReports[live++] = this.reports[t]
    }
    this.lastControlPs = now
    const sigma = sigmaFromReports(this.liveReports, live)
    this.meanLoad = sigma
    this.periodPs = Math.round(probePeriodNs(sigma, this.thetaPs, this.minPeriodPs, this.maxPeriodPs))
  }

  private degreeNow(k: number): number {
    if (this.degRound[k] === 0) return 0
    return this.ctx.now - this.degTime[k] > STALE_PERIODS * this.periodPs ? 0 : this.degree[k]
  }

  private addSeries(): void {
    const env = this.env
    const f = env.fabric
    const T = this.nT
    const entries: Array<{ s: number; t: number; port: number }> = []
    for (let t = 0; t < T; t++) {
      const dist = distancesTo(f, env.switchNode[env.torSwitch[t]])
      for (let s = 0; s < env.nSwitches; s++) {
        if (env.switchTor[s] === t) continue
        const hops = shortestNextHops(f, env.switchNode[s], dist)
        if (hops.length > 1) for (const port of hops) entries.push({ s, t, port })
      }
    }
    entries.sort((a, b) => a.s - b.s || a.t - b.t || a.port - b.port)
    const shown = entries.length <= MAX_TABLE_SERIES ? entries : entries.filter((e) => env.switchTor[e.s] >= 0).slice(0, MAX_TABLE_SERIES)
    const defs: SimSeriesDef[] = shown.map((e) => ({
      kind: 'dhlb.loadDegree',
      entity: { switch: this.names[e.s], dstTor: this.names[env.torSwitch[e.t]], port: e.port },
      unit: 'degree',
    }))
    defs.push({ kind: 'dhlb.probePeriod', entity: {}, unit: 'ns' }, { kind: 'dhlb.meanLoad', entity: {}, unit: 'ratio' })
    env.addSeries(defs, (out) => {
      let k = 0
      for (const e of shown) out[k++] = this.degreeOf(e.s, e.t, e.port)
      out[k++] = this.periodPs / 1000
      out[k] = this.meanLoad
    })
    addProbeSeries(env)
  }
}

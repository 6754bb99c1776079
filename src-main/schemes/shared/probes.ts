// What HULA and DHLB share in the simulator: the per-port utilization estimator, the probe
// replication rule as port lists (the control plane's, model/controlplane/replication.ts),
// the probe packet itself, and the fabric-wide probe telemetry.
//
// Probe header fields (pkts.hdr0..hdr3, see each scheme's file for hdr1):
//   hdr0  origin ToR index (HULA's torID, DHLB's originTor)
//   hdr1  the scheme's path metric (HULA: max utilization 0..255; DHLB: min load degree 0..5)
//   hdr2  round: the origin's probe sequence number, one per probe period
//   hdr3  hops taken so far (DHLB's hopCount; HULA ignores it)

import { probeEgress } from '../../model/controlplane/replication'
import { isUpPort } from '../../model/topology/query'
import { KIND_PROBE, type PacketPool } from '../../sim/engine/packets'
import type { StageEnv } from '../../sim/routing/stage'
import { FlowletTable } from './flowlets'

export { PROBE_BYTES } from './probe-format'

/**
 * The utilization estimator of every switch egress port (the HULA paper): U = D + U × (1 − Δt/τ),
 * where D is what the port sent since the last update. D is read from the link's exact busy
 * time (ps of serialization done by now), so U is in ps per τ and U/τ is the utilization;
 * with a constant rate ρ the fixed point is U = ρτ whatever the update times are, so
 * updating lazily (when a probe reads the port) gives the same estimate as per packet.
 * When Δt ≥ τ the old value has decayed away and U is the mean rate over Δt times τ
 * (the P4 programs take U = D there, which over-counts a long quiet interval).
 */
export class UtilEstimator {
  private readonly u: Float64Array
  private readonly lastPs: Float64Array
  private readonly lastBusy: Float64Array

  constructor(
    private readonly env: StageEnv,
    readonly tauPs: number,
  ) {
    const P = env.portBase[env.nSwitches]
    this.u = new Float64Array(P)
    this.lastPs = new Float64Array(P)
    this.lastBusy = new Float64Array(P)
  }

  /** Utilization of global port g now, in [0, 1]. */
  read(g: number): number {
    const now = this.env.ctx.now
    const busy = this.env.links[g].busyUntilNow()
    const d = busy - this.lastBusy[g]
    const dt = now - this.lastPs[g]
    const tau = this.tauPs
    let u: number
    if (dt >= tau) u = (d * tau) / dt
    else u = d + this.u[g] * (1 - dt / tau)
    this.u[g] = u
    this.lastPs[g] = now
    this.lastBusy[g] = busy
    const r = u / tau
    return r > 1 ? 1 : r < 0 ? 0 : r
  }
}

/** The probe rule of one fabric, as port lists per ingress port (CSR, by global port). */
export class ProbeReplication {
  /** Egress ports (local numbers) of a probe that arrived on global port g: list[off[g] .. off[g+1]). */
  readonly off: Int32Array
  readonly list: Int32Array
  /** A ToR's own probes leave on these (its up ports): origin[originOff[t] .. originOff[t+1]). */
  readonly originOff: Int32Array
  readonly origin: Int32Array

  constructor(env: StageEnv) {
    const f = env.fabric
    const P = env.portBase[env.nSwitches]
    const off = new Int32Array(P + 1)
    const list: number[] = []
    for (let s = 0; s < env.nSwitches; s++) {
      const node = env.switchNode[s]
      for (let p = 0; p < f.nodes[node].ports.length; p++) {
        const g = env.portBase[s] + p
        off[g] = list.length
        for (const q of probeEgress(f, node, p).ports) list.push(q)
      }
    }
    off[P] = list.length
    this.off = off
    this.list = Int32Array.from(list)
    const originOff = new Int32Array(env.nTors + 1)
    const origin: number[] = []
    for (let t = 0; t < env.nTors; t++) {
      originOff[t] = origin.length
      const node = env.switchNode[env.torSwitch[t]]
      for (let p = 0; p < f.nodes[node].ports.length; p++) if (isUpPort(f, node, p)) origin.push(p)
    }
    originOff[env.nTors] = origin.length
    this.originOff = originOff
    this.origin = Int32Array.from(origin)
  }
}

/**
 * A fresh control packet of `kind` (a probe, a credit…): no flow, no hosts, `bytes` on the
 * wire, sent now. The caller fills the header words it uses.
 */
export function newControlPacket(pkts: PacketPool, kind: number, bytes: number, nowPs: number): number {
  const p = pkts.alloc()
  pkts.kind[p] = kind
  pkts.flags[p] = 0
  pkts.flow[p] = -1
  pkts.seq[p] = 0
  pkts.src[p] = -1
  pkts.dst[p] = -1
  pkts.hash[p] = 0
  pkts.wireBytes[p] = bytes
  pkts.sentPs[p] = nowPs
  return p
}

/** A fresh probe packet from origin ToR t with metric m, round r, after `hops` hops. */
export function newProbe(pkts: PacketPool, bytes: number, t: number, m: number, r: number, hops: number, nowPs: number): number {
  const p = newControlPacket(pkts, KIND_PROBE, bytes, nowPs)
  pkts.hdr0[p] = t
  pkts.hdr1[p] = m
  pkts.hdr2[p] = r
  pkts.hdr3[p] = hops
  return p
}

/** What a probe-driven stage (HULA, DHLB) keeps besides its own tables. */
export interface ProbeStageParts {
  flowlets: FlowletTable
  est: UtilEstimator
  rep: ProbeReplication
  /** One timer per ToR: its probe sends. */
  timers: Int32Array
  /** Switch index → node name. */
  names: string[]
}

/** The flowlet table, link-utilization estimator, probe replication and per-ToR probe timers of a probe-driven stage, made in one order so timer ids stay put. */
export function probeStageParts(env: StageEnv, o: { flowletSlots: number; flowletGapNs: number; utilTauNs: number }): ProbeStageParts {
  const flowlets = new FlowletTable(env.nSwitches, o.flowletSlots, Math.round(o.flowletGapNs * 1000))
  const est = new UtilEstimator(env, Math.round(o.utilTauNs * 1000))
  const rep = new ProbeReplication(env)
  const timers = new Int32Array(env.nTors)
  for (let t = 0; t < env.nTors; t++) timers[t] = env.addTimer(t)
  const names = Array.from(env.switchNode, (node) => env.fabric.nodes[node].name)
  return { flowlets, est, rep, timers, names }
}

export function addProbeSeries(env: StageEnv): void {
  const c = env.ctx.counters
  let lastPackets = 0
  let lastBytes = 0
  env.addSeries(
    [
      { kind: 'probe.count', entity: {}, unit: 'count' },
      { kind: 'probe.bytes', entity: {}, unit: 'bytes' },
    ],
    (out) => {
      out[0] = c.controlPackets - lastPackets
      out[1] = c.controlBytes - lastBytes
      lastPackets = c.controlPackets
      lastBytes = c.controlBytes
    },
  )
}

/** Whether port is one of cand[off .. off+len) (the live candidates). */
export function inGroup(port: number, cand: Int32Array, off: number, len: number): boolean {
  for (let i = off; i < off + len; i++) if (cand[i] === port) return true
  return false
}

/** A per-(switch, ToR) series budget: all switches if it fits, else the ToRs only. */
export const MAX_TABLE_SERIES = 1024

/** The switches whose tables get telemetry series, given `perSwitch` series each. */
export function seriesSwitches(env: StageEnv, perSwitch: number): number[] {
  const all = Array.from({ length: env.nSwitches }, (_, s) => s)
  if (env.nSwitches * perSwitch <= MAX_TABLE_SERIES) return all
  const tors = all.filter((s) => env.switchTor[s] >= 0)
  return tors.length * perSwitch <= MAX_TABLE_SERIES ? tors : tors.slice(0, Math.max(1, Math.floor(MAX_TABLE_SERIES / perSwitch)))
}

/** A named number from the scheme params, with a default; rejects what is not positive. */
export function param(env: StageEnv, scheme: string, key: string, dflt: number): number {
  const v = env.params[key] ?? dflt
  if (!(v > 0) || !Number.isFinite(v)) throw new Error(`${scheme}: ${key} must be a positive number, got ${v}`)
  return v
}

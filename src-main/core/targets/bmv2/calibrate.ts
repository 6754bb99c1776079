// Rates the switch host can carry: the pure half of the BMv2 rate calibration (the SSH half,
// the iperf3 measurement, is measure.ts).
//
// Six simple_switch processes sharing a 2-core host forward far less than the 1 Gbps a single
// switch reaches on an idle core, so a rate scale chosen from the rate ceiling alone can offer
// the fabric more than it can carry, and the run then measures the host's CPU instead of the
// scheme (real runs: mean FCTs of 20-29 s at a 0.05 scale). So, once the switches are deployed
// and before their queues are shaped, a short iperf3 crosses the fabric's longest path
// (host → ToR → … → ToR → host) and the scale is lowered until the offered load fits in a
// share (the headroom) of what it carried.
//
// The offered load is every sending host's Poisson rate (load x host link rate x scale) added
// up, or the host link rate itself for long-lived flows. Comparing that sum with one path's
// throughput is conservative on purpose: the switches share the host's cores, so one path
// crossing three or more of them is close to what all paths together get on a small host, and
// on a host with many cores it only leaves more room.
//
// Where the scale is applied (all from the one number chosen here, through bmv2QueueMapping
// and renderCli): set_queue_rate per port; DHLB's load-degree bands and Floodgate's initial
// windows (rendered from the scaled link rates); the agents' --link-bps (startClients); the
// link.util denominators and the wall-clock cap of the poll loop (telemetry.ts).
import type { ControlPlaneState } from '../../controlplane'
import type { ExperimentSpec } from '../../spec'
import type { NetnsPlan, PlannedHost } from '../remote/netns'

/** The share of the measured capacity the offered load may take. */
export const CALIBRATION_HEADROOM = 0.8

export interface CalibrationPath {
  src: PlannedHost
  dst: PlannedHost
  /** Switches a packet crosses from src to dst (ToR to ToR, inclusive). */
  switches: number
}

/**
 * The longest host-to-host path of the fabric, from the first host: the destination whose ToR
 * is the most switch hops away (another pod in a fat-tree, another leaf in a leaf-spine).
 */
export function longestPath(state: ControlPlaneState, plan: NetnsPlan): CalibrationPath {
  if (plan.hosts.length < 2) throw new Error('the fabric has fewer than two hosts: there is no path to measure')
  const adj = new Map<string, string[]>()
  for (const s of state.switches) adj.set(s.name, s.ports.filter((p) => p.facing !== 'host').map((p) => p.peer))
  const src = plan.hosts[0]
  const dist = new Map<string, number>([[src.tor, 0]])
  const queue = [src.tor]
  while (queue.length) {
    const at = queue.shift()!
    for (const next of adj.get(at) ?? []) {
      if (dist.has(next)) continue
      dist.set(next, dist.get(at)! + 1)
      queue.push(next)
    }
  }
  let dst = plan.hosts[1]
  for (const h of plan.hosts.slice(1)) if ((dist.get(h.tor) ?? -1) > (dist.get(dst.tor) ?? -1)) dst = h
  const hops = dist.get(dst.tor)
  if (hops === undefined) throw new Error(`no path from ${src.name} (on ${src.tor}) to ${dst.name} (on ${dst.tor}) in the fabric`)
  return { src, dst, switches: hops + 1 }
}

export interface OfferedLoad {
  /** Hosts that send. */
  senders: number
  /** What each sending host offers at the fabric's rates (scale 1), bit/s. */
  perHostBps: number
  /** All of it, at the fabric's rates (scale 1), bit/s. */
  totalBps: number
}

/** The load the run's agents offer, at the fabric's rates: multiply by a scale for what BMv2 gets. `perHost`: flows per host (splitFlows). */
export function offeredLoad(spec: ExperimentSpec, load: number, perHost: readonly number[]): OfferedLoad {
  const w = spec.workload
  const hostBps = spec.topology.hostLinkBps
  // Long-lived flows send as fast as TCP lets them: every host offers its whole link.
  const longLived = w.kind === 'long-lived'
  const senders = longLived ? perHost.length : perHost.filter((n) => n > 0).length
  const perHostBps = longLived ? hostBps : load * hostBps
  return { senders, perHostBps, totalBps: senders * perHostBps }
}

export type ScaleReason = 'ceiling' | 'capacity' | 'fixed'

export interface ScaleInput {
  /** The fabric's fastest link, bit/s. */
  fastestBps: number
  ceilingBps: number
  /** The testbed's rateScale setting, when it fixes the scale. */
  fixedScale?: number
  /** The offered load at the fabric's rates (scale 1), bit/s. */
  offeredBps: number
  /** What the measurement carried, bit/s; null when nothing was measured. */
  capacityBps: number | null
  /** Why nothing was measured (with capacityBps null): a warning when calibration was wanted. */
  unmeasured?: { why: string; warn: boolean }
  headroom?: number
}

export interface ScaleChoice {
  scale: number
  reason: ScaleReason
  /** The scale the rate ceiling alone gives. */
  ceilingScale: number
  /** The offered load at the chosen scale, bit/s. */
  offeredBps: number
  capacityBps: number | null
  headroom: number
  /** Offered load over measured capacity at the chosen scale (null when not measured). */
  utilization: number | null
  /** One sentence: which scale and why. */
  why: string
  /** Set when the run is likely to measure the switch host rather than the fabric, or was not checked. */
  warning: string | null
}

const mbps = (bps: number): string => `${bps >= 10e6 ? Math.round(bps / 1e6) : Number((bps / 1e6).toPrecision(2))} Mb/s`
const pct = (x: number): string => `${Math.round(x * 100)} %`

/** The largest number with two significant digits that is not above x (x > 0): 0.003391 → 0.0033. */
export function roundDown2(x: number): number {
  if (!(x > 0 && Number.isFinite(x))) throw new RangeError(`cannot round ${x}`)
  const f = 10 ** (Math.floor(Math.log10(x)) - 1)
  let k = Math.floor(x / f)
  let r = Number((k * f).toPrecision(2))
  while (r > x && k > 1) r = Number((--k * f).toPrecision(2))
  return r
}

/** The rate scale of a run: fixed by the testbed, else the ceiling's, lowered until the offered load fits the measured capacity with headroom. */
export function chooseRateScale(i: ScaleInput): ScaleChoice {
  const headroom = i.headroom ?? CALIBRATION_HEADROOM
  if (!(headroom > 0 && headroom <= 1)) throw new RangeError(`the calibration headroom must be in (0, 1], got ${headroom}`)
  if (!(i.fastestBps > 0) || !(i.ceilingBps > 0)) throw new RangeError('the fastest link and the ceiling must be positive rates')
  if (!(i.offeredBps >= 0)) throw new RangeError(`bad offered load ${i.offeredBps}`)
  if (i.capacityBps !== null && !(i.capacityBps > 0)) throw new RangeError(`a measured capacity must be positive, got ${i.capacityBps}`)
  const ceilingScale = i.fastestBps > i.ceilingBps ? i.ceilingBps / i.fastestBps : 1
  const cap = i.capacityBps
  const base = { ceilingScale, capacityBps: cap, headroom }
  const at = (scale: number) => ({ offeredBps: i.offeredBps * scale, utilization: cap === null ? null : (i.offeredBps * scale) / cap })
  const measured = (scale: number) => (cap === null ? '' : `; the agents offer ${mbps(i.offeredBps * scale)}, ${pct((i.offeredBps * scale) / cap)} of the ${mbps(cap)} the fabric carried`)

  if (i.fixedScale !== undefined) {
    const s = i.fixedScale
    const over = cap !== null && i.offeredBps * s > headroom * cap
    return {
      scale: s,
      reason: 'fixed',
      ...base,
      ...at(s),
      why: `fixed at ${s} by the testbed's rateScale setting${measured(s)}`,
      warning: over
        ? `the fixed rate scale ${s} offers ${mbps(i.offeredBps * s)}, more than ${pct(headroom)} of the ${mbps(cap!)} the switches forwarded in the calibration: the run may measure the switch host's CPU rather than the fabric (a scale of ${roundDown2((headroom * cap!) / i.offeredBps)} would fit)`
        : null,
    }
  }
  if (cap === null) {
    const why = i.unmeasured?.why ?? 'not measured'
    return {
      scale: ceilingScale,
      reason: 'ceiling',
      ...base,
      ...at(ceilingScale),
      why: `the rate ceiling's scale ${ceilingScale} (fastest link at most ${mbps(i.ceilingBps)}); the fabric was not measured: ${why}`,
      warning: i.unmeasured?.warn ? `the rate scale was not calibrated (${why}): the offered load ${mbps(i.offeredBps * ceilingScale)} may exceed what the switches can forward` : null,
    }
  }
  const fit = i.offeredBps > 0 ? (headroom * cap) / i.offeredBps : Infinity
  if (fit >= ceilingScale) {
    return { scale: ceilingScale, reason: 'ceiling', ...base, ...at(ceilingScale), why: `the rate ceiling's scale ${ceilingScale} fits${measured(ceilingScale)}`, warning: null }
  }
  const s = roundDown2(fit)
  return {
    scale: s,
    reason: 'capacity',
    ...base,
    ...at(s),
    why: `lowered from the ceiling's ${Number(ceilingScale.toPrecision(4))} to ${s} so the offered load fits ${pct(headroom)} of what the switches forwarded${measured(s)}`,
    warning: null,
  }
}

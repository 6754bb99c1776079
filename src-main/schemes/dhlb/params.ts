import type { ParamDecl } from '../../model/scheme'
import { PROBE_BYTES } from '../shared/probe-format'

/** DHLB's parameters. */
export const DHLB_PARAMS = {
  flowletGap: { unit: 'duration', default: 100_000, doc: 'flowlet inactivity gap δ' },
  probePeriod: { unit: 'duration', default: 200_000, doc: 'the shortest probe period, at least 2δ (default: the larger of 200 µs and 2 × flowletGap)' },
  probeMaxPeriod: { unit: 'duration', doc: 'the longest probe period, used at low load (default: 10 × probePeriod)' },
  probeTheta: { unit: 'duration', doc: 'θ of the probe frequency F = σ/θ (T_probe = θ/σ); default: calibrated so that T_probe reaches probePeriod at 90 % load, θ = probePeriod × 0.9 × (a ToR\'s host capacity / its uplink capacity)' },
  probeControlInterval: { unit: 'duration', default: 1_000_000, doc: 'how often the ToRs report their uplinks\' utilization and the probe period adapts to their mean σ' },
  adaptiveProbes: { unit: 'flag', default: 1, doc: 'adapt the probe period to the load (0: a fixed probePeriod)' },
  utilTau: { unit: 'duration', default: 400_000, doc: 'time constant of the link-utilization estimator (default: the larger of 400 µs and 2 × probePeriod)' },
  flowletSlots: { unit: 'count', default: 4096, doc: 'flowlet table entries per switch; not given by the paper' },
  probeBytes: { unit: 'size', default: PROBE_BYTES, doc: 'bytes of a probe on the wire' },
} as const satisfies Record<string, ParamDecl>

/** The DHLB paper's bound T_probe ≥ 2δ: whether a probe period is too short for the flowlet gap. */
export function probePeriodTooShort(probePeriodNs: number, flowletGapNs: number): boolean {
  return probePeriodNs < 2 * flowletGapNs
}

/** Multiple of probePeriodNs that gives the longest period by default. */
export const MAX_PERIOD_FACTOR = 10

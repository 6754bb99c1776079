import type { ParamRule } from '../../model/scheme'
import { formatDuration } from '../../model/units'

/** HULA's estimator (and DHLB's, which reuses it) needs τ ≥ 2 T_p to smooth over at least two probes. */
export function utilTauTooShort(utilTauNs: number, probePeriodNs: number): boolean {
  return utilTauNs < 2 * probePeriodNs
}

export const utilTauRule: ParamRule = (v, src) =>
  v.utilTauNs !== undefined && v.probePeriodNs !== undefined && utilTauTooShort(v.utilTauNs, v.probePeriodNs)
    ? [{ key: src.utilTauNs, message: `the utilization time constant must be at least 2 × probePeriod (the HULA paper: τ ≥ 2 T_p), got ${formatDuration(v.utilTauNs)} < 2 × ${formatDuration(v.probePeriodNs)}` }]
    : []

/**
 * The rules on parameters that more than one scheme reads: they apply to every experiment that
 * gives the values, whichever schemes it runs (a scheme's own rules apply when it runs).
 */
export const SHARED_RULES: readonly ParamRule[] = [utilTauRule]

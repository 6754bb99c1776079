// DHLB's adaptive probe period (the DHLB paper): the controller sets the probe frequency
//   F = σ / θ,   so the period is T_probe = θ / σ,   never shorter than 2δ (T_probe ≥ 2δ),
// where σ is the mean network load, computed from the link utilizations the ToR switches
// report, and θ a constant. The paper leaves θ open; it is calibrated here so that T_probe
// reaches its floor 2δ at 90 % load (CALIBRATION_LOAD), where DHLB should probe as often as
// HULA at the same period:
//   σ(90 %) = 0.9 × (host capacity of a ToR / uplink capacity of a ToR)   (all traffic leaves
//             its ToR, as with destinations in other racks or pods)
//   θ       = 2δ × σ(90 %)
// e.g. the paper's fat-tree with 4 hosts per ToR at 100 Mbps and 2 uplinks at 200 Mbps:
// ratio 400/400 = 1, σ(90 %) = 0.9, δ = 100 µs: θ = 200 µs × 0.9 = 180 µs, so T_probe is
// 180 µs / 0.9 = 200 µs at 90 % load, 360 µs at 50 % and 1.8 ms at 10 %.
// The longest period (σ near 0) is not in the paper: probeMaxPeriod, default 10 × 2δ.

/** The load at which the calibrated θ brings T_probe down to 2δ. */
export const CALIBRATION_LOAD = 0.9

/** T_probe = θ/σ (F = σ/θ), clamped to [minNs, maxNs]; σ ≤ 0 gives maxNs. In ns. */
export function probePeriodNs(sigma: number, thetaNs: number, minNs: number, maxNs: number): number {
  const want = sigma > 0 ? thetaNs / sigma : Infinity
  return Math.min(maxNs, Math.max(minNs, want))
}

/**
 * The σ the ToRs report at an offered load (relative to the host links) when all traffic
 * leaves its ToR: each ToR's uplinks carry load × its host capacity, so their utilization
 * is load × hostToUplink. hostToUplink is the mean over ToRs of host bit/s over uplink bit/s.
 */
export function reportedLoad(load: number, hostToUplink: number): number {
  return load * hostToUplink
}

/** θ such that T_probe = minNs (2δ) when the offered load is CALIBRATION_LOAD: θ = 2δ × σ(90 %). */
export function calibratedThetaNs(minNs: number, hostToUplink: number): number {
  return minNs * reportedLoad(CALIBRATION_LOAD, hostToUplink)
}

/** Mean over ToRs of (bit/s of its host ports) / (bit/s of its up ports); ToRs without uplinks are left out. */
export function hostToUplinkRatio(tors: ReadonlyArray<{ hostBps: number; upBps: number }>): number {
  let sum = 0
  let n = 0
  for (const t of tors) {
    if (!(t.upBps > 0)) continue
    sum += t.hostBps / t.upBps
    n++
  }
  return n > 0 ? sum / n : 1
}

/**
 * σ from the ToRs' reports: each ToR reports the mean utilization of its uplinks (both
 * directions, as its port counters see them) over the last report interval; σ is the mean
 * of the reports. Links of the fabric's upper tiers do not enter it.
 */
export function sigmaFromReports(reports: ArrayLike<number>, n = reports.length): number {
  let sum = 0
  for (let i = 0; i < n; i++) sum += reports[i]
  return n > 0 ? sum / n : 0
}

// Probe overhead while traffic arrives: the measure of DHLB's Fig. 4. A run's counters
// cover the drain after the last arrival too, when the load (and so DHLB's probe rate)
// falls off; a figure of "probe bytes at 90 % load" is of the window in which the offered
// load is 90 %: from the end of the warm-up to the last flow's start.

/** The window [from, to] of sustained arrivals: after the warm-up share of flows (in start order), to the last start. */
export function arrivalWindow(startNs: readonly number[], warmupShare: number): { fromNs: number; toNs: number } {
  const sorted = [...startNs].sort((a, b) => a - b)
  if (sorted.length === 0) throw new Error('the run has no flows: no arrival window')
  const k = Math.min(sorted.length - 1, Math.max(0, Math.floor(warmupShare * sorted.length)))
  return { fromNs: sorted[k], toNs: sorted[sorted.length - 1] }
}

/**
 * Per second, the sum of a per-interval series (each sample the amount since the one before,
 * as probe.bytes is) over the samples that end inside [fromNs, toNs], divided by the time
 * those samples cover. NaN when no sample ends inside.
 */
export function windowRate(t: ArrayLike<number>, values: ArrayLike<number>, fromNs: number, toNs: number): number {
  let sum = 0
  let first = -1
  let last = -1
  for (let j = 0; j < t.length; j++) {
    if (t[j] <= fromNs || t[j] > toNs) continue
    if (first < 0) first = j
    last = j
    sum += values[j]
  }
  if (first < 0) return NaN
  const startNs = first > 0 ? t[first - 1] : 0
  return (sum / (t[last] - startNs)) * 1e9
}

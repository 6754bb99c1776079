// Statistics of a series over a window of sim time ending at a cursor: what the fabric view
// colours by (last / mean / p95) and what the tables show. Pure functions over typed
// arrays; no DOM, tested in node.
import { upperBound } from './downsample'

export type StatMode = 'last' | 'mean' | 'p95'
export const STAT_MODES: readonly StatMode[] = ['last', 'mean', 'p95']

/**
 * The samples [lo, hi) in the window (tMs − windowMs, tMs] of a sorted time axis. A window
 * shorter than one interval still holds the last sample at or before tMs, so "last" always
 * has a value once there is a sample.
 */
export function windowRange(xMs: ArrayLike<number>, n: number, tMs: number, windowMs: number): [number, number] {
  const hi = upperBound(xMs, tMs, 0, n)
  if (hi === 0) return [0, 0]
  let lo = Number.isFinite(windowMs) ? upperBound(xMs, tMs - windowMs, 0, hi) : 0
  if (lo >= hi) lo = hi - 1
  return [lo, hi]
}

/** The last finite value in [lo, hi), or NaN. */
export function lastFinite(col: ArrayLike<number>, lo: number, hi: number): number {
  for (let j = hi - 1; j >= lo; j--) {
    const v = col[j]
    if (Number.isFinite(v)) return v
  }
  return NaN
}

/** Most samples a p95 sorts: longer windows are strided (a p95 of 4096 samples is plenty). */
const P95_MAX = 4096
let scratch = new Float64Array(P95_MAX)

/** last, mean, or the nearest-rank 95th percentile of the finite values in [lo, hi); NaN when none. */
export function statOf(col: ArrayLike<number>, lo: number, hi: number, mode: StatMode): number {
  if (hi <= lo) return NaN
  if (mode === 'last') return lastFinite(col, lo, hi)
  if (mode === 'mean') {
    let sum = 0
    let count = 0
    for (let j = lo; j < hi; j++) {
      const v = col[j]
      if (Number.isFinite(v)) {
        sum += v
        count++
      }
    }
    return count === 0 ? NaN : sum / count
  }
  const step = Math.max(1, Math.ceil((hi - lo) / P95_MAX))
  if (scratch.length < P95_MAX) scratch = new Float64Array(P95_MAX)
  let k = 0
  for (let j = lo; j < hi; j += step) {
    const v = col[j]
    if (Number.isFinite(v)) scratch[k++] = v
  }
  if (k === 0) return NaN
  const sorted = scratch.subarray(0, k).sort()
  return sorted[Math.min(k - 1, Math.ceil(0.95 * k) - 1)]
}

/** The max over several columns of each one's statistic (a switch's deepest queue). */
export function maxStatOf(cols: readonly ArrayLike<number>[], lo: number, hi: number, mode: StatMode): number {
  let best = NaN
  for (const c of cols) {
    const v = statOf(c, lo, hi, mode)
    if (Number.isFinite(v) && !(v <= best)) best = v
  }
  return best
}

/** The value of a column at the last sample at or before tMs (what a table shows at the cursor). */
export function valueAt(xMs: ArrayLike<number>, n: number, col: ArrayLike<number>, tMs: number): number {
  const hi = upperBound(xMs, tMs, 0, n)
  return hi === 0 ? NaN : col[hi - 1]
}

export { upperBound }

import type { FctStats } from '../contract'

/** Flow-size classes of the papers' FCT breakdowns (decimal units, as they use). */
export const SMALL_FLOW_BYTES = 100_000
export const LARGE_FLOW_BYTES = 10_000_000

export interface FlowArrays {
  sizeBytes: ArrayLike<number>
  startNs: ArrayLike<number>
  finishNs: ArrayLike<number>
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: Float64Array, p: number): number | null {
  if (sorted.length === 0) return null
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

function mean(sum: number, n: number): number | null {
  return n === 0 ? null : sum / n
}

/** FCT statistics over the finished flows (finishNs >= 0). */
export function fctStats(f: FlowArrays): FctStats {
  const n = f.sizeBytes.length
  const fct = new Float64Array(n)
  let finished = 0
  let sum = 0
  let smallSum = 0
  let smallN = 0
  let largeSum = 0
  let largeN = 0
  for (let i = 0; i < n; i++) {
    if (f.finishNs[i] < 0) continue
    const v = f.finishNs[i] - f.startNs[i]
    fct[finished++] = v
    sum += v
    if (f.sizeBytes[i] < SMALL_FLOW_BYTES) {
      smallSum += v
      smallN++
    } else if (f.sizeBytes[i] > LARGE_FLOW_BYTES) {
      largeSum += v
      largeN++
    }
  }
  const sorted = fct.subarray(0, finished).sort()
  return {
    flows: n,
    finished,
    meanNs: mean(sum, finished),
    p50Ns: percentile(sorted, 50),
    p99Ns: percentile(sorted, 99),
    smallMeanNs: mean(smallSum, smallN),
    largeMeanNs: mean(largeSum, largeN),
  }
}

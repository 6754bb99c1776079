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

/**
 * The experiment's warm-up share (workload.warmup). Its default is 0, every flow measured:
 * a run of one connection per flow has no state to warm up but queues, which fill within
 * milliseconds; the paper templates set it where connections and queues start empty.
 */
export function warmupShare(spec: { workload: object }): number {
  const w = (spec.workload as { warmup?: unknown }).warmup
  return typeof w === 'number' ? w : 0
}

/**
 * The measurement window: flows that start before this time are warm-up (they met an empty
 * fabric) and stay out of the FCT statistics. `share` of the flows, in start order, are
 * warm-up; -Infinity (no warm-up) when share is 0.
 */
export function warmupEndNs(startNs: ArrayLike<number>, share: number): number {
  const k = Math.floor(share * startNs.length)
  if (k <= 0) return -Infinity
  const sorted = Float64Array.from(startNs).sort()
  return sorted[Math.min(k, sorted.length - 1)]
}

/**
 * FCT statistics over the finished flows (finishNs >= 0) that start in the measurement
 * window (after the first `warmupShare` of the flows, in start order). `flows` and
 * `finished` count every flow, so unfinished ones are never lost from the counts.
 */
export function fctStats(f: FlowArrays, warmupShare = 0): FctStats {
  const n = f.sizeBytes.length
  const fct = new Float64Array(n)
  const fromNs = warmupEndNs(f.startNs, warmupShare)
  let finished = 0
  let measured = 0
  let warmup = 0
  let sum = 0
  let smallSum = 0
  let smallN = 0
  let largeSum = 0
  let largeN = 0
  for (let i = 0; i < n; i++) {
    if (f.finishNs[i] < 0) continue
    finished++
    if (f.startNs[i] < fromNs) {
      warmup++
      continue
    }
    const v = f.finishNs[i] - f.startNs[i]
    fct[measured++] = v
    sum += v
    if (f.sizeBytes[i] < SMALL_FLOW_BYTES) {
      smallSum += v
      smallN++
    } else if (f.sizeBytes[i] > LARGE_FLOW_BYTES) {
      largeSum += v
      largeN++
    }
  }
  const sorted = fct.subarray(0, measured).sort()
  return {
    flows: n,
    finished,
    ...(fromNs > -Infinity ? { warmup } : {}),
    meanNs: mean(sum, measured),
    p50Ns: percentile(sorted, 50),
    p99Ns: percentile(sorted, 99),
    smallMeanNs: mean(smallSum, smallN),
    largeMeanNs: mean(largeSum, largeN),
  }
}

// Mean and a band across seeds: min/max, or a 95% confidence interval of the mean from
// Student's t distribution (few seeds make the normal 1.96 far too narrow).

export type BandKind = 'minmax' | 'ci95'

export interface Band {
  n: number
  mean: number
  lo: number
  hi: number
  /** Sample standard deviation (n - 1); 0 for one value. */
  sd: number
}

/** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
]
/** Beyond 30: [df, t] steps; a df between two rows takes the smaller df's (wider) value. */
const T975_TAIL: Array<[number, number]> = [
  [40, 2.021],
  [60, 2.0],
  [120, 1.98],
]

/** t such that P(-t < T < t) = 0.95 for T with df degrees of freedom. */
export function tCritical95(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new Error(`tCritical95: degrees of freedom must be a positive integer, got ${df}`)
  if (df <= 30) return T975[df - 1]
  let t = T975[29]
  for (const [d, v] of T975_TAIL) if (df >= d) t = v
  return df > 1000 ? 1.96 : t
}

/** The band of a set of values; null for none. With ci95, one value gives a zero-width band. */
export function band(values: readonly number[], kind: BandKind): Band | null {
  const n = values.length
  if (n === 0) return null
  let sum = 0
  for (const v of values) sum += v
  const mean = sum / n
  let ss = 0
  for (const v of values) ss += (v - mean) ** 2
  const sd = n > 1 ? Math.sqrt(ss / (n - 1)) : 0
  if (kind === 'minmax') return { n, mean, lo: Math.min(...values), hi: Math.max(...values), sd }
  const half = n > 1 ? tCritical95(n - 1) * (sd / Math.sqrt(n)) : 0
  return { n, mean, lo: mean - half, hi: mean + half, sd }
}

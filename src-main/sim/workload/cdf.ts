// Flow-size CDFs: parsing the shipped .cdf text format, and sampling under linear
// interpolation (the convention of the DCTCP/CONGA/HULA traffic generators). Parsing
// stays here, free of fs, so the simulator runs anywhere; callers read the file.

export type CdfPoints = Array<[number, number]>

const EPS = 1e-9

/**
 * Parses "bytes probability" lines; '#' starts a comment. Throws an Error naming the
 * 1-based line on a malformed line, a decreasing value, or a last probability other than 1.
 */
export function loadCdf(text: string): CdfPoints {
  const points: CdfPoints = []
  const lines = text.split(/\r?\n/)
  let lastLine = 0
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1
    const hash = lines[i].indexOf('#')
    const body = (hash >= 0 ? lines[i].slice(0, hash) : lines[i]).trim()
    if (body === '') continue
    const parts = body.split(/[\s,]+/)
    const bytes = Number(parts[0])
    const prob = Number(parts[1])
    if (parts.length !== 2 || !Number.isFinite(bytes) || !Number.isFinite(prob)) {
      throw new Error(`CDF line ${lineNo}: expected "bytes probability", got "${body}"`)
    }
    if (bytes < 0 || prob < 0 || prob > 1 + EPS) {
      throw new Error(`CDF line ${lineNo}: bytes must be >= 0 and probability within [0, 1], got "${body}"`)
    }
    const prev = points[points.length - 1]
    if (prev !== undefined && (bytes < prev[0] || prob < prev[1])) {
      throw new Error(
        `CDF line ${lineNo}: values must not decrease (previous point ${prev[0]} ${prev[1]}, got ${bytes} ${prob})`,
      )
    }
    points.push([bytes, prob])
    lastLine = lineNo
  }
  if (points.length === 0) throw new Error('CDF has no data lines: expected "bytes probability" per line')
  const last = points[points.length - 1][1]
  if (Math.abs(last - 1) > EPS) {
    throw new Error(`CDF line ${lastLine}: the last cumulative probability must be 1, got ${last}`)
  }
  return points
}

/** Checks points passed in programmatically (same rules as loadCdf, indexes instead of lines). */
export function checkCdf(points: CdfPoints): void {
  if (points.length === 0) throw new Error('workload.cdf is empty')
  for (let i = 0; i < points.length; i++) {
    const [b, p] = points[i]
    const prev = points[i - 1]
    if (!Number.isFinite(b) || !Number.isFinite(p) || b < 0 || p < 0 || p > 1 + EPS) {
      throw new Error(`workload.cdf[${i}] = [${b}, ${p}] is not a valid [bytes, probability] point`)
    }
    if (prev !== undefined && (b < prev[0] || p < prev[1])) {
      throw new Error(`workload.cdf[${i}] decreases after [${prev[0]}, ${prev[1]}]`)
    }
  }
  if (Math.abs(points[points.length - 1][1] - 1) > EPS) throw new Error('workload.cdf must end at probability 1')
}

/** Mean flow size under linear interpolation (a point mass below the first probability). */
export function cdfMean(points: CdfPoints): number {
  let mean = points[0][0] * points[0][1]
  for (let i = 1; i < points.length; i++) {
    const [b0, p0] = points[i - 1]
    const [b1, p1] = points[i]
    mean += ((p1 - p0) * (b0 + b1)) / 2
  }
  return mean
}

/** Flow size for a uniform draw u in [0, 1): whole bytes, at least 1. */
export function sampleCdf(points: CdfPoints, u: number): number {
  let i = 0
  while (i < points.length - 1 && points[i][1] <= u) i++
  let bytes: number
  if (i === 0 || points[i][1] <= u) {
    bytes = points[i][0]
  } else {
    const [b0, p0] = points[i - 1]
    const [b1, p1] = points[i]
    bytes = b0 + ((u - p0) / (p1 - p0)) * (b1 - b0)
  }
  return Math.max(1, Math.ceil(bytes))
}

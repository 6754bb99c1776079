// The caps a run is held to while it runs (the spec's budgets, core/spec/limits.ts, are
// checked before it starts). A cap that is hit never crashes the process or loses the run
// silently: the run fails saying why (memory), or goes on with a warning event and a log
// line saying what was held back (log lines, telemetry). README.md's "Limits" paragraph lists them.

export const RUN_LIMITS = {
  /** The simulator worker's JS heap, in MB (P4LAB_RUN_MEMORY_MB overrides it). */
  memoryMb: 2048,
  /** Log lines one source (the sim, a host, the orchestrator) may add to one run. */
  logLinesPerSource: 10_000,
  /**
   * Samples one telemetry source may deliver per millisecond of its own timestamps: one per
   * microsecond on average (the sim's default interval is 100 µs; a BMv2 port's INT
   * postcards at 1 Gbps are under 100 per ms).
   */
  samplesPerMsPerSource: 1_000,
} as const

/** A setting from the environment that p4lab cannot use: the variable's mistake, not the database's. */
export class EnvSettingError extends Error {}

/** The memory ceiling per run in MB: P4LAB_RUN_MEMORY_MB when set, else RUN_LIMITS.memoryMb. */
export function runMemoryMb(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.P4LAB_RUN_MEMORY_MB
  if (text === undefined || text === '') return RUN_LIMITS.memoryMb
  const mb = Number(text)
  if (!Number.isInteger(mb) || mb < 16) throw new EnvSettingError(`P4LAB_RUN_MEMORY_MB must be a whole number of megabytes of at least 16, got '${text}'`)
  return mb
}

/** The code of a cap's warning event: 'limit.log-lines', 'limit.telemetry-rate', 'limit.memory'. */
export function limitCode(limit: string): string {
  return `limit.${limit.replace(/ /g, '-')}`
}

export interface LimitReport {
  /** Which cap: 'log lines', 'telemetry rate'. */
  limit: string
  source: string
  cap: number
  message: string
}

/**
 * Log lines per source: the first `cap` lines of each source are kept; the next one is
 * replaced by a note saying the cap was hit, and the rest are counted.
 */
export class LogCap {
  private readonly counts = new Map<string, number>()

  constructor(
    private readonly onHit: (r: LimitReport) => void,
    private readonly cap: number = RUN_LIMITS.logLinesPerSource,
  ) {}

  /** The line to store for this one (the line itself, or the note), or undefined to drop it. */
  admit(source: string, line: string): string | undefined {
    const n = (this.counts.get(source) ?? 0) + 1
    this.counts.set(source, n)
    if (n <= this.cap) return line
    if (n === this.cap + 1) {
      const message = `log: '${source}' reached ${this.cap.toLocaleString('en-US')} lines, the cap on log lines per source per run; its further lines are not stored`
      this.onHit({ limit: 'log lines', source, cap: this.cap, message })
      return message
    }
    return undefined
  }

  /** Lines dropped per source, for the closing note. */
  dropped(): Array<{ source: string; lines: number }> {
    return [...this.counts].filter(([, n]) => n > this.cap + 1).map(([source, n]) => ({ source, lines: n - this.cap - 1 }))
  }
}

/**
 * Telemetry rate per source, by the samples' own timestamps (deterministic, whatever the
 * machine's speed): in each millisecond of a source's time, at most `cap` instants are kept.
 * A source is a frame stream (all its series share instants) or one series of points.
 */
export class TelemetryRateCap {
  private readonly windows = new Map<string, { ms: number; kept: number }>()
  private readonly droppedBy = new Map<string, number>()

  constructor(
    private readonly onHit: (r: LimitReport) => void,
    private readonly cap: number = RUN_LIMITS.samplesPerMsPerSource,
  ) {}

  /** Whether a sample of `source` at `tNs` is kept. */
  admit(source: string, tNs: number): boolean {
    const ms = Math.floor(tNs / 1e6)
    let w = this.windows.get(source)
    if (!w || w.ms !== ms) {
      w = { ms, kept: 0 }
      this.windows.set(source, w)
    }
    if (w.kept < this.cap) {
      w.kept++
      return true
    }
    const n = (this.droppedBy.get(source) ?? 0) + 1
    this.droppedBy.set(source, n)
    if (n === 1) {
      this.onHit({
        limit: 'telemetry rate',
        source,
        cap: this.cap,
        message: `telemetry: '${source}' delivered more than ${this.cap.toLocaleString('en-US')} samples in one millisecond of its time, the cap on telemetry rate per source; the samples past the cap in each millisecond are not stored`,
      })
    }
    return false
  }

  dropped(): Array<{ source: string; samples: number }> {
    return [...this.droppedBy].map(([source, samples]) => ({ source, samples }))
  }
}

/**
 * A frame (series-major: values[i * t.length + j] is series i at t[j]) with the instants over
 * the cap taken out: the same arrays when all are kept, null when none is.
 */
export function capFrame(cap: TelemetryRateCap, source: string, t: Float64Array, values: Float64Array): { t: Float64Array; values: Float64Array } | null {
  const keep: number[] = []
  for (let j = 0; j < t.length; j++) if (cap.admit(source, t[j])) keep.push(j)
  if (keep.length === t.length) return { t, values }
  if (keep.length === 0) return null
  const series = values.length / t.length
  const t2 = Float64Array.from(keep, (j) => t[j])
  const v2 = new Float64Array(series * keep.length)
  for (let i = 0; i < series; i++) for (let k = 0; k < keep.length; k++) v2[i * keep.length + k] = values[i * t.length + keep[k]]
  return { t: t2, values: v2 }
}

/** Points (series[i] at t[i] is values[i]) with those over their series' cap taken out; null when none is kept. */
export function capPoints(
  cap: TelemetryRateCap,
  sourceOf: (series: number) => string,
  p: { series: ArrayLike<number>; t: ArrayLike<number>; values: ArrayLike<number> },
): { series: ArrayLike<number>; t: ArrayLike<number>; values: ArrayLike<number> } | null {
  const keep: number[] = []
  for (let i = 0; i < p.t.length; i++) if (cap.admit(sourceOf(p.series[i]), p.t[i])) keep.push(i)
  if (keep.length === p.t.length) return p
  if (keep.length === 0) return null
  return { series: keep.map((i) => p.series[i]), t: keep.map((i) => p.t[i]), values: keep.map((i) => p.values[i]) }
}

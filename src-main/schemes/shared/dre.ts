// CONGA's Discounting Rate Estimator (the CONGA paper, §3.3), one register per global port: every
// packet the port sends adds its bytes to X, and every T_dre the register is multiplied by
// (1 − α). For a constant rate R, X settles to a sawtooth that peaks at R·T_dre/α = R·τ just
// before each decay and falls to (1 − α)·R·τ right after it; τ = T_dre/α is the
// estimator's time constant. The congestion metric is X/(C·τ), quantized to 3 bits.
//
// The decay is applied lazily: a port remembers the last decay tick it has seen and, when
// it is next touched, multiplies by (1 − α)^(ticks elapsed). That is exactly what a timer
// sweeping every port every T_dre computes, without an event per port per period. Ticks are
// at integer multiples of T_dre; a read at exactly k·T_dre sees the k-th decay applied.

/** Metric levels: 3 bits (the CONGA paper: CE and FB_Metric are 3-bit fields). */
export const DRE_LEVELS = 8
/** Beyond this many ticks the register is below any byte (0.8^200 ≈ 4e-20): zero it. */
const FORGET_TICKS = 200

export class Dre {
  /** Bytes in the register as of tick[g]'s decay. */
  readonly x: Float64Array
  /** The last decay tick applied to each port. */
  private readonly tick: Float64Array
  /** C·τ per port, in bytes: X at 100% utilization. */
  private readonly fullBytes: Float64Array
  private readonly keep: number
  readonly tauPs: number

  constructor(
    /** Line rate of each global port, bit/s. */
    bps: ArrayLike<number>,
    /** T_dre, ps. */
    readonly periodPs: number,
    /** α in (0, 1]. */
    readonly alpha: number,
  ) {
    if (!(periodPs > 0)) throw new Error(`DRE period must be > 0 ps, got ${periodPs}`)
    if (!(alpha > 0 && alpha <= 1)) throw new Error(`DRE alpha must be in (0, 1], got ${alpha}`)
    const n = bps.length
    this.x = new Float64Array(n)
    this.tick = new Float64Array(n)
    this.fullBytes = new Float64Array(n)
    this.keep = 1 - alpha
    this.tauPs = periodPs / alpha
    for (let g = 0; g < n; g++) this.fullBytes[g] = (bps[g] / 8) * (this.tauPs / 1e12)
  }

  /** A packet of `bytes` leaves through port g at nowPs. */
  add(g: number, bytes: number, nowPs: number): void {
    this.sync(g, nowPs)
    this.x[g] += bytes
  }

  /** X of port g at nowPs, bytes. */
  bytes(g: number, nowPs: number): number {
    this.sync(g, nowPs)
    return this.x[g]
  }

  /** X/(C·τ): the port's recent utilization (can exceed 1 while a burst is being queued). */
  ratio(g: number, nowPs: number): number {
    return this.bytes(g, nowPs) / this.fullBytes[g]
  }

  /** The 3-bit congestion metric: ratio × 8, floored, saturating at 7. */
  metric(g: number, nowPs: number): number {
    const m = Math.floor(this.ratio(g, nowPs) * DRE_LEVELS)
    return m < DRE_LEVELS - 1 ? m : DRE_LEVELS - 1
  }

  private sync(g: number, nowPs: number): void {
    const k = Math.floor(nowPs / this.periodPs)
    const d = k - this.tick[g]
    if (d <= 0) return
    this.tick[g] = k
    const x = this.x[g]
    if (x === 0) return
    this.x[g] = d === 1 ? x * this.keep : d > FORGET_TICKS ? 0 : x * Math.pow(this.keep, d)
  }
}

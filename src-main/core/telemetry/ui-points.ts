// What live views get of irregular samples (points, INT's): per series, how many arrived since
// the last hand-off, their sum, least and greatest, and the one at the latest instant. The
// ingest path (ingest.ts) fills it as points are pushed and hands it over on the UI schedule;
// its size is bounded by the series count, however fast points come.

/** The points of one series (by definition index) since the last hand-off; NaN values are not counted. */
export interface UiPointStats {
  index: number
  count: number
  sum: number
  min: number
  max: number
  lastT: number
  last: number
}

export class PointSummaries {
  private bySeries = new Map<number, UiPointStats>()

  get size(): number {
    return this.bySeries.size
  }

  /** series[k] at t[k] is values[k]. */
  add(series: ArrayLike<number>, t: ArrayLike<number>, values: ArrayLike<number>): void {
    for (let k = 0; k < series.length; k++) {
      const v = values[k]
      if (!Number.isFinite(v)) continue
      const a = this.bySeries.get(series[k])
      if (!a) {
        this.bySeries.set(series[k], { index: series[k], count: 1, sum: v, min: v, max: v, lastT: t[k], last: v })
        continue
      }
      a.count++
      a.sum += v
      if (v < a.min) a.min = v
      if (v > a.max) a.max = v
      if (t[k] >= a.lastT) {
        a.lastT = t[k]
        a.last = v
      }
    }
  }

  /** The summaries so far, in the order their series first came; starts over. */
  take(): UiPointStats[] {
    const out = [...this.bySeries.values()]
    this.bySeries = new Map()
    return out
  }
}

// What a slowdown CDF card says besides its curves: how many flows of its size each line holds
// and, when it has none to draw, why in words (no flow of that size at all, or none that
// finished), instead of bare axes.
import type { CompareResult } from '@contract/index'
import { lineLabel, type FieldValue } from '@plots/plotdata'
import { formatCount, plural } from './format'

export interface SlowdownCardText {
  /** The card's note under its title: the flows each line pools, and how a line of one value is drawn. */
  sub: string
  /** What the card says in place of a chart when no line has a point. */
  empty: string
}

/** "60 flows a line", or "58–60 flows a line" when the lines differ. */
function perLine(counts: number[]): string {
  const lo = Math.min(...counts)
  const hi = Math.max(...counts)
  return lo === hi ? `${plural(hi, 'flow')} a line` : `${formatCount(lo)}–${formatCount(hi)} flows a line`
}

export function slowdownCardText(result: CompareResult, atX: FieldValue, bucket: string, atText: string): SlowdownCardText {
  const atXs = (result.cdfs ?? []).filter((c) => c.x === atX)
  const mine = atXs.filter((c) => c.bucket === bucket)
  // The core counts the flows of every slowdown CDF; without counts the card says only what it lacks.
  if (mine.length === 0 || mine.some((c) => c.flows === undefined || c.finished === undefined)) {
    return { sub: '', empty: `No finished flow of ${bucket} at ${atText}.` }
  }
  const flows = mine.map((c) => c.flows!)
  const finished = mine.map((c) => c.finished!)
  if (flows.every((n) => n === 0)) {
    const labels = [...new Set(atXs.map((c) => lineLabel(c.line, result.lineKeys)))]
    const all = labels.map((l) => atXs.filter((c) => lineLabel(c.line, result.lineKeys) === l).reduce((a, c) => a + (c.flows ?? 0), 0))
    return { sub: '', empty: `No flow of ${bucket} at ${atText}: none of the flows these runs drew (${perLine(all)}) is this size, so there is no slowdown to plot.` }
  }
  if (finished.every((n) => n === 0)) {
    return { sub: '', empty: `No flow of ${bucket} finished at ${atText}: none of the flows of this size (${perLine(flows)}) ended before its run did, so there is no slowdown to plot.` }
  }
  const same = mine.every((c) => c.flows === mine[0].flows && c.finished === mine[0].finished)
  const counts = same
    ? `${formatCount(finished[0])} of ${plural(flows[0], 'flow')} finished, each line`
    : `finished: ${mine.map((c) => `${lineLabel(c.line, result.lineKeys)} ${formatCount(c.finished!)} of ${formatCount(c.flows!)}`).join(', ')}`
  // A line of one value is a step at that value, which no curve shows: it is drawn as a dot.
  const dots = mine.some((c) => c.points.length > 0 && new Set(c.points.map((p) => p[0])).size === 1)
  return { sub: `${counts}${dots ? ' · a line of one value is a dot' : ''}`, empty: '' }
}

// plots/ of an archive: the comparison as SVG, drawn by the same serializer as the compare
// view's SVG export (src-main/plots). Mean FCT vs load per line (scheme) with the band across
// seeds from the very rows of compare/mean-by-load.*, p99 FCT vs load, and mean FCT
// normalised to the first scheme. Every scheme keeps its colour across the three.
import { compareToPlot, lineLabel, plotToSvg } from '../../plots'
import { CompareError, compareRuns, type CompareResult } from '../compare'
import type { Store } from '../store'

export interface ArchivePlot {
  /** Path inside the archive (plots/<name>.svg). */
  path: string
  title: string
  svg: string
}

/**
 * The archive's plots from `mean`, the compare result compare/mean-by-load.* holds. A plot
 * that cannot be drawn (no runs of the baseline scheme, say) is left out with a note.
 */
export function archivePlots(store: Store, experimentId: number, mean: CompareResult, notes: string[]): ArchivePlot[] {
  const colorOrder = [...new Set(mean.rows.map((r) => lineLabel(r.line, mean.lineKeys)))]
  const out: ArchivePlot[] = []
  const add = (name: string, title: string, yLabel: string, result: () => CompareResult) => {
    try {
      const r = result()
      if (r.rows.length === 0) return
      out.push({ path: `plots/${name}.svg`, title, svg: plotToSvg(compareToPlot(r, { id: name, title, yLabel, colorOrder })) })
    } catch (err) {
      if (!(err instanceof CompareError)) throw err
      notes.push(`plots/${name}.svg is left out: ${err.message}`)
    }
  }
  add('mean-fct-by-load', 'Mean FCT vs load', 'mean FCT', () => mean)
  add('p99-fct-by-load', 'p99 FCT vs load', 'p99 FCT', () => compareRuns(store, { experimentIds: [experimentId], metric: 'p99' }))
  const first = mean.rows.map((r) => r.line.scheme).find((s): s is string => typeof s === 'string')
  if (first !== undefined) {
    add('mean-fct-normalised', `Mean FCT normalised to ${first}`, `mean FCT / ${first}`, () =>
      compareRuns(store, { experimentIds: [experimentId], metric: 'mean', baseline: first }),
    )
  }
  return out
}

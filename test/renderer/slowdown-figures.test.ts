// The slowdown views' plot builders (src-main/plots) and what their exports hold: the CDFs of
// FCT slowdown per flow-size bucket on a log x axis, two runs' series overlaid from t = 0, the
// CSV and SVG of each giving the plotted numbers, SVG legends cut to their column, and the
// n/a of runs stored before slowdown was measured.
import { describe, expect, it } from 'vitest'
import type { CompareResult } from '@contract/index'
import { cdfBuckets, meanOverSeries, overlayPlot, slowdownCdfPlots } from '@plots/plotdata'
import { formatSlowdown } from '@plots/format'
import { plotToSvg } from '@plots/svg'
import { parseCsv } from '../../src-renderer/src/lib/csv'
import { plotToCsv } from '../../src-renderer/src/lib/plotdata'
import { cellText, columnDef, fieldsOfRun } from '../../src-renderer/src/lib/runcolumns'
import type { Run } from '@contract/index'

function slowdownResult(): CompareResult {
  const cdf = (scheme: string, x: number, bucket: string, points: Array<[number, number]>) => ({ line: { scheme }, x, bucket, points })
  return {
    experiments: ['e'], metric: 'slowdown.mean', unit: 'ratio', by: 'load', band: 'minmax', baseline: null, query: '', lineKeys: ['scheme'],
    rows: [], matched: 4, excluded: 0, incomplete: [], differences: [],
    cdfs: [
      cdf('ecmp', 0.3, '<10 KB', [[1.2, 0.5], [3, 1]]),
      cdf('ecmp', 0.3, '10–100 KB', [[1.1, 0.5], [2, 1]]),
      cdf('hula', 0.3, '<10 KB', [[1.05, 0.5], [1.5, 1]]),
      cdf('hula', 0.3, '10–100 KB', []),
      cdf('ecmp', 0.6, '<10 KB', [[5, 1]]),
    ],
  }
}

describe('slowdown CDFs per flow-size bucket', () => {
  it('gives one log-x plot per bucket at the chosen x, lines per scheme in the view colours', () => {
    const r = slowdownResult()
    expect(cdfBuckets(r)).toEqual(['<10 KB', '10–100 KB'])
    const plots = slowdownCdfPlots(r, 0.3, { idPrefix: 'sd', atText: 'load 0.3', colorOrder: ['hula', 'ecmp'] })
    expect(plots.map((p) => p.bucket)).toEqual(['<10 KB', '10–100 KB'])
    const small = plots[0].plot
    expect(small.kind).toBe('cdf')
    expect(small.xLog).toBe(true)
    expect(small.xUnit).toBe('ratio')
    expect(small.title).toBe('<10 KB · load 0.3')
    expect(small.x).toEqual([1.05, 1.2, 1.5, 3])
    expect(small.lines.map((l) => [l.label, l.mean])).toEqual([
      ['ecmp', [null, 0.5, null, 1]],
      ['hula', [0.5, null, 1, null]],
    ])
    // Colours follow the view's order (hula first), not the order the lines came in.
    expect(small.lines[1].color).not.toBe(small.lines[0].color)
    // The other load's CDF and the other bucket's points stay out.
    expect(plots[1].plot.lines.map((l) => l.label)).toEqual(['ecmp'])
  })

  it('exports as CSV and SVG exactly the points drawn, with a log axis at decades', () => {
    const p = slowdownCdfPlots(slowdownResult(), 0.3, { idPrefix: 'sd', atText: 'load 0.3' })[0].plot
    const rows = parseCsv(plotToCsv(p))
    expect(rows[0]).toEqual(['line', 'FCT slowdown (FCT / ideal FCT) (ratio)', 'probability'])
    expect(rows.slice(1)).toEqual([['ecmp', '1.2', '0.5'], ['ecmp', '3', '1'], ['hula', '1.05', '0.5'], ['hula', '1.5', '1']])
    const svg = plotToSvg(p)
    expect(svg).toContain('FCT slowdown (FCT / ideal FCT), log scale')
    // Decade ticks only (1 and 10 here), no tick in between.
    const ticks = [...svg.matchAll(/<text x="[\d.]+" y="[\d.]+" text-anchor="middle">([^<]*)<\/text>/g)].map((m) => m[1])
    expect(ticks).toEqual(['1', '10'])
    expect((svg.match(/<polyline class="line"/g) ?? []).length).toBe(2)
  })
})

describe('two runs overlaid', () => {
  it('shifts each run to start at t = 0 and keeps each line to its own instants', () => {
    const p = overlayPlot(
      [
        { label: '#1 ecmp', t: [1000, 2000, 3000], v: [1, 2, null] },
        { label: '#2 hula', t: [5500, 6000], v: [4, 5] },
      ],
      { id: 'ov', title: 'queue.depth · two runs overlaid', yLabel: 'queue.depth', yUnit: 'packets' },
    )
    expect(p.kind).toBe('time')
    expect(p.x).toEqual([0, 500, 1000, 2000])
    expect(p.lines.map((l) => l.mean)).toEqual([
      [1, null, 2, null],
      [4, 5, null, null],
    ])
    expect(p.lines[0].color).not.toBe(p.lines[1].color)
    const rows = parseCsv(plotToCsv(p))
    expect(rows[0]).toEqual(['line', "time since the run's first sample (ns)", 'queue.depth (packets)'])
    expect(rows.slice(1)).toEqual([['#1 ecmp', '0', '1'], ['#1 ecmp', '1000', '2'], ['#2 hula', '0', '4'], ['#2 hula', '500', '5']])
    // The SVG joins a line across the other run's instants (one polyline each) and draws no markers.
    const svg = plotToSvg(p)
    expect((svg.match(/<polyline class="line"/g) ?? []).length).toBe(2)
    expect(svg).not.toContain('<circle')
    expect(svg).toContain('queue.depth (packets)')
  })

  it('averages a kind over its series at each instant, leaving out the missing samples', () => {
    expect(meanOverSeries([0, 1, 2], [[1, null, 3], [3, null, null]])).toEqual([2, null, 3])
  })
})

describe('SVG legends', () => {
  it('cut a label longer than its column with an ellipsis, the full label kept as its title', () => {
    const long = 'figures-small-queues · flowletGapNs=50000 · conga-prime'
    const p = overlayPlot([{ label: long, t: [0, 1], v: [1, 2] }, { label: 'short', t: [0, 1], v: [2, 1] }], { id: 'x', title: 't', yLabel: 'y', yUnit: 'count' })
    const svg = plotToSvg(p, { width: 480 })
    const legend = svg.slice(svg.indexOf('<g class="legend"'))
    expect(legend).toContain(`<title>${long.replace(/'/g, '&apos;')}</title>`)
    expect(legend).toMatch(/>figures-s[^<]{0,12}…<\/text>/)
    expect(legend).toContain('>short</text>')
  })
})

describe('slowdown in the runs table', () => {
  const run = (slowdown: unknown): Run =>
    ({
      id: 1, experimentId: 1, experimentName: 'e', target: 'sim', scheme: 'ecmp', load: 0.3, seed: 1, params: {}, status: 'done',
      createdAt: '', startedAt: null, finishedAt: null, error: null, counters: null, completion: null, revision: 1, stale: false,
      stats: { flows: 10, finished: 10, meanNs: 1e5, p50Ns: 1e5, p99Ns: 2e5, smallMeanNs: null, largeMeanNs: null, ...(slowdown === undefined ? {} : { slowdown }) },
    }) as Run
  it('shows a run stored before slowdown was measured as n/a, and a measured one with its ×', () => {
    const col = columnDef('slowdown.mean', 'metric')
    expect(cellText(col, fieldsOfRun(run(undefined))['slowdown.mean'])).toBe('n/a')
    expect(cellText(col, fieldsOfRun(run({ flows: 10, mean: 1.234, p50: 1.1, p95: 2, p99: 3.5 }))['slowdown.mean'])).toBe('1.23×')
    expect(cellText(columnDef('slowdown.p99', 'metric'), fieldsOfRun(run({ flows: 10, mean: 1.234, p50: 1.1, p95: 2, p99: 3.5 }))['slowdown.p99'])).toBe('3.50×')
    expect(formatSlowdown(null)).toBe('n/a')
  })
})

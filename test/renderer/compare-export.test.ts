// The compare view's pure helpers: CSV (RFC 4180), the plot model built from compare.query
// results, and the SVG serializer for line + band plots.
import { describe, expect, it } from 'vitest'
import type { CompareResult } from '@contract/index'
import { csvField, parseCsv, toCsv } from '../../src-renderer/src/lib/csv'
import { cdfToPlot, cdfXs, compareToPlot, formatUnit, lineLabel } from '@plots/plotdata'
import { niceTicks, plotToSvg, xmlEscape, yRange } from '@plots/svg'
import { plotSummary, plotToCsv } from '../../src-renderer/src/lib/plotdata'
import { queryProblem } from '../../src-renderer/src/lib/queryerror'
import { downloadName } from '../../src-renderer/src/stores/archive'

function result(over: Partial<CompareResult> = {}): CompareResult {
  const row = (scheme: string, x: number, values: number[]) => {
    const mean = values.reduce((a, b) => a + b, 0) / values.length
    return { line: { scheme }, x, n: values.length, mean, lo: Math.min(...values), hi: Math.max(...values), sd: 0, values, seeds: values.map((_, i) => i + 1) }
  }
  return {
    experiments: ['e'],
    metric: 'mean',
    unit: 'ns',
    by: 'load',
    band: 'minmax',
    baseline: null,
    query: '',
    lineKeys: ['scheme'],
    // Out of x order on purpose, and rps has no value at 0.5.
    rows: [row('ecmp', 0.5, [20, 40]), row('ecmp', 0.3, [10, 12]), row('rps', 0.3, [8, 9]), row('rps', 0.7, [30, 50]), row('ecmp', 0.7, [60, 70])],
    matched: 10,
    excluded: 0,
    incomplete: [],
    differences: [],
    ...over,
  }
}

describe('csv', () => {
  it('quotes fields with commas, quotes and line breaks, and leaves others alone', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField(null)).toBe('')
    expect(csvField(NaN)).toBe('')
    expect(csvField(0.1 + 0.2)).toBe('0.30000000000000004')
  })

  it('round-trips through the parser with CRLF line ends', () => {
    const text = toCsv(['a', 'b'], [['x,y', 1], ['q"r', null], ['line\r\nbreak', 2.5]])
    expect(text.endsWith('\r\n')).toBe(true)
    expect(text.split('\r\n')[0]).toBe('a,b')
    expect(parseCsv(text)).toEqual([['a', 'b'], ['x,y', '1'], ['q"r', ''], ['line\r\nbreak', '2.5']])
  })
})

describe('plot model', () => {
  it('puts rows on a shared, sorted x with gaps where a line has no value', () => {
    const p = compareToPlot(result(), { id: 'main', title: 'FCT vs load' })
    expect(p.x).toEqual([0.3, 0.5, 0.7])
    expect(p.lines.map((l) => l.label)).toEqual(['ecmp', 'rps'])
    expect(p.lines[0].mean).toEqual([11, 30, 65])
    expect(p.lines[0].lo).toEqual([10, 20, 60])
    expect(p.lines[0].hi).toEqual([12, 40, 70])
    expect(p.lines[1].mean).toEqual([8.5, null, 40])
    expect(p.band).toBe('minmax')
    expect(p.yUnit).toBe('ns')
    expect(JSON.parse(plotSummary(p))).toMatchObject({ x: [0.3, 0.5, 0.7], lines: [{ label: 'ecmp', mean: [11, 30, 65] }, { label: 'rps', mean: [8.5, null, 40] }] })
  })

  it('keeps colours by label across plots and has no band when each point is one run', () => {
    const one = result({ rows: [{ line: { scheme: 'rps' }, x: 0.3, n: 1, mean: 5, lo: 5, hi: 5, sd: 0, values: [5], seeds: [1] }] })
    const a = compareToPlot(one, { id: 'a', title: 'a', colorOrder: ['ecmp', 'rps'] })
    const b = compareToPlot(result(), { id: 'b', title: 'b', colorOrder: ['ecmp', 'rps'] })
    expect(a.lines[0].color).toBe(b.lines[1].color)
    expect(a.band).toBeNull()
  })

  it('names lines by scheme, experiment and target values and by parameter key=value', () => {
    expect(lineLabel({ scheme: 'hula', target: 'bmv2', flowletGapNs: 100000 }, ['scheme', 'target', 'flowletGapNs'])).toBe('hula · bmv2 · flowletGapNs=100000')
    expect(lineLabel({}, [])).toBe('all runs')
    // Experiments mixed: a parameter only CONGA has is left out of HULA's label, not shown as "dreAlpha=—".
    expect(lineLabel({ scheme: 'hula', dreAlpha: null, flows: 1000 }, ['scheme', 'dreAlpha', 'flows'])).toBe('hula · flows=1000')
    expect(lineLabel({ scheme: 'conga', dreAlpha: 0.2, flows: 1000 }, ['scheme', 'dreAlpha', 'flows'])).toBe('conga · dreAlpha=0.2 · flows=1000')
  })

  it('lays categorical x (by scheme) on positions with labels', () => {
    const r = result({ by: 'scheme', lineKeys: [], rows: [{ line: {}, x: 'rps', n: 1, mean: 2, lo: 2, hi: 2, sd: 0, values: [2], seeds: [1] }, { line: {}, x: 'ecmp', n: 1, mean: 3, lo: 3, hi: 3, sd: 0, values: [3], seeds: [1] }] })
    const p = compareToPlot(r, { id: 'c', title: 'c' })
    expect(p.xCategories).toEqual(['ecmp', 'rps'])
    expect(p.x).toEqual([0, 1])
    expect(p.lines[0].mean).toEqual([3, 2])
  })

  it('builds CDF plots at one x, merging the values of every line', () => {
    const r = result({
      cdfs: [
        { line: { scheme: 'ecmp' }, x: 0.3, points: [[10, 0.5], [20, 1]] },
        { line: { scheme: 'rps' }, x: 0.3, points: [[15, 0.5], [15, 0.6], [20, 1]] },
        { line: { scheme: 'rps' }, x: 0.7, points: [[99, 1]] },
      ],
    })
    expect(cdfXs(r)).toEqual([0.3, 0.7])
    const p = cdfToPlot(r, 0.3, { id: 'cdf', title: 'FCT CDF', xLabel: 'FCT', xUnit: 'ns' })
    expect(p.x).toEqual([10, 15, 20])
    expect(p.lines[0].mean).toEqual([0.5, null, 1])
    // Percentiles sharing a value: the highest probability there.
    expect(p.lines[1].mean).toEqual([null, 0.6, 1])
    expect(parseCsv(plotToCsv(p))).toEqual([['line', 'FCT (ns)', 'probability'], ['ecmp', '10', '0.5'], ['ecmp', '20', '1'], ['rps', '15', '0.6'], ['rps', '20', '1']])
  })

  it('exports the plotted series as CSV with the band, the seeds and their values', () => {
    const rows = parseCsv(plotToCsv(compareToPlot(result(), { id: 'm', title: 'm' })))
    expect(rows[0]).toEqual(['line', 'load', 'metric', 'unit', 'mean', 'lo', 'hi', 'band', 'n', 'sd', 'seeds', 'values'])
    expect(rows[1]).toEqual(['ecmp', '0.3', 'mean', 'ns', '11', '10', '12', 'minmax', '2', '0', '1 2', '10 12'])
    expect(rows.length).toBe(1 + 5)
    expect(rows.some((r) => r[0] === 'rps' && r[1] === '0.5')).toBe(false)
  })

  it('formats values in their units', () => {
    expect(formatUnit(1_500_000, 'ns')).toBe('1.50 ms')
    expect(formatUnit(9.5e9, 'bps')).toBe('9.50 Gbps')
    expect(formatUnit(0.25, 'probability')).toBe('25%')
    expect(formatUnit(null, 'ns')).toBe('—')
  })
})

describe('svg serializer', () => {
  it('picks round ticks', () => {
    expect(niceTicks(0, 10, 5)).toEqual([0, 2, 4, 6, 8, 10])
    expect(niceTicks(0, 0.7, 5)).toEqual([0, 0.2, 0.4, 0.6])
    expect(niceTicks(3, 3)).toEqual([3])
  })

  it('ranges y from zero with headroom, and all-zero data to [0, 1]', () => {
    const p = compareToPlot(result(), { id: 'm', title: 'm' })
    const [lo, hi] = yRange(p)
    expect(lo).toBe(0)
    expect(hi).toBeGreaterThan(70)
    const zero = compareToPlot(result({ rows: [{ line: { scheme: 'a' }, x: 1, n: 1, mean: 0, lo: 0, hi: 0, sd: 0, values: [0], seeds: [1] }] }), { id: 'z', title: 'z' })
    expect(yRange(zero)).toEqual([0, 1])
  })

  it('writes a well-formed document with a band polygon and a polyline per line segment', () => {
    const p = compareToPlot(result(), { id: 'm', title: 'FCT <all> & "more"' })
    const svg = plotToSvg(p, { width: 600, height: 300 })
    expect(svg.startsWith('<?xml')).toBe(true)
    expect(svg).toContain('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"')
    expect(svg).toContain('FCT &lt;all&gt; &amp; &quot;more&quot;')
    expect(svg).not.toMatch(/FCT <all>/)
    // ecmp: one segment of 3 points; rps: two segments (gap at 0.5).
    const lines = [...svg.matchAll(/<polyline class="line" data-line="(\d)" points="([^"]+)"/g)]
    expect(lines.map((m) => [m[1], m[2].split(' ').length])).toEqual([['0', 3], ['1', 1], ['1', 1]])
    const bands = [...svg.matchAll(/<polygon class="band" data-line="(\d)" points="([^"]+)"/g)]
    expect(bands.map((m) => [m[1], m[2].split(' ').length])).toEqual([['0', 6], ['1', 2], ['1', 2]])
    // Every element that opens closes: a crude but strict balance check.
    const opens = (svg.match(/<(svg|g)[\s>]/g) ?? []).length
    const closes = (svg.match(/<\/(svg|g)>/g) ?? []).length
    expect(opens).toBe(closes)
    expect(svg).toContain('min–max across seeds')
  })

  it('places points where the data says: higher values higher up', () => {
    const p = compareToPlot(result(), { id: 'm', title: 'm' })
    const svg = plotToSvg(p, { width: 600, height: 300 })
    const pts = /<polyline class="line" data-line="0" points="([^"]+)"/.exec(svg)![1].split(' ').map((s) => s.split(',').map(Number))
    expect(pts[0][0]).toBeLessThan(pts[1][0])
    expect(pts[1][0]).toBeLessThan(pts[2][0])
    expect(pts[0][1]).toBeGreaterThan(pts[1][1])
    expect(pts[1][1]).toBeGreaterThan(pts[2][1])
  })

  it('escapes XML', () => {
    expect(xmlEscape(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;')
  })
})

describe('query errors and export paths', () => {
  it('reads the column and detail out of the core message', () => {
    expect(queryProblem("query: column 10: expected a value after '=', found '='.")).toEqual({ offset: 9, detail: "expected a value after '=', found '='." })
    expect(queryProblem('something else')).toEqual({ offset: null, detail: 'something else' })
  })

  it('names a download after its Content-Disposition, never with a folder in it', () => {
    expect(downloadName('attachment; filename="hula-sweep-1.tar.gz"', 'x.tar.gz')).toBe('hula-sweep-1.tar.gz')
    expect(downloadName('attachment; filename="../etc/passwd"', 'x.tar.gz')).toBe('x.tar.gz')
    expect(downloadName(null, 'x.tar.gz')).toBe('x.tar.gz')
  })
})

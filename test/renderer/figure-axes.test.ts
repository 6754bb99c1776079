// Axes and line styles of the figures (compare plots, SVG exports, the archive's plots): one
// unit per axis named in its title, plain-number ticks, decades on the FCT CDF's log axis, and
// ten distinct colours before lines turn dashed.
import { describe, expect, it } from 'vitest'
import type { CompareResult } from '../../src-main/contract/schemas'
import { axisTick, axisTitle, axisUnit, decades, lineStyleAt, logTick, PALETTE } from '../../src-main/plots/axes'
import { cdfToPlot, compareToPlot } from '../../src-main/plots/plotdata'
import { plotAxes, plotToSvg, xRange } from '../../src-main/plots/svg'

function result(over: Partial<CompareResult>): CompareResult {
  return { experiments: ['e'], metric: 'mean', unit: 'ns', by: 'load', band: 'ci95', baseline: null, query: null, lineKeys: ['scheme'], matched: 0, excluded: 0, rows: [], differences: [], incomplete: [], cdfs: [], ...over } as CompareResult
}

describe('figure axes', () => {
  it('puts one unit in the title and plain numbers on the ticks: no "0 ns" on a millisecond axis', () => {
    const u = axisUnit('ns', 4.2e6)
    expect(u).toEqual({ div: 1e6, name: 'ms' })
    expect(axisTitle('mean FCT', u)).toBe('mean FCT (ms)')
    expect([0, 1e6, 2.5e6].map((v) => axisTick(v, u))).toEqual(['0', '1', '2.5'])
    expect(axisUnit('bps', 3e10)).toEqual({ div: 1e9, name: 'Gb/s' })
    expect(axisTitle('queue depth (packets)', axisUnit('packets', 80))).toBe('queue depth (packets)')
    expect(axisTitle('CDF', axisUnit('probability', 1))).toBe('CDF (%)')
    expect(axisTick(0.75, axisUnit('probability', 1))).toBe('75')
  })

  it('labels a log axis at its decades only, in their own units', () => {
    expect(decades(1e4, 1e8)).toEqual([1e4, 1e5, 1e6, 1e7, 1e8])
    expect([1e4, 2e4, 1e5, 1e6, 5e6, 1e9].map((v) => logTick(v, 'ns'))).toEqual(['10 µs', '', '100 µs', '1 ms', '', '1 s'])
  })

  it('gives ten lines ten colours, then the same colours dashed', () => {
    expect(new Set(PALETTE).size).toBe(10)
    const styles = Array.from({ length: 25 }, (_, i) => lineStyleAt(i))
    expect(new Set(styles.slice(0, 10).map((s) => s.color)).size).toBe(10)
    for (const s of styles.slice(0, 10)) expect(s.dash).toEqual([])
    for (const s of styles.slice(10)) expect(s.dash.length).toBeGreaterThan(0)
    expect(new Set(styles.map((s) => `${s.color} ${s.dash.join(',')}`)).size).toBe(25)
  })

  it('draws an FCT CDF on a log x axis over whole decades, in the plot and its SVG', () => {
    const r = result({ cdfs: [{ line: { scheme: 'ecmp' }, x: 0.3, points: [[2.3e4, 0.1], [4e5, 0.5], [3.1e7, 1]] }] as CompareResult['cdfs'] })
    const p = cdfToPlot(r, 0.3, { id: 'cdf', title: 'FCT CDF', xLabel: 'flow completion time', xUnit: 'ns' })
    expect(p.xLog).toBe(true)
    const [x0, x1] = xRange(p)
    expect(x0).toBeCloseTo(2.3e4 / 1.1, 6)
    expect(x1).toBeCloseTo(3.1e7 * 1.1, 6)
    expect(decades(x0, x1)).toEqual([1e5, 1e6, 1e7])
    // Data within one decade gets whole decades, so the axis has labels.
    expect(xRange({ ...p, x: [2e5, 5e5] })).toEqual([1e5, 1e6])
    const axes = plotAxes(p, xRange(p), [0, 1])
    expect(axes.x.title).toBe('flow completion time, log scale')
    expect(axes.y.title).toBe('CDF (%)')
    const svg = plotToSvg(p)
    expect(svg).toContain('>flow completion time, log scale</text>')
    for (const t of ['100 µs', '1 ms', '10 ms']) expect(svg).toContain(`>${t}</text>`)
    expect(svg).not.toContain('>10 µs</text>')
    // Decades are equally spaced on a log axis.
    const x = (label: string) => Number(new RegExp(`<text x="([\\d.]+)"[^>]*>${label}</text>`).exec(svg)![1])
    expect(x('1 ms') - x('100 µs')).toBeCloseTo(x('10 ms') - x('1 ms'), 1)
    // A queue-depth CDF starts at 0 packets: linear.
    expect(cdfToPlot(r, 0.3, { id: 'q', title: 'q', xLabel: 'queue depth (packets)', xUnit: 'packets' }).xLog).toBe(false)
  })

  it('titles the SVG axes with units, ticks plain, and dashes lines past the tenth', () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({ line: { scheme: `s${i}` }, x: 0.3, n: 1, mean: (i + 1) * 1e6, lo: (i + 1) * 1e6, hi: (i + 1) * 1e6, sd: 0, values: [(i + 1) * 1e6], seeds: [1] }))
    const p = compareToPlot(result({ rows }), { id: 'm', title: 'mean FCT vs load', yLabel: 'mean FCT' })
    expect(p.lines.slice(0, 10).every((l) => l.dash.length === 0)).toBe(true)
    expect(p.lines.slice(10).every((l) => l.dash.length > 0)).toBe(true)
    const svg = plotToSvg(p)
    expect(svg).toMatch(/class="ytitle"[^>]*>mean FCT \(ms\)<\/text>/)
    expect(svg).not.toContain('0 ns')
    expect(svg.match(/stroke-dasharray=/g)?.length).toBe(4)
    // One run per point: no band, so no fake interval.
    expect(p.band).toBeNull()
    expect(p.lines[0].lo).toEqual([null])
  })
})

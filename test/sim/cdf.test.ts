import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { cdfMean, loadCdf } from '../../src-main/sim'
import { sampleCdf } from '../../src-main/sim/workload/cdf'

describe('loadCdf', () => {
  test('parses the shipped web-search CDF; its mean under linear interpolation is 1,711,250 B', () => {
    const cdf = loadCdf(readFileSync(join(__dirname, '../../resources/workloads/web-search.cdf'), 'utf8'))
    expect(cdf[0]).toEqual([0, 0])
    expect(cdf[cdf.length - 1]).toEqual([30_000_000, 1])
    expect(cdfMean(cdf)).toBeCloseTo(1_711_250, 6)
  })

  test('errors name the offending line', () => {
    expect(() => loadCdf('# c\n0 0\n100 abc\n200 1\n')).toThrow(/line 3/)
    expect(() => loadCdf('0 0\n100 0.5 7\n')).toThrow(/line 2/)
    expect(() => loadCdf('0 0\n\n100 0.6\n50 0.7\n200 1\n')).toThrow(/line 4/)
    expect(() => loadCdf('0 0\n100 0.6\n200 0.5\n300 1\n')).toThrow(/line 3/)
    expect(() => loadCdf('0 0\n100 0.6\n200 0.9 # trailing comment\n')).toThrow(/line 3.*must be 1/)
    expect(() => loadCdf('# nothing here\n')).toThrow(/no data/)
  })

  test('sampling interpolates linearly and rounds up to whole bytes', () => {
    const cdf = loadCdf('0 0\n1000 0.5\n3000 1\n')
    expect(sampleCdf(cdf, 0)).toBe(1)
    expect(sampleCdf(cdf, 0.25)).toBe(500)
    expect(sampleCdf(cdf, 0.75)).toBe(2000)
    expect(sampleCdf(cdf, 0.9999999)).toBe(3000)
    // A first point above probability 0 is a point mass.
    expect(sampleCdf(loadCdf('100 0.5\n200 1\n'), 0.1)).toBe(100)
  })
})

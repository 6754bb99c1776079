import { describe, expect, it } from 'vitest'
import { lineDiff } from '../../src-renderer/src/lib/linediff'

describe('lineDiff', () => {
  it('keeps common lines and puts a changed line as removed then added', () => {
    const d = lineDiff('name: a\nflows: 20\nseeds: [1]\n', 'name: a\nflows: 40\nseeds: [1]\nx: 1\n')
    expect(d.map((l) => `${l.op}${l.text}`)).toEqual([' name: a', '-flows: 20', '+flows: 40', ' seeds: [1]', '+x: 1', ' '])
  })
  it('gives all lines as removed or added when nothing is shared', () => {
    expect(lineDiff('a', 'b').map((l) => l.op)).toEqual(['-', '+'])
    expect(lineDiff('', '').map((l) => l.op)).toEqual([' '])
  })
})

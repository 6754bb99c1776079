import { expect, test } from 'vitest'
import { FlowletTable } from '../../src-main/schemes/shared/flowlets'

test('a flowlet keeps its port until a gap longer than the flowlet gap', () => {
  const t = new FlowletTable(2, 1000, 100_000)
  const e = t.entry(1, 12345)
  expect(e).toBeGreaterThanOrEqual(1024)
  expect(t.current(e, 0)).toBe(-1)
  t.set(e, 3, 0)
  expect(t.current(e, 50_000)).toBe(3)
  // Refreshed at 50 us, so 140 us is still within the gap.
  expect(t.current(e, 140_000)).toBe(3)
  expect(t.current(e, 240_001)).toBe(-1)
  t.set(e, 2, 240_001)
  expect(t.count[e]).toBe(2)
  t.clearPort(1, 2)
  expect(t.current(e, 240_002)).toBe(-1)
})

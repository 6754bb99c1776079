// The run's event list (a timing wheel in front of the indexed heap) against a reference
// model: pops come in (time, schedule order), whatever mix of near and far events,
// reschedules and cancels, including far events popped while nearer ones wait in the wheel.
import { expect, test } from 'vitest'
import { Rng } from '../../src-main/sim/engine/rng'
import { Scheduler } from '../../src-main/sim/engine/scheduler'

test('the scheduler pops in (time, schedule order) under schedule/reschedule/cancel, near and far', () => {
  const n = 300
  const s = new Scheduler(8, 64, 64) // a tiny wheel: 64 buckets of 64 ps, so many events are far
  s.ensureElements(n)
  const rng = new Rng(7)
  const pending = new Map<number, [number, number]>()
  let order = 0
  let now = 0
  for (let step = 0; step < 20_000; step++) {
    const op = rng.nextInt(5)
    const el = rng.nextInt(n)
    if (op === 0) {
      s.cancel(el)
      pending.delete(el)
    } else if (op <= 2 && pending.size > 0) {
      let best = -1
      for (const [e, k] of pending) {
        const b = best < 0 ? undefined : pending.get(best)!
        if (b === undefined || k[0] < b[0] || (k[0] === b[0] && k[1] < b[1])) best = e
      }
      const got = s.pop()
      if (got !== best || s.poppedTime !== pending.get(best)![0]) {
        expect({ step, got, t: s.poppedTime }).toEqual({ step, got: best, t: pending.get(best)![0] })
      }
      now = s.poppedTime
      pending.delete(best)
    } else {
      // Near (within a few buckets), mid (around the wheel's span) or far, never before now.
      const r = rng.nextInt(3)
      const t = now + (r === 0 ? rng.nextInt(200) : r === 1 ? rng.nextInt(8000) : rng.nextInt(100_000))
      s.schedule(el, t)
      pending.set(el, [t, order++])
    }
    if (s.size !== pending.size) expect({ step, size: s.size }).toEqual({ step, size: pending.size })
    for (const [e, [t]] of pending) if (!s.isPending(e) || s.timeOf(e) !== t) expect({ step, e }).toBe('pending')
  }
  expect(s.maxSize).toBeLessThanOrEqual(n)
})

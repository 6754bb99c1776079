// useRangeDetail: when a zoomed chart of a long stored run reads its range again, and what it
// draws meanwhile. Fake timers; the read is a stub that records its calls.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useRangeDetail } from '../../src-renderer/src/composables/useRangeDetail'
import { RunSeries } from '../../src-renderer/src/lib/series'
import type { Level, RangeRead } from '../../src-renderer/src/stores/telemetry'

const ROLLED: Level = 1_000_000

function setup(level: Level = 'raw') {
  const calls: Array<[number, number, number]> = []
  const pending: Array<{ resolve: (r: RangeRead) => void; reject: (e: Error) => void }> = []
  let changed = 0
  const detail = useRangeDetail({
    read: (runId, fromMs, toMs) => {
      calls.push([runId, fromMs, toMs])
      return new Promise<RangeRead>((resolve, reject) => pending.push({ resolve, reject }))
    },
    changed: () => changed++,
  })
  const answer = async (k: number) => {
    pending[k].resolve({ series: new RunSeries([]), level })
    await Promise.resolve()
    await Promise.resolve()
  }
  const fail = async (k: number) => {
    pending[k].reject(new Error('database is locked'))
    await Promise.resolve()
    await Promise.resolve()
  }
  return { detail, calls, answer, fail, changes: () => changed }
}

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('useRangeDetail', () => {
  it('reads nothing for a raw overview or an unzoomed chart', () => {
    const { detail, calls } = setup()
    expect(detail.forView(1, 'raw', { min: 10, max: 20 })).toBeNull()
    expect(detail.forView(1, ROLLED, null)).toBeNull()
    expect(detail.forView(null, ROLLED, { min: 10, max: 20 })).toBeNull()
    vi.advanceTimersByTime(1000)
    expect(calls).toEqual([])
  })

  it('reads the zoomed range, widened by half its span each side, once the view settles', async () => {
    const { detail, calls, answer, changes } = setup('raw')
    expect(detail.forView(1, ROLLED, { min: 10, max: 20 })).toBeNull()
    // Zooming on inside the range waited for keeps it; leaving it restarts the wait.
    expect(detail.forView(1, ROLLED, { min: 12, max: 16 })).toBeNull()
    vi.advanceTimersByTime(100)
    expect(detail.forView(1, ROLLED, { min: 22, max: 30 })).toBeNull()
    vi.advanceTimersByTime(100)
    expect(detail.forView(1, ROLLED, { min: 12, max: 16 })).toBeNull()
    vi.advanceTimersByTime(149)
    expect(calls).toEqual([])
    vi.advanceTimersByTime(1)
    expect(calls).toEqual([[1, 10, 18]])
    // Renders while the read is out ask nothing more.
    detail.forView(1, ROLLED, { min: 12, max: 16 })
    vi.advanceTimersByTime(1000)
    expect(calls).toHaveLength(1)
    await answer(0)
    expect(changes()).toBe(1)
    const held = detail.forView(1, ROLLED, { min: 12, max: 16 })
    expect(held?.level).toBe('raw')
    // A pan inside the read: the same read, nothing asked.
    expect(detail.forView(1, ROLLED, { min: 11, max: 15 })).toBe(held)
    vi.advanceTimersByTime(1000)
    expect(calls).toHaveLength(1)
    // Another run's view is not served by it.
    expect(detail.forView(2, ROLLED, { min: 11, max: 15 })).toBeNull()
  })

  it('covers a view panned before the run starts (no clamp at 0), and asks no more once it has', async () => {
    const { detail, calls, answer } = setup('raw')
    detail.forView(1, ROLLED, { min: -4, max: 4 })
    vi.advanceTimersByTime(150)
    expect(calls).toEqual([[1, -8, 8]])
    await answer(0)
    expect(detail.forView(1, ROLLED, { min: -4, max: 4 })).not.toBeNull()
    vi.advanceTimersByTime(1000)
    expect(calls).toHaveLength(1)
  })

  it('reads again when zoomed far into a read that is itself a roll-up', async () => {
    const { detail, calls, answer } = setup(ROLLED)
    detail.forView(1, ROLLED, { min: 0, max: 100 })
    vi.advanceTimersByTime(150)
    await answer(0)
    // A quarter of the read's span or more: still served.
    expect(detail.forView(1, ROLLED, { min: 0, max: 50 })).not.toBeNull()
    vi.advanceTimersByTime(1000)
    expect(calls).toHaveLength(1)
    // Less: drawn meanwhile, and read again, finer.
    expect(detail.forView(1, ROLLED, { min: 10, max: 20 })).not.toBeNull()
    vi.advanceTimersByTime(150)
    expect(calls[1]).toEqual([1, 5, 25])
  })

  it('says a failed read, does not ask again for that range, and retries once the view leaves it', async () => {
    const { detail, calls, fail, answer } = setup('raw')
    detail.forView(1, ROLLED, { min: 10, max: 20 })
    vi.advanceTimersByTime(150)
    await fail(0)
    expect(detail.error.value).toBe('database is locked')
    detail.forView(1, ROLLED, { min: 12, max: 18 })
    vi.advanceTimersByTime(1000)
    expect(calls).toHaveLength(1)
    detail.forView(1, ROLLED, { min: 40, max: 50 })
    vi.advanceTimersByTime(150)
    expect(calls).toHaveLength(2)
    await answer(1)
    expect(detail.error.value).toBeNull()
  })

  it('drop forgets the read and cancels one not started', () => {
    const { detail, calls } = setup()
    detail.forView(1, ROLLED, { min: 10, max: 20 })
    detail.drop()
    vi.advanceTimersByTime(1000)
    expect(calls).toEqual([])
  })
})

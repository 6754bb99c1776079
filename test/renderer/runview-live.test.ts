// The run views' live INT state (stores/runview.ts): what it does with 'run.series',
// 'run.points' and 'run.event' for the run on screen. The client is replaced by one that hands
// the test the event handlers and answers runs.seriesDefs and runs.events.
import { createPinia, setActivePinia } from 'pinia'
import { beforeEach, describe, expect, it, vi } from 'vitest'

const handlers = new Map<string, (p: any) => void>()
const calls: Array<[string, any]> = []
const answers: Record<string, (p: any) => unknown> = {}
vi.mock('../../src-renderer/src/client', () => ({
  on: (event: string, cb: (p: any) => void) => {
    handlers.set(event, cb)
    return () => handlers.delete(event)
  },
  call: async (method: string, params: any) => {
    calls.push([method, params])
    const a = answers[method]
    if (!a) throw new Error(`no answer for ${method}`)
    return a(params)
  },
  errorMessage: (e: unknown) => String(e),
}))

const { useRunViewStore } = await import('../../src-renderer/src/stores/runview')

const hop = (id: number, sw: string) => ({ id, kind: 'int.hopLatency', entity: { switch: sw }, unit: 'ns' })
const tick = () => new Promise((r) => setTimeout(r, 0))

beforeEach(() => {
  setActivePinia(createPinia())
  handlers.clear()
  calls.length = 0
  answers['runs.fabric'] = () => ({ nodes: [], links: [] })
})

describe('runview: live INT', () => {
  it('adds up point summaries of the run on screen, named by its run.series defs', () => {
    const view = useRunViewStore()
    view.subscribe()
    view.setRun(4)
    handlers.get('run.series')!({ runId: 4, defs: [hop(11, 'leaf0')] })
    handlers.get('run.series')!({ runId: 5, defs: [hop(12, 'other')] })
    handlers.get('run.points')!({ runId: 4, stats: [{ seriesId: 11, count: 2, sum: 30, min: 10, max: 20, lastTNs: 5, last: 20 }] })
    handlers.get('run.points')!({ runId: 5, stats: [{ seriesId: 12, count: 1, sum: 1, min: 1, max: 1, lastTNs: 5, last: 1 }] })
    handlers.get('run.points')!({ runId: 4, stats: [{ seriesId: 11, count: 1, sum: 3, min: 3, max: 3, lastTNs: 9, last: 3 }] })
    const live = view.liveInt
    expect(live.runId).toBe(4)
    expect([...live.defs.keys()]).toEqual([11])
    expect(live.totals.get(11)).toEqual({ count: 3, sum: 33, min: 3, max: 20, lastTNs: 9, last: 3 })
    expect(calls.filter(([m]) => m === 'runs.seriesDefs')).toEqual([])
    // Another run on screen starts over.
    view.setRun(5)
    expect(view.liveInt.totals.size).toBe(0)
  })

  it('asks for the defs once when summaries name series it has not seen (joined mid-run)', async () => {
    const view = useRunViewStore()
    view.subscribe()
    view.setRun(4)
    answers['runs.seriesDefs'] = () => [hop(11, 'leaf0'), hop(13, 'spine0'), hop(14, 'spine1')]
    handlers.get('run.points')!({ runId: 4, stats: [{ seriesId: 13, count: 1, sum: 7, min: 7, max: 7, lastTNs: 1, last: 7 }] })
    // Another unnamed series while the first ask is out: no second ask.
    handlers.get('run.points')!({ runId: 4, stats: [{ seriesId: 14, count: 1, sum: 9, min: 9, max: 9, lastTNs: 2, last: 9 }] })
    await tick()
    expect(calls.filter(([m]) => m === 'runs.seriesDefs')).toEqual([['runs.seriesDefs', { id: 4 }]])
    expect(view.liveInt.defs.get(13)?.entity).toEqual({ switch: 'spine0' })
    expect(view.liveInt.defs.get(14)?.entity).toEqual({ switch: 'spine1' })
    handlers.get('run.points')!({ runId: 4, stats: [{ seriesId: 13, count: 1, sum: 9, min: 9, max: 9, lastTNs: 3, last: 9 }] })
    expect(view.liveInt.totals.get(13)).toMatchObject({ count: 2, last: 9 })
    expect(calls.filter(([m]) => m === 'runs.seriesDefs')).toHaveLength(1)
  })

  it('asks again with the next summary when asking for the defs failed', async () => {
    const view = useRunViewStore()
    view.subscribe()
    view.setRun(4)
    let fail = true
    answers['runs.seriesDefs'] = () => {
      if (fail) throw new Error('disconnected')
      return [hop(13, 'spine0')]
    }
    handlers.get('run.points')!({ runId: 4, stats: [{ seriesId: 13, count: 1, sum: 7, min: 7, max: 7, lastTNs: 1, last: 7 }] })
    await tick()
    expect(view.liveInt.defs.size).toBe(0)
    fail = false
    handlers.get('run.points')!({ runId: 4, stats: [{ seriesId: 13, count: 1, sum: 8, min: 8, max: 8, lastTNs: 2, last: 8 }] })
    await tick()
    expect(calls.filter(([m]) => m === 'runs.seriesDefs')).toHaveLength(2)
    expect(view.liveInt.defs.get(13)?.entity).toEqual({ switch: 'spine0' })
  })

  it('appends int.report events to the fetched ones, once each, and keeps the newest 200', async () => {
    const view = useRunViewStore()
    view.subscribe()
    view.setRun(4)
    const ev = (id: number, kind = 'int.report') => ({ id, tNs: null, at: '2026-11-21T00:00:00.000Z', kind, detail: { seq: id } })
    answers['runs.events'] = () => Array.from({ length: 199 }, (_, i) => ev(i + 1))
    // Before the fetch: ignored (the fetch brings them).
    handlers.get('run.event')!({ runId: 4, event: ev(1) })
    view.needEvents()
    await tick()
    expect(view.events.value).toHaveLength(199)
    handlers.get('run.event')!({ runId: 4, event: ev(199) }) // already there
    handlers.get('run.event')!({ runId: 4, event: ev(200, 'step') }) // not a report
    handlers.get('run.event')!({ runId: 5, event: ev(201) }) // another run
    expect(view.events.value).toHaveLength(199)
    handlers.get('run.event')!({ runId: 4, event: ev(202) })
    handlers.get('run.event')!({ runId: 4, event: ev(203) })
    const ids = view.events.value!.map((e) => e.id)
    expect(ids).toHaveLength(200)
    expect(ids.slice(-3)).toEqual([199, 202, 203])
    expect(ids[0]).toBe(2)
  })
})

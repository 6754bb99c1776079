// The orchestrator's ingest of a target's irregular samples ('points' after a later 'series'
// message, as the BMv2 driver's INT collector sends them) into a real SQLite store. (That the sim
// ignores telemetry.int is the sim driver's note: test/targets/sim-driver.test.ts.)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { events as eventSchemas, type EventName } from '../../src-main/contract'
import { Core } from '../../src-main/core'
import { experimentTemplatesDir, workloadsDir } from '../../src-main/core/paths'
import { openStore } from '../../src-main/core/store'
import type { TargetDriver, TargetMessage } from '../../src-main/core/targets/driver'
import { TINY_YAML } from '../helpers/core'

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const f of cleanups.splice(0).reverse()) f()
})

describe('Orchestrator: points', () => {
  it('stores frames and the points of series defined later, each at its own instants', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-points-'))
    const store = openStore(join(dir, 'p4lab.db'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    cleanups.push(() => store.close())
    const fake: TargetDriver = {
      kind: 'sim',
      maxParallelRuns: 1,
      check: async () => ({}),
      open: (ctx) => ({
        build: async () => {},
        deploy: async () => {},
        startTraffic: async () => {},
        telemetry: async function* (): AsyncGenerator<TargetMessage> {
          yield { type: 'series', defs: [{ kind: 'link.util', entity: { switch: 'leaf0', port: 2 }, unit: 'ratio' }] }
          yield { type: 'telemetry', t: new Float64Array([1e9]), values: new Float64Array([0.5]) }
          yield { type: 'series', defs: [{ kind: 'int.hopLatency', entity: { switch: 'leaf0' }, unit: 'ns' }, { kind: 'int.queue', entity: { switch: 'leaf0', queue: 0 }, unit: 'packets' }] }
          yield { type: 'points', series: [1, 2, 1], t: [1_500_000, 1_500_000, 2_700_000], values: [1200, 3, 1400] }
          ctx.event?.('int.report', { seqNo: 7 })
          yield { type: 'telemetry', t: new Float64Array([2e9]), values: new Float64Array([0.25]) }
        },
        collect: async () => ({
          flows: { src: new Int32Array(0), dst: new Int32Array(0), sizeBytes: new Float64Array(0), startNs: new Float64Array(0), finishNs: new Float64Array(0), deliveredBytes: new Float64Array(0), group: new Int32Array(0) },
          counters: {},
          facts: {},
        }),
        teardown: async () => {},
      }),
    }
    const core = new Core({ store, drivers: { sim: fake }, workloadsDir: workloadsDir(), templatesDir: experimentTemplatesDir(), defaultBaseDir: dir })
    cleanups.push(() => core.orchestrator.cancelAll())
    const live: Array<[string, any]> = []
    core.bus.subscribe((event, payload) => live.push([event, payload]))
    const exp = core.findOrCreateExperiment(TINY_YAML.replace('schemes: [ecmp, rps]', 'schemes: [ecmp]').replace('load: [0.3, 0.5]', 'load: 0.3') + 'telemetry: { int: true }\n', null)
    const runs = core.runExperiment(exp.id)
    await core.orchestrator.wait(runs.map((r) => r.id))
    const run = store.getRun(runs[0].id)!
    expect(run.status, run.error ?? '').toBe('done')
    expect(store.listSeries(run.id).map((s) => s.kind)).toEqual(['link.util', 'int.hopLatency', 'int.queue'])
    const lat = store.readSamples(run.id, ['int.hopLatency'])
    expect(lat.t).toEqual([1_500_000, 2_700_000])
    expect(lat.values).toEqual([[1200, 1400]])
    const q = store.readSamples(run.id, ['int.queue'])
    expect([q.t, q.values]).toEqual([[1_500_000], [[3]]])
    const util = store.readSamples(run.id, ['link.util'])
    expect([util.t, util.values]).toEqual([[1e9, 2e9], [[0.5, 0.25]]])

    // Live: the points as a summary per series (by store id), and the event as stored.
    const ids = store.listSeries(run.id).map((s) => s.id)
    const stats = live.filter(([e]) => e === 'run.points').flatMap(([, p]) => p.stats)
    expect(stats).toEqual([
      { seriesId: ids[1], count: 2, sum: 2600, min: 1200, max: 1400, lastTNs: 2_700_000, last: 1400 },
      { seriesId: ids[2], count: 1, sum: 3, min: 3, max: 3, lastTNs: 1_500_000, last: 3 },
    ])
    const events = live.filter(([e]) => e === 'run.event').map(([, p]) => p)
    expect(events).toEqual([{ runId: run.id, event: store.listEvents(run.id).find((e) => e.kind === 'int.report') }])
    expect(events[0].event.detail).toEqual({ seqNo: 7 })
    // Every event the bus carried is what the contract says.
    for (const [e, p] of live) expect(eventSchemas[e as EventName].safeParse(p).success, e).toBe(true)
  })
})

// The run orchestrator against real SQLite files and the real simulator worker.
import { hostname } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { Core } from '../../src-main/core'
import { events, type EventPayload } from '../../src-main/contract'
import { EventBus } from '../../src-main/core/bus'
import { Orchestrator, ownerIsAlive } from '../../src-main/core/orchestrator'
import { workloadsDir, experimentTemplatesDir } from '../../src-main/core/paths'
import { openStore } from '../../src-main/core/store'
import type { RunContext, TargetDriver } from '../../src-main/core/targets/driver'
import { SimDriver } from '../../src-main/core/targets/sim/driver'
import { TINY_YAML, tempCore } from '../helpers/core'

const opened: Core[] = []
afterEach(() => {
  for (const c of opened.splice(0)) {
    c.orchestrator.cancelAll()
    c.opts.store.close()
  }
})

/** What a fake driver's collect() returns: no flows, no counters. */
const NOTHING_COLLECTED = {
  flows: { src: new Int32Array(0), dst: new Int32Array(0), sizeBytes: new Float64Array(0), startNs: new Float64Array(0), finishNs: new Float64Array(0), deliveredBytes: new Float64Array(0), group: new Int32Array(0) },
  counters: {},
  facts: {},
}

function fresh(parallelRuns = 2) {
  const t = tempCore(parallelRuns)
  opened.push(t.core)
  return t
}

describe('Orchestrator', () => {
  it('expands scheme × load × seed into runs and walks each through every status', async () => {
    const { core } = fresh()
    const yaml = TINY_YAML.replace('seeds: [1]', 'seeds: [1, 2]')
    const exp = core.findOrCreateExperiment(yaml, null)
    // What a view is told: each status with the run as stored then, results included once it ends.
    const told: EventPayload<'run.status'>[] = []
    core.bus.subscribe((event, p) => void (event === 'run.status' && told.push(p as EventPayload<'run.status'>)))
    const runs = core.runExperiment(exp.id)
    expect(runs.map((r) => [r.scheme, r.load, r.seed])).toEqual([
      ['ecmp', 0.3, 1], ['ecmp', 0.3, 2], ['ecmp', 0.5, 1], ['ecmp', 0.5, 2],
      ['rps', 0.3, 1], ['rps', 0.3, 2], ['rps', 0.5, 1], ['rps', 0.5, 2],
    ])
    await core.orchestrator.wait(runs.map((r) => r.id))
    const store = core.opts.store
    for (const r of runs) {
      const row = store.getRun(r.id)!
      expect(row.status).toBe('done')
      expect(row.stats!.finished).toBe(30)
      expect(store.listFlows(r.id)).toHaveLength(30)
      expect(store.listEvents(r.id).map((e) => (e.detail as { to: string }).to)).toEqual([
        'queued', 'deploying', 'running', 'collecting', 'done',
      ])
    }
    for (const p of told) {
      expect(events['run.status'].safeParse(p).success).toBe(true)
      expect(p.run.status).toBe(p.status)
      // Results come with the status that ends the run, never after it.
      if (p.status === 'done') expect(p.run.stats).toEqual(store.getRun(p.runId)!.stats)
      else expect(p.run.stats).toBeNull()
    }
    expect(told.filter((p) => p.status === 'done')).toHaveLength(runs.length)
    // The same text finds the same experiment rather than a copy.
    expect(core.findOrCreateExperiment(yaml, null).id).toBe(exp.id)
  })

  it('runs sim cells in parallel, up to the driver limit, with the same results', async () => {
    const { core } = fresh()
    const exp = core.findOrCreateExperiment(TINY_YAML, null)
    const store = core.opts.store
    const order: Array<[number, string]> = []
    core.bus.subscribe((event, p) => {
      if (event === 'run.status') order.push([(p as { runId: number }).runId, (p as { status: string }).status])
    })
    const runs = core.runExperiment(exp.id)
    await core.orchestrator.wait(runs.map((r) => r.id))
    // The second run was deployed before the first was done: two at once (the driver
    // allows one per core, and the machine has two) ...
    const deployed2 = order.findIndex(([id, s]) => id === runs[1].id && s === 'deploying')
    const done1 = order.findIndex(([id, s]) => id === runs[0].id && s === 'done')
    expect(deployed2).toBeLessThan(done1)
    // ... and never more than the limit.
    let active = 0
    let peak = 0
    for (const [, s] of order) {
      if (s === 'deploying') active++
      if (['done', 'failed', 'cancelled'].includes(s)) active--
      peak = Math.max(peak, active)
    }
    expect(peak).toBeLessThanOrEqual(2)
    // Results do not depend on what ran beside them.
    const { core: serial } = fresh(1)
    const sExp = serial.findOrCreateExperiment(TINY_YAML, null)
    const sRuns = serial.runExperiment(sExp.id)
    await serial.orchestrator.wait(sRuns.map((r) => r.id))
    for (let i = 0; i < runs.length; i++) {
      expect(serial.opts.store.getRun(sRuns[i].id)!.stats).toEqual(store.getRun(runs[i].id)!.stats)
    }
  })

  it("stores the fabric's own events (a link going down and up) with the run", async () => {
    const { core } = fresh()
    const yaml = TINY_YAML.replace('schemes: [ecmp, rps]', 'schemes: [ecmp]')
      .replace('load: [0.3, 0.5]', 'load: [0.5]')
      .concat('failures:\n  - { link: spine0-leaf0, at: 100us, recover: 300us }\n')
    const exp = core.findOrCreateExperiment(yaml, null)
    const [run] = core.runExperiment(exp.id)
    await core.orchestrator.wait([run.id])
    expect(core.opts.store.getRun(run.id)!.status).toBe('done')
    const fabric = core.opts.store.listEvents(run.id).filter((e) => e.kind.startsWith('link.'))
    expect(fabric.map((e) => [e.kind, e.tNs])).toEqual([
      ['link.down', 100_000],
      ['link.up', 300_000],
    ])
  })

  it('cancels a running simulation and a queued run', async () => {
    // One run at a time, so the second waits in the queue.
    const { core } = fresh(1)
    const yaml = TINY_YAML.replace('flows: 30', 'flows: 200000').replace('load: [0.3, 0.5]', 'load: [0.5]')
    const exp = core.findOrCreateExperiment(yaml, null)
    const [first, second] = core.runExperiment(exp.id)
    await new Promise<void>((resolve) => {
      const off = core.bus.subscribe((event, p) => {
        if (event === 'run.progress' && (p as { runId: number }).runId === first.id) {
          off()
          resolve()
        }
      })
    })
    expect(core.orchestrator.cancel(second.id)).toBe(true)
    expect(core.orchestrator.cancel(first.id)).toBe(true)
    await core.orchestrator.wait([first.id, second.id])
    const store = core.opts.store
    expect(store.getRun(first.id)!.status).toBe('cancelled')
    expect(store.getRun(second.id)!.status).toBe('cancelled')
    expect(store.getRun(second.id)!.startedAt).toBeNull()
    expect(store.listFlows(first.id)).toHaveLength(0)
  })

  it('marks a failed step as failed with its error', async () => {
    const { dbPath } = fresh()
    const store = openStore(dbPath)
    const broken: TargetDriver = {
      kind: 'sim',
      maxParallelRuns: 1,
      check: async () => ({}),
      open: () => ({
        build: async () => {},
        deploy: async () => {
          throw new Error('switch s1 refused the pipeline')
        },
        startTraffic: async () => {},
        telemetry: async function* () {},
        collect: async () => {
          throw new Error('unreachable')
        },
        teardown: async () => {},
      }),
    }
    const core = new Core({
      store,
      drivers: { sim: broken },
      workloadsDir: workloadsDir(),
      templatesDir: experimentTemplatesDir(),
      defaultBaseDir: process.cwd(),
    })
    opened.push(core)
    const exp = core.findOrCreateExperiment(TINY_YAML, null)
    const runs = core.runExperiment(exp.id)
    await core.orchestrator.wait(runs.map((r) => r.id))
    const row = store.getRun(runs[0].id)!
    expect(row.status).toBe('failed')
    expect(row.error).toBe('switch s1 refused the pipeline')
  })

  it("drops a driver's log lines and events that come after its run ended, even with the store closed", async () => {
    // What an SSH socket's late error event does: it calls the run's log after teardown, when
    // the app (or a test) may have closed the store. That must not throw into the socket's handler.
    const { dbPath } = fresh()
    const store = openStore(dbPath)
    let late: RunContext | undefined
    const chatty: TargetDriver = {
      kind: 'sim',
      maxParallelRuns: 1,
      check: async () => ({}),
      open: (ctx) => {
        late = ctx
        return {
          build: async () => ctx.log('driver', 'built'),
          deploy: async () => {},
          startTraffic: async () => {},
          telemetry: async function* () {},
          collect: async () => NOTHING_COLLECTED,
          teardown: async () => ctx.log('driver', 'torn down'),
        }
      },
    }
    const core = new Core({ store, drivers: { sim: chatty }, workloadsDir: workloadsDir(), templatesDir: experimentTemplatesDir(), defaultBaseDir: process.cwd() })
    const exp = core.findOrCreateExperiment(TINY_YAML.replace('schemes: [ecmp, rps]', 'schemes: [ecmp]').replace('load: [0.3, 0.5]', 'load: 0.3'), null)
    const [run] = core.runExperiment(exp.id)
    await core.orchestrator.wait([run.id])
    // wait() resolves at the run's final status; a sim-kind run tears down after that, in
    // promise callbacks only, so one macrotask later it is over.
    await new Promise((r) => setImmediate(r))
    expect(store.getRun(run.id)!.status).toBe('done')
    const events = store.listEvents(run.id).length
    late!.log('ssh', 'ssh h1: read ECONNRESET')
    late!.event!('late', {})
    expect(store.listLogs(run.id).map((l) => l.line)).toEqual(['built', 'torn down'])
    expect(store.listEvents(run.id)).toHaveLength(events)
    store.close()
    expect(() => late!.log('ssh', 'ssh h1: read ECONNRESET')).not.toThrow()
    expect(() => late!.event!('late', {})).not.toThrow()
  })

  it('a sim-kind teardown that logs and fails after the store was closed throws nowhere', async () => {
    // A sim-kind run has its final status before its teardown; a CLI closes the store then.
    const { dbPath } = fresh()
    const store = openStore(dbPath)
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    let tornDown = false
    const slow: TargetDriver = {
      kind: 'sim',
      maxParallelRuns: 1,
      check: async () => ({}),
      open: (ctx) => ({
        build: async () => ctx.log('driver', 'built'),
        deploy: async () => {},
        startTraffic: async () => {},
        telemetry: async function* () {},
        collect: async () => NOTHING_COLLECTED,
        teardown: async () => {
          try {
            await gate
            ctx.log('driver', 'tearing down')
            ctx.event?.('teardown', {})
            throw new Error('the worker would not stop')
          } finally {
            tornDown = true
          }
        },
      }),
    }
    const unhandled: unknown[] = []
    const onUnhandled = (e: unknown) => unhandled.push(e)
    process.on('unhandledRejection', onUnhandled)
    try {
      const core = new Core({ store, drivers: { sim: slow }, workloadsDir: workloadsDir(), templatesDir: experimentTemplatesDir(), defaultBaseDir: process.cwd() })
      const exp = core.findOrCreateExperiment(TINY_YAML.replace('schemes: [ecmp, rps]', 'schemes: [ecmp]').replace('load: [0.3, 0.5]', 'load: 0.3'), null)
      const [run] = core.runExperiment(exp.id)
      await core.orchestrator.wait([run.id])
      store.close()
      open()
      await new Promise((r) => setImmediate(r))
      await new Promise((r) => setImmediate(r))
      expect(tornDown).toBe(true)
      expect(unhandled).toEqual([])
      const again = openStore(dbPath)
      expect(again.getRun(run.id)!.status).toBe('done')
      expect(again.listLogs(run.id).map((l) => l.line)).toEqual(['built'])
      again.close()
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it('marks runs cut off by a dead process as interrupted on the next start, and leaves live ones alone', () => {
    const { core, dbPath } = fresh()
    const store = core.opts.store
    const exp = core.findOrCreateExperiment(TINY_YAML, null)
    const spec = store.getExperiment(exp.id)!
    expect(spec).toBeDefined()
    // A process that no longer exists left one run running and one queued.
    const dead = `${hostname()}:999999`
    const [a, b] = store.createRuns(exp.id, 'sim', dead, [
      { scheme: 'ecmp', load: 0.3, seed: 1, params: {} },
      { scheme: 'rps', load: 0.3, seed: 1, params: {} },
    ])
    store.setRunStatus(a.id, 'deploying')
    store.setRunStatus(a.id, 'running')
    // This process is alive: its run must be left as it is.
    const [live] = store.createRuns(exp.id, 'sim', `${hostname()}:${process.pid}`, [
      { scheme: 'ecmp', load: 0.5, seed: 1, params: {} },
    ])
    expect(ownerIsAlive(`${hostname()}:999999`)).toBe(false)

    const again = new Orchestrator({ store: openStore(dbPath), bus: new EventBus(), drivers: { sim: new SimDriver() } })
    expect(again.recoverInterrupted().sort()).toEqual([a.id, b.id])
    expect(store.getRun(a.id)!.status).toBe('interrupted')
    expect(store.getRun(b.id)!.status).toBe('interrupted')
    expect(store.getRun(live.id)!.status).toBe('queued')
  })
})

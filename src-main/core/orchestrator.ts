// Runs the cells of an experiment's run matrix on their targets, as many at once as each
// target allows (a core each on the sim, one on a hardware testbed), and is the only
// writer of run status. Every status change is stored (with an event row)
// before it is announced, so the UI never shows a state the database does not hold.
import type { RunStatus } from '../contract'
import { TERMINAL_STATUSES } from '../contract'
import type { EventBus } from './bus'
import { fctStats, warmupShare } from './stats'
import { withSlowdown } from './slowdown'
import { assessCompletion, incompleteReason } from './completion'
import { Ingest } from './telemetry/ingest'
import type { ExperimentSpec } from './spec'
import { describeTestbed, type RunRow, type Store, type TestbedSeen } from './store'
import { CancelledError, TestbedUnreachableError, type RunOutput, type RunPlan, type RunTestbed, type TargetDriver, type TargetMessage } from './targets/driver'
import { isUnreachable, withoutKeyFile } from './ssh'
import { toWireBatch } from './wire'
import { toRun } from './run-view'
import { capFrame, capPoints, type TelemetryRateCap } from './run-limits'
import { Heartbeat, RunSinks, storeMessage } from './run-sinks'
import { ownerIsAlive, processOwner } from './owner'

export { ownerIsAlive, processOwner }
export { HEARTBEAT_MS } from './run-sinks'

/** Telemetry reaches subscribed UIs at most this often; the store gets every batch. */
const UI_FLUSH_MS = 100

export interface OrchestratorDeps {
  store: Store
  bus: EventBus
  drivers: Record<string, TargetDriver>
  /** Identifies this process as the owner of the runs it starts. */
  owner?: string
}

/** Tries at storing a run's end after the store refused it (each waits out the busy timeout). */
const FINISH_RETRIES = 5

interface Job {
  run: RunRow
  spec: ExperimentSpec
  abort: AbortController
  done: Promise<void>
  resolve: () => void
  /** Ids (index in the run's flow list) of the flows already stored while the run went on. */
  flowsStored: Set<number>
}

/**
 * Why a run's error says its testbed cannot be reached (a host refused, timed out, has another
 * host key, refused the login), or null for a failure of the run's own (a command, the traffic).
 */
function unreachable(err: unknown): string | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof TestbedUnreachableError) return `host ${e.host}: ${e.reason}`
    // Its message begins with the login; the key file's path stays out of every held run's error.
    if (isUnreachable(e)) return withoutKeyFile(e, 'of this login')
  }
  return null
}

export class Orchestrator {
  readonly owner: string
  private readonly jobs = new Map<number, Job>()
  private readonly queue: Job[] = []
  /** Runs in progress per testbed; each target caps its own (driver.maxParallelRuns). */
  private readonly activePerTestbed = new Map<string, number>()
  private readonly heartbeat: Heartbeat

  constructor(private readonly deps: OrchestratorDeps) {
    this.owner = deps.owner ?? processOwner()
    this.heartbeat = new Heartbeat(deps.store, this.owner, () => this.jobs.size > 0)
  }

  /** Marks the runs that a dead process left unfinished as interrupted, and announces them. */
  recoverInterrupted(): number[] {
    const ids = this.deps.store.markInterruptedRuns(ownerIsAlive)
    for (const id of ids) {
      const run = this.deps.store.getRun(id)
      if (run) this.announce(run)
    }
    return ids
  }

  /** Creates the runs of an experiment (queued) and schedules them. */
  enqueue(
    experimentId: number,
    spec: ExperimentSpec,
    cells: Array<{ scheme: string; load: number; seed: number; params?: Record<string, unknown> }>,
  ): RunRow[] {
    const { store } = this.deps
    const runs = store.createRuns(
      experimentId,
      spec.testbed,
      this.owner,
      // A resumed or re-run cell keeps the params of the cell it repeats.
      cells.map((c) => ({ scheme: c.scheme, load: c.load, seed: c.seed, params: c.params ?? {} })),
      // Each run's record keeps the spec as resolved for it (files read now), not the stored one.
      { spec },
    )
    for (const run of runs) {
      let resolve!: () => void
      const done = new Promise<void>((r) => (resolve = r))
      const job: Job = { run, spec, abort: new AbortController(), done, resolve, flowsStored: new Set() }
      this.jobs.set(run.id, job)
      this.queue.push(job)
      this.announce(run)
    }
    this.heartbeat.start()
    this.pump()
    return runs
  }

  /** Resolves when the given runs have reached a terminal status. */
  async wait(runIds: number[]): Promise<void> {
    await Promise.all(runIds.map((id) => this.jobs.get(id)?.done))
  }

  /** Cancels a queued or active run. Returns false if it is not this process's to cancel. */
  cancel(runId: number): boolean {
    const job = this.jobs.get(runId)
    if (!job) return false
    const queued = this.queue.indexOf(job)
    if (queued >= 0) {
      this.queue.splice(queued, 1)
      this.finish(job, 'cancelled', null)
    } else {
      job.abort.abort()
    }
    return true
  }

  cancelAll(): void {
    for (const id of [...this.jobs.keys()]) this.cancel(id)
  }

  isActive(): boolean {
    return this.jobs.size > 0
  }

  /** Starts every queued run whose target has room, in queue order per target. */
  private pump(): void {
    // One lookup per testbed per pass: a sweep queues many runs on the same testbed.
    const limits = new Map<string, number>()
    const limitOf = (testbed: string) => {
      let limit = limits.get(testbed)
      if (limit === undefined) {
        limit = this.driverFor(testbed).driver?.maxParallelRuns ?? Infinity
        limits.set(testbed, limit)
      }
      return limit
    }
    for (let i = 0; i < this.queue.length; ) {
      const job = this.queue[i]
      const testbed = job.spec.testbed
      const active = this.activePerTestbed.get(testbed) ?? 0
      if (active >= limitOf(testbed)) {
        i++
        continue
      }
      this.queue.splice(i, 1)
      this.activePerTestbed.set(testbed, active + 1)
      void this.execute(job).finally(() => {
        this.activePerTestbed.set(testbed, (this.activePerTestbed.get(testbed) ?? 1) - 1)
        this.pump()
      })
    }
  }

  private async execute(job: Job): Promise<void> {
    const { store } = this.deps
    const { run, spec } = job
    const { driver, testbed, seen } = this.driverFor(spec.testbed)
    const plan: RunPlan = { runId: run.id, spec, scheme: run.scheme, load: run.load, seed: run.seed, experimentId: run.experimentId }
    // The run's log and event sinks close when execute returns (after teardown); see RunSinks.
    const sinks = new RunSinks(store, this.deps.bus, run.id)
    const log = sinks.log
    let session
    try {
      // What the run found on its testbed, kept with it: an edit of the testbed afterwards does
      // not change what this run says it ran on (an archive writes it).
      if (seen) store.setRunTestbed(run.id, seen)
      session = driver?.open({
        plan,
        signal: job.abort.signal,
        log,
        event: sinks.event,
        ...(testbed ? { testbed } : {}),
      })
    } catch (err) {
      sinks.close()
      this.finish(job, 'failed', err instanceof Error ? err.message : String(err))
      return
    }
    // Runs on an SSH testbed go check → build → deploy → traffic → collect → teardown, each
    // step in the run's log and as a 'step' event; their teardown ends before the run's
    // final status is stored, so "done/failed/cancelled" means the hosts are clean (or the log says why not).
    const stepped = testbed !== undefined
    const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      if (!stepped) return fn()
      const t0 = Date.now()
      store.addEvent(run.id, null, 'step', { step: name, state: 'started' })
      store.addLog(run.id, 'orchestrator', `step ${name}: started`)
      try {
        const r = await fn()
        const ms = Date.now() - t0
        store.addEvent(run.id, null, 'step', { step: name, state: 'done', ms })
        store.addLog(run.id, 'orchestrator', `step ${name}: done in ${ms} ms`)
        return r
      } catch (err) {
        const cancelled = err instanceof CancelledError || job.abort.signal.aborted
        const error = err instanceof Error ? err.message : String(err)
        store.addEvent(run.id, null, 'step', { step: name, state: cancelled ? 'cancelled' : 'failed', ...(cancelled ? {} : { error }) })
        store.addLog(run.id, 'orchestrator', `step ${name}: ${cancelled ? 'cancelled' : `failed: ${error}`}`)
        throw err
      }
    }
    let outcome: { status: RunStatus; error: string | null }
    try {
      if (!driver || !session) throw new Error(`no driver for testbed '${spec.testbed}'`)
      const s = session
      this.setStatus(job, 'deploying')
      if (s.check) await step('check', () => s.check!())
      await step('build', () => s.build())
      await step('deploy', () => s.deploy())
      this.setStatus(job, 'running')
      await step('traffic', async () => {
        await s.startTraffic()
        try {
          await this.ingest(job, s.telemetry(), sinks.telemetryCap)
        } finally {
          sinks.telemetryDropped()
        }
      })
      this.setStatus(job, 'collecting')
      const out = await step('collect', () => s.collect())
      const stats = withSlowdown(fctStats(out.flows, warmupShare(spec)), out.flows, spec)
      // Done only when enough of its flows finished (completion.ts); else incomplete, saying why.
      const completion = assessCompletion({
        flows: out.flows,
        ...(out.flows.errors ? { errors: out.flows.errors } : {}),
        counters: out.counters,
        facts: { ...(store.getRun(run.id)?.facts ?? {}), ...out.facts },
        stopAfterNs: spec.stopAfterNs,
        log: () => store.listLogs(run.id).map((l) => l.line),
      })
      store.transaction(() => {
        this.storeRemainingFlows(job, out.flows)
        for (const e of out.events ?? []) store.addEvent(run.id, e.tNs, e.kind, e.detail)
        store.setRunResults(run.id, { stats, counters: out.counters, facts: out.facts, completion })
      })
      if (sinks.storeError) outcome = { status: 'failed', error: sinks.storeError }
      else if (completion.complete) outcome = { status: 'done', error: null }
      else {
        outcome = { status: 'incomplete', error: incompleteReason(completion) }
        log('orchestrator', `incomplete: ${outcome.error}`)
      }
    } catch (err) {
      if (err instanceof CancelledError || job.abort.signal.aborted) outcome = { status: 'cancelled', error: null }
      else {
        outcome = { status: 'failed', error: err instanceof Error ? err.message : String(err) }
        // Before the teardown, which may take its time: no other run on the testbed may start meanwhile.
        const why = stepped ? unreachable(err) : null
        if (why) this.hold(spec.testbed, run.id, why)
      }
    }
    if (!stepped) this.finish(job, outcome.status, outcome.error)
    try {
      if (session) await step('teardown', () => session.teardown())
    } catch (err) {
      // Through the run's sink: on the sim path the run has finished, and the store may be closed.
      log('orchestrator', `teardown: ${err instanceof Error ? err.message : String(err)}`)
    } finally {
      sinks.close()
      if (stepped) this.finish(job, outcome.status, outcome.error)
    }
  }

  /**
   * A run could not reach its testbed: the runs queued on it end 'held' with the reason, rather
   * than start one after another, each to wait out its own connection attempt and fail with the
   * same error. A resume (or a new run) on the testbed tries it again.
   */
  private hold(testbed: string, runId: number, why: string): void {
    const reason = `not started: testbed '${testbed}' could not be reached when run ${runId} tried (${why}); once it is fixed, resume the sweep (Resume in the run matrix, or p4lab run FILE --resume)`
    let held = 0
    for (let i = 0; i < this.queue.length; ) {
      const job = this.queue[i]
      if (job.spec.testbed !== testbed) {
        i++
        continue
      }
      this.queue.splice(i, 1)
      this.finish(job, 'held', reason)
      held++
    }
    if (held) this.deps.store.addLog(runId, 'orchestrator', `testbed '${testbed}' unreachable: ${held} run(s) queued on it held, not started`)
  }

  /**
   * The driver of a testbed name: a driver registered under that name (the sim), else the
   * stored testbed's kind → its driver, with the testbed (and its hosts) for the run.
   */
  private driverFor(name: string): { driver: TargetDriver | undefined; testbed: RunTestbed | undefined; seen?: TestbedSeen } {
    const row = this.deps.store.getTestbed(name)
    if (row && row.kind !== 'sim') {
      const testbed: RunTestbed = {
        name: row.name,
        kind: row.kind,
        settings: row.settings,
        hosts: row.hosts.map((h) => ({ id: h.id, name: h.name, address: h.address, port: h.port, user: h.user, auth: h.auth, keyFile: h.keyFile, role: h.role })),
        mapping: row.mapping,
      }
      return { driver: this.deps.drivers[row.kind], testbed, seen: describeTestbed(row) }
    }
    return { driver: this.deps.drivers[name], testbed: undefined }
  }

  /**
   * Stores every sample through the ingest path (batched transactions, roll-ups, a bounded
   * queue this loop waits on when the disk falls behind) and forwards coalesced batches to the UI.
   */
  private async ingest(job: Job, stream: AsyncIterable<TargetMessage>, cap: TelemetryRateCap): Promise<void> {
    const { store, bus } = this.deps
    const runId = job.run.id
    const ingest: Ingest = new Ingest({
      store,
      runId,
      uiIntervalMs: UI_FLUSH_MS,
      onUi: (batch) => bus.emit('run.telemetry', { runId, batch: toWireBatch(batch) }),
      onUiPoints: (stats) =>
        bus.emit('run.points', { runId, stats: stats.map(({ index, lastT, ...s }) => ({ seriesId: ingest.seriesId(index), lastTNs: lastT, ...s })) }),
    })
    // Sources of the rate cap: the frame stream, and each series of points by its kind and entity.
    const labels: string[] = []
    try {
      for await (const msg of stream) {
        if (msg.type === 'series') {
          for (const d of msg.defs) labels.push(`${d.kind}${JSON.stringify(d.entity)}`)
          const seriesIds = ingest.defineSeries(msg.defs)
          bus.emit('run.series', {
            runId,
            defs: msg.defs.map((d, i) => ({ id: seriesIds[i], kind: d.kind, entity: d.entity, unit: d.unit })),
          })
        } else if (msg.type === 'telemetry') {
          const frame = capFrame(cap, 'sampler', msg.t, msg.values)
          if (frame) ingest.pushFrame(frame.t, frame.values)
          await ingest.ready()
        } else if (msg.type === 'flows') {
          const { id, src, dst, sizeBytes, startNs, finishNs } = msg
          store.insertFlows(runId, { src, dst, sizeBytes, startNs, finishNs }, id)
          for (let i = 0; i < id.length; i++) job.flowsStored.add(id[i])
        } else if (msg.type === 'points') {
          const points = capPoints(cap, (i) => labels[i] ?? `series ${i}`, msg)
          if (points) ingest.pushPoints(points.series, points.t, points.values)
          await ingest.ready()
        } else {
          bus.emit('run.progress', { runId, simTimeNs: msg.simTimeNs, flowsDone: msg.flowsDone, flowsTotal: msg.flowsTotal })
        }
      }
    } finally {
      await ingest.close()
    }
  }

  /** The run's flows not yet stored while it went on (unfinished ones, the last batch), each under its index. */
  private storeRemainingFlows(job: Job, flows: RunOutput['flows']): void {
    const { store } = this.deps
    if (job.flowsStored.size === 0) {
      store.insertFlows(job.run.id, flows)
      return
    }
    const ids: number[] = []
    for (let i = 0; i < flows.src.length; i++) if (!job.flowsStored.has(i)) ids.push(i)
    const pick = (col: ArrayLike<number>) => Float64Array.from(ids, (i) => col[i])
    store.insertFlows(
      job.run.id,
      { src: pick(flows.src), dst: pick(flows.dst), sizeBytes: pick(flows.sizeBytes), startNs: pick(flows.startNs), finishNs: pick(flows.finishNs) },
      ids,
    )
  }

  private setStatus(job: Job, status: RunStatus, error: string | null = null): void {
    job.run = this.deps.store.setRunStatus(job.run.id, status, { error })
    this.announce(job.run)
  }

  /**
   * Stores the run's end. When the store refuses (locked past its busy timeout by another
   * process), it tries again a few times, a second apart; if it never can, the run stays as
   * stored, owned by this process, and is marked interrupted once this process has gone.
   */
  private finish(job: Job, status: RunStatus, error: string | null): void {
    try {
      if (!TERMINAL_STATUSES.includes(job.run.status)) this.setStatus(job, status, error)
    } catch (err) {
      void this.finishLater(job, status, error, err)
      return
    }
    this.release(job)
  }

  private async finishLater(job: Job, status: RunStatus, error: string | null, first: unknown): Promise<void> {
    let last = first
    for (let i = 0; i < FINISH_RETRIES && this.deps.store.open; i++) {
      await new Promise((r) => setTimeout(r, 1000))
      try {
        if (!TERMINAL_STATUSES.includes(job.run.status)) this.setStatus(job, status, error)
        this.release(job)
        return
      } catch (err) {
        last = err
      }
    }
    this.deps.bus.emit('run.status', {
      runId: job.run.id,
      experimentId: job.run.experimentId,
      status: job.run.status,
      error: `could not store the run's end (${status}): ${storeMessage(last)}`,
      at: new Date().toISOString(),
      run: toRun(job.run),
    })
    this.release(job)
  }

  private release(job: Job): void {
    this.jobs.delete(job.run.id)
    if (this.jobs.size === 0) this.heartbeat.stop()
    job.resolve()
  }

  private announce(run: RunRow): void {
    this.deps.bus.emit('run.status', {
      runId: run.id,
      experimentId: run.experimentId,
      status: run.status,
      error: run.error,
      at: new Date().toISOString(),
      run: toRun(run),
    })
  }
}

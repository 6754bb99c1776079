// What a run's driver writes through while the run goes on: its log and its events, each
// stored and announced, under the caps of run-limits.ts, and the heartbeat that stamps a
// process's runs alive. Apart from the orchestrator, which sequences the run's steps.
import type { EventBus } from './bus'
import type { Store } from './store'
import { limitCode, LogCap, TelemetryRateCap, type LimitReport } from './run-limits'

export function storeMessage(err: unknown): string {
  return `the store refused a write: ${err instanceof Error ? err.message : String(err)}`
}

/**
 * A run's log and event sinks. They close when the run's execution ends (after teardown): a
 * line that arrives later (an SSH socket's error event after its pool closed) has no run to
 * belong to, and lines that come while the store is closed (a CLI closing it once its runs
 * are done, while a sim worker is still being torn down) have nowhere to go either. Both are
 * dropped: throwing would land in whatever event handler called the log.
 * A store error (the database locked past the busy timeout, the disk full) cannot be thrown
 * into the event handler that logged either: it would end the process. It is kept in
 * `storeError`, and fails the run.
 */
export class RunSinks {
  private open = true
  /** The first store write of the run's log or events that failed. */
  storeError: string | null = null
  private readonly logCap: LogCap
  readonly telemetryCap: TelemetryRateCap

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly runId: number,
  ) {
    // A cap hit is a warning event on the run, as BMv2's rate-scale warnings are.
    const limitHit = (r: LimitReport): void => {
      if (!this.writable()) return
      const event = this.guard(() => store.addEvent(runId, null, 'warning', { source: r.source, code: limitCode(r.limit), limit: r.limit, cap: r.cap, message: r.message }))
      if (event) bus.emit('run.event', { runId, event })
      if (r.limit !== 'log lines') this.guard(() => store.addLog(runId, 'orchestrator', r.message))
    }
    this.logCap = new LogCap(limitHit)
    this.telemetryCap = new TelemetryRateCap(limitHit)
  }

  private writable(): boolean {
    return this.open && this.store.open
  }

  private guard<T>(write: () => T): T | undefined {
    try {
      return write()
    } catch (err) {
      this.storeError ??= storeMessage(err)
      return undefined
    }
  }

  readonly log = (source: string, line: string): void => {
    if (!this.writable()) return
    const kept = this.logCap.admit(source, line)
    if (kept !== undefined) this.guard(() => this.store.addLog(this.runId, source, kept))
  }

  readonly event = (kind: string, detail: unknown): void => {
    if (!this.writable()) return
    const event = this.guard(() => this.store.addEvent(this.runId, null, kind, detail))
    if (event) this.bus.emit('run.event', { runId: this.runId, event })
  }

  /** Says in the log what the telemetry cap kept out of the store. */
  telemetryDropped(): void {
    for (const d of this.telemetryCap.dropped()) this.log('orchestrator', `telemetry: ${d.samples} samples of '${d.source}' over the cap on telemetry rate per source were not stored`)
  }

  /** Stores how many lines the log cap kept out, then closes the sinks. */
  close(): void {
    const dropped = this.logCap.dropped()
    if (dropped.length > 0 && this.store.open) {
      this.store.addLog(this.runId, 'orchestrator', `log: lines over the cap on log lines per source not stored: ${dropped.map((d) => `${d.lines} of '${d.source}'`).join(', ')}`)
    }
    this.open = false
  }
}

/**
 * How often a process stamps its runs in flight as alive (runs.heartbeat_at): a run cut off
 * by a crash is marked interrupted at its last stamp, so this is how far off that time may be.
 */
export const HEARTBEAT_MS = 2000

/** While a process has runs, stamps them alive every HEARTBEAT_MS (see markInterruptedRuns). */
export class Heartbeat {
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly store: Store,
    private readonly owner: string,
    private readonly busy: () => boolean,
  ) {}

  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => {
      if (!this.busy() || !this.store.open) return this.stop()
      try {
        this.store.heartbeat(this.owner)
      } catch {
        // A missed stamp only makes the time of a later interruption earlier; the next one may pass.
      }
    }, HEARTBEAT_MS)
    // The timer alone must not keep a CLI alive once its runs are over.
    this.timer.unref?.()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }
}

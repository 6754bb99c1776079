// The embedded fabric as a target: each run is one worker thread running the simulator.
// build/deploy check the configuration and start the worker; startTraffic starts the
// simulation; telemetry() relays what the worker streams until it is done.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { SimConfig, SimResult } from '../../../sim/types'
import { packageRoot } from '../../paths'
import { limitCode, RUN_LIMITS } from '../../run-limits'
import {
  CancelledError,
  type RunContext,
  type RunOutput,
  type TargetDriver,
  type TargetFacts,
  type TargetMessage,
  type TargetSession,
} from '../driver'
import { simRunConfig } from './config'
import type { FromWorker, ToWorker } from './protocol'

const WORKER_FILE = 'sim-worker.js'

function hereFile(): string {
  return typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url)
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)
  }
  return newest
}

/**
 * The worker is always the bundled JavaScript (out/main/sim-worker.js): Node cannot run
 * the TypeScript sources in a thread. When the core itself runs from source (vitest),
 * a bundle older than the simulator's sources is refused rather than silently used.
 */
export function simWorkerPath(): string {
  const here = hereFile()
  if (!here.endsWith('.ts')) {
    const beside = join(dirname(here), WORKER_FILE)
    if (existsSync(beside)) return beside
  }
  const root = packageRoot()
  const built = join(root, 'out', 'main', WORKER_FILE)
  if (!existsSync(built)) {
    throw new Error(`the simulator worker ${built} is missing: run 'npm run build' first`)
  }
  if (here.endsWith('.ts')) {
    const sources = Math.max(newestMtime(join(root, 'src-main', 'sim')), newestMtime(dirname(here)))
    if (sources > statSync(built).mtimeMs) {
      throw new Error(`the simulator worker ${built} is older than its sources: run 'npm run build' first`)
    }
  }
  return built
}

class SimSession implements TargetSession {
  private worker: Worker | undefined
  private config: SimConfig | undefined
  private result: SimResult | undefined
  private wallMs = 0
  private queue: FromWorker[] = []
  /** Telemetry batches the worker has posted and telemetry() has not yet handed on (protocol.ts). */
  private readonly credits = new Int32Array(new SharedArrayBuffer(4))
  private wake: (() => void) | undefined
  private failure: Error | undefined
  /** The error the worker reported (an 'error' message), thrown once telemetry() reaches it. */
  private reported: Error | undefined
  private exited = false

  constructor(
    private readonly ctx: RunContext,
    private readonly memoryMb: number,
  ) {}

  async build(): Promise<void> {
    if (this.ctx.plan.spec.int) {
      this.ctx.log('sim', 'telemetry.int is ignored on the sim: INT postcard reports come from the v1model programs on BMv2 testbeds (docs/TESTBEDS.md)')
    }
    this.config = simRunConfig(this.ctx.plan)
  }

  async deploy(): Promise<void> {
    this.throwIfCancelled()
    // The memory ceiling per run: V8 stops the worker, not the process, when its heap is full.
    const worker = new Worker(simWorkerPath(), { resourceLimits: { maxOldGenerationSizeMb: this.memoryMb } })
    this.worker = worker
    worker.on('message', (msg: FromWorker) => this.push(msg))
    worker.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_WORKER_OUT_OF_MEMORY') return this.fail(err)
      this.fail(this.overCeiling())
    })
    worker.on('exit', (code) => this.onExit(code))
    this.ctx.signal.addEventListener('abort', () => this.fail(new CancelledError()), { once: true })
  }

  async startTraffic(): Promise<void> {
    this.throwIfCancelled()
    if (!this.worker || !this.config) throw new Error('startTraffic before deploy')
    const msg: ToWorker = { type: 'start', config: this.config, credits: this.credits.buffer as SharedArrayBuffer, memoryMb: this.memoryMb }
    this.worker.postMessage(msg)
  }

  async *telemetry(): AsyncIterable<TargetMessage> {
    for (;;) {
      if (this.failure) throw this.failure
      const msg = this.queue.shift()
      if (!msg) {
        if (this.result) return
        await new Promise<void>((resolve) => (this.wake = resolve))
        continue
      }
      switch (msg.type) {
        case 'series':
          yield { type: 'series', defs: msg.defs }
          break
        case 'telemetry':
          yield { type: 'telemetry', t: msg.t, values: msg.values }
          // The consumer asked for the next message: this one is stored (or queued in the
          // bounded ingest), so the worker may send another.
          Atomics.sub(this.credits, 0, 1)
          Atomics.notify(this.credits, 0)
          break
        case 'progress':
          yield msg
          break
        case 'flows':
          yield { type: 'flows', ...msg.batch }
          break
        case 'done':
          break
        case 'error':
          // push() made it the run's error when it arrived.
          throw this.reported ?? new Error(`simulator failed: ${msg.message}`)
      }
    }
  }

  async collect(): Promise<RunOutput> {
    if (!this.result) throw this.failure ?? this.reported ?? new Error('collect before the simulation finished')
    const c = this.result.counters
    const counters: Record<string, number> = {}
    for (const [k, v] of Object.entries(c)) counters[k] = v
    return {
      flows: this.result.flows,
      counters,
      facts: {
        target: 'sim',
        engine: 'p4lab-sim v0',
        wallMs: Math.round(this.wallMs),
        eventsDropped: this.result.eventsDropped,
      },
      events: this.result.events,
    }
  }

  async teardown(): Promise<void> {
    const w = this.worker
    this.worker = undefined
    if (w && !this.exited) await w.terminate()
  }

  /** The run's failure when it went over the memory ceiling, reported as a warning event as well. */
  private overCeiling(usedMb?: number): Error {
    const used = usedMb !== undefined ? ` (it used ${usedMb.toLocaleString('en-US')} MB)` : ''
    const message =
      `the run went over the memory ceiling per run of ${this.memoryMb.toLocaleString('en-US')} MB${used} and was stopped; ` +
      'use fewer flows per run or a smaller fabric, or raise the ceiling with P4LAB_RUN_MEMORY_MB'
    this.ctx.event?.('warning', { source: 'sim', code: limitCode('memory'), limit: 'memory', cap: this.memoryMb, message })
    return new Error(message)
  }

  /**
   * A message from the worker. Its end (done, or the error it reports) is recorded at once: the
   * worker exits right after posting it, and its exit may come before telemetry() has handed on
   * what is queued ahead of it.
   */
  private push(msg: FromWorker): void {
    if (msg.type === 'done') {
      this.result = msg.result
      this.wallMs = msg.wallMs
    } else if (msg.type === 'error' && !this.reported) {
      if (msg.stack) this.ctx.log('sim', msg.stack)
      this.reported = msg.memory ? this.overCeiling(msg.memory.usedMb) : new Error(`simulator failed: ${msg.message}`)
    }
    this.queue.push(msg)
    this.wakeUp()
  }

  /** The worker ended: without a result or an error it reported, that is the run's failure. */
  private onExit(code: number): void {
    this.exited = true
    if (!this.result && !this.reported && !this.failure) {
      this.fail(this.ctx.signal.aborted ? new CancelledError() : new Error(`simulator worker exited with code ${code}`))
    }
  }

  private fail(err: Error): void {
    if (!this.failure && !this.result) this.failure = err
    this.wakeUp()
    if (err instanceof CancelledError) void this.teardown()
  }

  private wakeUp(): void {
    const w = this.wake
    this.wake = undefined
    w?.()
  }

  private throwIfCancelled(): void {
    if (this.ctx.signal.aborted) throw new CancelledError()
  }
}

export class SimDriver implements TargetDriver {
  readonly kind = 'sim' as const
  /** Each run is one CPU-bound worker thread: one per core keeps them all busy. */
  readonly maxParallelRuns: number

  /** The memory ceiling per run (MB of the worker's heap). */
  readonly memoryMb: number

  constructor(opts: { parallelRuns?: number; memoryMb?: number } = {}) {
    this.maxParallelRuns = Math.max(1, opts.parallelRuns ?? availableParallelism())
    this.memoryMb = opts.memoryMb ?? RUN_LIMITS.memoryMb
  }

  async check(): Promise<TargetFacts> {
    return { target: 'sim', worker: simWorkerPath(), node: process.version }
  }

  open(ctx: RunContext): TargetSession {
    return new SimSession(ctx, this.memoryMb)
  }
}

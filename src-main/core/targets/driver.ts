// The one interface every target kind implements. The orchestrator owns
// the order of the steps, retries and clean-up; a driver owns how each step is done.
import type { ExperimentSpec } from '../spec'
import type { SimFlows } from '../../sim/types'

export type TargetKind = TestbedKind

/** What one run asks of a target: the experiment and the cell of its run matrix. */
export interface RunPlan {
  runId: number
  spec: ExperimentSpec
  scheme: string
  load: number
  seed: number
  /** The experiment the run belongs to (for its P4 variants). */
  experimentId?: number
}

/** A host of a stored testbed, as a driver sees it (secrets are only referenced by id). */
export interface RunTestbedHost {
  id: number
  name: string
  address: string
  port: number
  user: string
  auth: 'agent' | 'key'
  keyFile: string | null
  role: string
}

/** The stored testbed a run goes to: what the bmv2 and tofino drivers work on. */
export interface RunTestbed {
  name: string
  kind: TargetKind
  settings: Record<string, unknown>
  hosts: RunTestbedHost[]
  /** Where the fabric goes on the hosts (contract/testbed-mapping.ts), as stored; absent or null: none. */
  mapping?: unknown
}

export interface RunContext {
  plan: RunPlan
  /** Aborted when the user cancels the run; every step must return promptly after it. */
  signal: AbortSignal
  log(source: string, line: string): void
  /** The stored testbed (with its hosts) for runs on a bmv2 or tofino testbed; absent on the sim. */
  testbed?: RunTestbed
  /** Records an event of the run (e.g. a deploy step's detail); optional for drivers to call. */
  event?(kind: string, detail: unknown): void
}

/** Tools and versions found on a target, recorded with each run. */
export type TargetFacts = Record<string, string | number | boolean>

import type { SeriesSpec } from '../../contract/schemas'
import type { TestbedKind } from '../../contract/testbeds'

export type { SeriesSpec }

/**
 * What a target streams while traffic runs. Telemetry values are series-major over the first
 * 'series' message's defs. A later 'series' message adds series; 'points' are irregular samples
 * (an INT collector's): series[i] is an index in definition order across every 'series' message
 * of the run (the first message's defs are 0..n-1), at t[i] ns, of value values[i].
 */
export type TargetMessage =
  | { type: 'series'; defs: SeriesSpec[] }
  | { type: 'telemetry'; t: Float64Array; values: Float64Array }
  | { type: 'points'; series: ArrayLike<number>; t: ArrayLike<number>; values: ArrayLike<number> }
  | { type: 'progress'; simTimeNs: number; flowsDone: number; flowsTotal: number }
  | FlowsMessage

/**
 * Flows that have finished, sent while the run goes on so that a crash loses at most the last
 * batch. id is each flow's index in RunOutput.flows; the values are those it will have there.
 */
export interface FlowsMessage {
  type: 'flows'
  id: ArrayLike<number>
  src: ArrayLike<number>
  dst: ArrayLike<number>
  sizeBytes: ArrayLike<number>
  startNs: ArrayLike<number>
  finishNs: ArrayLike<number>
}

export interface RunOutput {
  /** The flows; a testbed's agents also give each failed flow's error text (null for the others). */
  flows: SimFlows & { errors?: ReadonlyArray<string | null> }
  counters: Record<string, number>
  facts: TargetFacts
  /** What happened in the fabric during the run (link down/up, best-hop changes), in time order. */
  events?: Array<{ tNs: number; kind: string; detail: string }>
}

export interface TargetSession {
  /** Per-run check of the target (hosts reachable, tools present); SSH targets only. */
  check?(): Promise<TargetFacts>
  build(): Promise<void>
  deploy(): Promise<void>
  startTraffic(): Promise<void>
  /** Ends when the traffic is over (or the run is cancelled). */
  telemetry(): AsyncIterable<TargetMessage>
  collect(): Promise<RunOutput>
  /** Always called, even after a failure or a cancel; must be idempotent. */
  teardown(): Promise<void>
}

export interface TargetDriver {
  readonly kind: TargetKind
  /** How many runs this target can carry at once: one per core on the sim, one on hardware. */
  readonly maxParallelRuns: number
  check(signal?: AbortSignal): Promise<TargetFacts>
  open(ctx: RunContext): TargetSession
}

export class CancelledError extends Error {
  constructor() {
    super('cancelled')
    this.name = 'CancelledError'
  }
}

/**
 * A run could not reach a host of its testbed: the connection was refused or timed out, the host
 * key is unknown or has changed, or the login failed. The testbed's failure, not the run's: the
 * orchestrator starts no more runs on the testbed and holds the queued ones (status 'held').
 */
export class TestbedUnreachableError extends Error {
  constructor(
    readonly testbed: string,
    /** The host's name in the testbed. */
    readonly host: string,
    /** Why, naming the login (`user@[address]:port`) and what went wrong. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${host}: ${reason}`, options)
    this.name = 'TestbedUnreachableError'
  }
}

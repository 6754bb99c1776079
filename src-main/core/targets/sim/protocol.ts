// Messages between the sim driver (main thread) and its worker.
import type { SimConfig, SimFlowBatch, SimResult, SimSeriesDef } from '../../../sim/types'

/**
 * credits: one Int32 counting telemetry messages posted and not yet consumed; the worker waits
 * while it is at TELEMETRY_IN_FLIGHT, so a slow store slows the simulation instead of growing
 * the message queue.
 */
export type ToWorker = { type: 'start'; config: SimConfig; credits?: SharedArrayBuffer; memoryMb?: number }

export const TELEMETRY_IN_FLIGHT = 8

export type FromWorker =
  | { type: 'series'; defs: SimSeriesDef[] }
  | { type: 'telemetry'; t: Float64Array; values: Float64Array }
  | { type: 'progress'; simTimeNs: number; flowsDone: number; flowsTotal: number }
  | { type: 'flows'; batch: SimFlowBatch }
  | { type: 'done'; result: SimResult; wallMs: number }
  | { type: 'error'; message: string; stack?: string; memory?: { usedMb: number; ceilingMb: number } }

// Messages between the sim driver (main thread) and its worker.
import type { SimConfig, SimResult, SimSeriesDef } from '../../../sim/types'

export type ToWorker = { type: 'start'; config: SimConfig }

export type FromWorker =
  | { type: 'series'; defs: SimSeriesDef[] }
  | { type: 'telemetry'; t: Float64Array; values: Float64Array }
  | { type: 'progress'; simTimeNs: number; flowsDone: number; flowsTotal: number }
  | { type: 'done'; result: SimResult; wallMs: number }
  | { type: 'error'; message: string; stack?: string }

// A scheme's descriptor: the data every layer reads (model/scheme.ts) plus the two pieces that
// are code, its simulator stage and its control-plane module.

import type { SeriesSpec } from '../contract/schemas'
import type { P4Iface, SchemeModule } from '../model/controlplane/module'
import type { ControlPlaneState, SwitchState } from '../model/controlplane/types'
import type { SchemeInfo } from '../model/scheme'
import type { StageFactory } from '../sim/routing/stage'

/**
 * A cell of the scheme's program that the pollers read, and the series it feeds: a register
 * cell (its value, through `value`), or a counter cell (its packets since the last round).
 * Names are P4 names (control-qualified, from the program's names).
 */
export type PolledCell =
  | { register: string; index: number; def: SeriesSpec; value: (raw: number) => number }
  | { counter: string; index: number; def: SeriesSpec }

export interface SchemeDescriptor extends SchemeInfo {
  readonly stage: StageFactory
  readonly controlPlane: SchemeModule
  /** What the pollers read from a switch running the scheme's program (besides every program's port counters). */
  readonly poll?: (sw: SwitchState, state: ControlPlaneState, iface: P4Iface) => PolledCell[]
}

/** Checks a descriptor's shape and keeps its literal types (series kinds, parameter names). */
export function defineScheme<const D extends SchemeDescriptor>(d: D): D {
  return d
}

// A scheme's descriptor: the data every layer reads (model/scheme.ts) plus the two pieces that
// are code, its simulator stage and its control-plane module.

import type { SchemeModule } from '../model/controlplane/module'
import type { SchemeInfo } from '../model/scheme'
import type { StageFactory } from '../sim/routing/stage'

export interface SchemeDescriptor extends SchemeInfo {
  readonly stage: StageFactory
  readonly controlPlane: SchemeModule
}

/** Checks a descriptor's shape and keeps its literal types (series kinds, parameter names). */
export function defineScheme<const D extends SchemeDescriptor>(d: D): D {
  return d
}

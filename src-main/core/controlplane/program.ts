// A scheme's control-plane module, found through the scheme registry, applied to one switch.

import type { P4Iface, RenderedProgram, SchemeModule } from '../../model/controlplane/module'
import type { ControlPlaneState, CpTarget, SwitchState } from '../../model/controlplane/types'
import { controlPlaneOf } from '../../schemes'

export function schemeModule(scheme: string): SchemeModule {
  return controlPlaneOf(scheme)
}

/** Renders one switch for a target, with the scheme's default names unless iface is given. */
export function programFor(
  state: ControlPlaneState,
  sw: SwitchState,
  target: CpTarget,
  iface: P4Iface | undefined,
  port: (p: number) => number,
  rateScale = 1,
): RenderedProgram {
  const mod = schemeModule(state.scheme)
  if (mod.fabrics && !mod.fabrics.includes(state.fabricKind)) {
    throw new Error(`the ${mod.iface(target).programName} P4 program supports ${mod.fabrics.join(', ')} fabrics, not ${state.fabricKind}`)
  }
  const ifc = iface ?? mod.iface(target)
  const body = mod.render({ state, sw, target, iface: ifc, port, rateScale })
  const actions: Record<string, string[]> = {}
  for (const [logical, params] of Object.entries(ifc.actionParams)) actions[ifc.names[logical] ?? logical] = params
  return { programName: ifc.programName, actions, ...body }
}


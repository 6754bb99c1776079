// LetFlow (p4/letflow/{v1model,tna}/letflow.p4): the common tables, plus the flowlet gap the
// program compares against, set once per switch as the default action of a keyless table
// (MyIngress.flowletConfig → setFlowletGap). The gap is in each program's clock unit: µs on
// BMv2 (setFlowletGap(gapUs)), 1024 ns ticks on Tofino (setFlowletGap(gapTicks): the TNA
// program keeps global_tstamp >> 10). The flowlet table itself needs no initial values: a zero
// time marks an empty slot, which starts a flowlet.

import type { SchemeModule } from '../../model/controlplane/module'
import type { CpTarget } from '../../model/controlplane/types'
import { iface, routingEntries } from '../shared/controlplane'
import { LETFLOW_PARAMS } from './params'

/** ns per tick of p4/letflow/tna/letflow.p4's clock (global_tstamp[41:10]). */
export const TNA_TICK_NS = 1024

/** The gap's action parameter, by target: its name says its unit. */
export const GAP_PARAM: Record<CpTarget, string> = { bmv2: 'gapUs', tofino: 'gapTicks' }

/** The gap in the program's time unit for a target (µs on BMv2, 1024 ns ticks on Tofino), at least 1. */
export function flowletGapUnits(params: Readonly<Record<string, number>>, target: CpTarget): number {
  const ns = params.flowletGapNs ?? LETFLOW_PARAMS.flowletGap.default
  return Math.max(1, Math.round(ns / (target === 'bmv2' ? 1000 : TNA_TICK_NS)))
}

export const letflow: SchemeModule = {
  scheme: 'letflow',
  registers: () => [],
  iface: (target) =>
    iface(
      'letflow',
      { flowletConfig: 'MyIngress.flowletConfig', setFlowletGap: 'MyIngress.setFlowletGap', flowletStarts: 'MyIngress.flowletStarts' },
      { setFlowletGap: [GAP_PARAM[target]] },
    ),
  render: (ctx) => {
    const I = ctx.iface.names
    const gap = flowletGapUnits(ctx.state.params, ctx.target)
    const unit = ctx.target === 'bmv2' ? 'us' : `ticks of ${TNA_TICK_NS} ns`
    return {
      entries: [
        ...routingEntries(ctx),
        { table: I.flowletConfig, action: I.setFlowletGap, match: [], params: [gap], isDefault: true, comment: `flowlet gap ${gap} ${unit}` },
      ],
      registers: [],
      mcastGroups: [],
      mirrors: [],
    }
  },
}

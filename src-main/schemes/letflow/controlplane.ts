// LetFlow (p4/letflow/{v1model,tna}/letflow.p4): the common tables, plus the flowlet gap the
// program compares against, set once per switch as the default action of a keyless table
// (MyIngress.flowletConfig → setFlowletGap(gapUs)). The flowlet table itself needs no initial
// values: an empty slot reads as a flowlet that ended long ago.

import type { SchemeModule } from '../../model/controlplane/module'
import { iface, routingEntries } from '../shared/controlplane'
import { LETFLOW_PARAMS } from './params'

/** The gap in the programs' time unit (µs), at least 1. */
export function flowletGapUs(params: Readonly<Record<string, number>>): number {
  return Math.max(1, Math.round((params.flowletGapNs ?? LETFLOW_PARAMS.flowletGap.default) / 1000))
}

export const letflow: SchemeModule = {
  scheme: 'letflow',
  registers: () => [],
  iface: () =>
    iface(
      'letflow',
      { flowletConfig: 'MyIngress.flowletConfig', setFlowletGap: 'MyIngress.setFlowletGap', flowletStarts: 'MyIngress.flowletStarts' },
      { setFlowletGap: ['gapUs'] },
    ),
  render: (ctx) => {
    const I = ctx.iface.names
    const gap = flowletGapUs(ctx.state.params)
    return {
      entries: [
        ...routingEntries(ctx),
        { table: I.flowletConfig, action: I.setFlowletGap, match: [], params: [gap], isDefault: true, comment: `flowlet gap ${gap} us` },
      ],
      registers: [],
      mcastGroups: [],
      mirrors: [],
    }
  },
}

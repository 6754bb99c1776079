import type { ParamDecl } from '../../model/scheme'

/** CONGA's parameters (CONGA′ reads the same). */
export const CONGA_PARAMS = {
  flowletGap: { unit: 'duration', default: 100_000, doc: 'flowlet inactivity gap T_fl' },
  drePeriod: { unit: 'duration', default: 50_000, doc: 'DRE decay period T_dre (τ = T_dre / α)' },
  dreAlpha: { unit: 'fraction', default: 0.2, doc: 'DRE decay factor α' },
  metricAging: { unit: 'duration', default: 1_000_000, doc: 'a congestion-to-leaf entry not refreshed for this long ages out' },
  flowletSlots: { unit: 'count', default: 4096, doc: 'flowlet table entries per switch; not given by the paper' },
} as const satisfies Record<string, ParamDecl>

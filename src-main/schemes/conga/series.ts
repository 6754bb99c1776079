import type { SeriesKindDef } from '../../model/series'

export const CONGA_SERIES = {
  'conga.metric': { entity: ['leaf', 'dstLeaf', 'uplink'], units: ['level'], what: 'congestion-to-leaf table entry (3-bit metric)' },
  'conga.dre': { entity: ['switch', 'port'], units: ['ratio'], what: "a port's DRE utilization estimate" },
} as const satisfies Record<string, SeriesKindDef>

import type { SeriesKindDef } from '../../model/series'

export const DHLB_SERIES = {
  'dhlb.loadDegree': { entity: ['switch', 'dstTor', 'port'], units: ['degree'], what: 'load-information table: degree of the path via a port toward a ToR' },
  'dhlb.probePeriod': { entity: [], units: ['ns'], what: 'the adaptive probe period' },
  'dhlb.meanLoad': { entity: [], units: ['ratio'], what: 'σ, the mean of the ToRs\' reported uplink utilization, which the probe period adapts to' },
} as const satisfies Record<string, SeriesKindDef>

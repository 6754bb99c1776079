import type { SeriesKindDef } from '../../model/series'

export const HULA_SERIES = {
  'hula.bestHop': { entity: ['switch', 'dstTor'], units: ['port'], categorical: true, what: 'best next hop toward a ToR' },
  'hula.pathUtil': { entity: ['switch', 'dstTor'], units: ['ratio', 'level'], what: 'utilization of the best path toward a ToR (sim: ratio; BMv2/Tofino register: 8-bit level)' },
  'hula.bestHopChanges': { entity: [], units: ['count'], what: 'best-hop changes in the interval, fabric-wide' },
} as const satisfies Record<string, SeriesKindDef>

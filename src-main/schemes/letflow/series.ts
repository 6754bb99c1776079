import type { SeriesKindDef } from '../../model/series'

export const LETFLOW_SERIES = {
  'letflow.flowlets': { entity: ['switch', 'port'], units: ['count'], what: 'flowlets started on a port in the interval (a random pick each)' },
} as const satisfies Record<string, SeriesKindDef>

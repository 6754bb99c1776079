import type { SeriesKindDef } from '../../model/series'

export const FLOODGATE_SERIES = {
  'floodgate.window': { entity: ['switch', 'dst'], units: ['bytes'], what: 'per-destination window in flight' },
  'floodgate.voq': { entity: ['switch', 'dst'], units: ['packets'], what: 'per-destination VOQ length' },
  'floodgate.creditBytes': { entity: [], units: ['count'], what: 'credit bytes sent in the interval' },
  'floodgate.voqDrops': { entity: [], units: ['count'], what: 'VOQ drops in the interval' },
  'floodgate.pauseFrames': { entity: [], units: ['count'], what: 'pause frames in the interval' },
  'floodgate.creditShare': { entity: [], units: ['ratio'], what: 'credit bytes over all bytes sent on switch-to-switch links in the interval (the paper: 0.175 %)' },
} as const satisfies Record<string, SeriesKindDef>

// One place maps a scheme name to its forwarding stage, so adding a scheme (CONGA, HULA,
// DHLB, Floodgate) is one new file plus one case here.

import type { SimContext } from '../engine/context'
import { fmix32, type Rng } from '../engine/rng'
import type { UplinkSelector } from '../net/switch'
import type { SchemeName } from '../types'
import { EcmpSelector } from './ecmp'
import { RpsSelector } from './rps'

export function createSelector(
  scheme: SchemeName,
  ctx: SimContext,
  rng: Rng,
  switchIndex: number,
  uplinks: number,
): UplinkSelector {
  switch (scheme) {
    case 'ecmp':
      return new EcmpSelector(ctx.pkts, fmix32(switchIndex + 0x51ed27) | 0, uplinks)
    case 'rps':
      return new RpsSelector(rng, uplinks)
    default:
      throw new Error(`unknown forwarding scheme '${String(scheme)}': expected 'ecmp' or 'rps'`)
  }
}

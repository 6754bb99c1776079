// Random packet spraying: each packet picks an uplink uniformly at random, which balances
// load perfectly on average but reorders a flow's packets whenever the paths' queues
// differ. The PRNG is a stream of its own, so spraying never perturbs the workload.

import type { Rng } from '../engine/rng'
import type { UplinkSelector } from '../net/switch'

export class RpsSelector implements UplinkSelector {
  constructor(
    private readonly rng: Rng,
    private readonly uplinks: number,
  ) {}

  selectUplink(_p: number): number {
    return this.rng.nextInt(this.uplinks)
  }
}

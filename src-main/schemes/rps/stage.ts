// Random packet spraying: each packet picks a candidate uniformly at random, which balances
// load perfectly on average but reorders a flow's packets whenever the paths' queues
// differ. The PRNG is a stream of its own, so spraying never perturbs the workload.

import type { Rng } from '../../sim/engine/rng'
import type { ForwardingStage, StageEnv } from '../../sim/routing/stage'

export class RpsStage implements ForwardingStage {
  readonly seesEveryHop = false
  private readonly rng: Rng

  constructor(env: StageEnv) {
    this.rng = env.rng
  }

  select(_s: number, _inPort: number, _p: number, cand: Int32Array, off: number, len: number): number {
    return cand[off + this.rng.nextInt(len)]
  }
}

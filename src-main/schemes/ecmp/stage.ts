// ECMP: every packet of a flow direction carries the same 5-tuple hash, so it always takes
// the same member of the candidate group and a flow never sees reordering. The per-switch
// salt stops switches in different tiers from making correlated choices (hash polarization).

import type { PacketPool } from '../../sim/engine/packets'
import { fmix32 } from '../../sim/engine/rng'
import type { ForwardingStage, StageEnv } from '../../sim/routing/stage'

export class EcmpStage implements ForwardingStage {
  readonly seesEveryHop = false
  private readonly salt: Int32Array
  /** The pool object is stable; its arrays are replaced when it grows, so read them through it. */
  private readonly pkts: PacketPool

  constructor(env: StageEnv) {
    this.pkts = env.ctx.pkts
    this.salt = new Int32Array(env.nSwitches)
    for (let s = 0; s < env.nSwitches; s++) this.salt[s] = fmix32(s + 0x51ed27) | 0
  }

  select(s: number, _inPort: number, p: number, cand: Int32Array, off: number, len: number): number {
    // Masked to 31 bits so the modulo stays an integer operation.
    return cand[off + ((fmix32(this.pkts.hash[p] ^ this.salt[s]) & 0x7fffffff) % len)]
  }
}

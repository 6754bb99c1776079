// ECMP: every packet of a flow direction carries the same 5-tuple hash, so it always takes
// the same uplink and a flow never sees reordering. The per-switch salt stops switches in
// different tiers from making correlated choices (hash polarization) once topologies
// grow more tiers.

import type { PacketPool } from '../engine/packets'
import { fmix32 } from '../engine/rng'
import type { UplinkSelector } from '../net/switch'

export class EcmpSelector implements UplinkSelector {
  constructor(
    private readonly pkts: PacketPool,
    private readonly salt: number,
    private readonly uplinks: number,
  ) {}

  selectUplink(p: number): number {
    return fmix32(this.pkts.hash[p] ^ this.salt) % this.uplinks
  }
}

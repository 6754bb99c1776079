// What a workload needs to know of the fabric: how many hosts, which rack each is on,
// and the host link rate that load is relative to.

import { destinationGroups, type Destinations } from '../../model/topology/destinations'
import type { Fabric } from '../../model/topology/types'

export class HostLayout {
  readonly hosts: number
  /** ToR index of each host. */
  readonly torOfHost: Int32Array
  /** The hosts of each ToR, in host order. */
  readonly rackHosts: number[][]
  /** Whether every rack's hosts are consecutive indices (all built fabrics are). */
  private readonly contiguous: boolean

  constructor(
    readonly fabric: Fabric,
    readonly hostLinkBps: number,
  ) {
    const f = fabric // short name for the lines below
    this.hosts = f.hosts.length
    const torIndex = new Map<number, number>()
    f.tors.forEach((node, t) => torIndex.set(node, t))
    this.torOfHost = Int32Array.from(f.torOfHost, (node) => torIndex.get(node)!)
    this.rackHosts = f.tors.map(() => [])
    for (let h = 0; h < this.hosts; h++) this.rackHosts[this.torOfHost[h]].push(h)
    this.contiguous = this.rackHosts.every((r) => r.length === 0 || r[r.length - 1] - r[0] === r.length - 1)
  }

  /** Number of hosts on racks other than h's. */
  othersCount(h: number): number {
    return this.hosts - this.rackHosts[this.torOfHost[h]].length
  }

  /** The r-th host (0 <= r < othersCount(h)) not on h's rack, in host order. */
  otherHost(h: number, r: number): number {
    const rack = this.rackHosts[this.torOfHost[h]]
    if (this.contiguous) return r < rack[0] ? r : r + rack.length
    for (let x = 0; x < this.hosts; x++) {
      if (this.torOfHost[x] === this.torOfHost[h]) continue
      if (r-- === 0) return x
    }
    throw new Error(`no host ${r} off the rack of host ${h}`)
  }

  racksWithHosts(): number {
    return this.rackHosts.filter((r) => r.length > 0).length
  }
}

/**
 * Random destinations for a source: uniform over the hosts outside its group (its rack, or
 * its pod; topology/destinations.ts), in host order. For `other-racks` that is the hosts
 * HostLayout.otherHost counts, in the same order, so a workload draws the very same flows as
 * before the option existed.
 */
export class DestinationPicker {
  private readonly others = new Map<number, Int32Array>()
  private readonly group: Int32Array

  constructor(
    private readonly layout: HostLayout,
    mode: Destinations = 'other-racks',
  ) {
    this.group = destinationGroups(layout.fabric, mode)
  }

  /** How many hosts `src` may send to. */
  count(src: number): number {
    return this.outside(src).length
  }

  /** The r-th of them (0 <= r < count(src)), in host order. */
  pick(src: number, r: number): number {
    return this.outside(src)[r]
  }

  private outside(src: number): Int32Array {
    const g = this.group[src]
    let list = this.others.get(g)
    if (!list) {
      const hosts: number[] = []
      for (let h = 0; h < this.layout.hosts; h++) if (this.group[h] !== g) hosts.push(h)
      list = Int32Array.from(hosts)
      this.others.set(g, list)
    }
    return list
  }
}

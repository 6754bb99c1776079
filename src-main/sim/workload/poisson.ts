// Poisson arrivals: each host is an independent Poisson source at
// load × hostLinkBps / 8 / meanFlowBytes flows/s; the streams are merged in time order
// until exactly `flows` flows exist. Destinations are uniform over the hosts of other
// racks (or of other pods: `destinations`). Arrival times are whole nanoseconds so the
// reported start times are exact. The workload has its own PRNG stream, so runs of
// different schemes with one seed see the very same flows.

import { Rng } from '../engine/rng'
import type { PoissonWorkload } from '../types'
import { cdfMean, checkCdf, sampleCdf } from './cdf'
import { DestinationPicker, type HostLayout } from './layout'
import { FlowList } from './list'

export const WORKLOAD_STREAM = 1

export function poissonFlows(workload: Omit<PoissonWorkload, 'kind'>, layout: HostLayout, seed: number, where = 'workload'): FlowList {
  const hosts = layout.hosts
  checkCdf(workload.cdf)
  if (!(workload.load > 0 && workload.load <= 1)) throw new Error(`${where}.load must be in (0, 1], got ${workload.load}`)
  if (!(Number.isInteger(workload.flows) && workload.flows >= 0)) {
    throw new Error(`${where}.flows must be a non-negative integer, got ${workload.flows}`)
  }
  if (layout.racksWithHosts() < 2) {
    throw new Error('a Poisson workload needs at least 2 racks (leaves) with hosts: destinations are on other racks')
  }
  const picker = new DestinationPicker(layout, workload.destinations)
  const mean = cdfMean(workload.cdf)
  const perHostRate = (workload.load * layout.hostLinkBps) / 8 / mean
  const meanGapNs = 1e9 / perHostRate
  const rng = new Rng(seed, WORKLOAD_STREAM)
  const gapNs = (): number => Math.max(1, Math.round(-Math.log(1 - rng.nextFloat()) * meanGapNs))

  const nextNs = new Float64Array(hosts)
  for (let h = 0; h < hosts; h++) nextNs[h] = gapNs()
  const list = new FlowList()
  for (let f = 0; f < workload.flows; f++) {
    let src = 0
    for (let h = 1; h < hosts; h++) if (nextNs[h] < nextNs[src]) src = h
    const size = sampleCdf(workload.cdf, rng.nextFloat())
    const dst = picker.pick(src, rng.nextInt(picker.count(src)))
    list.add(src, dst, size, nextNs[src] * 1000)
    nextNs[src] += gapNs()
  }
  return list
}

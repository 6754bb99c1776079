// Poisson arrivals: each host is an independent Poisson source at
// load × hostLinkBps / 8 / meanFlowBytes flows/s; the streams are merged in time order
// until exactly `flows` flows exist. Arrival times are whole nanoseconds so the reported
// start times are exact. The workload has its own PRNG stream, so ECMP and RPS runs with
// one seed see the very same flows.

import { Rng } from '../engine/rng'
import { FlowTable } from '../tcp/flows'
import type { LeafSpineTopology, WorkloadConfig } from '../types'
import { cdfMean, checkCdf, sampleCdf } from './cdf'

export type PoissonWorkload = Extract<WorkloadConfig, { kind: 'poisson' }>

export const WORKLOAD_STREAM = 1

export function poissonFlows(
  workload: PoissonWorkload,
  topo: LeafSpineTopology,
  mss: number,
  seed: number,
): FlowTable {
  const hosts = topo.leaves * topo.hostsPerLeaf
  checkCdf(workload.cdf)
  if (!(workload.load > 0 && workload.load <= 1)) throw new Error(`workload.load must be in (0, 1], got ${workload.load}`)
  if (!(Number.isInteger(workload.flows) && workload.flows >= 0)) {
    throw new Error(`workload.flows must be a non-negative integer, got ${workload.flows}`)
  }
  if (topo.leaves < 2) throw new Error('a Poisson workload needs at least 2 leaves (destinations are on other leaves)')
  const mean = cdfMean(workload.cdf)
  const perHostRate = (workload.load * topo.hostLinkBps) / 8 / mean
  const meanGapNs = 1e9 / perHostRate
  const rng = new Rng(seed, WORKLOAD_STREAM)
  const gapNs = (): number => Math.max(1, Math.round(-Math.log(1 - rng.nextFloat()) * meanGapNs))

  const nextNs = new Float64Array(hosts)
  for (let h = 0; h < hosts; h++) nextNs[h] = gapNs()
  const flows = new FlowTable(workload.flows, mss)
  const others = hosts - topo.hostsPerLeaf
  for (let f = 0; f < workload.flows; f++) {
    let src = 0
    for (let h = 1; h < hosts; h++) if (nextNs[h] < nextNs[src]) src = h
    const size = sampleCdf(workload.cdf, rng.nextFloat())
    const r = rng.nextInt(others)
    const leafBase = Math.floor(src / topo.hostsPerLeaf) * topo.hostsPerLeaf
    const dst = r < leafBase ? r : r + topo.hostsPerLeaf
    flows.set(f, src, dst, size, nextNs[src] * 1000)
    nextNs[src] += gapNs()
  }
  return flows
}

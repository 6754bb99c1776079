// Shared configs for the simulator tests: small fabrics so the suite stays fast.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadCdf, type SimConfig, type LeafSpineTopology, type Topology, type WorkloadConfig } from '../../src-main/sim'

export const webSearch = loadCdf(
  readFileSync(join(__dirname, '../../resources/workloads/web-search.cdf'), 'utf8'),
)

export function topo(over: Partial<LeafSpineTopology> = {}): LeafSpineTopology {
  return {
    kind: 'leaf-spine',
    leaves: 2,
    spines: 2,
    hostsPerLeaf: 4,
    hostLinkBps: 10e9,
    fabricLinkBps: 40e9,
    linkDelayNs: 1000,
    queuePackets: 500,
    ...over,
  }
}

export function config(workload: WorkloadConfig, over: Partial<SimConfig> = {}): SimConfig {
  return {
    topology: topo(),
    scheme: 'ecmp',
    transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
    workload,
    seed: 1,
    telemetryIntervalNs: 100_000,
    maxSimTimeNs: 10e9,
    ...over,
  }
}

export function meanFct(r: { flows: { startNs: Float64Array; finishNs: Float64Array } }): number {
  let s = 0
  const n = r.flows.startNs.length
  for (let i = 0; i < n; i++) s += r.flows.finishNs[i] - r.flows.startNs[i]
  return s / n
}

const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000, queuePackets: 100 }
/** A k=4 fat-tree: 16 hosts, 20 switches, 4 paths between pods. */
export const FAT_TREE: Topology = { kind: 'fat-tree', k: 4, ...RATES }
/** HULA's 3-tier fabric (the HULA paper, Fig. 4): 32 hosts, 8 paths between pods. */
export const THREE_TIER: Topology = {
  kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, ...RATES,
}

// Turns a workload config into the run's flow table.

import type { FlowTable } from '../tcp/flows'
import type { LeafSpineTopology, WorkloadConfig } from '../types'
import { explicitFlows } from './explicit'
import { poissonFlows } from './poisson'

export function buildFlows(workload: WorkloadConfig, topo: LeafSpineTopology, mss: number, seed: number): FlowTable {
  if (workload.kind === 'explicit') return explicitFlows(workload.flows, topo, mss)
  if (workload.kind === 'poisson') return poissonFlows(workload, topo, mss, seed)
  throw new Error(`unknown workload kind '${String((workload as { kind: unknown }).kind)}'`)
}

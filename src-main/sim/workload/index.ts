// Turns a workload config into the run's flow table.

import type { FlowTable } from '../tcp/flows'
import type { WorkloadConfig } from '../types'
import { explicitFlows } from './explicit'
import { incastFlows } from './incast'
import type { HostLayout } from './layout'
import { longLivedFlows, permutationFlows } from './longlived'
import { poissonFlows } from './poisson'

export function buildFlows(workload: WorkloadConfig, layout: HostLayout, mss: number, seed: number): FlowTable {
  switch (workload.kind) {
    case 'explicit':
      return explicitFlows(workload.flows, layout).toTable(mss)
    case 'poisson':
      return poissonFlows(workload, layout, seed).toTable(mss)
    case 'incast':
      return incastFlows(workload, layout, seed).toTable(mss)
    case 'long-lived':
      return longLivedFlows(workload, layout, seed).toTable(mss)
    case 'permutation':
      return permutationFlows(workload, layout, seed).toTable(mss)
  }
  throw new Error(`unknown workload kind '${String((workload as { kind: unknown }).kind)}'`)
}

// Turns a workload config into the run's flow table.

import type { FlowTable } from '../tcp/flows'
import type { WorkloadConfig } from '../types'
import { clientServerFlows } from './clientserver'
import { explicitConnections, explicitFlows } from './explicit'
import { incastFlows } from './incast'
import type { HostLayout } from './layout'
import { longLivedFlows, permutationFlows } from './longlived'
import { poissonFlows } from './poisson'

export function buildFlows(workload: WorkloadConfig, layout: HostLayout, mss: number, seed: number): FlowTable {
  switch (workload.kind) {
    case 'explicit': {
      const list = explicitFlows(workload.flows, layout)
      const conns = explicitConnections(workload.flows)
      return conns === null ? list.toTable(mss) : list.toConnectionTable(conns, mss)
    }
    case 'poisson': {
      if (workload.connections === undefined) return poissonFlows(workload, layout, seed).toTable(mss)
      const { list, connOf } = clientServerFlows(workload, workload.connections, layout, seed)
      return list.toConnectionTable(connOf, mss)
    }
    case 'incast':
      return incastFlows(workload, layout, seed).toTable(mss)
    case 'long-lived':
      return longLivedFlows(workload, layout, seed).toTable(mss)
    case 'permutation':
      return permutationFlows(workload, layout, seed).toTable(mss)
  }
  throw new Error(`unknown workload kind '${String((workload as { kind: unknown }).kind)}'`)
}

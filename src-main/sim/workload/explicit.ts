// Explicit workloads: the caller lists every flow (tests, incast and long-lived setups).
// Validation errors name the offending flow.

import { FlowTable } from '../tcp/flows'
import type { ExplicitFlow, LeafSpineTopology } from '../types'

export function explicitFlows(list: ExplicitFlow[], topo: LeafSpineTopology, mss: number): FlowTable {
  const hosts = topo.leaves * topo.hostsPerLeaf
  const flows = new FlowTable(list.length, mss)
  list.forEach((fl, i) => {
    const ok =
      Number.isInteger(fl.src) && Number.isInteger(fl.dst) && fl.src >= 0 && fl.dst >= 0 &&
      fl.src < hosts && fl.dst < hosts && fl.src !== fl.dst
    if (!ok) throw new Error(`workload.flows[${i}]: src and dst must be distinct hosts in 0..${hosts - 1}`)
    if (!(fl.sizeBytes >= 1) || !(fl.startNs >= 0)) {
      throw new Error(`workload.flows[${i}]: sizeBytes must be >= 1 and startNs >= 0`)
    }
    flows.set(i, fl.src, fl.dst, Math.ceil(fl.sizeBytes), Math.round(fl.startNs * 1000))
  })
  return flows
}

// Explicit workloads: the caller lists every flow (tests, hand-made scenarios).
// Validation errors name the offending flow.

import type { ExplicitFlow } from '../types'
import type { HostLayout } from './layout'
import { FlowList } from './list'

export function explicitFlows(list: ExplicitFlow[], layout: HostLayout): FlowList {
  list.forEach((fl, i) => {
    if (fl.connection !== undefined && !Number.isInteger(fl.connection)) {
      throw new Error(`workload.flows[${i}].connection must be an integer label, got ${fl.connection}`)
    }
  })
  const hosts = layout.hosts
  const out = new FlowList()
  list.forEach((fl, i) => {
    const ok =
      Number.isInteger(fl.src) && Number.isInteger(fl.dst) && fl.src >= 0 && fl.dst >= 0 &&
      fl.src < hosts && fl.dst < hosts && fl.src !== fl.dst
    if (!ok) throw new Error(`workload.flows[${i}]: src and dst must be distinct hosts in 0..${hosts - 1}`)
    if (!(fl.sizeBytes >= 1) || !Number.isFinite(fl.sizeBytes) || !(fl.startNs >= 0)) {
      throw new Error(`workload.flows[${i}]: sizeBytes must be finite and >= 1, and startNs >= 0`)
    }
    out.add(fl.src, fl.dst, Math.ceil(fl.sizeBytes), Math.round(fl.startNs * 1000))
  })
  return out
}

/**
 * The connection label of each flow when any flow names one: flows without a label get one
 * of their own (below every given label, so they never collide); null when none does.
 */
export function explicitConnections(list: ExplicitFlow[]): Int32Array | null {
  if (list.every((fl) => fl.connection === undefined)) return null
  const min = Math.min(0, ...list.map((fl) => fl.connection ?? 0))
  return Int32Array.from(list, (fl, i) => fl.connection ?? min - 1 - i)
}

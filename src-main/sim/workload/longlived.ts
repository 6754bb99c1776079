// Long-lived flows: given pairs, or `flows` random pairs (source uniform, destination
// uniform over other racks), all starting at startNs, unbounded unless sizeBytes is given.
// And the permutation: every host sends one flow to another host, the destinations a
// uniformly random derangement (a permutation with no host sending to itself).

import { Rng } from '../engine/rng'
import type { LongLivedWorkload, PermutationWorkload } from '../types'
import type { HostLayout } from './layout'
import { FlowList } from './list'
import { WORKLOAD_STREAM } from './poisson'

function sizeOf(size: number | undefined, where: string): number {
  if (size === undefined) return Infinity
  if (!(size >= 1 && Number.isFinite(size))) throw new Error(`${where}.sizeBytes must be a finite number >= 1, got ${size}`)
  return Math.ceil(size)
}

function startOf(startNs: number | undefined, where: string): number {
  const s = startNs ?? 0
  if (!(s >= 0 && Number.isFinite(s))) throw new Error(`${where}.startNs must be >= 0, got ${s}`)
  return Math.round(s * 1000)
}

export function longLivedFlows(w: LongLivedWorkload, layout: HostLayout, seed: number): FlowList {
  const size = sizeOf(w.sizeBytes, 'workload')
  const startPs = startOf(w.startNs, 'workload')
  const out = new FlowList()
  const hosts = layout.hosts
  if (w.pairs !== undefined) {
    w.pairs.forEach(([src, dst], i) => {
      const ok = Number.isInteger(src) && Number.isInteger(dst) && src >= 0 && dst >= 0 && src < hosts && dst < hosts && src !== dst
      if (!ok) throw new Error(`workload.pairs[${i}]: [${src}, ${dst}] must be two distinct hosts in 0..${hosts - 1}`)
      out.add(src, dst, size, startPs)
    })
    return out
  }
  const n = w.flows ?? 0
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`workload: give pairs, or flows as an integer >= 1 (got ${w.flows})`)
  if (layout.racksWithHosts() < 2) throw new Error('random long-lived flows need at least 2 racks with hosts')
  const rng = new Rng(seed, WORKLOAD_STREAM)
  for (let i = 0; i < n; i++) {
    const src = rng.nextInt(hosts)
    out.add(src, layout.otherHost(src, rng.nextInt(layout.othersCount(src))), size, startPs)
  }
  return out
}

/** A uniformly random derangement of 0..n-1 (Fisher-Yates, redrawn while any point is fixed). */
export function derangement(n: number, rng: Rng): Int32Array {
  const p = new Int32Array(n)
  for (;;) {
    for (let i = 0; i < n; i++) p[i] = i
    for (let i = n - 1; i > 0; i--) {
      const j = rng.nextInt(i + 1)
      const t = p[i]
      p[i] = p[j]
      p[j] = t
    }
    let fixed = false
    for (let i = 0; i < n && !fixed; i++) fixed = p[i] === i
    if (!fixed) return p
  }
}

export function permutationFlows(w: PermutationWorkload, layout: HostLayout, seed: number): FlowList {
  const size = sizeOf(w.sizeBytes, 'workload')
  const startPs = startOf(w.startNs, 'workload')
  if (layout.hosts < 2) throw new Error('a permutation needs at least 2 hosts')
  const perm = derangement(layout.hosts, new Rng(seed, WORKLOAD_STREAM))
  const out = new FlowList()
  for (let h = 0; h < layout.hosts; h++) out.add(h, perm[h], size, startPs)
  return out
}

// Which hosts a source may send to in a random-destination workload. The papers draw
// destinations uniformly over the hosts of other racks; `other-pods`
// narrows that to hosts in other pods, so that every flow crosses the spine layer (what an
// asymmetry between pods, such as HULA's Fig. 6, acts on); `any` is every other host. The simulator and the real
// testbeds' traffic agents use this one rule.

import type { Fabric } from './types'

export type Destinations = 'other-racks' | 'other-pods' | 'any'
export const DESTINATIONS: readonly Destinations[] = ['other-racks', 'other-pods', 'any']

/** Why `other-pods` cannot be used on this fabric (it has fewer than 2 pods), or undefined. */
export function otherPodsProblem(f: Fabric): string | undefined {
  const pods = new Set(f.torOfHost.map((tor) => f.nodes[tor].pod))
  if (pods.size >= 2 && !pods.has(-1)) return undefined
  return `other-pods needs a fabric with at least 2 pods (three-tier or fat-tree); a ${f.kind} has ${f.kind === 'leaf-spine' ? 'none' : 'one'}`
}

/**
 * The group of each host (by host index) that destinations must lie outside: its ToR's
 * node id for `other-racks`, its pod for `other-pods`. Throws, naming the problem, when the
 * fabric has no pods to tell apart.
 */
export function destinationGroups(f: Fabric, mode: Destinations): Int32Array {
  if (mode === 'other-racks') return Int32Array.from(f.torOfHost)
  // `any`: every other host, its own rack included (each host is a group of its own).
  if (mode === 'any') return Int32Array.from(f.torOfHost, (_, h) => -1 - h)
  const problem = otherPodsProblem(f)
  if (problem) throw new Error(`destinations: ${problem}`)
  return Int32Array.from(f.torOfHost, (tor) => f.nodes[tor].pod)
}

/** Whether host `dst` is a valid destination of host `src` under `mode`. */
export function destinationRule(f: Fabric, mode: Destinations): (src: number, dst: number) => boolean {
  const group = destinationGroups(f, mode)
  return (src, dst) => group[src] !== group[dst]
}

// The reroute measures of HULA's Fig. 9 (the HULA paper, ACM SOSR 2016: a link fails, HULA
// moves the load off it within a millisecond, and back when it comes up), as pure functions of
// the series sampled every telemetry interval (hula.bestHop, drops.unroutable), so a test can
// apply them to runs it makes itself. Times are upper bounds at the sampling resolution: a change is seen at the
// first sample after it.
//
// A *dead end* of switch s toward ToR t is a port of s in its routing group toward t whose
// every onward path to t (following the groups) crosses the failed link. Under data-plane
// failover (failover: local) no switch but the two at the ends of the link learns of the
// failure, so a packet a switch further away sends into a dead end is lost until that switch
// moves away from it: such packets are dropped for lack of a route where the dead end ends.
import { peer } from '../src-main/model/topology'
import type { Fabric } from '../src-main/model/topology/types'
import type { SimRoutes } from '../src-main/sim'

/** hula.bestHop samples: `series.get(switchName)?.get(dstTorName)` holds one port (or -1) per instant of `t`. */
export interface BestHops {
  t: ArrayLike<number>
  series: Map<string, Map<string, ArrayLike<number>>>
}

export interface Failure {
  /** Fabric link id. */
  link: number
  atNs: number
  /** When it comes back up; undefined: never. */
  recoverNs?: number
}

export interface RerouteTime {
  /** The worst (largest) time over what was measured, ns; Infinity if one never moved; NaN if nothing was measured. */
  worstNs: number
  /** How many (switch, ToR) pairs, or switches, were measured. */
  measured: number
}

/**
 * dead[s][t]: the ports of switch node s toward ToR index t that are dead ends for `link`,
 * for every switch not at either end of it (the ends' own port is down, not a dead end).
 */
export function deadEnds(f: Fabric, routes: SimRoutes, link: number): Map<number, number[][]> {
  const l = f.links[link]
  const out = new Map<number, number[][]>()
  const reachable = f.tors.map((tor, t) => {
    const memo = new Map<number, boolean>()
    const reach = (node: number): boolean => {
      if (node === tor) return true
      const known = memo.get(node)
      if (known !== undefined) return known
      memo.set(node, false)
      const group = routes.switches[node]?.toTor[t] ?? []
      const ok = group.some((p) => {
        const far = peer(f, node, p)
        return far.link.id !== link && reach(far.node)
      })
      memo.set(node, ok)
      return ok
    }
    return reach
  })
  for (const s of f.switches) {
    if (s === l.a || s === l.b) continue
    out.set(
      s,
      f.tors.map((tor, t) => (s === tor ? [] : (routes.switches[s]?.toTor[t] ?? []).filter((p) => !reachable[t](peer(f, s, p).node)))),
    )
  }
  return out
}

interface Pair {
  name: string
  dead: number[]
  hops: ArrayLike<number>
}

function exposedPairs(f: Fabric, routes: SimRoutes, failure: Failure, hops: BestHops): Pair[] {
  const pairs: Pair[] = []
  for (const [s, perTor] of deadEnds(f, routes, failure.link)) {
    const name = f.nodes[s].name
    perTor.forEach((dead, t) => {
      if (dead.length === 0) return
      const series = hops.series.get(name)?.get(f.nodes[f.tors[t]].name)
      if (series === undefined) throw new Error(`no hula.bestHop series for ${name} toward ${f.nodes[f.tors[t]].name}`)
      pairs.push({ name, dead, hops: series })
    })
  }
  return pairs
}

/** Index of the last sample before `ns`, or -1. */
function lastBefore(t: ArrayLike<number>, ns: number): number {
  let j = -1
  while (j + 1 < t.length && t[j + 1] < ns) j++
  return j
}

/**
 * Reroute time back after the recovery: for each switch not next to the link that has a dead
 * end toward some ToR, the time from the recovery to the first sample at which its best hop
 * toward some ToR (one learnt from probes, not a hash) is such a port again, i.e. leads over
 * the link; the worst over the switches, Infinity if one never does by the end of the run.
 */
export function rerouteBack(f: Fabric, routes: SimRoutes, failure: Failure, hops: BestHops): RerouteTime {
  if (failure.recoverNs === undefined) throw new Error('the failure has no recovery (recover:), so there is no reroute back to time')
  const { t } = hops
  const from = lastBefore(t, failure.recoverNs) + 1
  const bySwitch = new Map<string, Pair[]>()
  for (const p of exposedPairs(f, routes, failure, hops)) bySwitch.set(p.name, [...(bySwitch.get(p.name) ?? []), p])
  let worst = 0
  for (const pairs of bySwitch.values()) {
    let j = from
    while (j < t.length && !pairs.some((p) => p.dead.includes(p.hops[j]))) j++
    worst = Math.max(worst, j < t.length ? t[j] - failure.recoverNs : Infinity)
  }
  return { worstNs: bySwitch.size > 0 ? worst : NaN, measured: bySwitch.size }
}

/**
 * Reroute time at the two switches at the ends of the failed link: for each ToR toward which
 * one's best hop was the link's port at the last sample before the failure and which it can
 * still reach another way, the time to the first sample at which its best hop is another
 * port; the worst over them. With linkDownClear the stage drops such best hops at once.
 */
export function adjacentReroute(f: Fabric, routes: SimRoutes, failure: Failure, hops: BestHops): RerouteTime {
  const l = f.links[failure.link]
  const { t } = hops
  const before = lastBefore(t, failure.atNs)
  let worst = 0
  let measured = 0
  for (const [node, port] of [
    [l.a, l.aPort],
    [l.b, l.bPort],
  ]) {
    const name = f.nodes[node].name
    f.tors.forEach((tor, ti) => {
      const series = hops.series.get(name)?.get(f.nodes[tor].name)
      const group = routes.switches[node]?.toTor[ti] ?? []
      if (series === undefined || before < 0 || series[before] !== port || !group.some((p) => p !== port)) return
      measured++
      let j = before + 1
      while (j < t.length && (t[j] < failure.atNs || series[j] === port)) j++
      worst = Math.max(worst, j < t.length ? t[j] - failure.atNs : Infinity)
    })
  }
  return { worstNs: measured > 0 ? worst : NaN, measured }
}

/**
 * Reroute time away from the failure as the traffic shows it: the time from the failure to the
 * end of the last sampling interval, while the link is down, in which a packet was dropped for
 * lack of a live route (drops.unroutable: under failover: local, a packet a switch away from the
 * failure sent into a dead end). Infinity when such drops go on into the last interval before
 * the recovery (the switches never stopped); NaN when there was none at all (nothing was on
 * the dead paths, nothing to time).
 */
export function deadEndTraffic(t: ArrayLike<number>, unroutable: ArrayLike<number>, failure: Pick<Failure, 'atNs' | 'recoverNs'>): RerouteTime {
  const end = failure.recoverNs ?? Infinity
  let last = -1
  let lastDown = -1
  for (let j = 0; j < t.length; j++) {
    // Sample j counts the interval (t[j-1], t[j]]: keep those that start while the link is down.
    const start = j > 0 ? t[j - 1] : 0
    if (t[j] <= failure.atNs || start >= end) continue
    lastDown = j
    if (unroutable[j] > 0) last = j
  }
  if (last < 0) return { worstNs: NaN, measured: 0 }
  const stillAtEnd = last === lastDown && failure.recoverNs !== undefined
  return { worstNs: stillAtEnd ? Infinity : t[last] - failure.atNs, measured: 1 }
}

/**
 * Fig. 9b's deflection time: the time from the failure to the first sampling interval, wholly
 * after it and before the recovery, in which the rate delivered to the hosts is back to `share`
 * of its mean over the `windowNs` before the failure. NaN when the failed link carried nothing
 * at the last sample before the failure (no flow to deflect); Infinity when the rate is not
 * back before the recovery (or the end of the run).
 */
export function deflection(
  t: ArrayLike<number>,
  delivered: ArrayLike<number>,
  failedLinkUtil: ArrayLike<number>,
  failure: Pick<Failure, 'atNs' | 'recoverNs'>,
  share = 0.9,
  windowNs = 1e6,
): RerouteTime {
  const before = lastBefore(t, failure.atNs + 1)
  if (before < 0 || !(failedLinkUtil[before] > 0)) return { worstNs: NaN, measured: 0 }
  let sum = 0
  let n = 0
  for (let j = before; j >= 0 && t[j] > failure.atNs - windowNs; j--) {
    sum += delivered[j]
    n++
  }
  const level = sum / n
  const end = failure.recoverNs ?? Infinity
  for (let j = before + 1; j < t.length && t[j] <= end; j++) {
    if (t[j - 1] >= failure.atNs && delivered[j] >= share * level) return { worstNs: t[j] - failure.atNs, measured: 1 }
  }
  return { worstNs: Infinity, measured: 1 }
}

// Shared by the HULA and DHLB mechanism tests: HULA's 3-tier fabric with background load
// pinned to known links by explicit routes, series collection, and an independent
// computation of path metrics from measured link utilizations.
import { computeRoutes, type SimConfig, type SimResult, type SimRoutes, type SimSeriesDef } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { buildFabric, distancesTo, nodeByName, peer, shortestNextHops } from '../../src-main/model/topology'
import type { Fabric } from '../../src-main/model/topology/types'
import { config, THREE_TIER } from './helpers'

export const FABRIC = buildFabric(THREE_TIER)

/** Port of switch `from` that leads to node `to`. */
export function portTo(f: Fabric, from: string, to: string): number {
  const a = nodeByName(f, from)
  const b = nodeByName(f, to)
  const p = f.nodes[a].ports.findIndex((_, i) => peer(f, a, i).node === b)
  if (p < 0) throw new Error(`${from} has no link to ${to}`)
  return p
}

/**
 * Routes that pin traffic: tor1 → tor3 only over agg0, spine0, agg2, and tor1 → tor2 only
 * over agg1, spine1, agg3 (ACKs back the same way). Every other group is the full ECMP group.
 */
export function pinnedRoutes(f: Fabric = FABRIC): SimRoutes {
  const r = computeRoutes(f)
  const tor = (name: string): number => f.tors.indexOf(nodeByName(f, name))
  const pin = (path: string[], dst: string): void => {
    for (let i = 0; i + 1 < path.length; i++) {
      r.switches[nodeByName(f, path[i])].toTor[tor(dst)] = [portTo(f, path[i], path[i + 1])]
    }
  }
  pin(['tor1', 'agg0', 'spine0', 'agg2', 'tor3'], 'tor3')
  pin(['tor3', 'agg2', 'spine0', 'agg0', 'tor1'], 'tor1')
  pin(['tor1', 'agg1', 'spine1', 'agg3', 'tor2'], 'tor2')
  pin(['tor2', 'agg3', 'spine1', 'agg1', 'tor1'], 'tor1')
  return r
}

/**
 * Long-lived flows on the pinned routes: `onA` from tor1 to tor3 and `onB` from tor1 to tor2,
 * 10G each (hosts 8-15 hang off tor1, 16-23 off tor2, 24-31 off tor3). On 40G fabric links
 * the defaults load path A to 75 % and path B to 25 %.
 */
export function pinnedConfig(scheme: SimConfig['scheme'], over: Partial<SimConfig> = {}, onA = 3, onB = 1): SimConfig {
  const pairs: Array<[number, number]> = []
  for (let i = 0; i < onA; i++) pairs.push([8 + i, 24 + i])
  for (let i = 0; i < onB; i++) pairs.push([8 + onA + i, 16 + i])
  return config(
    { kind: 'long-lived', pairs },
    { topology: THREE_TIER, scheme, routes: pinnedRoutes(), maxSimTimeNs: 4_000_000, telemetryIntervalNs: 100_000, ...over },
  )
}

export interface Collected {
  r: SimResult
  defs: SimSeriesDef[]
  t: number[]
  /** Per series (defs order), its samples in t order. */
  v: number[][]
}

export function runCollect(cfg: SimConfig): Collected {
  let defs: SimSeriesDef[] = []
  const t: number[] = []
  let v: number[][] = []
  const r = runSim(cfg, {
    onSeries: (d) => {
      defs = d
      v = d.map(() => [])
    },
    onTelemetry: (ts, values) => {
      const n = ts.length
      for (let j = 0; j < n; j++) t.push(ts[j])
      for (let i = 0; i < defs.length; i++) for (let j = 0; j < n; j++) v[i].push(values[i * n + j])
    },
  })
  return { r, defs, t, v }
}

/** The samples of the one series of `kind` whose entity has these fields. */
export function series(c: Collected, kind: string, entity: Record<string, string | number>): number[] {
  const i = c.defs.findIndex((d) => d.kind === kind && Object.entries(entity).every(([k, x]) => d.entity[k] === x))
  if (i < 0) throw new Error(`no series ${kind} ${JSON.stringify(entity)}`)
  return c.v[i]
}

/** Mean utilization of every switch egress port over samples with t > fromNs, by "switch:port". */
export function linkUtils(c: Collected, fromNs: number): Map<string, number> {
  const out = new Map<string, number>()
  c.defs.forEach((d, i) => {
    if (d.kind !== 'link.util') return
    let s = 0
    let n = 0
    c.t.forEach((tNs, j) => {
      if (tNs > fromNs) {
        s += c.v[i][j]
        n++
      }
    })
    out.set(`${d.entity.switch}:${d.entity.port}`, s / n)
  })
  return out
}

/**
 * Over the shortest-path DAG toward ToR `dst`, the best path metric from every switch:
 * combine(link, rest) along a path, choose(a, b) between next hops. Returns per node id the
 * metric of the best path, and per (node, port) the metric of the best path through port.
 */
export function pathMetric(
  f: Fabric,
  dst: string,
  linkMetric: (node: number, port: number) => number,
  combine: (link: number, rest: number) => number,
  better: (a: number, b: number) => boolean,
  atDst: number,
): { best: Map<number, number>; viaPort: Map<string, number> } {
  const target = nodeByName(f, dst)
  const dist = distancesTo(f, target)
  const order = f.switches.filter((s) => dist[s] > 0).sort((a, b) => dist[a] - dist[b])
  const best = new Map<number, number>([[target, atDst]])
  const viaPort = new Map<string, number>()
  for (const s of order) {
    let m: number | undefined
    for (const p of shortestNextHops(f, s, dist)) {
      const x = combine(linkMetric(s, p), best.get(peer(f, s, p).node)!)
      viaPort.set(`${s}:${p}`, x)
      if (m === undefined || better(x, m)) m = x
    }
    best.set(s, m!)
  }
  return { best, viaPort }
}

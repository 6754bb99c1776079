// The contract's runs.fabric, runs.events, runs.logs and runs.flows: what the fabric, traffic and INT
// views read besides the series.
import type { FabricGraph, Handlers } from '../../contract'
import type { Topology } from '../../sim/types'
import { buildFabric, type Fabric } from '../../model/topology'
import { CoreError, notFound } from '../errors'
import { idealFctOfSpec } from '../slowdown'
import type { ExperimentSpec } from '../spec'
import type { Store } from '../store'

type FabricHandlers = Pick<Handlers, 'runs.fabric' | 'runs.events' | 'runs.logs' | 'runs.flows'>

/** The fabric graph of a run: the topology its own record says it ran on (an edit since changes nothing), built as the run built it. */
export function runFabric(store: Store, runId: number): FabricGraph {
  const run = store.getRun(runId)
  if (!run) throw notFound('run', runId)
  const exp = store.getExperiment(run.experimentId)
  if (!exp) throw notFound('experiment', run.experimentId)
  const ranWith = store.getRunRecord(runId)?.spec ?? exp.spec
  const topology = (ranWith as Partial<ExperimentSpec> | null)?.topology as Topology | undefined
  if (!topology || typeof topology !== 'object' || !('kind' in topology)) {
    throw new CoreError('not-found', `run ${runId}: experiment ${exp.id} has no stored topology; save the experiment again to store it`)
  }
  return fabricGraph(buildFabric(topology), topology.queuePackets)
}

/** A built fabric as the contract's graph. */
export function fabricGraph(f: Fabric, queuePackets: number): FabricGraph {
  const name = (id: number) => f.nodes[id].name
  return {
    kind: f.kind,
    nodes: f.nodes.map((n) => ({ name: n.name, role: n.role, level: n.level, pod: n.pod })),
    links: f.links.map((l) => ({ name: l.name, a: name(l.a), aPort: l.aPort, b: name(l.b), bPort: l.bPort, bps: l.bps })),
    hosts: f.hosts.map(name),
    queuePackets,
  }
}

export function fabricHandlers(store: Store): FabricHandlers {
  const getRun = (id: number) => {
    const r = store.getRun(id)
    if (!r) throw notFound('run', id)
    return r
  }
  return {
    'runs.fabric': async ({ id }) => runFabric(store, id),
    'runs.events': async ({ id, kinds, limit }) => {
      getRun(id)
      let rows = store.listEvents(id)
      if (kinds && kinds.length > 0) {
        rows = rows.filter((e) => kinds.some((k) => (k.endsWith('.') ? e.kind.startsWith(k) : e.kind === k)))
      }
      if (limit !== undefined && rows.length > limit) rows = rows.slice(rows.length - limit)
      return rows.map((e) => ({ id: e.id, tNs: e.tNs, at: e.at, kind: e.kind, detail: e.detail }))
    },
    'runs.logs': async ({ id, limit }) => {
      getRun(id)
      return store.listLogs(id, { limit }).map((r) => ({ t: r.at, source: r.source, line: r.line }))
    },
    'runs.flows': async ({ id }) => {
      getRun(id)
      const rows = store.listFlows(id)
      const n = rows.length
      const out = { src: new Array<number>(n), dst: new Array<number>(n), sizeBytes: new Array<number>(n), startNs: new Array<number>(n), finishNs: new Array<number>(n), slowdown: new Array<number | null>(n) }
      // Each flow's slowdown on the fabric the run's record holds (null: unfinished, or no ideal to go by).
      const run = store.getRun(id)!
      const ideal = idealFctOfSpec(store.getRunRecord(id)?.spec ?? store.getExperiment(run.experimentId)?.spec)
      rows.forEach((r, i) => {
        out.src[i] = r.src
        out.dst[i] = r.dst
        out.sizeBytes[i] = r.sizeBytes
        out.startNs[i] = r.startNs
        out.finishNs[i] = r.finishNs ?? -1
        const id = r.fctNs === null || !ideal ? null : ideal(r.src, r.dst, r.sizeBytes)
        out.slowdown[i] = id !== null && id > 0 ? r.fctNs! / id : null
      })
      return out
    },
  }
}

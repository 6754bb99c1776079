// The contract's experiments.fabric, experiments.layout and experiments.saveLayout: the fabric an
// experiment text builds before any run (the editor and the Fabric tab draw it), and where the
// editor's nodes sit.
import { parse } from 'yaml'
import type { Handlers, TopologyLinkMark } from '../../contract'
import { buildFabric, type Fabric, type FabricSpec } from '../../model/topology'
import { notFound } from '../errors'
import { canonicalLink, toTopology } from '../spec/checks'
import { failureSchema, topologySchema } from '../spec/schema'
import type { Store } from '../store'
import { fabricGraph } from './fabric'

type TopologyHandlers = Pick<Handlers, 'experiments.fabric' | 'experiments.layout' | 'experiments.saveLayout'>
/** experiments.validate's answer for a text read as the picked file or as the stored experiment `from`. */
type Validate = (yaml: string, file: string | undefined, from: number | undefined) => Handlers['experiments.validate'] extends (r: never) => Promise<infer R> ? R : never

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The fabric as written (remove applied when its names are all known, else without it), or null when the topology block is not valid on its own. */
function build(rawTopology: unknown): { fabric: Fabric; queuePackets: number; removed: string[]; hostBps: number; fabricBps: number } | null {
  const parsed = topologySchema.safeParse(rawTopology)
  if (!parsed.success) return null
  const topo = toTopology(parsed.data)
  let whole: Fabric
  try {
    whole = buildFabric({ ...topo, remove: undefined, rates: undefined } as FabricSpec)
  } catch {
    return null
  }
  const removed = (topo.remove ?? []).map((n) => canonicalLink(whole, n)).filter((n): n is string => n !== undefined)
  const rates = Object.fromEntries(Object.entries(topo.rates ?? {}).flatMap(([n, bps]) => (canonicalLink(whole, n) ? [[canonicalLink(whole, n)!, bps]] : [])))
  let fabric: Fabric
  try {
    fabric = buildFabric({ ...topo, remove: removed, rates } as FabricSpec)
  } catch {
    fabric = whole
  }
  return { fabric, queuePackets: parsed.data.queuePackets, removed, hostBps: topo.hostLinkBps, fabricBps: topo.fabricLinkBps }
}

/** Each link's delay, loss, slowness and failure times, for the graph. */
function marks(built: NonNullable<ReturnType<typeof build>>, rawFailures: unknown): TopologyLinkMark[] {
  const { fabric } = built
  const failing = new Map<string, { at: number; recover: number | null }>()
  if (Array.isArray(rawFailures)) {
    for (const raw of rawFailures) {
      const f = failureSchema.safeParse(raw)
      if (!f.success) continue
      const name = canonicalLink(fabric, f.data.link)
      if (name !== undefined && !failing.has(name)) failing.set(name, { at: f.data.at, recover: f.data.recover ?? null })
    }
  }
  return fabric.links.map((l) => {
    const host = fabric.nodes[l.b].role === 'host'
    const fail = failing.get(l.name)
    return {
      link: l.name,
      delayNs: l.delayNs,
      loss: (l as { loss?: number }).loss ?? 0,
      slow: l.bps < (host ? built.hostBps : built.fabricBps),
      failAtNs: fail?.at ?? null,
      recoverAtNs: fail?.recover ?? null,
    }
  })
}

export function topologyHandlers(store: Store, validate: Validate): TopologyHandlers {
  const experiment = (id: number) => {
    if (!store.getExperiment(id)) throw notFound('experiment', id)
  }
  return {
    'experiments.fabric': async ({ yaml, file, from }) => {
      const { errors } = validate(yaml, file, from)
      let raw: unknown
      try {
        raw = parse(yaml)
      } catch {
        return { graph: null, marks: [], removed: [], errors }
      }
      const built = isMapping(raw) ? build(raw.topology) : null
      if (!built || !isMapping(raw)) return { graph: null, marks: [], removed: [], errors }
      return { graph: fabricGraph(built.fabric, built.queuePackets), marks: marks(built, raw.failures), removed: built.removed, errors }
    },
    'experiments.layout': async ({ id }) => {
      experiment(id)
      return store.getLayout(id)
    },
    'experiments.saveLayout': async ({ id, positions }) => {
      experiment(id)
      return store.saveLayout(id, positions)
    },
  }
}

import { leafSpineUplinkBps } from '../../model/topology/build'
import { buildFabric, distancesTo, otherPodsProblem, reverseLinkName, TopologyError, type CustomLinkSpec, type Fabric, type FabricSpec } from '../../model/topology'
import type { Topology } from '../../sim/types'
import { formatDuration } from '../../model/units'
import type { FieldPath } from './locate'
import { graphProblems, type FabricProblem } from './graph'
import { normaliseParams, paramRules } from './params'
import { failureSchema, stopAfterSchema, topologySchema, type RawTopology } from './schema'
import { DEFAULT_FAN_IN } from './types'

// The checks that need the fabric a topology builds: link names (remove, slow, failures),
// host indices (long-lived pairs), fan-ins, and the rules between scheme parameters. They
// run on the raw file beside the schema, each part as soon as it is valid on its own, so
// their errors come with every other error of the file.

export type { FabricProblem }

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The sim topology of a parsed topology block; `remove` and `rates` as written. */
export function toTopology(t: RawTopology): Topology {
  const common = {
    hostLinkBps: t.hostLink,
    // Absent only on a leaf-spine with oversubscription, which sets it below.
    fabricLinkBps: t.fabricLink ?? 0,
    linkDelayNs: t.linkDelay,
    queuePackets: t.queuePackets,
    hostQueuePackets: t.hostQueuePackets,
    ...(t.remove && t.remove.length > 0 ? { remove: t.remove } : {}),
    ...(t.slow && Object.keys(t.slow).length > 0 ? { rates: t.slow } : {}),
  }
  switch (t.kind) {
    case 'leaf-spine':
      // linksPerSpine and oversubscription only when given, so existing specs hash as before.
      return {
        kind: t.kind,
        leaves: t.leaves,
        spines: t.spines,
        hostsPerLeaf: t.hostsPerLeaf,
        ...(t.linksPerSpine !== undefined ? { linksPerSpine: t.linksPerSpine } : {}),
        ...(t.oversubscription !== undefined ? { oversubscription: t.oversubscription } : {}),
        ...common,
        fabricLinkBps: t.fabricLink ?? leafSpineUplinkBps({ ...t, hostLinkBps: t.hostLink, fabricLinkBps: 0 }),
      }
    case 'custom':
      return {
        kind: t.kind,
        nodes: t.nodes.map((n) => ({ name: n.name, tier: n.tier, ...(n.pod !== undefined ? { pod: n.pod } : {}) })),
        links: t.links.map((l): CustomLinkSpec => ({
          a: l.a.node,
          b: l.b.node,
          ...(l.a.port !== undefined ? { aPort: l.a.port } : {}),
          ...(l.b.port !== undefined ? { bPort: l.b.port } : {}),
          ...(l.speed !== undefined ? { bps: l.speed } : {}),
          ...(l.delay !== undefined ? { delayNs: l.delay } : {}),
          ...(l.loss ? { loss: l.loss } : {}),
        })),
        ...(t.oversubscription !== undefined ? { oversubscription: t.oversubscription } : {}),
        ...common,
      }
    case 'fat-tree':
      return { kind: t.kind, k: t.k, ...(t.hostsPerTor !== undefined ? { hostsPerTor: t.hostsPerTor } : {}), ...common }
    case 'three-tier':
      return {
        kind: t.kind,
        pods: t.pods,
        torsPerPod: t.torsPerPod,
        aggsPerPod: t.aggsPerPod,
        spines: t.spines,
        hostsPerTor: t.hostsPerTor,
        ...common,
      }
  }
}

/** The canonical name ("spine1-agg3") of a link written in either order, or undefined. */
export function canonicalLink(f: Fabric, name: string): string | undefined {
  const index = linkIndex(f)
  return index.get(name.trim())
}

const indexes = new WeakMap<Fabric, Map<string, string>>()

function linkIndex(f: Fabric): Map<string, string> {
  let index = indexes.get(f)
  if (!index) {
    index = new Map()
    for (const l of f.links) {
      index.set(l.name, l.name)
      index.set(reverseLinkName(l.name), l.name)
    }
    indexes.set(f, index)
  }
  return index
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = cur
  }
  return prev[b.length]
}

/** A few links of the fabric whose names are closest to `name`: those sharing an endpoint first. */
export function similarLinks(f: Fabric, name: string, count = 4): string[] {
  const ends = name.trim().split('-')
  const scored = f.links.map((l) => {
    const a = f.nodes[l.a].name
    const b = f.nodes[l.b].name
    const shared = ends.filter((e) => e === a || e === b).length
    const dist = Math.min(editDistance(name, l.name), editDistance(name, `${b}-${a}`))
    return { name: l.name, shared, dist, id: l.id }
  })
  scored.sort((x, y) => y.shared - x.shared || x.dist - y.dist || x.id - y.id)
  return scored.slice(0, count).map((s) => s.name)
}

function unknownLink(f: Fabric, name: string): string {
  return `unknown link '${name}' in this ${f.kind} fabric; links there are named upper-lower, such as ${similarLinks(f, name).join(', ')}`
}

function isHostLink(f: Fabric, canonical: string): boolean {
  const l = f.links.find((x) => x.name === canonical)
  return l !== undefined && f.nodes[l.b].role === 'host'
}

export interface FabricCheck {
  problems: FabricProblem[]
  /** The fabric the topology builds, before `remove` and `slow`; absent when the topology is invalid. */
  fabric?: Fabric
}

/** Every check of the file that needs its fabric. */
export function checkAgainstFabric(raw: Record<string, unknown>): FabricCheck {
  const problems: FabricProblem[] = []
  const topo = parseTopology(raw.topology)
  if (!topo.success) return { problems }
  let fabric: Fabric
  try {
    fabric = buildFabric({ ...toTopology(topo.data), remove: undefined, rates: undefined } as FabricSpec)
  } catch (err) {
    if (err instanceof TopologyError) return { problems: [{ path: ['topology', ...err.path], message: err.message, node: err.node, link: err.link }] }
    return { problems: [{ path: ['topology'], message: (err as Error).message }] }
  }
  const rawTopo = raw.topology as Record<string, unknown>

  // remove: fabric links only (a host must keep its link), and the fabric must stay connected.
  const removed = new Set<string>()
  let removeOk = true
  const rawRemove = Array.isArray(rawTopo.remove) ? (rawTopo.remove as unknown[]) : []
  rawRemove.forEach((name, i) => {
    if (typeof name !== 'string') return
    const c = canonicalLink(fabric, name)
    if (c === undefined) {
      problems.push({ path: ['topology', 'remove', i], message: unknownLink(fabric, name) })
      removeOk = false
    } else if (isHostLink(fabric, c)) {
      problems.push({
        path: ['topology', 'remove', i],
        message: `'${name}' is a host's only link; remove takes links between switches (use failures: to take a host link down during a run)`,
      })
      removeOk = false
    } else {
      removed.add(c)
    }
  })
  if (removeOk && removed.size > 0) {
    const cut = disconnectedAfterRemove(fabric, topo.data)
    if (cut) problems.push({ path: ['topology', 'remove'], message: `removing these links cuts ${cut[1]} off from ${cut[0]}; every ToR must still reach every other` })
  }

  // slow: keys are link names.
  if (isPlainObject(rawTopo.slow)) {
    for (const name of Object.keys(rawTopo.slow)) {
      const c = canonicalLink(fabric, name)
      if (c === undefined) problems.push({ path: ['topology', 'slow', name], message: unknownLink(fabric, name), keyOf: true })
      else if (removed.has(c)) problems.push({ path: ['topology', 'slow', name], message: `link '${name}' is also in remove`, keyOf: true })
    }
  }

  // failures: links of the fabric, not removed ones, one outage of a link at a time, before the stop.
  if (Array.isArray(raw.failures)) {
    raw.failures.forEach((f, i) => {
      if (!isPlainObject(f) || typeof f.link !== 'string' || f.link.trim() === '') return
      const c = canonicalLink(fabric, f.link)
      if (c === undefined) problems.push({ path: ['failures', i, 'link'], message: unknownLink(fabric, f.link.trim()) })
      else if (removed.has(c)) problems.push({ path: ['failures', i, 'link'], message: `link '${f.link}' is removed from the topology, so it cannot fail` })
    })
    // Each valid failure on its own: one with a bad field is reported by the schema.
    const valid = raw.failures.flatMap((f, i) => {
      const r = failureSchema.safeParse(f)
      return r.success ? [{ ...r.data, i }] : []
    })
    const stop = stopAfterSchema.safeParse(raw.stopAfter)
    {
      const lastUp = new Map<string, { upNs: number; index: number }>()
      const order = valid.sort((x, y) => x.at - y.at || x.i - y.i)
      for (const f of order) {
        const c = canonicalLink(fabric, f.link)
        if (c === undefined) continue
        const prev = lastUp.get(c)
        if (prev && f.at < prev.upNs) {
          const until = prev.upNs === Infinity ? 'for the rest of the run' : `until ${formatDuration(prev.upNs)}`
          problems.push({ path: ['failures', f.i, 'at'], message: `link '${f.link}' is already down at ${formatDuration(f.at)} (failures[${prev.index}] takes it down ${until})` })
        }
        lastUp.set(c, { upNs: f.recover ?? Infinity, index: f.i })
        if (stop.success && f.at >= stop.data) {
          problems.push({ path: ['failures', f.i, 'at'], message: `the run stops at ${formatDuration(stop.data)} (stopAfter), before this failure` })
        }
      }
    }
  }

  // What the schemes need of the graph, and what the file states about it.
  const schemes = (Array.isArray(raw.schemes) ? raw.schemes : [raw.schemes]).filter((s): s is string => typeof s === 'string')
  const t = topo.data
  problems.push(
    ...graphProblems(fabric, {
      schemes,
      sim: (typeof raw.testbed === 'string' ? raw.testbed : 'sim') === 'sim',
      oversubscription: t.kind === 'custom' ? (t.oversubscription ?? 1) : 1,
      // A custom fabric built without remove keeps the file's link order.
      ...(t.kind === 'custom' ? { linkIndex: new Map(fabric.links.map((l) => [l.id, l.id])) } : {}),
    }),
  )

  // Loss is the simulator's: a real fabric is not impaired by p4lab (docs/TOPOLOGY.md).
  const testbed = typeof raw.testbed === 'string' ? raw.testbed : 'sim'
  if (topo.data.kind === 'custom' && testbed !== 'sim') {
    topo.data.links.forEach((l, i) => {
      if (!l.loss) return
      const name = fabric.links.find((x) => x.name === canonicalLinkOf(fabric, l.a.node, l.b.node, topo.data, i))?.name
      problems.push({
        path: ['topology', 'links', i, 'loss'],
        link: name,
        message: `loss is simulated only: testbed '${testbed}' runs on real links, which p4lab does not impair; remove loss from this link or run on testbed: sim`,
      })
    })
  }

  // Workload: host indices of long-lived pairs, fan-ins of an incast.
  const hosts = fabric.hosts.length
  const w = raw.workload
  if (isPlainObject(w) && w.kind === 'long-lived' && Array.isArray(w.pairs)) {
    w.pairs.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) return
      pair.forEach((h, j) => {
        if (Number.isInteger(h) && (h as number) >= hosts) {
          problems.push({ path: ['workload', 'pairs', i, j], message: `host index ${h} is out of range; this fabric has ${hosts} hosts (0 to ${hosts - 1})` })
        }
      })
      if (Number.isInteger(pair[0]) && pair[0] === pair[1]) {
        problems.push({ path: ['workload', 'pairs', i], message: `expected two different hosts, got [${pair[0]}, ${pair[1]}]` })
      }
    })
  }
  const podsProblem = isPlainObject(w) && w.destinations === 'other-pods' ? otherPodsProblem(fabric) : undefined
  if (podsProblem) problems.push({ path: ['workload', 'destinations'], message: podsProblem })
  if (isPlainObject(w) && w.kind === 'incast' && isPlainObject(w.incast)) {
    const fanIn = w.incast.fanIn
    const check = (n: unknown, path: FieldPath) => {
      if (Number.isInteger(n) && (n as number) > hosts - 1) {
        problems.push({ path, message: `fan-in ${n} needs ${n} senders besides the receiver; this fabric has ${hosts} hosts` })
      }
    }
    if (Array.isArray(fanIn)) fanIn.forEach((p, i) => Array.isArray(p) && check(p[0], ['workload', 'incast', 'fanIn', i, 0]))
    else if (fanIn !== undefined) check(fanIn, ['workload', 'incast', 'fanIn'])
    else {
      const most = Math.max(...DEFAULT_FAN_IN.map(([n]) => n))
      if (most > hosts - 1) {
        const mix = `[${DEFAULT_FAN_IN.map(([n, w]) => `[${n}, ${w}]`).join(', ')}]`
        problems.push({
          path: ['workload', 'incast'],
          message: `the default fan-in mix ${mix} needs ${most + 1} hosts and this fabric has ${hosts}; give fanIn`,
        })
      }
    }
  }

  return { problems, fabric }
}

/**
 * The topology block parsed on its own. Unknown fields (reported by the schema) are set
 * aside, so the fabric is still built and its link names checked.
 */
function parseTopology(raw: unknown) {
  const first = topologySchema.safeParse(raw)
  if (first.success || !isPlainObject(raw)) return first
  const unknown = first.error.issues.flatMap((i) => (i.code === 'unrecognized_keys' && i.path.length === 0 ? i.keys : []))
  if (unknown.length === 0) return first
  return topologySchema.safeParse(Object.fromEntries(Object.entries(raw).filter(([k]) => !unknown.includes(k))))
}

/** The first ToR (and the one it cannot reach) once `remove` is applied, or undefined. */
function disconnectedAfterRemove(base: Fabric, t: RawTopology): [string, string] | undefined {
  // Rates do not matter here, and slow's names are checked on their own.
  let f: Fabric
  try {
    f = buildFabric({ ...toTopology(t), rates: undefined } as FabricSpec)
  } catch (err) {
    // Removing a link with an explicit port beside it can leave a gap in a custom node's ports.
    return ['the fabric', (err as Error).message]
  }
  const dist = distancesTo(f, f.tors[0])
  const lost = f.tors.find((n) => dist[n] < 0)
  return lost === undefined ? undefined : [base.nodes[f.tors[0]].name, base.nodes[lost].name]
}

/** The rules between scheme parameters (params.ts), located at the key they are about. */
export function checkParams(raw: Record<string, unknown>): FabricProblem[] {
  if (!isPlainObject(raw.params)) return []
  // Rules between values that are valid; a bad value is reported by the schema.
  const p = normaliseParams(raw.params)
  const schemes = Array.isArray(raw.schemes) ? raw.schemes : [raw.schemes]
  return paramRules(
    p,
    schemes.filter((s): s is string => typeof s === 'string'),
  ).map((e) => ({ path: ['params', e.key], message: e.message }))
}

/** The canonical name links[i] of a custom topology got (parallel links counted in order). */
export function canonicalLinkOf(f: Fabric, a: string, b: string, t: RawTopology, i: number): string | undefined {
  if (t.kind !== 'custom') return undefined
  const key = (x: string, y: string) => [x, y].sort().join('\u0000')
  const k = key(a, b)
  const nth = t.links.slice(0, i + 1).filter((l) => key(l.a.node, l.b.node) === k).length
  const ia = f.nodes.find((n) => n.name === a)
  const ib = f.nodes.find((n) => n.name === b)
  if (!ia || !ib) return undefined
  const [up, down] = ia.level > ib.level ? [a, b] : [b, a]
  return nth <= 1 ? `${up}-${down}` : `${up}-${down}/${nth}`
}

// Import and export of topologies: the formats users already have into a p4lab experiment
// file with a custom topology, and a p4lab fabric out as a containerlab topology.

import { basename } from 'node:path'
import { Document, Scalar, YAMLMap, YAMLSeq } from 'yaml'
import type { Fabric } from '../../model/topology'
import { formatDuration, formatRate } from '../../model/units'
import { readClab, readP4Tutorials, readP4Utils } from './formats'
import { ImportError, inferTiers, type Imported } from './infer'

export { ImportError, inferTiers, readClab, readP4Tutorials, readP4Utils }
export type TopologyFormat = 'p4-tutorials' | 'p4-utils' | 'clab'
export const TOPOLOGY_FORMATS: readonly TopologyFormat[] = ['p4-tutorials', 'p4-utils', 'clab']

/** The format of a file, from its name and, for JSON, its shape. */
export function detectFormat(file: string, text: string): TopologyFormat {
  if (/\.ya?ml$/i.test(file)) return 'clab'
  try {
    const doc = JSON.parse(text) as Record<string, unknown>
    if (doc && typeof doc === 'object' && 'topology' in doc) return 'p4-utils'
  } catch {
    /* the reader reports it */
  }
  return 'p4-tutorials'
}

const READERS: Record<TopologyFormat, (text: string) => Imported> = { 'p4-tutorials': readP4Tutorials, 'p4-utils': readP4Utils, clab: readClab }

/** The most frequent value, or undefined for none. */
function mode(values: number[]): number | undefined {
  const count = new Map<number, number>()
  for (const v of values) count.set(v, (count.get(v) ?? 0) + 1)
  let best: number | undefined
  for (const [v, c] of count) if (best === undefined || c > count.get(best)!) best = v
  return best
}

const flow = <T extends YAMLMap | YAMLSeq>(node: T): T => {
  node.flow = true
  return node
}

/**
 * A topology file as a p4lab experiment file (YAML text) with a custom topology, its first lines
 * saying what was inferred. Throws an ImportError naming the entry that cannot be carried over.
 */
export function importTopology(text: string, file: string, format: TopologyFormat = detectFormat(file, text)): string {
  const imp = READERS[format](text)
  const { nodes, links, notes } = inferTiers(imp)
  const isHost = new Set(nodes.filter((n) => n.tier === 'host').map((n) => n.name))
  const hostLink = (l: (typeof links)[number]) => isHost.has(l.a) || isHost.has(l.b)
  // A link the file gives no speed or delay takes p4lab's assumption; the defaults are the most common values.
  const assume = (missing: number, fallback: number, what: string) => {
    // What Mininet does with a link that gives neither: no rate limit, and no delay added.
    const mininet = what.includes('delay') ? '(Mininet adds none) ' : '(Mininet leaves it unlimited) '
    if (missing > 0) notes.push(`${missing} link${missing === 1 ? '' : 's'} without a ${what} in the file ${format === 'clab' ? '' : mininet}take ${what.includes('delay') ? formatDuration(fallback) : formatRate(fallback)}`)
  }
  for (const [what, fallback, get] of [
    ['speed', 10e9, (l: (typeof links)[number]) => l.bps],
    ['delay', 1000, (l: (typeof links)[number]) => l.delayNs],
  ] as const) {
    assume(links.filter((l) => get(l) === undefined).length, fallback, what)
  }
  for (const l of links) {
    l.bps ??= 10e9
    l.delayNs ??= 1000
  }
  const hostBps = mode(links.filter(hostLink).map((l) => l.bps!)) ?? 10e9
  const fabricBps = mode(links.filter((l) => !hostLink(l)).map((l) => l.bps!)) ?? 10e9
  const delay = mode(links.map((l) => l.delayNs!)) ?? 1000
  // The fabric as the file draws it may be oversubscribed: state how much, so it is checked against that.
  const level: Record<string, number> = { host: 0, tor: 1, agg: 2, spine: 3 }
  const tierOf = new Map(nodes.map((n) => [n.name, n.tier]))
  const sums = new Map<string, { up: number; down: number }>()
  for (const l of links) {
    const [x, y] = level[tierOf.get(l.a)!] > level[tierOf.get(l.b)!] ? [l.a, l.b] : [l.b, l.a]
    sums.set(x, { up: sums.get(x)?.up ?? 0, down: (sums.get(x)?.down ?? 0) + l.bps! })
    sums.set(y, { up: (sums.get(y)?.up ?? 0) + l.bps!, down: sums.get(y)?.down ?? 0 })
  }
  let ratio = 1
  let worst = ''
  for (const [name, s] of sums) {
    if (tierOf.get(name) !== 'host' && s.up > 0 && s.down / s.up > ratio) [ratio, worst] = [s.down / s.up, name]
  }
  const oversubscription = Math.ceil(ratio * 100 - 1e-9) / 100
  if (worst) notes.push(`the fabric is oversubscribed up to ${oversubscription}:1 (at ${worst}); stated as oversubscription: ${oversubscription}`)

  const doc = new Document({})
  const topo = new YAMLMap()
  topo.set('kind', 'custom')
  topo.set('hostLink', formatRate(hostBps))
  topo.set('fabricLink', formatRate(fabricBps))
  topo.set('linkDelay', formatDuration(delay))
  topo.set('queuePackets', 100)
  if (worst) topo.set('oversubscription', oversubscription)
  const nodeSeq = new YAMLSeq()
  for (const n of nodes) {
    const m = flow(new YAMLMap())
    m.set('name', n.name)
    m.set('tier', n.tier)
    if (n.pod !== undefined) m.set('pod', n.pod)
    nodeSeq.add(m)
  }
  topo.set('nodes', nodeSeq)
  const linkSeq = new YAMLSeq()
  for (const l of links) {
    const m = flow(new YAMLMap())
    m.set('a', l.aPort !== undefined ? `${l.a}:${l.aPort}` : l.a)
    m.set('b', l.bPort !== undefined ? `${l.b}:${l.bPort}` : l.b)
    if (l.bps !== (hostLink(l) ? hostBps : fabricBps)) m.set('speed', formatRate(l.bps!))
    if (l.delayNs !== delay) m.set('delay', formatDuration(l.delayNs!))
    if (l.loss) m.set('loss', l.loss)
    linkSeq.add(m)
  }
  topo.set('links', linkSeq)
  const name = basename(file).replace(/\.(clab\.ya?ml|ya?ml|json)$/i, '').replace(/[^A-Za-z0-9_.-]/g, '-') || 'imported'
  const root = doc.contents as YAMLMap
  root.set('name', name)
  root.set('description', `imported from ${basename(file)} (${imp.format})`)
  root.set('testbed', 'sim')
  root.set('topology', topo)
  const schemes = flow(new YAMLSeq())
  schemes.add('ecmp')
  root.set('schemes', schemes)
  const workload = flow(new YAMLMap())
  workload.set('kind', 'web-search')
  workload.set('load', 0.3)
  workload.set('flows', 100)
  root.set('workload', workload)
  doc.commentBefore = [
    ` Imported by p4lab from ${basename(file)} (${imp.format}).`,
    ' Tiers are not part of that format:',
    ...notes.map((n) => ` - ${n}`),
    ' Ports are numbered from 0. schemes and workload are a starting point: edit them.',
  ].join('\n')
  return doc.toString({ lineWidth: 0 })
}

/** A fabric as a containerlab topology (YAML text): BMv2 switch containers, Linux hosts, one veth per link. */
export function exportClab(f: Fabric, name: string): string {
  const doc = new Document({})
  const root = doc.contents as YAMLMap
  root.set('name', name.toLowerCase().replace(/[^a-z0-9-]/g, '-'))
  const topology = new YAMLMap()
  const nodes = new YAMLMap()
  // Switches first in fabric order, then hosts, so the file reads top-down.
  for (const id of [...f.switches, ...f.hosts]) {
    const n = f.nodes[id]
    const node = new YAMLMap()
    node.set('kind', 'linux')
    node.set('image', n.role === 'host' ? 'alpine:3' : 'p4lang/behavioral-model')
    const labels = new YAMLMap()
    labels.set('p4lab.tier', n.role)
    if (n.pod >= 0 && n.role !== 'host') labels.set('p4lab.pod', String(n.pod))
    node.set('labels', labels)
    nodes.set(n.name, node)
  }
  topology.set('nodes', nodes)
  const links = new YAMLSeq()
  for (const l of f.links) {
    const m = new YAMLMap()
    const eps = flow(new YAMLSeq())
    eps.add(new Scalar(`${f.nodes[l.a].name}:eth${l.aPort + 1}`))
    eps.add(new Scalar(`${f.nodes[l.b].name}:eth${l.bPort + 1}`))
    m.set('endpoints', eps)
    // containerlab's file has no link speed, delay or loss; they ride in a comment p4lab reads back.
    m.commentBefore = ` p4lab: speed ${formatRate(l.bps)}, delay ${formatDuration(l.delayNs)}${l.loss ? `, loss ${l.loss}` : ''}`
    links.add(m)
  }
  topology.set('links', links)
  root.set('topology', topology)
  doc.commentBefore = [
    ` Exported by p4lab from the fabric of '${name}' (${f.nodes.length} nodes, ${f.links.length} links).`,
    ' ethN is p4lab port N-1 (eth0 is the management interface). Link speed, delay and loss are in',
    " the comment before each link: containerlab's file has no place for them (set them with tc or",
    ' containerlab tools netem after deploy).',
  ].join('\n')
  return doc.toString({ lineWidth: 0 })
}

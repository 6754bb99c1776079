// The topology editor's YAML side: what the graph shows is read from the experiment text, and
// every edit is a rewrite of that text through the yaml package's Document API, so comments and
// the rest of the file are kept. Pure (no DOM), tested in node.
import { Document, isMap, isScalar, isSeq, parseDocument, type Node, type Pair, type YAMLMap, YAMLSeq } from 'yaml'

export type Tier = 'spine' | 'agg' | 'tor' | 'host'
export const TIERS: readonly Tier[] = ['spine', 'agg', 'tor', 'host']
/** Higher tiers are upper ends: a link is named upper-lower. */
export const TIER_LEVEL: Record<Tier, number> = { host: 0, tor: 1, agg: 2, spine: 3 }

export interface EdNode {
  name: string
  tier: Tier
  pod: number | null
}

export interface EdLink {
  /** `upper-lower`, `/2`, `/3`… for parallel links, in link order. */
  name: string
  a: string
  b: string
  aPort: number | null
  bPort: number | null
  speed: string | null
  delay: string | null
  loss: number | null
}

export interface EdFailure {
  link: string
  at: string
  recover: string | null
}

export interface EdTopology {
  kind: string
  /** From a generator (leaf-spine, fat-tree, three-tier): read-only until converted to explicit nodes and links. */
  generated: boolean
  nodes: EdNode[]
  links: EdLink[]
  failures: EdFailure[]
}

/** The graph of a generated topology, as the core built it (experiments.fabric). */
export interface BuiltGraph {
  kind: string
  nodes: ReadonlyArray<{ name: string; role: Tier; pod: number }>
  links: ReadonlyArray<{ name: string; a: string; b: string; bps: number }>
}

/** One top-level entry as it is written on its own (no line folding). */
function renderPair(key: string, value: unknown): string {
  const tmp = new Document({})
  ;(tmp.contents as YAMLMap).set(key, value)
  return tmp.toString({ lineWidth: 0 })
}

function topPairs(doc: Document): Array<Pair<unknown, unknown>> {
  return isMap(doc.contents) ? (doc.contents.items as Array<Pair<unknown, unknown>>) : []
}

const keyOf = (p: Pair<unknown, unknown>) => (isScalar(p.key) ? String(p.key.value) : String(p.key))

type Spans = Map<string, { from: number; to: number }>

/** The document to edit, and where each top-level entry sits in the text (taken before any change). */
function open(text: string): { doc: Document; spans: Spans } {
  const doc = parseDocument(text)
  const spans: Spans = new Map()
  for (const p of topPairs(doc)) {
    const range = (p.key as Node | null)?.range
    const to = (p.value as Node | null)?.range?.[2] ?? range?.[2]
    if (range && to !== undefined) spans.set(keyOf(p), { from: range[0], to })
  }
  return { doc, spans }
}

/**
 * The text with only the top-level entries the edit touched (`keys`) rewritten: every other line
 * stays as the user wrote it, spacing and comments included; a removed entry is cut, a new one
 * appended.
 */
function finish(text: string, edited: Document, spans: Spans, keys: readonly string[]): string {
  const after = new Map(topPairs(edited).map((p) => [keyOf(p), p]))
  let out = text
  const touched = keys.flatMap((k) => (spans.has(k) ? [{ key: k, ...spans.get(k)! }] : [])).sort((a, b) => b.from - a.from)
  for (const t of touched) {
    const now = after.get(t.key)
    let will = now ? renderPair(t.key, now.value) : ''
    if (t.to >= text.length && !text.endsWith('\n')) will = will.replace(/\n$/, '')
    out = out.slice(0, t.from) + will + out.slice(t.to)
  }
  for (const k of keys) {
    const now = after.get(k)
    if (spans.has(k) || !now) continue
    if (out.length > 0 && !out.endsWith('\n')) out += '\n'
    out += renderPair(k, now.value)
  }
  return out
}

const str = (v: unknown): string | null => (v === undefined || v === null ? null : String(v))

/** "spine0:3" → spine0, port 3. */
export function splitEnd(end: string): { node: string; port: number | null } {
  const m = /^(.*):(\d+)$/.exec(end.trim())
  return m ? { node: m[1], port: Number(m[2]) } : { node: end.trim(), port: null }
}

/** Link names in link order: upper end first, parallel links numbered /2, /3… */
export function nameLinks(ends: ReadonlyArray<{ a: string; b: string }>, tierOf: (n: string) => Tier | undefined): string[] {
  const seen = new Map<string, number>()
  return ends.map(({ a, b }) => {
    const la = TIER_LEVEL[tierOf(a) ?? 'host']
    const lb = TIER_LEVEL[tierOf(b) ?? 'host']
    const base = lb > la ? `${b}-${a}` : `${a}-${b}`
    const n = (seen.get(base) ?? 0) + 1
    seen.set(base, n)
    return n === 1 ? base : `${base}/${n}`
  })
}

function topologyMap(doc: Document): YAMLMap | null {
  const t = doc.get('topology', true)
  return isMap(t) ? t : null
}

function readFailures(doc: Document): EdFailure[] {
  const f = doc.get('failures', true)
  if (!isSeq(f)) return []
  return f.items.flatMap((item) => {
    if (!isMap(item)) return []
    const link = str(item.get('link'))
    const at = str(item.get('at'))
    return link && at !== null ? [{ link, at, recover: str(item.get('recover')) }] : []
  })
}

/** The text's topology block as plain data; null when the text does not parse or has none. */
export function readTopologyBlock(text: string): Record<string, unknown> | null {
  const doc = parseDocument(text)
  if (doc.errors.length > 0) return null
  const topo = topologyMap(doc)
  return topo ? (topo.toJSON() as Record<string, unknown>) : null
}

/**
 * The editor's view of a text: explicit nodes and links for `kind: custom`, the core's built
 * graph for a generator (null when the core has none yet), and the failures either way.
 */
export function readTopology(text: string, built: BuiltGraph | null): EdTopology | null {
  const doc = parseDocument(text)
  if (doc.errors.length > 0) return null
  const topo = topologyMap(doc)
  if (!topo) return null
  const kind = str(topo.get('kind')) ?? ''
  const failures = readFailures(doc)
  if (kind !== 'custom') {
    if (!built) return null
    return {
      kind,
      generated: true,
      nodes: built.nodes.map((n) => ({ name: n.name, tier: n.role, pod: n.pod >= 0 ? n.pod : null })),
      links: built.links.map((l) => ({ name: l.name, a: l.a, b: l.b, aPort: null, bPort: null, speed: null, delay: null, loss: null })),
      failures,
    }
  }
  const rawNodes = topo.get('nodes', true)
  const nodes: EdNode[] = isSeq(rawNodes)
    ? rawNodes.items.flatMap((item) => {
        if (!isMap(item)) return []
        const name = str(item.get('name'))
        const tier = str(item.get('tier')) as Tier | null
        const pod = item.get('pod')
        return name && tier && TIERS.includes(tier) ? [{ name, tier, pod: typeof pod === 'number' ? pod : null }] : []
      })
    : []
  const tiers = new Map(nodes.map((n) => [n.name, n.tier]))
  const rawLinks = topo.get('links', true)
  const ends = isSeq(rawLinks)
    ? rawLinks.items.flatMap((item) => {
        if (!isMap(item)) return []
        const a = str(item.get('a'))
        const b = str(item.get('b'))
        if (!a || !b) return []
        const loss = item.get('loss')
        return [{ a: splitEnd(a), b: splitEnd(b), speed: str(item.get('speed')), delay: str(item.get('delay')), loss: typeof loss === 'number' ? loss : null }]
      })
    : []
  const names = nameLinks(ends.map((e) => ({ a: e.a.node, b: e.b.node })), (n) => tiers.get(n))
  const links = ends.map((e, i) => ({ name: names[i], a: e.a.node, b: e.b.node, aPort: e.a.port, bPort: e.b.port, speed: e.speed, delay: e.delay, loss: e.loss }))
  return { kind, generated: false, nodes, links, failures }
}

function flowItem(doc: Document, value: Record<string, unknown>): Node {
  const n = doc.createNode(value) as YAMLMap
  n.flow = true
  return n
}

function blockSeq(doc: Document, items: Array<Record<string, unknown>>): YAMLSeq {
  const seq = new YAMLSeq()
  for (const v of items) seq.items.push(flowItem(doc, v))
  return seq
}

/** Keys of a generator the explicit form keeps (defaults for its links, queue sizes). */
const KEPT = ['hostLink', 'fabricLink', 'linkDelay', 'queuePackets', 'hostQueuePackets']

function formatBps(bps: number): string {
  if (bps % 1e9 === 0) return `${bps / 1e9}Gbps`
  if (bps % 1e6 === 0) return `${bps / 1e6}Mbps`
  return `${bps}bps`
}

/**
 * Rewrites a generated topology as explicit nodes and links (kind: custom), the built graph as
 * it stands: removed links left out, slow ones with their own speed. Failures keep their names.
 */
export function convertToCustom(text: string, built: BuiltGraph, slow: ReadonlySet<string>): string {
  const { doc, spans } = open(text)
  const topo = topologyMap(doc)
  if (!topo) return text
  const kept = new Map<string, unknown>()
  for (const k of KEPT) if (topo.has(k)) kept.set(k, topo.get(k, true))
  const fresh = doc.createNode({ kind: 'custom' }) as YAMLMap
  for (const [k, v] of kept) fresh.set(k, v)
  fresh.set('nodes', blockSeq(doc, built.nodes.map((n) => (n.pod >= 0 && (n.role === 'tor' || n.role === 'agg') ? { name: n.name, tier: n.role, pod: n.pod } : { name: n.name, tier: n.role }))))
  fresh.set(
    'links',
    blockSeq(
      doc,
      built.links.map((l) => (slow.has(l.name) ? { a: l.a, b: l.b, speed: formatBps(l.bps) } : { a: l.a, b: l.b })),
    ),
  )
  fresh.flow = false
  const old = doc.get('topology', true)
  if (old && (old as Node).commentBefore) fresh.commentBefore = (old as Node).commentBefore
  doc.set('topology', fresh)
  return finish(text, doc, spans, ['topology'])
}

function customSeq(doc: Document, key: 'nodes' | 'links'): YAMLSeq {
  const topo = topologyMap(doc)
  if (!topo || str(topo.get('kind')) !== 'custom') throw new Error('the topology is not explicit (kind: custom); convert it first')
  const found: unknown = topo.get(key, true)
  const seq = isSeq(found) ? found : new YAMLSeq()
  if (seq !== found) topo.set(key, seq)
  seq.flow = false
  return seq
}

const PREFIX: Record<Tier, string> = { spine: 'spine', agg: 'agg', tor: 'tor', host: 'h' }

/** The first free name of a tier: spine4 after spine0..spine3. */
export function freeName(topo: EdTopology, tier: Tier): string {
  const taken = new Set(topo.nodes.map((n) => n.name))
  for (let i = 0; ; i++) if (!taken.has(`${PREFIX[tier]}${i}`)) return `${PREFIX[tier]}${i}`
}

export function addNode(text: string, node: EdNode): string {
  const { doc, spans } = open(text)
  customSeq(doc, 'nodes').items.push(flowItem(doc, node.pod === null ? { name: node.name, tier: node.tier } : { name: node.name, tier: node.tier, pod: node.pod }))
  return finish(text, doc, spans, ['topology'])
}

export function addLink(text: string, a: string, b: string): string {
  const { doc, spans } = open(text)
  customSeq(doc, 'links').items.push(flowItem(doc, { a, b }))
  return finish(text, doc, spans, ['topology'])
}

/** Index in topology.links of each link name (the editor's view must be of this text). */
function linkIndex(topo: EdTopology): Map<string, number> {
  return new Map(topo.links.map((l, i) => [l.name, i]))
}

/**
 * Removes nodes (with their links) and links. Failures of removed links go too, and a failure
 * whose parallel link was renumbered (a-b/2 becoming a-b) follows it.
 */
export function removeElements(text: string, topo: EdTopology, what: { nodes: readonly string[]; links: readonly string[] }): string {
  const { doc, spans } = open(text)
  const gone = new Set(what.nodes)
  const dropLinks = new Set<number>()
  topo.links.forEach((l, i) => {
    if (gone.has(l.a) || gone.has(l.b) || what.links.includes(l.name)) dropLinks.add(i)
  })
  const nodes = customSeq(doc, 'nodes')
  nodes.items = nodes.items.filter((item) => !(isMap(item) && gone.has(String(item.get('name')))))
  const links = customSeq(doc, 'links')
  links.items = links.items.filter((_, i) => !dropLinks.has(i))
  // Link names after the removal, for the failures that refer to them.
  const tiers = new Map(topo.nodes.filter((n) => !gone.has(n.name)).map((n) => [n.name, n.tier]))
  const survivors = topo.links.map((l, i) => ({ l, i })).filter(({ i }) => !dropLinks.has(i))
  const after = nameLinks(survivors.map(({ l }) => l), (n) => tiers.get(n))
  const rename = new Map<string, string | null>()
  topo.links.forEach((l, i) => rename.set(l.name, dropLinks.has(i) ? null : after[survivors.findIndex((s) => s.i === i)]))
  const failures = doc.get('failures', true)
  if (isSeq(failures)) {
    failures.items = failures.items.filter((item) => {
      if (!isMap(item)) return true
      const name = String(item.get('link'))
      if (!rename.has(name)) return true
      const to = rename.get(name)
      if (to === null) return false
      if (to !== name) item.set('link', to)
      return true
    })
    if (failures.items.length === 0) doc.delete('failures')
  }
  return finish(text, doc, spans, ['topology', 'failures'])
}

export interface LinkSettings {
  speed?: string | null
  delay?: string | null
  loss?: number | null
}

/** Sets (or, with null or '', removes) a link's own speed, delay and loss. */
export function setLinkSettings(text: string, topo: EdTopology, link: string, settings: LinkSettings): string {
  const { doc, spans } = open(text)
  const i = linkIndex(topo).get(link)
  const item = i === undefined ? undefined : customSeq(doc, 'links').items[i]
  if (!isMap(item)) throw new Error(`no link '${link}' in the topology`)
  for (const key of ['speed', 'delay', 'loss'] as const) {
    if (!(key in settings)) continue
    const v = settings[key]
    if (v === null || v === undefined || v === '') item.delete(key)
    else item.set(key, v)
  }
  return finish(text, doc, spans, ['topology'])
}

/** Marks a link failed at `at` (recovering at `recover` when given), or, with null, clears it. */
export function setFailure(text: string, link: string, failure: { at: string; recover?: string | null } | null): string {
  const { doc, spans } = open(text)
  let seq = doc.get('failures', true)
  if (!isSeq(seq)) {
    if (failure === null) return text
    seq = new YAMLSeq()
    doc.set('failures', seq)
  }
  const list = seq as YAMLSeq
  const at = list.items.findIndex((item) => isMap(item) && String(item.get('link')) === link)
  if (failure === null) {
    if (at >= 0) list.items.splice(at, 1)
    if (list.items.length === 0) doc.delete('failures')
    return finish(text, doc, spans, ['failures'])
  }
  const value: Record<string, unknown> = { link, at: failure.at }
  if (failure.recover) value.recover = failure.recover
  if (at >= 0) {
    const item = list.items[at] as YAMLMap
    item.set('at', failure.at)
    if (failure.recover) item.set('recover', failure.recover)
    else item.delete('recover')
  } else {
    list.items.push(flowItem(doc, value))
  }
  return finish(text, doc, spans, ['failures'])
}

/** Replaces the topology block with a generator mapping, keeping its queue sizes when the template sets none. */
export function applyGenerator(text: string, mapping: Record<string, unknown>): string {
  const { doc, spans } = open(text)
  const old = topologyMap(doc)
  const fresh = flowItem(doc, mapping) as YAMLMap
  for (const k of ['queuePackets', 'hostQueuePackets']) if (old?.has(k) && !(k in mapping)) fresh.set(k, old.get(k))
  doc.set('topology', fresh)
  // Failures stay: when they name links the new fabric lacks, validation says which.
  return finish(text, doc, spans, ['topology'])
}

/** A scalar value of the topology block (hostLink, fabricLink…), or null. */
export function topologyField(text: string, key: string): string | null {
  const topo = topologyMap(parseDocument(text))
  const v = topo?.get(key, true)
  return isScalar(v) ? String(v.value) : null
}

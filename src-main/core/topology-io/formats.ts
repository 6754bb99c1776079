// Readers of the topology formats users already have, each into hosts, switches and links with
// their ports (from 0, as p4lab numbers them), speeds, delays and losses. Pure functions of the
// file's text; every refusal names the entry.
//
// - P4 tutorials topology.json: { hosts: {h1: {ip, mac, commands}}, switches: {s1: {...}},
//   links: [["h1", "s1-p1"], ["s1-p2", "s2-p2", latency, bandwidth]] }. A switch end is
//   `<switch>-p<N>`, Mininet's port N counted from 1 (p4lab's port N-1); a latency is "2ms" or a
//   number of ms, a bandwidth a number of Mbit/s.
// - p4-utils p4app.json: { topology: { hosts, switches, links: [["h1", "s1", {bw, delay, loss,
//   port1, port2}]], default: {...} } }: bw in Mbit/s, delay "2ms", loss in percent, ports from 1.
// - containerlab .clab.yml: { topology: { nodes: {name: {kind, image, labels}}, links:
//   [{endpoints: ["a:eth1", "b:eth1"]}] } }: eth0 is the management interface, so ethN is
//   p4lab's port N-1 (for other names, the last number in it).

import { parseDocument, isSeq, type Document } from 'yaml'
import { parseDuration, parseRate } from '../../model/units'
import { checkName, ImportError, type Imported, type ImportedLink, type ImportedNode } from './infer'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function json(text: string, what: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new ImportError('document', `not valid JSON (${(err as Error).message}); expected ${what}`)
  }
}

function mbps(v: unknown, entry: string): number {
  if (typeof v !== 'number' || !(v > 0)) throw new ImportError(entry, `expected a bandwidth in Mbit/s (a positive number), got ${JSON.stringify(v)}`)
  return v * 1e6
}

function latency(v: unknown, entry: string): number {
  if (typeof v === 'number' && v >= 0) return v * 1e6
  if (typeof v === 'string') {
    try {
      return parseDuration(v.trim())
    } catch {
      /* reported below */
    }
  }
  throw new ImportError(entry, `expected a delay such as "2ms" (or a number of ms), got ${JSON.stringify(v)}`)
}

function mininetPort(n: number, entry: string): number {
  if (!Number.isInteger(n) || n < 1) throw new ImportError(entry, `port ${n} is not a Mininet port (they are numbered from 1)`)
  return n - 1
}

/** The P4 tutorials' topology.json. */
export function readP4Tutorials(text: string): Imported {
  const doc = json(text, 'a topology.json with hosts, switches and links')
  if (!isObject(doc) || !isObject(doc.hosts) || !isObject(doc.switches) || !Array.isArray(doc.links)) {
    throw new ImportError('document', 'expected a topology.json mapping with hosts, switches (mappings) and links (a list)')
  }
  const nodes: ImportedNode[] = [
    ...Object.keys(doc.switches).map((name): ImportedNode => ({ name, kind: 'switch', entry: `switches.${name}` })),
    ...Object.keys(doc.hosts).map((name): ImportedNode => ({ name, kind: 'host', entry: `hosts.${name}` })),
  ]
  for (const n of nodes) checkName(n.name, n.entry)
  const switches = new Set(Object.keys(doc.switches))
  const links = doc.links.map((l, i): ImportedLink => {
    const entry = `links[${i}]`
    if (!Array.isArray(l) || l.length < 2 || l.length > 4 || typeof l[0] !== 'string' || typeof l[1] !== 'string') {
      throw new ImportError(entry, 'expected [end, end] or [end, end, latency, bandwidth], each end a host or <switch>-p<N>')
    }
    const end = (s: string): { node: string; port?: number } => {
      const m = /^(.*)-p(\d+)$/.exec(s)
      if (m && switches.has(m[1])) return { node: m[1], port: mininetPort(Number(m[2]), entry) }
      if (switches.has(s)) throw new ImportError(entry, `switch end '${s}' has no port; write it as ${s}-p<N>`)
      return { node: s }
    }
    const [x, y] = [end(l[0]), end(l[1])]
    return {
      entry,
      a: x.node,
      b: y.node,
      ...(x.port !== undefined ? { aPort: x.port } : {}),
      ...(y.port !== undefined ? { bPort: y.port } : {}),
      ...(l.length > 2 ? { delayNs: latency(l[2], entry) } : {}),
      ...(l.length > 3 ? { bps: mbps(l[3], entry) } : {}),
    }
  })
  return { format: 'P4 tutorials topology.json', nodes, links, notes: ["hosts' ip, mac and commands are not carried over: p4lab addresses hosts by its own plan (10.<pod>.<tor>.<host>)"] }
}

/** p4-utils' p4app.json. */
export function readP4Utils(text: string): Imported {
  const doc = json(text, 'a p4app.json with a topology')
  const t = isObject(doc) ? doc.topology : undefined
  if (!isObject(t) || !Array.isArray(t.links)) throw new ImportError('topology', 'expected a mapping with hosts, switches and links (a list)')
  for (const key of ['routers']) {
    if (isObject(t[key]) && Object.keys(t[key]).length > 0) {
      throw new ImportError(`topology.${key}.${Object.keys(t[key])[0]}`, 'a router is not a switch or host; p4lab carries over hosts and P4 switches only')
    }
  }
  const hosts = isObject(t.hosts) ? Object.keys(t.hosts) : []
  const switches = isObject(t.switches) ? Object.keys(t.switches) : []
  const nodes: ImportedNode[] = [
    ...switches.map((name): ImportedNode => ({ name, kind: 'switch', entry: `topology.switches.${name}` })),
    ...hosts.map((name): ImportedNode => ({ name, kind: 'host', entry: `topology.hosts.${name}` })),
  ]
  for (const n of nodes) checkName(n.name, n.entry)
  const defaults = isObject(t.default) ? t.default : {}
  const links = t.links.map((l, i): ImportedLink => {
    const entry = `topology.links[${i}]`
    if (!Array.isArray(l) || l.length < 2 || l.length > 3 || typeof l[0] !== 'string' || typeof l[1] !== 'string' || (l.length === 3 && !isObject(l[2]))) {
      throw new ImportError(entry, 'expected [node, node] or [node, node, {options}]')
    }
    const o = { ...defaults, ...(l.length === 3 ? (l[2] as Record<string, unknown>) : {}) }
    const loss = o.loss
    if (loss !== undefined && !(typeof loss === 'number' && loss >= 0 && loss < 100)) throw new ImportError(entry, `expected loss in percent, from 0 to under 100, got ${JSON.stringify(loss)}`)
    const port = (v: unknown, which: string) => {
      if (typeof v !== 'number') throw new ImportError(entry, `${which} must be a port number, got ${JSON.stringify(v)}`)
      return mininetPort(v, entry)
    }
    return {
      entry,
      a: l[0],
      b: l[1],
      ...(o.port1 !== undefined ? { aPort: port(o.port1, 'port1') } : {}),
      ...(o.port2 !== undefined ? { bPort: port(o.port2, 'port2') } : {}),
      ...(o.bw !== undefined ? { bps: mbps(o.bw, entry) } : {}),
      ...(o.delay !== undefined ? { delayNs: latency(o.delay, entry) } : {}),
      ...(typeof loss === 'number' && loss > 0 ? { loss: loss / 100 } : {}),
    }
  })
  return { format: 'p4-utils p4app.json', nodes, links, notes: ['p4-utils loss is in percent; here it is a fraction (loss: 1 became 0.01)'] }
}

/** Node kinds that are not one device with point-to-point links. */
const NOT_A_NODE: Record<string, string> = {
  bridge: 'a Linux bridge joins many links into one segment',
  'ovs-bridge': 'an Open vSwitch bridge joins many links into one segment',
  host: "containerlab's host kind is the machine containerlab runs on",
  'ext-container': 'an external container is not part of the lab',
}

/** The number a containerlab interface name ends with: eth3 → 3, e1-2 → 2. */
function clabPort(ifname: string, entry: string): number {
  const m = /(\d+)$/.exec(ifname)
  if (!m) throw new ImportError(entry, `interface '${ifname}' has no number; expected a name such as eth1`)
  const n = Number(m[1])
  if (/^eth\d+$/.test(ifname) && n === 0) throw new ImportError(entry, 'eth0 is the management interface in containerlab; fabric links start at eth1')
  return /^eth\d+$/.test(ifname) ? n - 1 : Math.max(0, n - 1)
}

/** A comment p4lab's export puts before a link: "p4lab: speed 40Gbps, delay 1us, loss 0.001". */
function linkSettings(doc: Document, i: number, entry: string): { bps?: number; delayNs?: number; loss?: number } {
  const links = (doc.getIn(['topology', 'links'], true) as unknown) ?? null
  if (!isSeq(links)) return {}
  const item = links.items[i] as { commentBefore?: string | null } | undefined
  // The yaml parser gives a comment before the first item to the list itself.
  const comment = item?.commentBefore ?? (i === 0 ? links.commentBefore : '') ?? ''
  const m = /p4lab: (.*)$/.exec(comment)
  if (!m) return {}
  const out: { bps?: number; delayNs?: number; loss?: number } = {}
  for (const part of m[1].split(',').map((s) => s.trim())) {
    const [k, v] = part.split(/\s+/)
    if (k === 'speed') out.bps = parseRateText(v, entry)
    else if (k === 'delay') out.delayNs = latency(v, entry)
    else if (k === 'loss') out.loss = Number(v)
  }
  return out
}

function parseRateText(v: string, entry: string): number {
  try {
    return parseRate(v)
  } catch {
    throw new ImportError(entry, `expected a speed such as 40Gbps in the p4lab comment, got '${v}'`)
  }
}

/** A containerlab topology file. */
export function readClab(text: string): Imported {
  const doc = parseDocument(text, { prettyErrors: false })
  if (doc.errors.length > 0) throw new ImportError('document', `YAML syntax error: ${doc.errors[0].message}`)
  const raw = doc.toJS() as unknown
  const t = isObject(raw) ? raw.topology : undefined
  if (!isObject(t) || !isObject(t.nodes) || !Array.isArray(t.links)) throw new ImportError('topology', 'expected a mapping with nodes (a mapping) and links (a list)')
  const notes = ['ethN is port N-1 (eth0 is the management interface)']
  let guessed = false
  const nodes = Object.entries(t.nodes).map(([name, v]): ImportedNode => {
    const entry = `topology.nodes.${name}`
    checkName(name, entry)
    const n = isObject(v) ? v : {}
    const kind = typeof n.kind === 'string' ? n.kind : isObject(t.defaults) && typeof t.defaults.kind === 'string' ? t.defaults.kind : 'linux'
    if (NOT_A_NODE[kind]) throw new ImportError(entry, `kind ${kind} is not a switch or host (${NOT_A_NODE[kind]}); p4lab carries over hosts and switches only`)
    const labels = isObject(n.labels) ? n.labels : {}
    const tier = labels['p4lab.tier']
    if (tier !== undefined) {
      if (tier !== 'host' && tier !== 'tor' && tier !== 'agg' && tier !== 'spine') throw new ImportError(entry, `label p4lab.tier must be host, tor, agg or spine, got ${JSON.stringify(tier)}`)
      const pod = labels['p4lab.pod'] !== undefined ? Number(labels['p4lab.pod']) : undefined
      return { name, kind: tier === 'host' ? 'host' : 'switch', tier, ...(pod !== undefined && Number.isInteger(pod) ? { pod } : {}), entry }
    }
    // A linux container is a host unless its image is a P4 switch's; other kinds are network OSes.
    const image = typeof n.image === 'string' ? n.image : ''
    const host = kind === 'linux' && !/behavioral-model|bmv2|p4/i.test(image)
    guessed = true
    return { name, kind: host ? 'host' : 'switch', entry }
  })
  if (guessed) notes.push("hosts are kind linux nodes whose image is not a P4 switch's (bmv2, behavioral-model); other nodes are switches")
  const links = t.links.map((l, i): ImportedLink => {
    const entry = `topology.links[${i}]`
    if (!isObject(l)) throw new ImportError(entry, 'expected a mapping with endpoints')
    if (l.type !== undefined && l.type !== 'veth') throw new ImportError(entry, `a link of type ${String(l.type)} does not join two lab nodes; p4lab carries over point-to-point links (veth) only`)
    const eps = l.endpoints
    if (!Array.isArray(eps) || eps.length !== 2) throw new ImportError(entry, 'expected endpoints: ["node:interface", "node:interface"]')
    const end = (e: unknown): { node: string; port: number } => {
      if (typeof e === 'string' && /^[^:]+:[^:]+$/.test(e)) {
        const [node, ifname] = e.split(':')
        return { node, port: clabPort(ifname, entry) }
      }
      if (isObject(e) && typeof e.node === 'string' && typeof e.interface === 'string') return { node: e.node, port: clabPort(e.interface, entry) }
      throw new ImportError(entry, `expected an endpoint "node:interface", got ${JSON.stringify(e)}`)
    }
    const [x, y] = [end(eps[0]), end(eps[1])]
    return { entry, a: x.node, b: y.node, aPort: x.port, bPort: y.port, ...linkSettings(doc, i, entry) }
  })
  return { format: 'containerlab topology', nodes, links, notes }
}

// The fabric view's model: where each node sits, which series colour each edge and node,
// and the colour scales. Pure (no DOM, no Cytoscape), tested in node.
import { plural } from './format'
import { bestPodGrid, placeCores, podOrigin, READABLE_ZOOM, type GridSpacing } from './podGrid'
import type { SeriesDefLike } from './series'
import { maxStatOf, statOf, windowRange, type StatMode } from './window'

/** The parts of the contract's FabricGraph this module needs. */
export interface FabricGraphLike {
  kind: string
  nodes: ReadonlyArray<{ name: string; role: 'host' | 'tor' | 'agg' | 'spine'; level: number; pod: number }>
  links: ReadonlyArray<{ name: string; a: string; aPort: number; b: string; bPort: number; bps: number }>
  hosts: readonly string[]
  queuePackets: number
}

export interface FabricNodeModel {
  id: string
  label: string
  role: 'tor' | 'agg' | 'spine' | 'hosts'
  x: number
  y: number
  /** queue.depth columns of the switch's ports (empty for a host group). */
  queueCols: number[]
}

export interface FabricEdgeModel {
  /** "spine0-agg1:down" (upper → lower) or ":up"; a ToR's host ports are one edge "tor0:hosts". */
  id: string
  link: string
  source: string
  target: string
  dir: 'down' | 'up'
  /** link.util columns averaged for this edge (one for a fabric link direction). */
  utilCols: number[]
  /** The egress port(s) it measures, as "switch:port". */
  ports: string[]
  bps: number
}

export interface FabricModel {
  nodes: FabricNodeModel[]
  edges: FabricEdgeModel[]
  queuePackets: number
  /** "switch:port" → the node on the other end (a host group for a ToR's host ports). */
  peers: Map<string, string>
  /** Switch names with their ports' series, for the switch picker. */
  switches: string[]
}

const byName = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })
const portKey = (sw: string | number, port: string | number) => `${sw}:${port}`

/** Column index of each {switch, port} series of a kind: "leaf0:3" → column. */
export function portColumns(defs: readonly SeriesDefLike[], kind: string): Map<string, number> {
  const out = new Map<string, number>()
  defs.forEach((d, i) => {
    if (d.kind === kind && d.entity.switch !== undefined && d.entity.port !== undefined) out.set(portKey(d.entity.switch, d.entity.port), i)
  })
  return out
}

const X_GAP = 110
const Y_GAP = 120
/** Below a ToR, the node for its hosts. */
const HOSTS_DY = Y_GAP * 0.75
/**
 * The widest a row of ToRs is drawn, centre to centre (11 ToRs): the graph on a 1024 px window
 * is about 310 px across inside its padding, and a wider row fits there only below a zoom of
 * 0.27, where a switch's label can no longer be read.
 */
const ROW_MAX = 1100
/** The Fabric tab's graph on a 1024 px window inside its padding, about: what a wrapped tier of ToRs is shaped to fill. */
const CANVAS = { w: 310, h: 410 }
/** A switch node's size (FabricGraph.vue), for the drawing's extent. */
const NODE = { w: 58, h: 22 }

/**
 * How many ToRs a band of a tier of `count` ToRs takes: all of them when the row fits in
 * ROW_MAX, else the number that draws the fabric largest on the graph at 1024 px (each band
 * within ROW_MAX, or one row), `above` being the widest tier over the ToRs and `top` how far
 * down the ToRs start.
 */
function torsPerBand(count: number, above: number, top: number): number {
  if ((count - 1) * X_GAP <= ROW_MAX) return count
  const zoomOf = (perBand: number) => {
    const width = Math.max((perBand - 1) * X_GAP, above) + NODE.w
    const height = top + (Math.ceil(count / perBand) - 1) * (HOSTS_DY + Y_GAP) + HOSTS_DY + NODE.h
    return Math.min(CANVAS.w / width, CANVAS.h / height)
  }
  // One row stays when bands would draw no larger (a fat-tree's aggregation row is as wide).
  let best = { perBand: count, zoom: zoomOf(count) }
  for (let bands = 2; bands <= count; bands++) {
    const perBand = Math.ceil(count / bands)
    if ((perBand - 1) * X_GAP > ROW_MAX) continue
    const zoom = zoomOf(perBand)
    if (zoom > best.zoom) best = { perBand, zoom }
  }
  return best.perBand
}

/** A pod layout's spacing: within a pod (switches of a row, aggregation over ToRs, a ToR over its hosts' node) and the grid's (podGrid.ts). */
interface PodSpacing {
  x: number
  y: number
  hostsDy: number
  grid: GridSpacing
}
/** Pods' blocks further apart than a pod's ToRs, wrapped cores' rows half a tier apart. */
const POD_SPACING: PodSpacing = { x: X_GAP, y: Y_GAP, hostsDy: HOSTS_DY, grid: { xGap: X_GAP, yGap: Y_GAP, podGap: X_GAP * 1.5, coreRowGap: Y_GAP / 2, canvas: CANVAS, node: NODE } }
/**
 * Closer, for a fabric the usual spacing fits only below READABLE_ZOOM (a fat-tree of k = 8 and
 * up): a switch's width and a third apart, tiers two thirds as far, the cores further up so that
 * their links to the first pods pass between the switches there; at k = 8, 0.40 instead of 0.29.
 */
const POD_SPACING_CLOSE: PodSpacing = {
  x: 80,
  y: 80,
  hostsDy: 56,
  grid: { xGap: 84, yGap: 80, podGap: 96, coreRowGap: 44, coreGap: 120, canvas: CANVAS, node: NODE },
}

/**
 * A fabric whose aggregation row is wider than ROW_MAX (a fat-tree of k = 6 has 18 aggregation
 * switches, k = 8 has 32), laid out pod by pod in the grid of podGrid.ts: each pod a block of
 * its aggregation switches over its ToRs (and their hosts' node), closer when the usual spacing
 * would not draw it readably; with how far under a ToR its hosts' node goes.
 */
function podLayout(switches: ReadonlyArray<FabricGraphLike['nodes'][number]>): { at: Map<string, { x: number; y: number }>; hostsDy: number } {
  const sorted = (role: string) => switches.filter((n) => n.role === role).sort((a, b) => a.pod - b.pod || byName(a.name, b.name))
  const [cores, aggs, tors] = [sorted('spine'), sorted('agg'), sorted('tor')]
  const pods = [...new Set([...aggs, ...tors].map((n) => n.pod))].sort((a, b) => a - b)
  const inPod = (list: typeof aggs, pod: number) => list.filter((n) => n.pod === pod)
  const gridOf = (s: PodSpacing) => {
    const podW = Math.max(...pods.map((p) => (Math.max(inPod(aggs, p).length, inPod(tors, p).length) - 1) * s.x))
    const podH = s.y + s.hostsDy
    return { s, podW, podH, grid: bestPodGrid(pods.length, cores.length, podW, podH, s.grid) }
  }
  let laid = gridOf(POD_SPACING)
  if (laid.grid.zoom < READABLE_ZOOM) {
    const close = gridOf(POD_SPACING_CLOSE)
    if (close.grid.zoom > laid.grid.zoom) laid = close
  }
  const { s, podW, podH, grid } = laid
  const out = new Map<string, { x: number; y: number }>()
  const top = placeCores(cores, grid, s.grid, out)
  pods.forEach((pod, q) => {
    const { cx, y } = podOrigin(q, pods.length, podW, podH, top, grid, s.grid)
    for (const [list, dy] of [[inPod(aggs, pod), 0], [inPod(tors, pod), s.y]] as const) {
      list.forEach((n, i) => out.set(n.name, { x: cx + (i - (list.length - 1) / 2) * s.x, y: y + dy }))
    }
  })
  return { at: out, hostsDy: s.hostsDy }
}

/**
 * The fabric, drawn by tier: spines on top, then aggregation switches, ToRs, and one node per
 * ToR for its hosts (collapsed: a fabric of 1000 servers stays readable). Nodes of a tier
 * are ordered by pod, then name, and centred over the widest tier. ToRs that would make a row
 * wider than ROW_MAX (32 leaves: 3400 across) wrap into bands one under another, each ToR over
 * its hosts, the columns of every band lined up. A fabric of pods whose aggregation row would be
 * wider than ROW_MAX (a fat-tree of k = 6) is laid out pod by pod instead (podLayout).
 */
export function buildFabricModel(graph: FabricGraphLike, defs: readonly SeriesDefLike[]): FabricModel {
  const util = portColumns(defs, 'link.util')
  const queue = portColumns(defs, 'queue.depth')
  const switches = graph.nodes.filter((n) => n.role !== 'host')
  const maxLevel = Math.max(1, ...switches.map((n) => n.level))
  const tiers = new Map<number, Array<(typeof switches)[number]>>()
  for (const n of switches) {
    const list = tiers.get(n.level) ?? []
    list.push(n)
    tiers.set(n.level, list)
  }
  for (const list of tiers.values()) list.sort((a, b) => a.pod - b.pod || byName(a.name, b.name))
  // The ToRs' tier (the lowest), the one that wraps.
  const torLevel = Math.min(...switches.filter((n) => n.role === 'tor').map((n) => n.level))
  const others = [...tiers].filter(([level]) => level !== torLevel).map(([, l]) => l.length)
  const perBand = tiers.has(torLevel) ? torsPerBand(tiers.get(torLevel)!.length, (Math.max(1, ...others) - 1) * X_GAP, (maxLevel - torLevel) * Y_GAP) : 0
  const widest = Math.max(perBand, ...others)
  const width = (widest - 1) * X_GAP
  const nodes: FabricNodeModel[] = []
  const pos = new Map<string, { x: number; y: number }>()
  const place = (n: (typeof switches)[number], p: { x: number; y: number }) => {
    pos.set(n.name, p)
    const cols: number[] = []
    for (const [k, c] of queue) if (k.startsWith(`${n.name}:`)) cols.push(c)
    nodes.push({ id: n.name, label: n.name, role: n.role as 'tor' | 'agg' | 'spine', x: p.x, y: p.y, queueCols: cols })
  }
  const aggs = switches.filter((n) => n.role === 'agg')
  const podded = aggs.length > 0 && tiers.has(torLevel) && switches.every((n) => n.role === 'spine' || n.pod >= 0)
  // Below a ToR, the node for its hosts: closer in a fabric drawn closer.
  let hostsDy = HOSTS_DY
  if (podded && (aggs.length - 1) * X_GAP > ROW_MAX) {
    const laid = podLayout(switches)
    hostsDy = laid.hostsDy
    for (const [name, p] of laid.at) place(switches.find((n) => n.name === name)!, p)
  } else for (const [level, all] of [...tiers].sort((a, b) => b[0] - a[0])) {
    const bands = level === torLevel ? Array.from({ length: Math.ceil(all.length / perBand) }, (_, b) => all.slice(b * perBand, (b + 1) * perBand)) : [all]
    // Pods get a small gap between them so they read as groups.
    const podGapsOf = (list: typeof all) => list.reduce((g, n, i) => g + (i > 0 && n.pod !== list[i - 1].pod ? 1 : 0), 0)
    const first = bands[0]
    const gap = first.length > 1 ? Math.min(X_GAP * 2.2, Math.max(X_GAP * 0.8, width / (first.length - 1 + podGapsOf(first) * 0.4))) : 0
    const span = (first.length - 1 + podGapsOf(first) * 0.4) * gap
    // The first band's columns; a shorter band after it takes the middle ones, so that the columns line up.
    const columns: number[] = []
    first.forEach((n, i) => columns.push(i === 0 ? -span / 2 : columns[i - 1] + gap * (n.pod !== first[i - 1].pod ? 1.4 : 1)))
    bands.forEach((list, band) => {
      const skip = Math.floor((first.length - list.length) / 2)
      list.forEach((n, i) => {
        place(n, { x: columns[skip + i], y: (maxLevel - level) * Y_GAP + band * (HOSTS_DY + Y_GAP) })
      })
    })
  }
  const hostSet = new Set(graph.hosts)
  const edges: FabricEdgeModel[] = []
  const peers = new Map<string, string>()
  const hostPorts = new Map<string, { cols: number[]; ports: string[]; bps: number; count: number }>()
  for (const l of graph.links) {
    if (hostSet.has(l.b)) {
      const tor = l.a
      const g = hostPorts.get(tor) ?? { cols: [], ports: [], bps: l.bps, count: 0 }
      const c = util.get(portKey(tor, l.aPort))
      if (c !== undefined) g.cols.push(c)
      g.ports.push(portKey(tor, l.aPort))
      g.count++
      hostPorts.set(tor, g)
      peers.set(portKey(tor, l.aPort), l.b)
      continue
    }
    peers.set(portKey(l.a, l.aPort), l.b)
    peers.set(portKey(l.b, l.bPort), l.a)
    const down = util.get(portKey(l.a, l.aPort))
    const up = util.get(portKey(l.b, l.bPort))
    edges.push({ id: `${l.name}:down`, link: l.name, source: l.a, target: l.b, dir: 'down', utilCols: down === undefined ? [] : [down], ports: [portKey(l.a, l.aPort)], bps: l.bps })
    edges.push({ id: `${l.name}:up`, link: l.name, source: l.b, target: l.a, dir: 'up', utilCols: up === undefined ? [] : [up], ports: [portKey(l.b, l.bPort)], bps: l.bps })
  }
  for (const [tor, g] of [...hostPorts].sort((a, b) => byName(a[0], b[0]))) {
    const p = pos.get(tor)
    if (!p) continue
    const id = `${tor}:hosts`
    nodes.push({ id, label: plural(g.count, 'host'), role: 'hosts', x: p.x, y: p.y + hostsDy, queueCols: [] })
    // Only the ToR's side is measured: hosts are not switches, their NIC queues have no series.
    edges.push({ id: `${id}:down`, link: id, source: tor, target: id, dir: 'down', utilCols: g.cols, ports: g.ports, bps: g.bps })
  }
  return {
    nodes,
    edges,
    queuePackets: graph.queuePackets,
    peers,
    switches: switches.map((n) => n.name).sort(byName),
  }
}

/** What one frame of the fabric view shows: each edge's utilization and each node's deepest queue. */
export interface FabricFrame {
  tMs: number
  edgeUtil: Float32Array
  nodeQueue: Float32Array
}

/**
 * Evaluates every edge and node at cursor tMs over the window: an edge is the mean of its
 * ports' statistic (one port for a fabric link direction), a node the max over its ports.
 */
export function evaluateFabric(
  model: FabricModel,
  xMs: ArrayLike<number>,
  n: number,
  cols: ReadonlyArray<ArrayLike<number>>,
  tMs: number,
  windowMs: number,
  mode: StatMode,
): FabricFrame {
  const [lo, hi] = windowRange(xMs, n, tMs, windowMs)
  const edgeUtil = new Float32Array(model.edges.length)
  model.edges.forEach((e, i) => {
    let sum = 0
    let count = 0
    for (const c of e.utilCols) {
      const v = statOf(cols[c], lo, hi, mode)
      if (Number.isFinite(v)) {
        sum += v
        count++
      }
    }
    edgeUtil[i] = count === 0 ? NaN : sum / count
  })
  const nodeQueue = new Float32Array(model.nodes.length)
  model.nodes.forEach((nd, i) => {
    nodeQueue[i] = nd.queueCols.length === 0 ? NaN : maxStatOf(nd.queueCols.map((c) => cols[c]), lo, hi, mode)
  })
  return { tMs, edgeUtil, nodeQueue }
}

type Rgb = [number, number, number]
const hex = (c: Rgb) => '#' + c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')
function ramp(stops: ReadonlyArray<[number, Rgb]>, v: number): string {
  if (!Number.isFinite(v)) return '#4a4d52'
  const t = Math.min(1, Math.max(0, v))
  for (let i = 1; i < stops.length; i++) {
    const [t1, c1] = stops[i]
    if (t <= t1) {
      const [t0, c0] = stops[i - 1]
      const f = t1 === t0 ? 0 : (t - t0) / (t1 - t0)
      return hex([0, 1, 2].map((k) => c0[k] + (c1[k] - c0[k]) * f) as Rgb)
    }
  }
  return hex(stops[stops.length - 1][1])
}

/** Idle slate → teal → yellow → orange → red, readable on the dark background. */
const UTIL_STOPS: ReadonlyArray<[number, Rgb]> = [
  [0, [70, 78, 92]],
  [0.15, [38, 139, 150]],
  [0.45, [108, 186, 96]],
  [0.7, [226, 192, 70]],
  [0.88, [238, 124, 48]],
  [1, [241, 76, 76]],
]
/** Queue fill (share of the buffer): the same scale, reaching red at a third of the buffer. */
const QUEUE_STOPS: ReadonlyArray<[number, Rgb]> = [
  [0, [52, 58, 68]],
  [0.02, [38, 110, 130]],
  [0.1, [108, 186, 96]],
  [0.2, [226, 192, 70]],
  [0.3, [238, 124, 48]],
  [0.4, [241, 76, 76]],
]

export const utilColor = (u: number): string => ramp(UTIL_STOPS, u)
export const queueColor = (packets: number, queuePackets: number): string =>
  ramp(QUEUE_STOPS, queuePackets > 0 ? packets / queuePackets : NaN)
/** Edge width in px: a hairline idle, 9 px saturated. */
export const utilWidth = (u: number): number => (Number.isFinite(u) ? 1.5 + 7.5 * Math.min(1, Math.max(0, u)) : 1)
export const UTIL_LEGEND = UTIL_STOPS.map(([t]) => ({ t, color: utilColor(t) }))
export const QUEUE_LEGEND = QUEUE_STOPS.map(([t]) => t)

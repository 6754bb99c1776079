// Links that do not pass through a node other than their ends. A fabric drawn in bands (a wide
// tier of ToRs) or in a grid of pods has links from the top tier to a lower band that, drawn
// straight, run through the switches of the bands above, where they look as if they ended. Such a
// link goes down a gutter between the columns instead: from its upper end to the gutter above the
// first row in the way, down it past the last, then to its lower end. Pure (no DOM, no Cytoscape).

export interface Point {
  x: number
  y: number
}

/** A node's centre and drawn size. */
export interface RouteNode {
  id: string
  x: number
  y: number
  w: number
  h: number
}

export interface RouteEdge {
  id: string
  source: string
  target: string
}

/** Room kept between a rerouted link and the nodes it passes. */
const CLEARANCE = 4
/**
 * How far into a node's box a straight link may cut its corner and still read as passing it (a
 * ToR's link to a host in its block's second row grazes a host of the first by a pixel or two).
 */
export const GRAZE = 3

/** Whether the segment a→b passes through the box (Liang–Barsky). */
export function segmentHitsBox(a: Point, b: Point, box: { x1: number; y1: number; x2: number; y2: number }): boolean {
  let [t0, t1] = [0, 1]
  const [dx, dy] = [b.x - a.x, b.y - a.y]
  for (const [p, q] of [
    [-dx, a.x - box.x1],
    [dx, box.x2 - a.x],
    [-dy, a.y - box.y1],
    [dy, box.y2 - a.y],
  ]) {
    if (p === 0) {
      if (q < 0) return false
    } else {
      const t = q / p
      if (p < 0) t0 = Math.max(t0, t)
      else t1 = Math.min(t1, t)
      if (t0 > t1) return false
    }
  }
  return true
}

const boxOf = (n: RouteNode, pad: number) => ({ x1: n.x - n.w / 2 - pad, y1: n.y - n.h / 2 - pad, x2: n.x + n.w / 2 + pad, y2: n.y + n.h / 2 + pad })

/** The nodes other than `ends` that the polyline through `points` passes through (`pad` px around each). */
export function nodesCrossed(points: readonly Point[], nodes: readonly RouteNode[], ends: ReadonlySet<string>, pad = 0): string[] {
  return nodes.filter((n) => !ends.has(n.id) && points.slice(1).some((p, i) => segmentHitsBox(points[i], p, boxOf(n, pad)))).map((n) => n.id)
}

/**
 * The bends of each link that would pass through a node other than its ends when drawn straight
 * (the others are left out): two points in a vertical gutter clear of the nodes between its ends'
 * rows, the nearest such gutter to its ends, reached along the channels between rows when a slant
 * to it would cut through a node. A link no gutter clears stays straight.
 */
export function routeAround(nodes: readonly RouteNode[], edges: readonly RouteEdge[]): Map<string, Point[]> {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const out = new Map<string, Point[]>()
  for (const e of edges) {
    const [s, t] = [byId.get(e.source), byId.get(e.target)]
    if (!s || !t) continue
    const ends = new Set([s.id, t.id])
    if (nodesCrossed([s, t], nodes, ends, -GRAZE).length === 0) continue
    const [up, low] = s.y <= t.y ? [s, t] : [t, s]
    // The nodes between the ends' rows, which the gutter must clear.
    const [top, bottom] = [up.y + up.h / 2, low.y - low.h / 2]
    const between = nodes.filter((n) => !ends.has(n.id) && n.y + n.h / 2 > top && n.y - n.h / 2 < bottom)
    if (between.length === 0) continue
    const yA = (top + Math.min(...between.map((n) => n.y - n.h / 2))) / 2
    const yB = (Math.max(...between.map((n) => n.y + n.h / 2)) + bottom) / 2
    // The gaps between the columns of those nodes, and either side of them all.
    const spans = between.map((n) => [n.x - n.w / 2 - CLEARANCE, n.x + n.w / 2 + CLEARANCE]).sort((a, b) => a[0] - b[0])
    const gutters: number[] = [spans[0][0] - CLEARANCE]
    let reach = spans[0][1]
    for (const [x1, x2] of spans.slice(1)) {
      if (x1 > reach) gutters.push((reach + x1) / 2)
      reach = Math.max(reach, x2)
    }
    gutters.push(reach + CLEARANCE)
    // The shortest way, and of those (every gutter between the ends is as short) the one beside the lower end: its link leaves the gutter right over it.
    const cost = (x: number) => Math.abs(up.x - x) + 1.5 * Math.abs(x - low.x)
    // Straight into the gutter and out of it, else first down from the upper end and along the
    // channel above the first row in the way, and along the channel below the last: a slant across
    // a wide row would cut through its other nodes.
    const shapes = (x: number): Point[][] => {
      const [a, b, under, over] = [{ x, y: yA }, { x, y: yB }, { x: up.x, y: yA }, { x: low.x, y: yB }]
      return [[a, b], [a, b, over], [under, a, b], [under, a, b, over]]
    }
    found: for (const x of gutters.sort((a, b) => cost(a) - cost(b))) {
      for (const bends of shapes(x)) {
        if (nodesCrossed([up, ...bends, low], nodes, ends, CLEARANCE / 2).length === 0) {
          out.set(e.id, s === up ? bends : bends.reverse())
          break found
        }
      }
    }
  }
  return out
}

/**
 * Cytoscape's segments for bends of an edge from `s` to `t` (with edge-distances: node-position):
 * each bend as a weight along the line between the ends' centres and a distance aside from it.
 */
export function segmentsOf(s: Point, t: Point, bends: readonly Point[]): { weights: number[]; distances: number[] } {
  const [dx, dy] = [t.x - s.x, t.y - s.y]
  const l2 = dx * dx + dy * dy || 1
  const l = Math.sqrt(l2)
  return {
    weights: bends.map((p) => ((p.x - s.x) * dx + (p.y - s.y) * dy) / l2),
    distances: bends.map((p) => ((p.x - s.x) * -dy + (p.y - s.y) * dx) / l),
  }
}

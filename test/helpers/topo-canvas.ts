// What the topology editor's canvas exposes to tests (its data-* attributes), and where a node is on screen.
import type { Page } from 'playwright-core'

export type Nodes = Record<string, [number, number]>

export const canvas = (page: Page) => page.getByTestId('topo-canvas')
export const nodes = async (page: Page): Promise<Nodes> => JSON.parse((await canvas(page).getAttribute('data-nodes')) ?? '{}') as Nodes
export const links = async (page: Page): Promise<Record<string, string>> => JSON.parse((await canvas(page).getAttribute('data-links')) ?? '{}') as Record<string, string>
export const selected = async (page: Page): Promise<string[]> => JSON.parse((await canvas(page).getAttribute('data-selected')) ?? '[]') as string[]

/** Node centres as fractions of the graph's bounding box (the panel may differ by a banner). */
export function normalise(n: Nodes): Nodes {
  const xs = Object.values(n).map((p) => p[0])
  const ys = Object.values(n).map((p) => p[1])
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)]
  return Object.fromEntries(Object.entries(n).map(([k, [x, y]]) => [k, [(x - x0) / (x1 - x0), (y - y0) / (y1 - y0)]]))
}

/** A node's centre in page coordinates, for a mouse click. */
export async function nodeAt(page: Page, name: string): Promise<{ x: number; y: number }> {
  const [x, y] = (await nodes(page))[name]
  const box = (await canvas(page).boundingBox())!
  return { x: box.x + x, y: box.y + y }
}

/** A one-scheme, 20-flow experiment on `topology` (a flow-style YAML map): enough for the editor to draw it. */
export const experiment = (name: string, topology: string) => `name: ${name}
testbed: sim
topology: ${topology}
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`

/** Each edge as a graph draws it (its ends' centres and its bends, on the canvas) and each node's box there: the data-drawn of the editor's canvas and of the Fabric tab's graph. */
export interface Drawn {
  paths: Record<string, Array<[number, number]>>
  boxes: Record<string, [number, number, number, number]>
}
export const drawn = async (page: Page, testId: 'topo-canvas' | 'fabric-graph'): Promise<Drawn> => JSON.parse((await page.getByTestId(testId).getAttribute('data-drawn')) ?? '{"paths":{},"boxes":{}}') as Drawn

/** Whether the segment a→b passes through the box [x1, y1, x2, y2]. */
function crosses(a: [number, number], b: [number, number], [x1, y1, x2, y2]: [number, number, number, number]): boolean {
  let [t0, t1] = [0, 1]
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]]
  for (const [p, q] of [[-dx, a[0] - x1], [dx, x2 - a[0]], [-dy, a[1] - y1], [dy, y2 - a[1]]]) {
    if (p === 0) {
      if (q < 0) return false
    } else if (p < 0) t0 = Math.max(t0, q / p)
    else t1 = Math.min(t1, q / p)
    if (t0 > t1) return false
  }
  return true
}

/**
 * The edges drawn through a node other than their ends, as "edge through node": a segment that
 * only grazes a box's corner (within `inset` px of its edge) passes by it.
 */
export function edgesThroughNodes(d: Drawn, inset: number): string[] {
  const out: string[] = []
  for (const [id, path] of Object.entries(d.paths)) {
    const [a, b] = [path[0], path[path.length - 1]]
    for (const [node, [x1, y1, x2, y2]] of Object.entries(d.boxes)) {
      const inner: [number, number, number, number] = [x1 + inset, y1 + inset, x2 - inset, y2 - inset]
      // Its own ends: the boxes the path starts and ends in.
      const own = (p: [number, number]) => p[0] >= x1 && p[0] <= x2 && p[1] >= y1 && p[1] <= y2
      if (own(a) || own(b)) continue
      if (path.slice(1).some((p, i) => crosses(path[i], p, inner))) out.push(`${id.replace(/^link:/, '')} through ${node}`)
    }
  }
  return out
}

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

// The grid both fabric graphs (the topology editor's, the Fabric tab's) lay a fabric out in pod by
// pod when its aggregation row is too wide for one row (a fat-tree of k = 6 and up): the pods a
// row that draw it largest on the graph at 1024 px, the cores above wrapped into rows of the
// grid's width, each half a column aside from the one above so that a link from an upper row
// passes between the lower row's. Each graph brings its own spacing and its pods' size.

/**
 * The zoom below which a switch's label can no longer be made out. A pod grid that fits its graph
 * on a 1024 px window only below it at its graph's usual spacing (a fat-tree of k = 8: 0.26 in
 * the editor, 0.29 in the Fabric tab) is drawn closer instead.
 */
export const READABLE_ZOOM = 0.3

export interface GridSpacing {
  /** Between two switches of a row. */
  xGap: number
  /** Between two tiers. */
  yGap: number
  /** Between two pods' blocks side by side. */
  podGap: number
  /** Between the rows of a wrapped tier of cores. */
  coreRowGap: number
  /** Between the cores' last row and the pods' first, when not yGap: a closer grid keeps the links to the first pods steep enough to pass between their switches. */
  coreGap?: number
  /** The graph on a 1024 px window inside its padding, about. */
  canvas: { w: number; h: number }
  /** A switch node's size, for the drawing's extent. */
  node: { w: number; h: number }
}

export interface PodGrid {
  perRow: number
  coreRows: number
  /** Cores a row, evened out over the rows. */
  coresPerRow: number
  zoom: number
}

/** The pods a row (and the cores' rows above them) that draw `pods` blocks of podW × podH under `cores` cores largest. */
export function bestPodGrid(pods: number, cores: number, podW: number, podH: number, s: GridSpacing): PodGrid {
  const rowsOf = (perRow: number) => Math.ceil(cores / Math.max(1, perRow))
  let best = { perRow: 1, coresPerRow: cores, zoom: -1 }
  for (let perRow = 1; perRow <= pods; perRow++) {
    const width = perRow * podW + (perRow - 1) * s.podGap
    const coresPerRow = Math.min(cores, Math.floor(width / s.xGap) + 1)
    const coreRows = cores > 0 ? rowsOf(coresPerRow) : 0
    const gridRows = Math.ceil(pods / perRow)
    const height = (coreRows > 0 ? (coreRows - 1) * s.coreRowGap + (s.coreGap ?? s.yGap) : 0) + gridRows * podH + (gridRows - 1) * s.yGap
    const coreW = (Math.min(cores, coresPerRow) - 1) * s.xGap + (coreRows > 1 ? s.xGap / 2 : 0)
    const zoom = Math.min(s.canvas.w / (Math.max(width, coreW) + s.node.w), s.canvas.h / (height + s.node.h))
    if (zoom > best.zoom) best = { perRow, coresPerRow, zoom }
  }
  const coreRows = cores > 0 ? rowsOf(best.coresPerRow) : 0
  return { perRow: best.perRow, coreRows, coresPerRow: Math.ceil(cores / Math.max(1, coreRows)), zoom: best.zoom }
}

/** Places the cores in the grid's rows; returns how far down the pods start. */
export function placeCores(cores: ReadonlyArray<{ name: string }>, grid: PodGrid, s: GridSpacing, out: Map<string, { x: number; y: number }>): number {
  const { coreRows, coresPerRow } = grid
  cores.forEach((n, i) => {
    const row = Math.floor(i / coresPerRow)
    const count = Math.min(coresPerRow, cores.length - row * coresPerRow)
    const x = ((i % coresPerRow) - (count - 1) / 2) * s.xGap + (coreRows > 1 ? (row % 2 === 0 ? -s.xGap / 4 : s.xGap / 4) : 0)
    out.set(n.name, { x, y: row * s.coreRowGap })
  })
  return coreRows > 0 ? (coreRows - 1) * s.coreRowGap + (s.coreGap ?? s.yGap) : 0
}

/** The centre and top of pod `q`'s block (of `pods`, podW × podH, starting at `top`); a shorter last row takes the middle columns. */
export function podOrigin(q: number, pods: number, podW: number, podH: number, top: number, grid: PodGrid, s: GridSpacing): { cx: number; y: number } {
  const { perRow } = grid
  const gridRow = Math.floor(q / perRow)
  const skip = Math.floor((perRow - Math.min(perRow, pods - gridRow * perRow)) / 2)
  return { cx: ((q % perRow) + skip - (perRow - 1) / 2) * (podW + s.podGap), y: top + gridRow * (podH + s.yGap) }
}

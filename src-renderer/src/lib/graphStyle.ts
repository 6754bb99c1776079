// The Cytoscape look the two fabric graphs share (the run's Fabric tab and the topology editor):
// the theme's colours read from the CSS variables, switches as rounded boxes and hosts dashed,
// links as bezier curves (down a gutter, routeLinks, where straight they would run through a
// node), a failing link's when on the panel's colour, and the labels' colours published for the
// contrast test. What differs between the two (sizes, what a label shows, what
// fills a switch, which marks win) is each view's parameters; the rules only they have stay theirs.
import type cytoscape from 'cytoscape'
import { routeAround, segmentsOf } from './graphRoute'

export type GraphRule = cytoscape.StylesheetJson[number]
type Css = Record<string, unknown>

/** The theme's colours, from the CSS variables in effect at `el` (the fallbacks are the dark theme's). */
export interface ThemeColours {
  fgStrong: string
  fgMuted: string
  fgFaint: string
  bgElev: string
  bgPanel: string
  accent: string
  danger: string
  warn: string
}

export function themeColours(el: Element | null): ThemeColours {
  const cs = getComputedStyle(el ?? document.documentElement)
  const v = (n: string, d: string) => cs.getPropertyValue(n).trim() || d
  return {
    fgStrong: v('--fg-strong', '#e8e8e8'),
    fgMuted: v('--fg-muted', '#9da0a6'),
    fgFaint: v('--fg-faint', '#8f949a'),
    bgElev: v('--bg-elev', '#2d2d30'),
    bgPanel: v('--bg-panel', '#222223'),
    accent: v('--accent-fg', '#3794ff'),
    danger: v('--danger', '#f26d6d'),
    warn: v('--warn', '#cca700'),
  }
}

/** What each label is drawn on, for the contrast check (the labels are on a canvas, out of the DOM's reach). */
export function publishPalette(root: HTMLElement | null, labels: ReadonlyArray<{ what: string; fg: string; bg: string }>): void {
  if (root) root.dataset.palette = JSON.stringify(labels)
}

export interface SwitchLook {
  width: number
  height: number
  /** A colour, or a data field such as data(color). */
  fill: string
  border: string
  /** The data field the label shows, such as data(id). */
  label: string
  color: string
  fontSize: number
  /** An outline around the label's letters, for a label on a fill that changes (a heat scale). */
  outline?: { color: string; width: number }
}

export interface GraphLook {
  switch: SwitchLook
  /** Which nodes are hosts, and how they differ from a switch beyond their dashed border and label colour. */
  host: { selector: string; color: string; style: Css }
  /** This view's own node rules (a tier's look), drawn after the hosts'. */
  nodes?: GraphRule[]
  /** A link: its width and colour (values or data fields), how far apart parallel ones bend, and the rest of this view's look. */
  link: { width: number | string; color: string; spread: number; style?: Css }
}

/** The rules every fabric graph starts with: switches, hosts (and the view's own node rules), links. A view's own rules follow them (later rules win). */
export function baseRules(look: GraphLook): GraphRule[] {
  const s = look.switch
  return [
    {
      selector: 'node',
      style: {
        shape: 'round-rectangle',
        width: s.width,
        height: s.height,
        'background-color': s.fill,
        'border-width': 1,
        'border-color': s.border,
        label: s.label,
        color: s.color,
        'font-size': s.fontSize,
        'font-family': 'system-ui, sans-serif',
        'text-valign': 'center',
        'text-halign': 'center',
        ...(s.outline ? { 'text-outline-color': s.outline.color, 'text-outline-width': s.outline.width } : {}),
      },
    },
    { selector: look.host.selector, style: { 'font-size': 9.5, 'border-style': 'dashed', color: look.host.color, ...look.host.style } },
    ...(look.nodes ?? []),
    { selector: 'edge', style: { width: look.link.width, 'line-color': look.link.color, 'curve-style': 'bezier', 'control-point-step-size': look.link.spread, ...look.link.style } },
  ] as GraphRule[]
}

/** A failing link's label (data(fail): when it fails and recovers) in the danger colour on the panel's. */
export function failureLabel(c: ThemeColours, fontSize: number): Css {
  return { label: 'data(fail)', 'font-size': fontSize, color: c.danger, 'text-background-color': c.bgPanel, 'text-background-opacity': 1, 'text-background-padding': '1px' }
}

/**
 * Fits every element in the canvas, `padding` px a side. Cytoscape's fit stops at the minimum
 * zoom, which cut a wide fabric off (64 hosts in a row need about 0.1 on a 1024 px window): the
 * minimum is lowered to what the fit takes when that is below `floor`, and goes back to `floor`
 * for a graph that fits above it, so the user can always zoom out to the whole graph.
 */
export function fitWhole(cy: cytoscape.Core, padding: number, floor: number): void {
  const bb = cy.elements().boundingBox()
  const [w, h] = [cy.width() - 2 * padding, cy.height() - 2 * padding]
  // The zoom Cytoscape's fit computes, so that it is not clamped.
  const needed = bb.w > 0 && bb.h > 0 && w > 0 && h > 0 ? Math.min(w / bb.w, h / bb.h) : floor
  cy.minZoom(Math.min(floor, needed))
  cy.fit(undefined, padding)
}

/** Where the drawing sits on its canvas, for the tests: [x1, y1, x2, y2] of every element as drawn (labels included), then the canvas's width and height. */
export function drawnBox(cy: cytoscape.Core): number[] {
  const b = cy.elements().renderedBoundingBox()
  return [b.x1, b.y1, b.x2, b.y2, cy.width(), cy.height()].map((v) => Math.round(v))
}

const ROUTED = ['curve-style', 'edge-distances', 'segment-weights', 'segment-distances']

/**
 * Draws each link that would pass through a node other than its ends down a gutter between the
 * columns instead (lib/graphRoute.ts), as segments set on its edges; the edges of one pair of
 * nodes (the Fabric tab's two directions of a link) `apart` px from each other. Call it again
 * after nodes move.
 */
export function routeLinks(cy: cytoscape.Core, apart: number): void {
  const nodes = cy.nodes().map((n) => ({ id: n.id(), x: n.position('x'), y: n.position('y'), w: n.width(), h: n.height() }))
  const pairs = new Map<string, cytoscape.EdgeSingular[]>()
  cy.edges().forEach((e) => {
    const key = [e.source().id(), e.target().id()].sort().join('\u0000')
    pairs.set(key, [...(pairs.get(key) ?? []), e])
  })
  const first = [...pairs.values()].map((list) => list[0])
  const routes = routeAround(nodes, first.map((e) => ({ id: e.id(), source: e.source().id(), target: e.target().id() })))
  cy.batch(() => {
    for (const list of pairs.values()) {
      const bends = routes.get(list[0].id())
      const from = list[0].source().id()
      list.forEach((e, i) => {
        if (!bends) {
          e.removeStyle(ROUTED.join(' '))
          return
        }
        const dx = (i - (list.length - 1) / 2) * apart
        const own = (e.source().id() === from ? bends : [...bends].reverse()).map((p) => ({ x: p.x + dx, y: p.y }))
        const { weights, distances } = segmentsOf(e.source().position(), e.target().position(), own)
        e.style({ 'curve-style': 'segments', 'edge-distances': 'node-position', 'segment-weights': weights.join(' '), 'segment-distances': distances.join(' ') })
      })
    }
  })
}

/** Each edge as drawn, for the tests: its ends' centres and its bends between them, on the canvas; and each node's box there. */
export function drawnPaths(cy: cytoscape.Core): { paths: Record<string, number[][]>; boxes: Record<string, number[]> } {
  const at = (p: { x: number; y: number }) => [Math.round(p.x * 10) / 10, Math.round(p.y * 10) / 10]
  const paths: Record<string, number[][]> = {}
  cy.edges().forEach((e) => {
    const bends = e.style('curve-style') === 'segments' ? (e.renderedSegmentPoints() ?? []) : []
    paths[e.id()] = [at(e.source().renderedPosition()), ...bends.map(at), at(e.target().renderedPosition())]
  })
  const boxes: Record<string, number[]> = {}
  cy.nodes().forEach((n) => {
    const [p, w, h] = [n.renderedPosition(), n.renderedWidth(), n.renderedHeight()]
    boxes[n.id()] = [p.x - w / 2, p.y - h / 2, p.x + w / 2, p.y + h / 2].map((v) => Math.round(v * 10) / 10)
  })
  return { paths, boxes }
}

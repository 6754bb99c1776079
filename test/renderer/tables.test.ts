import { describe, expect, it } from 'vitest'
import { buildFabricModel, evaluateFabric, utilColor } from '../../src-renderer/src/lib/fabric'
import { GRAZE, nodesCrossed, routeAround, segmentsOf } from '../../src-renderer/src/lib/graphRoute'
import type { SwitchTableSpec } from '../../src-main/contract'
import type { SeriesDefLike } from '../../src-renderer/src/lib/series'
import {
  activeFlows,
  busiestPorts,
  cellAttr,
  destinationTable,
  fabricCapacityBps,
  formatCell,
  formatMatrixCell,
  heatmapGrid,
  matrixTable,
  portTable,
  probeShare,
  queueCdf,
  schemeTables,
  tablesWithData,
  topFlows,
  type SchemeTable,
} from '../../src-renderer/src/lib/tables'
import { statOf, valueAt, windowRange } from '../../src-renderer/src/lib/window'

const def = (kind: string, entity: Record<string, string | number>, unit = 'x'): SeriesDefLike => ({ kind, entity, unit })

// The specs as the descriptors declare them (src-main/schemes/*/index.ts; test/core/schemes-list
// holds the descriptors to their series); the builders know no scheme.
const HULA = {
  layout: 'per-destination',
  title: 'best hop',
  note: 'per destination ToR',
  switchKey: 'switch',
  rowKey: 'dstTor',
  rowLabel: 'Dst ToR',
  columns: [
    { kind: 'hula.bestHop', label: 'Best hop', format: 'port' },
    { kind: 'hula.pathUtil', label: 'Path util', format: 'ratio' },
  ],
} as const satisfies SwitchTableSpec
const FLOODGATE = {
  layout: 'per-destination',
  title: 'windows',
  switchKey: 'switch',
  rowKey: 'dst',
  columns: [
    { kind: 'floodgate.window', label: 'Window', format: 'bytes' },
    { kind: 'floodgate.voq', label: 'VOQ', format: 'packets' },
  ],
} as const satisfies SwitchTableSpec
const CONGA = { layout: 'matrix', title: 'congestion-to-leaf', kind: 'conga.metric', switchKey: 'leaf', rowKey: 'dstLeaf', colKey: 'uplink', lowIsBest: true } as const satisfies SwitchTableSpec
const DHLB = { layout: 'matrix', title: 'load information', kind: 'dhlb.loadDegree', switchKey: 'switch', rowKey: 'dstTor', colKey: 'port', lowIsBest: false } as const satisfies SwitchTableSpec
const scheme = (name: string, label: string, tables: SwitchTableSpec[]) => ({ name, label, tables })

describe('switch tables from series', () => {
  const peers = new Map([
    ['tor0:8', 'agg0'],
    ['tor0:9', 'agg1'],
  ])
  const defs = [
    def('hula.bestHop', { switch: 'tor0', dstTor: 'tor2' }, 'port'),
    def('hula.pathUtil', { switch: 'tor0', dstTor: 'tor2' }, 'ratio'),
    def('hula.bestHop', { switch: 'tor0', dstTor: 'tor10' }, 'port'),
    def('hula.pathUtil', { switch: 'tor0', dstTor: 'tor10' }, 'ratio'),
    def('hula.bestHop', { switch: 'tor1', dstTor: 'tor2' }, 'port'),
    def('hula.bestHop', { switch: 'tor0', dstTor: 'tor1' }, 'port'),
  ]
  const values = [9, 0.5, 8, 0.25, 3, -1]

  it("HULA's per-destination table: one row per destination ToR, best hop's port and neighbour, path util; -1 is no hop yet", () => {
    const rows = destinationTable(HULA, defs, 'tor0', (i) => values[i], peers)
    expect(rows).toEqual([
      { key: 'tor1', cells: [{ value: NaN, unit: 'port', via: null }, { value: NaN, unit: '' }] },
      { key: 'tor2', cells: [{ value: 9, unit: 'port', via: 'agg1' }, { value: 0.5, unit: 'ratio' }] },
      { key: 'tor10', cells: [{ value: 8, unit: 'port', via: 'agg0' }, { value: 0.25, unit: 'ratio' }] },
    ])
    expect(rows.map((r) => formatCell('port', r.cells[0]))).toEqual(['—', 'port 9', 'port 8'])
    expect(rows.map((r) => formatCell('ratio', r.cells[1]))).toEqual(['—', '50.0%', '25.0%'])
    // On BMv2 and Tofino the path util is the register's 8-bit level, not a ratio.
    expect(formatCell('ratio', { value: 128, unit: 'level' })).toBe('128')
    expect([cellAttr('hula.bestHop'), cellAttr('hula.pathUtil'), cellAttr('floodgate.voq')]).toEqual(['data-best-hop', 'data-path-util', 'data-voq'])
  })

  it('CONGA: destination leaves × uplinks, the least congested marked', () => {
    const d = [
      def('conga.metric', { leaf: 'leaf0', dstLeaf: 'leaf1', uplink: 0 }),
      def('conga.metric', { leaf: 'leaf0', dstLeaf: 'leaf1', uplink: 1 }),
      def('conga.metric', { leaf: 'leaf0', dstLeaf: 'leaf2', uplink: 1 }),
      def('conga.metric', { leaf: 'leaf1', dstLeaf: 'leaf0', uplink: 0 }),
    ]
    const v = [5, 2, 7, 1]
    const t = matrixTable(CONGA, d, 'leaf0', (i) => v[i])
    expect(t.cols).toEqual([0, 1])
    expect(t.rows[0]).toEqual({ key: 'leaf1', cells: [5, 2], best: [1] })
    expect(t.rows[0].cells.map(formatMatrixCell)).toEqual(['5', '2'])
    expect(t.rows[1].key).toBe('leaf2')
    expect(t.rows[1].cells[0]).toBeNaN()
    expect(t.rows[1].best).toEqual([1])
  })

  it('DHLB: destination ToRs × candidate ports, the highest degree (the least loaded path) marked, every one of a tie, -1 never', () => {
    const d = [
      def('dhlb.loadDegree', { switch: 'agg0', dstTor: 'tor3', port: 3 }),
      def('dhlb.loadDegree', { switch: 'agg0', dstTor: 'tor3', port: 2 }),
      def('dhlb.loadDegree', { switch: 'agg0', dstTor: 'tor4', port: 2 }),
      def('dhlb.loadDegree', { switch: 'agg0', dstTor: 'tor4', port: 3 }),
      def('dhlb.loadDegree', { switch: 'agg0', dstTor: 'tor5', port: 2 }),
      def('dhlb.loadDegree', { switch: 'agg0', dstTor: 'tor5', port: 3 }),
    ]
    const t = matrixTable(DHLB, d, 'agg0', (i) => [1, 0, -1, -1, 5, 5][i])
    expect(t.cols).toEqual([2, 3])
    expect(t.rows).toEqual([
      { key: 'tor3', cells: [0, 1], best: [1] },
      { key: 'tor4', cells: [-1, -1], best: [] },
      { key: 'tor5', cells: [5, 5], best: [0, 1] },
    ])
    expect(t.rows[1].cells.map(formatMatrixCell)).toEqual(['—', '—'])
  })

  it('Floodgate: window and VOQ per destination', () => {
    const d = [
      def('floodgate.window', { switch: 'tor0', dst: 'h3' }, 'bytes'),
      def('floodgate.voq', { switch: 'tor0', dst: 'h3' }, 'packets'),
      def('floodgate.window', { switch: 'tor1', dst: 'h3' }, 'bytes'),
    ]
    const rows = destinationTable(FLOODGATE, d, 'tor0', (i) => [30000, 4, 1][i], peers)
    expect(rows).toEqual([{ key: 'h3', cells: [{ value: 30000, unit: 'bytes' }, { value: 4, unit: 'packets' }] }])
    expect([formatCell('bytes', rows[0].cells[0]), formatCell('packets', rows[0].cells[1])]).toEqual(['30.0 KB', '4 pkt'])
  })

  it("lists each scheme's tables once (CONGA′ shares CONGA's) and keeps those the run has series for", () => {
    const tables = schemeTables([
      scheme('ecmp', 'ECMP', []),
      scheme('conga', 'CONGA', [CONGA]),
      scheme('conga-prime', 'CONGA′', [{ ...CONGA }]),
      scheme('dhlb', 'DHLB', [DHLB]),
      scheme('floodgate', 'Floodgate', [FLOODGATE]),
      scheme('hula', 'HULA', [HULA, { ...HULA, title: 'second' }]),
    ])
    expect(tables.map((t) => [t.id, t.heading])).toEqual([
      ['conga', 'CONGA congestion-to-leaf'],
      ['dhlb', 'DHLB load information'],
      ['floodgate', 'Floodgate windows'],
      ['hula', 'HULA best hop'],
      ['hula-2', 'HULA second'],
    ])
    const ids = (t: SchemeTable[]) => t.map((x) => x.id)
    expect(ids(tablesWithData(tables, defs))).toEqual(['hula', 'hula-2'])
    expect(ids(tablesWithData(tables, [def('floodgate.voq', { switch: 's', dst: 'h' })]))).toEqual(['floodgate'])
    expect(ids(tablesWithData(tables, [def('link.util', { switch: 's', port: 1 })]))).toEqual([])
  })

  it('ports: util, queue and drops per port with the peer', () => {
    const d = [def('link.util', { switch: 'tor0', port: 9 }), def('queue.depth', { switch: 'tor0', port: 9 }), def('drops', { switch: 'tor0', port: 9 })]
    expect(portTable(d, 'tor0', (i) => [0.4, 12, 1][i], peers)).toEqual([{ port: 9, peer: 'agg1', util: 0.4, depth: 12, drops: 1 }])
  })
})

describe('window statistics', () => {
  const x = Float64Array.from([0.1, 0.2, 0.3, 0.4, 0.5])
  const col = Float32Array.from([1, 2, NaN, 4, 10])

  it('windows end at the cursor and keep at least the last sample', () => {
    expect(windowRange(x, 5, 0.45, 0.2)).toEqual([2, 4])
    expect(windowRange(x, 5, 0.45, 0.001)).toEqual([3, 4])
    expect(windowRange(x, 5, 0.05, 1)).toEqual([0, 0])
    expect(windowRange(x, 5, 9, Infinity)).toEqual([0, 5])
  })

  it('last, mean and p95 skip NaN', () => {
    expect(statOf(col, 0, 3, 'last')).toBe(2)
    expect(statOf(col, 0, 4, 'mean')).toBeCloseTo(7 / 3)
    expect(statOf(col, 0, 5, 'p95')).toBe(10)
    expect(statOf(Float32Array.from({ length: 100 }, (_, i) => i + 1), 0, 100, 'p95')).toBe(95)
    expect(statOf(col, 2, 3, 'mean')).toBeNaN()
  })

  it('valueAt reads the last sample at or before the cursor', () => {
    expect(valueAt(x, 5, col, 0.25)).toBe(2)
    expect(valueAt(x, 5, col, 0.05)).toBeNaN()
  })

  it("'last' over the window up to the cursor skips the gaps of a series sampled at its own instants", () => {
    const gappy = Float32Array.from([3, NaN, 5, NaN, NaN])
    const last = (col: ArrayLike<number>, t: number) => statOf(col, ...windowRange(x, 5, t, Infinity), 'last')
    expect(valueAt(x, 5, gappy, 10)).toBeNaN()
    expect(last(gappy, 10)).toBe(5)
    expect(last(gappy, 0.15)).toBe(3)
    expect(last(Float32Array.from([NaN, NaN, NaN, NaN, NaN]), 10)).toBeNaN()
  })
})

describe('fabric model', () => {
  const graph = {
    kind: 'leaf-spine',
    nodes: [
      { name: 'spine0', role: 'spine' as const, level: 2, pod: -1 },
      { name: 'leaf0', role: 'tor' as const, level: 1, pod: -1 },
      { name: 'leaf1', role: 'tor' as const, level: 1, pod: -1 },
      { name: 'h0', role: 'host' as const, level: 0, pod: -1 },
      { name: 'h1', role: 'host' as const, level: 0, pod: -1 },
    ],
    links: [
      { name: 'spine0-leaf0', a: 'spine0', aPort: 0, b: 'leaf0', bPort: 1, bps: 40e9 },
      { name: 'spine0-leaf1', a: 'spine0', aPort: 1, b: 'leaf1', bPort: 1, bps: 40e9 },
      { name: 'leaf0-h0', a: 'leaf0', aPort: 0, b: 'h0', bPort: 0, bps: 10e9 },
      { name: 'leaf1-h1', a: 'leaf1', aPort: 0, b: 'h1', bPort: 0, bps: 10e9 },
    ],
    hosts: ['h0', 'h1'],
    queuePackets: 100,
  }
  const defs = [
    def('link.util', { switch: 'spine0', port: 0 }),
    def('link.util', { switch: 'leaf0', port: 1 }),
    def('queue.depth', { switch: 'leaf0', port: 0 }),
    def('queue.depth', { switch: 'leaf0', port: 1 }),
    def('link.util', { switch: 'leaf0', port: 0 }),
  ]

  it('two edges per fabric link (one per direction), one per ToR for its hosts; spines above ToRs', () => {
    const m = buildFabricModel(graph, defs)
    const e = Object.fromEntries(m.edges.map((x) => [x.id, x]))
    expect(Object.keys(e).sort()).toEqual(['leaf0:hosts:down', 'leaf1:hosts:down', 'spine0-leaf0:down', 'spine0-leaf0:up', 'spine0-leaf1:down', 'spine0-leaf1:up'])
    expect(e['spine0-leaf0:down']).toMatchObject({ source: 'spine0', target: 'leaf0', utilCols: [0] })
    expect(e['spine0-leaf0:up']).toMatchObject({ source: 'leaf0', target: 'spine0', utilCols: [1] })
    expect(e['leaf0:hosts:down'].utilCols).toEqual([4])
    expect(e['spine0-leaf1:down'].utilCols).toEqual([])
    const y = Object.fromEntries(m.nodes.map((n) => [n.id, n.y]))
    expect(y.spine0).toBeLessThan(y.leaf0)
    expect(y.leaf0).toBeLessThan(y['leaf0:hosts'])
    expect(m.nodes.find((n) => n.id === 'leaf0')!.queueCols.sort()).toEqual([2, 3])
    expect(m.peers.get('leaf0:1')).toBe('spine0')
    expect(m.peers.get('leaf0:0')).toBe('h0')
  })

  /** A leaf-spine fabric as the core describes it: `leaves` leaves of `per` hosts under two spines. */
  function leafSpine(leaves: number, per: number) {
    const leaf = Array.from({ length: leaves }, (_, i) => `leaf${i}`)
    const host = (l: number, j: number) => `h${l * per + j}`
    return {
      kind: 'leaf-spine',
      nodes: [
        ...['spine0', 'spine1'].map((name) => ({ name, role: 'spine' as const, level: 2, pod: -1 })),
        ...leaf.map((name) => ({ name, role: 'tor' as const, level: 1, pod: -1 })),
        ...leaf.flatMap((_, l) => Array.from({ length: per }, (_, j) => ({ name: host(l, j), role: 'host' as const, level: 0, pod: -1 }))),
      ],
      links: [
        ...leaf.flatMap((l, i) => [0, 1].map((s) => ({ name: `spine${s}-${l}`, a: `spine${s}`, aPort: i, b: l, bPort: per + s, bps: 40e9 }))),
        ...leaf.flatMap((l, i) => Array.from({ length: per }, (_, j) => ({ name: `${l}-${host(i, j)}`, a: l, aPort: j, b: host(i, j), bPort: 0, bps: 10e9 }))),
      ],
      hosts: leaf.flatMap((_, l) => Array.from({ length: per }, (_, j) => host(l, j))),
      queuePackets: 100,
    }
  }

  it('wraps a wide tier of ToRs into bands, each ToR over its hosts, drawn at a zoom of 0.3 or more at 1024 px', () => {
    // 32 leaves were one row 3400 across: a zoom of 0.09 on the graph at 1024 px (about 310 × 410).
    const m = buildFabricModel(leafSpine(32, 2), [])
    const at = Object.fromEntries(m.nodes.map((n) => [n.id, n]))
    const xs = m.nodes.map((n) => n.x)
    const ys = m.nodes.map((n) => n.y)
    expect([(Math.max(...xs) - Math.min(...xs) + 58) * 0.3 <= 310, (Math.max(...ys) - Math.min(...ys) + 22) * 0.3 <= 410]).toEqual([true, true])
    const leaves = m.nodes.filter((n) => n.role === 'tor')
    const bands = [...new Set(leaves.map((n) => n.y))].sort((a, b) => a - b)
    expect(bands.length).toBeGreaterThan(1)
    expect(at.spine0.y).toBeLessThan(bands[0])
    for (const [i, y] of bands.entries()) {
      const row = leaves.filter((n) => n.y === y).map((n) => n.x)
      expect(Math.max(...row) - Math.min(...row)).toBeLessThanOrEqual(1100)
      // Each leaf's hosts right under it, above the next band.
      for (const l of leaves.filter((n) => n.y === y)) {
        const hosts = at[`${l.id}:hosts`]
        expect([hosts.x, hosts.y > y, hosts.y < (bands[i + 1] ?? Infinity)]).toEqual([l.x, true, true])
      }
    }
    // The bands' columns line up: the first band's x are every band's.
    const first = new Set(leaves.filter((n) => n.y === bands[0]).map((n) => n.x))
    expect(leaves.filter((n) => !first.has(n.x)).map((n) => n.id)).toEqual([])
    // A fabric whose ToRs fit in a row keeps them in one, 110 apart.
    const small = buildFabricModel(leafSpine(8, 2), []).nodes.filter((n) => n.role === 'tor')
    expect(new Set(small.map((n) => n.y)).size).toBe(1)
    expect(small.map((n) => n.x)).toEqual(small.map((_, i) => (i - 3.5) * 110))
  })

  /** A k-ary fat-tree as the core describes it: (k/2)² cores over k pods of k/2 aggregation switches and k/2 edge switches of k/2 hosts. */
  function fatTree(k: number) {
    const half = k / 2
    const nodes: Array<{ name: string; role: 'spine' | 'agg' | 'tor' | 'host'; level: number; pod: number }> = []
    const links: Array<{ name: string; a: string; aPort: number; b: string; bPort: number; bps: number }> = []
    const link = (a: string, b: string) => links.push({ name: `${a}-${b}`, a, aPort: links.length, b, bPort: links.length, bps: 10e9 })
    for (let c = 0; c < half * half; c++) nodes.push({ name: `core${c}`, role: 'spine', level: 3, pod: -1 })
    for (let p = 0; p < k; p++) {
      for (let i = 0; i < half; i++) nodes.push({ name: `agg${p * half + i}`, role: 'agg', level: 2, pod: p })
      for (let i = 0; i < half; i++) nodes.push({ name: `edge${p * half + i}`, role: 'tor', level: 1, pod: p })
      for (let c = 0; c < half * half; c++) link(`core${c}`, `agg${p * half + Math.floor(c / half)}`)
      for (let i = 0; i < half; i++) for (let j = 0; j < half; j++) link(`agg${p * half + i}`, `edge${p * half + j}`)
    }
    const hosts = Array.from({ length: k * half * half }, (_, h) => `h${h}`)
    hosts.forEach((h, i) => {
      nodes.push({ name: h, role: 'host', level: 0, pod: Math.floor(i / (half * half)) })
      link(`edge${Math.floor(i / half)}`, h)
    })
    return { kind: 'fat-tree', nodes, links, hosts, queuePackets: 100 }
  }

  it('lays a fat-tree whose aggregation row is too wide out pod by pod, the pods in a grid under the cores', () => {
    // k = 6 was one row of 18 aggregation switches, 1870 across: a zoom of 0.16 at 1024 px (about 310 × 410).
    // k = 8 at k = 6's spacing fit at 0.29 only, below the zoom a label is read at: it is drawn closer.
    for (const [k, readable] of [[6, 0.3], [8, 0.4]]) {
      const g = fatTree(k)
      const m = buildFabricModel(g, [])
      const at = Object.fromEntries(m.nodes.map((n) => [n.id, n]))
      const xs = m.nodes.map((n) => n.x)
      const ys = m.nodes.map((n) => n.y)
      expect([(Math.max(...xs) - Math.min(...xs) + 58) * readable <= 310, (Math.max(...ys) - Math.min(...ys) + 22) * readable <= 410], `k = ${k}`).toEqual([true, true])
      const role = (r: string) => g.nodes.filter((n) => n.role === r)
      expect(Math.max(...role('spine').map((n) => at[n.name].y))).toBeLessThan(Math.min(...role('agg').map((n) => at[n.name].y)))
      // Each pod a block: its aggregation switches in a row over its ToRs in a row, each ToR over its hosts, no two pods' blocks overlapping.
      const boxes = Array.from({ length: k }, (_, pod) => {
        const [aggs, tors] = [role('agg'), role('tor')].map((l) => l.filter((n) => n.pod === pod).map((n) => at[n.name]))
        expect(new Set(aggs.map((n) => n.y)).size).toBe(1)
        expect(new Set(tors.map((n) => n.y)).size).toBe(1)
        expect(aggs[0].y).toBeLessThan(tors[0].y)
        const hosts = tors.map((t) => at[`${t.id}:hosts`])
        tors.forEach((t, i) => expect([hosts[i].x, hosts[i].y > t.y]).toEqual([t.x, true]))
        const all = [...aggs, ...tors, ...hosts]
        return { x1: Math.min(...all.map((n) => n.x)) - 32, x2: Math.max(...all.map((n) => n.x)) + 32, y1: Math.min(...all.map((n) => n.y)) - 12, y2: Math.max(...all.map((n) => n.y)) + 12 }
      })
      const overlapping = boxes.flatMap((a, i) => boxes.slice(i + 1).flatMap((b, j) => (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2 ? [`pods ${i} and ${i + 1 + j}`] : [])))
      expect(overlapping, `k = ${k}`).toEqual([])
      expect(new Set(boxes.map((b) => b.y1)).size, `k = ${k}: pods in more than one row`).toBeGreaterThan(1)
    }
    // A k = 4 fat-tree keeps its 8 aggregation switches in one row, as wide as 8 switches 110 apart, centred.
    const aggs = buildFabricModel(fatTree(4), []).nodes.filter((n) => n.role === 'agg')
    expect(new Set(aggs.map((n) => n.y)).size).toBe(1)
    expect([aggs[0].x, aggs[7].x]).toEqual([-385, 385])
  })

  it('routes a link that would run through a node but its ends down a gutter between the columns', () => {
    // 32 leaves in bands: spine0 lined up with the columns of leaf2, leaf9, ..., and its links to the
    // lower bands ran straight through the leaves (and their hosts' nodes) above them.
    for (const g of [leafSpine(32, 2), fatTree(6), fatTree(8)]) {
      const m = buildFabricModel(g, [])
      const nodes = m.nodes.map((n) => ({ id: n.id, x: n.x, y: n.y, w: n.role === 'hosts' ? 56 : 64, h: n.role === 'hosts' ? 18 : 24 }))
      const at = new Map(nodes.map((n) => [n.id, n]))
      const edges = m.edges.filter((e) => e.dir === 'down')
      const through = (e: (typeof edges)[number], bends: Array<{ x: number; y: number }>) => nodesCrossed([at.get(e.source)!, ...bends, at.get(e.target)!], nodes, new Set([e.source, e.target]), -GRAZE)
      expect(edges.filter((e) => through(e, []).length > 0).length, g.kind).toBeGreaterThan(10)
      const routes = routeAround(nodes, edges)
      expect(edges.filter((e) => through(e, routes.get(e.id) ?? []).length > 0).map((e) => e.id), g.kind).toEqual([])
      // Only those: a link clear of every node stays straight.
      expect(edges.filter((e) => routes.has(e.id) && through(e, []).length === 0).map((e) => e.id), g.kind).toEqual([])
      // Cytoscape puts each bend at weight w along the line between the ends' centres and d aside from it (to the left of the way the edge goes).
      for (const [id, bends] of routes) {
        const e = edges.find((x) => x.id === id)!
        const [s, t] = [at.get(e.source)!, at.get(e.target)!]
        const { weights, distances } = segmentsOf(s, t, bends)
        const l = Math.hypot(t.x - s.x, t.y - s.y)
        const drawn = weights.map((w, i) => ({ x: s.x + w * (t.x - s.x) - ((t.y - s.y) / l) * distances[i], y: s.y + w * (t.y - s.y) + ((t.x - s.x) / l) * distances[i] }))
        drawn.forEach((p, i) => expect(Math.hypot(p.x - bends[i].x, p.y - bends[i].y), `${id}: bend ${i}`).toBeLessThan(1e-6))
      }
    }
    // A fabric drawn in rows that fit has no link to route.
    const small = buildFabricModel(leafSpine(8, 2), [])
    expect(routeAround(small.nodes.map((n) => ({ id: n.id, x: n.x, y: n.y, w: 64, h: 24 })), small.edges).size).toBe(0)
  })

  it('evaluates edges by their direction and nodes by their deepest queue', () => {
    const m = buildFabricModel(graph, defs)
    const x = Float64Array.from([1, 2])
    const cols = [
      [0.2, 0.9],
      [0.1, 0.3],
      [5, 1],
      [2, 40],
      [0.5, 0.5],
    ]
    const f = evaluateFabric(m, x, 2, cols, 2, 10, 'last')
    const util = Object.fromEntries(m.edges.map((e, i) => [e.id, f.edgeUtil[i]]))
    expect(util['spine0-leaf0:down']).toBeCloseTo(0.9)
    expect(util['spine0-leaf0:up']).toBeCloseTo(0.3)
    expect(util['spine0-leaf1:down']).toBeNaN()
    const q = Object.fromEntries(m.nodes.map((n, i) => [n.id, f.nodeQueue[i]]))
    expect(q.leaf0).toBe(40)
    const mean = evaluateFabric(m, x, 2, cols, 2, 10, 'mean')
    expect(mean.edgeUtil[m.edges.findIndex((e) => e.id === 'spine0-leaf0:down')]).toBeCloseTo(0.55)
    expect(utilColor(0)).not.toBe(utilColor(1))
  })
})

describe('traffic derivations', () => {
  it('busiest ports by mean link.util', () => {
    const d = [def('link.util', { switch: 'a', port: 0 }), def('queue.depth', { switch: 'a', port: 0 }), def('link.util', { switch: 'b', port: 1 })]
    const cols = [[0.1, 0.3], [50, 50], [0.9, 0.7]]
    expect(busiestPorts(d, cols, 0, 2, 5).map((b) => [b.port, Number(b.util.toFixed(2))])).toEqual([
      ['b:1', 0.8],
      ['a:0', 0.2],
    ])
  })

  it('probe share: bits over what every switch-link direction carries in the interval', () => {
    const cap = fabricCapacityBps(
      [
        { a: 's', b: 't', bps: 10e9 },
        { a: 't', b: 'h0', bps: 10e9 },
      ],
      ['h0'],
    )
    expect(cap).toBe(20e9)
    // 2500 B per 0.1 ms = 200 Mbit/s of 20 Gbit/s
    expect(probeShare(2500, 0.1, cap)).toBeCloseTo(0.01)
    expect(probeShare(2500, 0, cap)).toBeNaN()
  })

  it('queue CDF: one point per distinct depth, reaching 1', () => {
    const c = queueCdf([[0, 0, 3], [0, 5, 3]], 0, 3)
    expect(Array.from(c.x)).toEqual([0, 3, 5])
    expect(Array.from(c.y)).toEqual([3 / 6, 5 / 6, 1])
    expect(c.samples).toBe(6)
  })

  it('heatmap: max per row and bin', () => {
    const h = heatmapGrid([[1, 2, 3, 4], [0, 0, 9, NaN]], 0, 4, 2)
    expect(h.bins).toBe(2)
    expect(Array.from(h.grid)).toEqual([2, 4, 0, 9])
    expect(h.max).toBe(9)
  })

  it('flows on the wire at an instant, largest first; top flows with unbounded first', () => {
    const flows = {
      src: [0, 1, 2, 3],
      dst: [1, 2, 3, 0],
      sizeBytes: [100, 5000, 300, -1],
      startNs: [0, 10, 20, 0],
      finishNs: [50, 100, 25, -1],
    }
    expect(activeFlows(flows, 30, 10)).toEqual({ ids: [3, 1, 0], total: 3 })
    expect(activeFlows(flows, 60, 1)).toEqual({ ids: [3], total: 2 })
    expect(topFlows(flows, 2)).toEqual([3, 1])
  })
})

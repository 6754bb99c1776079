import { describe, expect, it } from 'vitest'
import {
  buildFabric,
  distancesTo,
  isUpPort,
  linkByName,
  nodeByName,
  peer,
  shortestNextHops,
  type Fabric,
  type FabricSpec,
} from '../../src-main/model/topology'

const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }
const HULA: FabricSpec = { kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, ...RATES }

/** Number of distinct shortest paths from a switch to a node, following next-hop sets. */
function pathCount(f: Fabric, from: number, to: number): number {
  const dist = distancesTo(f, to)
  const memo = new Map<number, number>()
  const count = (n: number): number => {
    if (n === to) return 1
    if (memo.has(n)) return memo.get(n)!
    const c = shortestNextHops(f, n, dist).reduce((s, p) => s + count(peer(f, n, p).node), 0)
    memo.set(n, c)
    return c
  }
  return count(from)
}

describe('fabric graphs', () => {
  it('builds a leaf-spine with host ports first, then uplinks', () => {
    const f = buildFabric({ kind: 'leaf-spine', leaves: 4, spines: 2, hostsPerLeaf: 4, ...RATES })
    expect(f.hosts).toHaveLength(16)
    expect(f.tors).toHaveLength(4)
    expect(f.switches).toHaveLength(6)
    expect(f.links).toHaveLength(16 + 8)
    const leaf0 = nodeByName(f, 'leaf0')
    expect(f.nodes[leaf0].ports).toHaveLength(6)
    expect([0, 1, 2, 3].map((p) => f.nodes[peer(f, leaf0, p).node].name)).toEqual(['h0', 'h1', 'h2', 'h3'])
    expect([4, 5].map((p) => f.nodes[peer(f, leaf0, p).node].name)).toEqual(['spine0', 'spine1'])
    expect(isUpPort(f, leaf0, 4)).toBe(true)
    expect(isUpPort(f, leaf0, 0)).toBe(false)
    const spine1 = nodeByName(f, 'spine1')
    expect(f.nodes[spine1].ports.map((_, p) => f.nodes[peer(f, spine1, p).node].name)).toEqual(['leaf0', 'leaf1', 'leaf2', 'leaf3'])
    expect(f.torOfHost[5]).toBe(nodeByName(f, 'leaf1'))
    expect(pathCount(f, leaf0, nodeByName(f, 'h15'))).toBe(2)
  })

  it("builds HULA's 3-tier fabric with 8 paths between ToRs of different pods", () => {
    const f = buildFabric(HULA)
    expect(f.hosts).toHaveLength(32)
    expect(f.switches.map((s) => f.nodes[s].name)).toEqual([
      'tor0', 'tor1', 'tor2', 'tor3', 'agg0', 'agg1', 'agg2', 'agg3', 'spine0', 'spine1',
    ])
    // 32 host links, 8 ToR-agg links, 8 agg-spine links.
    expect(f.links).toHaveLength(48)
    const tor0 = nodeByName(f, 'tor0')
    expect(pathCount(f, tor0, nodeByName(f, 'tor3'))).toBe(8)
    expect(pathCount(f, tor0, nodeByName(f, 'tor1'))).toBe(2)
    expect(f.nodes[nodeByName(f, 'agg2')].pod).toBe(1)
    // An aggregation switch: its two ToRs below, then both spines above.
    const agg0 = nodeByName(f, 'agg0')
    expect(f.nodes[agg0].ports.map((_, p) => f.nodes[peer(f, agg0, p).node].name)).toEqual(['tor0', 'tor1', 'spine0', 'spine1'])
  })

  it('takes links out and slows links down by name, in either order', () => {
    const f = buildFabric({ ...HULA, remove: ['agg3-spine1'], rates: { 'spine0-agg2': 10e9 } })
    expect(f.links).toHaveLength(47)
    expect(() => linkByName(f, 'spine1-agg3')).toThrow(/no link 'spine1-agg3'/)
    expect(linkByName(f, 'agg2-spine0').bps).toBe(10e9)
    // Ports stay dense: spine1 now has three.
    expect(f.nodes[nodeByName(f, 'spine1')].ports).toHaveLength(3)
    expect(pathCount(f, nodeByName(f, 'tor0'), nodeByName(f, 'tor3'))).toBe(6)
    expect(() => buildFabric({ ...HULA, remove: ['spine9-agg0'] })).toThrow(/no link 'spine9-agg0' in this three-tier fabric/)
  })

  it('builds a k=4 fat-tree: 16 hosts, 20 switches, 4 paths across pods', () => {
    const f = buildFabric({ kind: 'fat-tree', k: 4, ...RATES })
    expect(f.hosts).toHaveLength(16)
    expect(f.switches).toHaveLength(20)
    expect(f.links).toHaveLength(48)
    for (const s of f.switches) expect(f.nodes[s].ports).toHaveLength(4)
    const edge0 = nodeByName(f, 'edge0')
    expect(pathCount(f, edge0, nodeByName(f, 'h15'))).toBe(4)
    expect(pathCount(f, edge0, nodeByName(f, 'h2'))).toBe(2)
    expect(pathCount(f, edge0, nodeByName(f, 'h1'))).toBe(1)
    expect(() => buildFabric({ kind: 'fat-tree', k: 3, ...RATES })).toThrow(/even/)
  })

  it('builds a k=4 fat-tree with 4 hosts per ToR when asked (the DHLB paper\'s rates at 1:1)', () => {
    const f = buildFabric({ kind: 'fat-tree', k: 4, hostsPerTor: 4, ...RATES })
    expect(f.hosts).toHaveLength(32)
    expect(f.switches).toHaveLength(20)
    expect(f.links).toHaveLength(64)
    for (const t of f.tors) expect(f.nodes[t].ports).toHaveLength(6)
    // Hosts are numbered ToR by ToR: h4..h7 on edge1, h31 on edge7.
    expect(f.torOfHost[f.hosts.indexOf(nodeByName(f, 'h4'))]).toBe(nodeByName(f, 'edge1'))
    expect(f.torOfHost[f.hosts.indexOf(nodeByName(f, 'h31'))]).toBe(nodeByName(f, 'edge7'))
    expect(pathCount(f, nodeByName(f, 'edge0'), nodeByName(f, 'h31'))).toBe(4)
    expect(() => buildFabric({ kind: 'fat-tree', k: 4, hostsPerTor: 0, ...RATES })).toThrow(/hostsPerTor must be a positive integer/)
  })

  it('never routes through a host', () => {
    const f = buildFabric({ kind: 'leaf-spine', leaves: 2, spines: 1, hostsPerLeaf: 2, ...RATES })
    const dist = distancesTo(f, nodeByName(f, 'h3'))
    for (const h of f.hosts) if (f.nodes[h].name !== 'h3') expect(dist[h]).toBe(-1)
  })
})

import { describe, expect, it } from 'vitest'
import { buildFabric, linkByName, nodeByName, peer, TopologyError, type CustomSpec, type Fabric } from '../../src-main/model/topology'

const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }

/** HULA's Fig. 4 fabric, one ToR per pod for brevity, written out by hand. */
function small(over: Partial<CustomSpec> = {}): CustomSpec {
  return {
    kind: 'custom',
    ...RATES,
    nodes: [
      { name: 'spine0', tier: 'spine' },
      { name: 'agg0', tier: 'agg', pod: 0 },
      { name: 'agg1', tier: 'agg', pod: 1 },
      { name: 'tor0', tier: 'tor', pod: 0 },
      { name: 'tor1', tier: 'tor', pod: 1 },
      { name: 'h0', tier: 'host' },
      { name: 'h1', tier: 'host' },
    ],
    links: [
      { a: 'spine0', b: 'agg0' },
      { a: 'agg1', b: 'spine0', bps: 100e9, delayNs: 2000, loss: 0.01 },
      { a: 'agg0', b: 'tor0' },
      { a: 'agg1', b: 'tor1' },
      { a: 'tor0', b: 'h0' },
      { a: 'h1', b: 'tor1' },
    ],
    ...over,
  }
}

function throws(spec: CustomSpec): TopologyError {
  try {
    buildFabric(spec)
  } catch (err) {
    if (err instanceof TopologyError) return err
    throw err
  }
  throw new Error('expected a TopologyError')
}

const names = (f: Fabric, node: string) => f.nodes[nodeByName(f, node)].ports.map((_, p) => f.nodes[peer(f, nodeByName(f, node), p).node].name)

describe('custom topologies', () => {
  it('builds the same Fabric shape as the generators: tiers, levels, names, pods and ports in link order', () => {
    const f = buildFabric(small())
    expect(f.kind).toBe('custom')
    expect(f.hosts.map((h) => f.nodes[h].name)).toEqual(['h0', 'h1'])
    expect(f.tors.map((t) => f.nodes[t].name)).toEqual(['tor0', 'tor1'])
    expect(f.switches.map((s) => f.nodes[s].name)).toEqual(['tor0', 'tor1', 'agg0', 'agg1', 'spine0'])
    expect(f.nodes[nodeByName(f, 'spine0')].level).toBe(3)
    // Upper node first whichever way the file wrote it.
    expect(f.links.map((l) => l.name)).toEqual(['spine0-agg0', 'spine0-agg1', 'agg0-tor0', 'agg1-tor1', 'tor0-h0', 'tor1-h1'])
    expect(names(f, 'agg1')).toEqual(['spine0', 'tor1'])
    expect(f.torOfHost).toEqual([nodeByName(f, 'tor0'), nodeByName(f, 'tor1')])
    expect(f.nodes[nodeByName(f, 'h1')].pod).toBe(1)
    const fast = linkByName(f, 'agg1-spine0')
    expect([fast.bps, fast.delayNs, fast.loss]).toEqual([100e9, 2000, 0.01])
    expect(linkByName(f, 'tor0-h0').bps).toBe(10e9)
    expect(linkByName(f, 'spine0-agg0').bps).toBe(40e9)
    expect('loss' in linkByName(f, 'spine0-agg0')).toBe(false)
  })

  it('gives a spine level 2 when there is no aggregation tier, as in a leaf-spine', () => {
    const f = buildFabric({
      kind: 'custom',
      ...RATES,
      nodes: [{ name: 's', tier: 'spine' }, { name: 'l0', tier: 'tor' }, { name: 'l1', tier: 'tor' }, { name: 'a', tier: 'host' }, { name: 'b', tier: 'host' }],
      links: [{ a: 'l0', b: 'a' }, { a: 'l1', b: 'b' }, { a: 's', b: 'l0' }, { a: 's', b: 'l1' }],
    })
    expect(f.nodes[nodeByName(f, 's')].level).toBe(2)
  })

  it('names parallel links upper-lower/2, /3 in link order, and finds them written either way', () => {
    const spec = small()
    spec.links.push({ a: 'agg0', b: 'spine0' }, { a: 'spine0', b: 'agg0' })
    const f = buildFabric(spec)
    expect(f.links.filter((l) => l.name.startsWith('spine0-agg0')).map((l) => l.name)).toEqual(['spine0-agg0', 'spine0-agg0/2', 'spine0-agg0/3'])
    expect(linkByName(f, 'agg0-spine0/3').name).toBe('spine0-agg0/3')
    expect(names(f, 'spine0')).toEqual(['agg0', 'agg1', 'agg0', 'agg0'])
  })

  it('keeps explicit ports and fills the others with the lowest free port, in link order', () => {
    const spec = small()
    spec.links[0] = { a: 'spine0', b: 'agg0', aPort: 1, bPort: 1 }
    const f = buildFabric(spec)
    const l = linkByName(f, 'spine0-agg0')
    expect([l.aPort, l.bPort]).toEqual([1, 1])
    expect(names(f, 'spine0')).toEqual(['agg1', 'agg0'])
    expect(names(f, 'agg0')).toEqual(['tor0', 'spine0'])
  })

  it('refuses two links on one port, naming the node and both links', () => {
    const spec = small()
    spec.links[0] = { a: 'spine0', b: 'agg0', aPort: 0 }
    spec.links[1] = { a: 'agg1', b: 'spine0', bPort: 0 }
    const e = throws(spec)
    expect(e.message).toBe('port 0 of spine0 is taken twice: by links[0] (spine0-agg0) and links[1] (spine0-agg1)')
    expect([e.node, e.link, e.path]).toEqual(['spine0', 'spine0-agg1', ['links', 1, 'b']])
  })

  it('refuses a port that leaves a gap, naming the node', () => {
    const spec = small()
    spec.links[2] = { a: 'agg0', b: 'tor0', aPort: 5 }
    const e = throws(spec)
    expect(e.message).toMatch(/^agg0 has 2 links but links\[2\] \(agg0-tor0\) puts one on port 5; ports are numbered from 0 without a gap/)
    expect(e.node).toBe('agg0')
  })

  it('refuses a disconnected host and a host with two links, naming the host', () => {
    const lonely = small()
    lonely.nodes.push({ name: 'h9', tier: 'host' })
    const e1 = throws(lonely)
    expect(e1.message).toBe('host h9 has no link; a host has exactly one link, to its ToR')
    expect([e1.node, e1.path]).toEqual(['h9', ['nodes', 7]])
    const twice = small()
    twice.links.push({ a: 'tor1', b: 'h0' })
    const e2 = throws(twice)
    expect(e2.message).toBe('host h0 has 2 links (tor0-h0, tor1-h0); a host has exactly one link, to its ToR')
  })

  it('refuses unknown nodes, duplicate names, links within a tier and hosts off a ToR', () => {
    expect(throws(small({ links: [{ a: 'spine0', b: 'agg9' }] })).message).toBe("links[0]: no node 'agg9' in nodes")
    const dup = small()
    dup.nodes.push({ name: 'agg0', tier: 'agg' })
    expect(throws(dup).message).toBe("node 'agg0' is already defined at nodes[1]")
    const flat = small()
    flat.links.push({ a: 'agg0', b: 'agg1' })
    const e = throws(flat)
    expect(e.link).toBe('agg0-agg1')
    expect(e.message).toMatch(/^links\[6\]: agg0 and agg1 are both aggregation switches; a link joins two tiers/)
    const high = small()
    high.links[4] = { a: 'agg0', b: 'h0' }
    expect(throws(high).message).toBe("links[4]: host h0 links to agg0, an aggregation switch; a host's one link goes to a ToR")
  })

  it('applies remove and slow by name before numbering ports', () => {
    const spec = small()
    spec.links.push({ a: 'spine0', b: 'agg0' })
    const f = buildFabric({ ...spec, remove: ['agg0-spine0'], rates: { 'spine0-agg0/2': 1e9 } })
    expect(f.links.filter((l) => l.name.startsWith('spine0-agg0')).map((l) => [l.name, l.bps, l.aPort])).toEqual([['spine0-agg0/2', 1e9, 1]])
    expect(names(f, 'spine0')).toEqual(['agg1', 'agg0'])
  })
})

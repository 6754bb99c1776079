// The simulator on custom topologies: the same fabric written out runs exactly as the
// generator's, a lossy link loses about its share from its own RNG stream, parallel links carry traffic.
import { describe, expect, test } from 'vitest'
import type { SimConfig, Topology } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { buildFabric, customFromFabric, type FabricSpec } from '../../src-main/model/topology'
import { config, THREE_TIER, topo, webSearch } from './helpers'

const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }

function writtenOut(t: Topology): Topology {
  return { ...customFromFabric(buildFabric(t as FabricSpec), RATES), queuePackets: t.queuePackets }
}

const cfg = (topology: Topology, scheme: string, flows = 60): SimConfig =>
  config({ kind: 'poisson', cdf: webSearch, load: 0.5, flows }, { topology, scheme, seed: 3 })

describe('custom topologies in the simulator', { timeout: 180_000 }, () => {
  test.each(['ecmp', 'hula'])("HULA's 3-tier written out as a custom topology gives the generator's run, byte for byte (%s)", (scheme) => {
    const custom = writtenOut(THREE_TIER)
    expect(custom.kind).toBe('custom')
    const a = runSim(cfg(THREE_TIER, scheme))
    const b = runSim(cfg(custom, scheme))
    expect(JSON.stringify(b.counters)).toBe(JSON.stringify(a.counters))
    expect(b.flows).toEqual(a.flows)
  })

  test('a lossy link loses about its share of packets, from its own stream: deterministic, every byte still delivered', () => {
    const base = writtenOut(THREE_TIER) as Extract<Topology, { kind: 'custom' }>
    const lossy = { ...base, links: base.links.map((l) => (l.a === 'tor0' && l.b === 'h0' ? { ...l, loss: 0.02 } : l)) }
    const r = runSim(cfg(lossy, 'ecmp'))
    const again = runSim(cfg(lossy, 'ecmp'))
    expect(JSON.stringify(again.counters)).toBe(JSON.stringify(r.counters))
    const lost = r.counters.lossDrops ?? 0
    expect(lost).toBeGreaterThan(0)
    expect(r.counters.drops).toBeGreaterThanOrEqual(lost)
    expect(Array.from(r.flows.deliveredBytes)).toEqual(Array.from(r.flows.sizeBytes))
    expect(r.counters.retransmits).toBeGreaterThan(0)
    // Without loss the counter is absent, so runs on other fabrics keep their counters as they were.
    expect('lossDrops' in runSim(cfg(base, 'ecmp')).counters).toBe(false)
  })

  test('the loss rate is what the link says: 5 % of a long flow\'s packets through one link', () => {
    const base = writtenOut(THREE_TIER) as Extract<Topology, { kind: 'custom' }>
    const lossy = { ...base, links: base.links.map((l) => (l.a === 'tor0' && l.b === 'h0' ? { ...l, loss: 0.05 } : l)) }
    const r = runSim(config({ kind: 'long-lived', pairs: [[0, 31]], sizeBytes: 3_000_000 }, { topology: lossy, scheme: 'ecmp', seed: 1 }))
    // h0 sends data up its one link and gets ACKs down it: both directions lose 5 %.
    const packets = r.counters.dataPacketsSent + r.counters.ackPacketsSent
    const share = (r.counters.lossDrops ?? 0) / packets
    expect(share).toBeGreaterThan(0.035)
    expect(share).toBeLessThan(0.065)
  })

  test('parallel leaf-spine links (linksPerSpine: 2) carry every byte under ECMP', () => {
    const t = topo({ leaves: 2, spines: 2, hostsPerLeaf: 4, linksPerSpine: 2, fabricLinkBps: 20e9 })
    expect(buildFabric(t).links.map((l) => l.name)).toContain('spine1-leaf1/2')
    const r = runSim(cfg(t, 'ecmp'))
    expect(Array.from(r.flows.deliveredBytes)).toEqual(Array.from(r.flows.sizeBytes))
  })

  test("CONGA on CONGA's testbed shape: two links from each leaf to each spine, one of them failing mid-run, carries every byte", () => {
    const t = topo({ leaves: 2, spines: 2, hostsPerLeaf: 4, linksPerSpine: 2, fabricLinkBps: 10e9 })
    const r = runSim({ ...cfg(t, 'conga'), linkEvents: [{ link: 'spine0-leaf0/2', atNs: 200_000, up: false }] })
    expect(Array.from(r.flows.deliveredBytes)).toEqual(Array.from(r.flows.sizeBytes))
  })
})

// The generate row's reading of a topology block: the template (and its values) that makes it
// exactly, or none, said plainly. Every template's own output reads back as itself.
import { describe, expect, it } from 'vitest'
import { fabricOrigin, TOPOLOGY_TEMPLATES } from '../../src-renderer/src/lib/topoEditor'
import { readTopologyBlock } from '../../src-renderer/src/lib/topoYaml'

const block = (flow: string) => readTopologyBlock(`name: x\ntopology: ${flow}\n`)

describe('fabricOrigin', () => {
  it('reads every template back from what it generates', () => {
    for (const t of TOPOLOGY_TEMPLATES) {
      const values = Object.fromEntries(t.params.map((p) => [p.key, p.key === 'k' ? 6 : p.key === 'hostGbps' ? 2.5 : p.value + (p.step ? 0 : 1)]))
      expect(fabricOrigin(t.mapping(values))?.template, t.id).toEqual({ id: t.id, values })
    }
  })

  it('finds a fat-tree written by hand, in other units and with defaults left out', () => {
    const o = fabricOrigin(block('{ kind: fat-tree, k: 8, hostLink: 25000Mbps, fabricLink: 25Gbps }'))
    expect(o?.template).toEqual({ id: 'fat-tree', values: { k: 8, hostGbps: 25 } })
    expect(o?.summary).toBe('fat-tree: k 8, hostLink 25000Mbps, fabricLink 25Gbps')
  })

  it('finds a leaf-spine given by its oversubscription, and says its fabric rate in values', () => {
    const o = fabricOrigin(block('{ kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, oversubscription: 2 }'))
    expect(o?.template).toEqual({ id: 'leaf-spine', values: { leaves: 4, spines: 2, hostsPerLeaf: 4, hostGbps: 10, oversubscription: 2 } })
  })

  it('names no template when one setting is not a template’s, and says so', () => {
    for (const flow of [
      '{ kind: fat-tree, k: 4, hostLink: 10Gbps, fabricLink: 40Gbps }',
      '{ kind: fat-tree, k: 4, hostLink: 10Gbps, fabricLink: 10Gbps, queuePackets: 250 }',
      '{ kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 4, linksPerSpine: 2, hostLink: 10Gbps, fabricLink: 10Gbps }',
      '{ kind: three-tier, pods: 3, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps }',
    ]) {
      const o = fabricOrigin(block(flow))
      expect(o?.template, flow).toBeNull()
      expect(o?.summary, flow).toMatch(/no template makes exactly this fabric/)
    }
  })

  it("finds HULA's and DHLB's fabrics by their own templates", () => {
    expect(fabricOrigin(block('{ kind: three-tier, pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps, queuePackets: 250 }'))?.template?.id).toBe('hula-3tier')
    expect(fabricOrigin(block('{ kind: fat-tree, k: 4, hostsPerTor: 4, hostLink: 100Mbps, fabricLink: 200Mbps }'))?.template?.id).toBe('dhlb-fat-tree')
  })

  it('says a custom topology is one, with its size', () => {
    const o = fabricOrigin(block('{ kind: custom, nodes: [{ name: a, tier: tor }, { name: h, tier: host }], links: [{ a: a, b: h }] }'))
    expect(o).toEqual({ summary: 'custom, 2 nodes and 1 link written out one by one; no template makes it: pick one to replace it', template: null })
    expect(fabricOrigin(null)).toBeNull()
    expect(block('{ kind: [')).toBeNull()
  })
})

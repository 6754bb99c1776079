// Import of the P4 tutorials' topology.json, p4-utils' p4app.json and containerlab's .clab.yml
// (fixtures written from each format's documentation), export as .clab.yml, and the round trip.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatSpecError, parseExperiment } from '../../src-main/core/spec'
import { exportClab, importTopology } from '../../src-main/core/topology-io'
import { buildFabric, customFromFabric, nodeByName, peer, type Fabric, type FabricSpec } from '../../src-main/model/topology'

const FIX = resolve(__dirname, '../fixtures/topology-io')
const workloadsDir = resolve(__dirname, '../../resources/workloads')
const read = (f: string) => readFileSync(join(FIX, f), 'utf8')

function fabricOf(yaml: string): Fabric {
  const r = parseExperiment(yaml, { file: 'imported.yaml', baseDir: workloadsDir, workloadsDir })
  if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
  return buildFabric(r.spec.topology)
}

/** Every port of a node, as "port:peer". */
const ports = (f: Fabric, name: string) => f.nodes[nodeByName(f, name)].ports.map((_, p) => `${p}:${f.nodes[peer(f, nodeByName(f, name), p).node].name}`)
const tiers = (f: Fabric) => Object.fromEntries(f.nodes.map((n) => [n.name, n.pod >= 0 && n.role !== 'host' ? `${n.role}/${n.pod}` : n.role]))

describe('import', () => {
  it("P4 tutorials topology.json: -pN ports (from 1) become ports N-1, tiers inferred, latency and bandwidth kept", () => {
    const yaml = importTopology(read('topology.json'), 'topology.json')
    expect(yaml).toMatch(/^# Imported by p4lab from topology.json \(P4 tutorials topology.json\)\.\n# Tiers are not part of that format:\n# - hosts' ip, mac and commands are not carried over/)
    expect(yaml).toContain('switches with hosts are ToRs (leaves), the switches above them spines')
    const f = fabricOf(yaml)
    expect(tiers(f)).toEqual({ s1: 'tor', s2: 'tor', s3: 'spine', s4: 'spine', h1: 'host', h2: 'host', h3: 'host', h4: 'host' })
    expect(ports(f, 's1')).toEqual(['0:h1', '1:h2', '2:s3', '3:s4'])
    expect(ports(f, 's3')).toEqual(['0:s1', '1:s2'])
    expect(ports(f, 's4')).toEqual(['0:s2', '1:s1'])
    const slow = f.links.find((l) => l.name === 's3-s2')!
    expect([slow.bps, slow.delayNs, slow.aPort, slow.bPort]).toEqual([100e6, 1e6, 1, 3])
    expect(f.links.find((l) => l.name === 's3-s1')!.bps).toBe(10e9)
  })

  it('p4-utils p4app.json: default and per-link bw, delay, loss in percent, port1/port2, pods inferred', () => {
    const yaml = importTopology(read('p4app.json'), 'p4app.json')
    const f = fabricOf(yaml)
    expect(tiers(f)).toEqual({ s1: 'tor/0', s2: 'tor/1', s3: 'agg/0', s4: 'agg/1', s5: 'spine', h1: 'host', h2: 'host', h3: 'host' })
    const l = f.links.find((x) => x.name === 's5-s3')!
    expect([l.bps, l.delayNs, l.loss, l.aPort, l.bPort]).toEqual([100e6, 2e6, 0.01, 0, 1])
    expect(ports(f, 's3')).toEqual(['0:s1', '1:s5'])
    expect(f.links.find((x) => x.name === 's1-h1')!.bps).toBe(10e6)
    expect(yaml).toContain('pods inferred: ToRs and aggregation switches joined without a spine form a pod (2 pods)')
  })

  it('containerlab .clab.yml: ethN is port N-1, a network OS kind is a switch, linux containers are hosts unless BMv2', () => {
    const f = fabricOf(importTopology(read('lab.clab.yml'), 'lab.clab.yml'))
    expect(tiers(f)).toEqual({ leaf1: 'tor', leaf2: 'tor', spine1: 'spine', spine2: 'spine', client1: 'host', client2: 'host' })
    expect(ports(f, 'leaf1')).toEqual(['0:client1', '1:spine1', '2:spine2'])
    expect(ports(f, 'spine1')).toEqual(['0:leaf1', '1:leaf2'])
  })

  it('refuses what cannot be carried over, naming the entry', () => {
    expect(() => importTopology(read('bad-two-links.json'), 'bad-two-links.json')).toThrow("hosts.h1: host h1 has 2 links; p4lab's hosts have exactly one, to their ToR")
    expect(() => importTopology(read('bad-router.json'), 'bad-router.json')).toThrow('topology.routers.r1: a router is not a switch or host; p4lab carries over hosts and P4 switches only')
    expect(() => importTopology(read('bad-bridge.clab.yml'), 'bad-bridge.clab.yml')).toThrow(
      'topology.nodes.br1: kind bridge is not a switch or host (a Linux bridge joins many links into one segment)',
    )
    const broken = read('topology.json').replace('["s1-p3", "s3-p1"]', '["s1-p3", "s9-p1"]')
    expect(() => importTopology(broken, 'topology.json')).toThrow("links[2]: second end 's9-p1' is not a host or switch of the file")
    const clash = read('lab.clab.yml').replace('"leaf1:eth3", "spine2:eth1"', '"leaf1:eth2", "spine2:eth1"')
    // Two links on leaf1's eth2 (port 1): the experiment file names both.
    const r = parseExperiment(importTopology(clash, 'lab.clab.yml'), { file: 'x.yaml', baseDir: workloadsDir, workloadsDir })
    expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual(['port 1 of leaf1 is taken twice: by links[2] (spine1-leaf1) and links[4] (spine2-leaf1)'])
  })
})

describe('export as .clab.yml and back', () => {
  const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }
  const cases: Array<[string, FabricSpec]> = [
    ["HULA's 3-tier", { kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 2, ...RATES }],
    ['a leaf-spine with parallel links', { kind: 'leaf-spine', leaves: 2, spines: 2, hostsPerLeaf: 2, linksPerSpine: 2, ...RATES }],
  ]
  it.each(cases)('%s: same nodes, tiers, pods, link names, ports, speeds', (_name, spec) => {
    const before = buildFabric(spec)
    const lossy = buildFabric({ ...customFromFabric(before, RATES), links: customFromFabric(before, RATES).links.map((l, i) => (i === 0 ? { ...l, loss: 0.001, bps: 25e9 } : l)) })
    const clab = exportClab(lossy, 'round trip')
    expect(clab).toMatch(/^# Exported by p4lab/)
    expect(clab).toContain('image: p4lang/behavioral-model')
    const after = fabricOf(importTopology(clab, 'round.clab.yml'))
    expect(tiers(after)).toEqual(tiers(lossy))
    const links = (f: Fabric) => f.links.map((l) => [l.name, l.aPort, l.bPort, l.bps, l.delayNs, l.loss ?? 0])
    expect(links(after)).toEqual(links(lossy))
  })
})

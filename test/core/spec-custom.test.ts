import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatSpecError, parseExperiment, type ParseOptions } from '../../src-main/core/spec'
import { buildFabric, linkByName } from '../../src-main/model/topology'

const workloadsDir = resolve(__dirname, '../../resources/workloads')
const opts = (over: Partial<ParseOptions> = {}): ParseOptions => ({ file: 'x.yaml', baseDir: workloadsDir, workloadsDir, testbeds: ['sim', 'rack'], ...over })

const HEAD = ['name: custom', 'testbed: sim']
const TAIL = ['schemes: [ecmp]', 'workload: { kind: web-search, load: 0.3, flows: 20 }']

/** A two-leaf, one-spine fabric written out; `links` may be replaced line by line. */
function file(topology: string[], head = HEAD): string {
  return [...head, ...topology, ...TAIL].join('\n') + '\n'
}

const NODES = [
  'topology:',
  '  kind: custom',
  '  hostLink: 10Gbps',
  '  fabricLink: 40Gbps',
  '  nodes:',
  '    - { name: spine0, tier: spine }',
  '    - { name: leaf0, tier: tor }',
  '    - { name: leaf1, tier: tor }',
  '    - { name: h0, tier: host }',
  '    - { name: h1, tier: host }',
  '  links:',
]
const LINKS = ['    - { a: leaf0, b: h0 }', '    - { a: leaf1, b: h1 }', '    - { a: spine0, b: leaf0 }', '    - { a: spine0:1, b: leaf1:1, speed: 100Gbps, delay: 2us, loss: 0.001 }']

function errors(text: string, over: Partial<ParseOptions> = {}) {
  const r = parseExperiment(text, opts(over))
  if (r.ok) throw new Error('expected errors')
  return r.errors
}

describe('custom topologies in the experiment file', () => {
  it('parses nodes and links into a topology the fabric builder takes', () => {
    const r = parseExperiment(file([...NODES, ...LINKS]), opts())
    if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
    const t = r.spec.topology
    expect(t.kind).toBe('custom')
    const f = buildFabric(t)
    const l = linkByName(f, 'spine0-leaf1')
    expect([l.aPort, l.bPort, l.bps, l.delayNs, l.loss]).toEqual([1, 1, 100e9, 2000, 0.001])
    expect(linkByName(f, 'leaf0-h0').bps).toBe(10e9)
  })

  it('reports a graph problem at its line, with the node or link it concerns', () => {
    const bad = [...LINKS.slice(0, 2), '    - { a: spine0:0, b: leaf0 }', '    - { a: spine0:0, b: leaf1 }']
    const [e, ...rest] = errors(file([...NODES, ...bad]))
    expect(rest).toEqual([])
    expect(formatSpecError(e)).toBe('x.yaml:17:12: topology.links[3].a: port 0 of spine0 is taken twice: by links[2] (spine0-leaf0) and links[3] (spine0-leaf1)')
    expect([e.node, e.link]).toEqual(['spine0', 'spine0-leaf1'])
  })

  it('checks ends, names and loss in the schema, at the field', () => {
    const bad = [...LINKS.slice(0, 3), '    - { a: spine0:x, b: leaf1, loss: 1.5 }']
    const lines = errors(file([...NODES, ...bad])).map(formatSpecError)
    expect(lines).toEqual([
      "x.yaml:17:12: topology.links[3].a: expected a node name, or node:port such as spine0:3, got 'spine0:x'",
      'x.yaml:17:38: topology.links[3].loss: expected a fraction of packets in [0, 1), such as 0.001, got 1.5',
    ])
    const dash = errors(file([...NODES.slice(0, 5), '    - { name: spine-0, tier: spine }', ...NODES.slice(6), ...LINKS]))
    expect(dash[0].message).toMatch(/^expected a node name such as tor0: letters, digits, '_' and '.' \(no '-', ':' or '\/', which link names use\), got 'spine-0'/)
  })

  it('refuses CONGA off a leaf-spine, at schemes, naming the scheme and what runs there instead', () => {
    const text = file([...NODES, ...LINKS]).replace('schemes: [ecmp]', 'schemes: [ecmp, conga]')
    const e = errors(text).map(formatSpecError)
    expect(e).toHaveLength(1)
    expect(e[0]).toMatch(/^x\.yaml:\d+:\d+: schemes: CONGA is defined on leaf-spine fabrics only, and this topology is custom; on any fabric: .*conga-prime/)
    const ft = ['name: ft', 'testbed: sim', 'topology: { kind: fat-tree, k: 4, hostLink: 10Gbps, fabricLink: 10Gbps }', 'schemes: [conga-prime, conga]', 'workload: { kind: web-search, load: 0.3, flows: 20 }'].join('\n')
    expect(errors(ft).map((x) => x.message)).toEqual([expect.stringMatching(/^CONGA is defined on leaf-spine fabrics only, and this topology is fat-tree; on any fabric: ecmp, .*conga-prime/)])
    // On a testbed the P4 programs decide: CONGA′'s is CONGA's, written for a leaf-spine.
    expect(errors(ft.replace('testbed: sim', 'testbed: rack')).map((x) => x.message)).toEqual([
      expect.stringMatching(/^CONGA′'s P4 program is defined on leaf-spine fabrics only, and this topology is fat-tree; on any fabric: ecmp, /),
      expect.stringMatching(/^CONGA's P4 program is defined on leaf-spine fabrics only, and this topology is fat-tree; on any fabric: ecmp, /),
    ])
  })

  it('refuses loss on a testbed that is not the simulator, naming the link', () => {
    const [e, ...rest] = errors(file([...NODES, ...LINKS], ['name: custom', 'testbed: rack']))
    expect(rest).toEqual([])
    expect(e.path).toBe('topology.links[3].loss')
    expect(e.link).toBe('spine0-leaf1')
    expect(e.message).toMatch(/^loss is simulated only: testbed 'rack' runs on real links/)
  })

  it('takes failures, remove and slow by link name, parallel links included', () => {
    const text = file([...NODES, ...LINKS, '    - { a: leaf1, b: spine0 }', '  slow: { leaf1-spine0/2: 1Gbps }'])
      .replace('schemes:', 'failures: [{ link: spine0-leaf1/2, at: 1ms }]\nschemes:')
    const r = parseExperiment(text, opts())
    if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
    expect(r.spec.failures[0].link).toBe('spine0-leaf1/2')
    expect(r.spec.topology.rates).toEqual({ 'spine0-leaf1/2': 1e9 })
    const e = errors(text.replace('spine0-leaf1/2, at', 'spine0-leaf1/3, at'))
    expect(e.map((x) => x.path)).toEqual(['failures[0].link'])
  })
})

describe('leaf-spine oversubscription and parallel links', () => {
  const ls = (extra: string) => file([`topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 4, hostLink: 10Gbps, ${extra} }`])

  it('derives the uplink rate from oversubscription', () => {
    const r = parseExperiment(ls('oversubscription: 2, linksPerSpine: 2'), opts())
    if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
    const f = buildFabric(r.spec.topology)
    // 4 × 10G down over 2 spines × 2 links at 2:1 is 5G per uplink.
    expect(linkByName(f, 'spine1-leaf0/2').bps).toBe(5e9)
    expect(f.links.filter((l) => l.name.startsWith('spine1-leaf0'))).toHaveLength(2)
  })

  it('gives the arithmetic when the rate does not divide, or disagrees with fabricLink', () => {
    expect(errors(ls('oversubscription: 3')).map((e) => `${e.path}: ${e.message}`)).toEqual([
      'topology.oversubscription: 4 hosts × 10Gbps = 40Gbps per leaf, over 2 spines × 1 links × oversubscription 3 gives 40Gbps / 6 = 6.667Gbps per uplink, not a whole number of bit/s; choose hostsPerLeaf, hostLink, spines or oversubscription so that it divides',
    ])
    expect(errors(ls('oversubscription: 2, fabricLink: 40Gbps'))[0].message).toMatch(/gives 40Gbps \/ 4 = 10Gbps per uplink, but fabricLink is 40Gbps/)
    expect(errors(ls('queuePackets: 10'))[0].message).toMatch(/^required field is missing; expected a rate such as 10Gbps \(or give oversubscription/)
  })
})

describe('graph checks, each naming the node or link at fault', () => {
  const threeTier = (links: string[], extra: string[] = [], schemes = 'ecmp') =>
    [
      'name: g',
      'topology:',
      '  kind: custom',
      '  hostLink: 10Gbps',
      '  fabricLink: 10Gbps',
      ...extra,
      '  nodes:',
      '    - { name: spine0, tier: spine }',
      '    - { name: agg0, tier: agg, pod: 0 }',
      '    - { name: agg1, tier: agg, pod: 1 }',
      '    - { name: tor0, tier: tor, pod: 0 }',
      '    - { name: tor1, tier: tor, pod: 1 }',
      '    - { name: h0, tier: host }',
      '    - { name: h1, tier: host }',
      '  links:',
      '    - { a: tor0, b: h0 }',
      '    - { a: tor1, b: h1 }',
      ...links.map((l) => `    - ${l}`),
      `schemes: [${schemes}]`,
      'workload: { kind: web-search, load: 0.3, flows: 20 }',
    ].join('\n') + '\n'
  const FABRIC = ['{ a: agg0, b: tor0 }', '{ a: agg1, b: tor1 }', '{ a: spine0, b: agg0 }', '{ a: spine0, b: agg1 }']
  const ok = (text: string) => {
    const r = parseExperiment(text, opts())
    if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
  }

  it('accepts the fabric as written, for HULA too', () => ok(threeTier(FABRIC, [], 'ecmp, hula')))

  it('a switch cut off from the ToRs', () => {
    const [e, f, ...rest] = errors(threeTier(FABRIC.slice(0, 3)))
    expect(rest).toEqual([])
    expect([e.path, e.node, f.path, f.node]).toEqual(['topology.nodes[2]', 'agg1', 'topology.nodes[4]', 'tor1'])
    expect(e.message).toBe('agg1 is cut off from tor0: no path of links joins them; every switch must reach every ToR')
  })

  it('a host with two links', () => {
    const [e] = errors(threeTier([...FABRIC, '{ a: tor1, b: h0 }']))
    expect([e.path, e.node, e.message]).toEqual(['topology.nodes[5]', 'h0', 'host h0 has 2 links (tor0-h0, tor1-h0); a host has exactly one link, to its ToR'])
  })

  it("a tier HULA's probe rule needs: two ToRs of one pod that share no aggregation switch", () => {
    const samePod = threeTier(FABRIC).replace('{ name: agg1, tier: agg, pod: 1 }', '{ name: agg1, tier: agg, pod: 0 }').replace('{ name: tor1, tier: tor, pod: 1 }', '{ name: tor1, tier: tor, pod: 0 }')
    // ECMP routes over the spine; only the probe rule needs the shared aggregation switch.
    ok(samePod)
    const lines = errors(samePod.replace('schemes: [ecmp]', 'schemes: [hula]'))
    expect(lines.map((e) => [e.path, e.node])).toEqual([
      ['topology.nodes[3]', 'tor0'],
      ['topology.nodes[4]', 'tor1'],
    ])
    expect(lines[0].message).toMatch(/^tor0 and tor1 are both in pod 0 but share no aggregation switch; HULA's probes go up from each ToR/)
  })

  it('a parallel link on a scheme that cannot use it, at the link; fine for ECMP', () => {
    const parallel = [...FABRIC, '{ a: agg0, b: spine0 }']
    ok(threeTier(parallel))
    const [e, ...rest] = errors(threeTier(parallel, [], 'ecmp, hula'))
    expect(rest).toEqual([])
    expect([e.path, e.link]).toEqual(['topology.links[6]', 'spine0-agg0/2'])
    expect(e.message).toMatch(/^spine0-agg0\/2 is a parallel link beside spine0-agg0; HULA cannot use parallel links/)
    const ls = 'name: p\ntopology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linksPerSpine: 2 }\nschemes: [dhlb]\nworkload: { kind: web-search, load: 0.3, flows: 20 }\n'
    const onLs = errors(ls)
    expect(onLs.map((x) => [x.path, x.link])).toEqual([
      ['topology.linksPerSpine', 'spine0-leaf0/2'],
      ['topology.linksPerSpine', 'spine0-leaf1/2'],
    ])
  })

  it('a switch oversubscribed beyond what the topology states', () => {
    const slowUp = ['{ a: agg0, b: tor0, speed: 1Gbps }', ...FABRIC.slice(1)]
    const [e, ...rest] = errors(threeTier(slowUp))
    expect(rest).toEqual([])
    expect([e.path, e.node]).toEqual(['topology.nodes[3]', 'tor0'])
    expect(e.message).toBe(
      'tor0 is 10:1 oversubscribed: 1 link down carry 10Gbps, 1 link up 1Gbps; the topology states oversubscription 1 (the default: non-blocking). Add or speed up tor0\'s uplinks, or state oversubscription: 10',
    )
    ok(threeTier(slowUp, ['  oversubscription: 10']))
  })
})

describe('the address plan on a custom topology', () => {
  const fabric = (hosts: number, pod: number) =>
    [
      'name: plan',
      'topology:',
      '  kind: custom',
      '  hostLink: 1Gbps',
      '  fabricLink: 400Gbps',
      '  nodes:',
      '    - { name: spine0, tier: spine }',
      `    - { name: tor0, tier: tor, pod: ${pod} }`,
      '    - { name: tor1, tier: tor, pod: 0 }',
      ...Array.from({ length: hosts + 1 }, (_, i) => `    - { name: h${i}, tier: host }`),
      '  links:',
      '    - { a: spine0, b: tor0 }',
      '    - { a: spine0, b: tor1 }',
      ...Array.from({ length: hosts }, (_, i) => `    - { a: tor0, b: h${i} }`),
      `    - { a: tor1, b: h${hosts} }`,
      'schemes: [ecmp]',
      'workload: { kind: web-search, load: 0.3, flows: 20 }',
      'telemetry: { interval: 10ms }',
    ].join('\n') + '\n'

  it('holds at 254 hosts on a ToR and pod 255, and refuses one more, naming the node', () => {
    const r = parseExperiment(fabric(254, 255), opts())
    expect(r.ok ? [] : r.errors.map(formatSpecError)).toEqual([])
    const hosts = errors(fabric(255, 0))
    expect(hosts.map((e) => [e.path, e.node])).toEqual([['topology.nodes[1]', 'tor0']])
    expect(hosts[0].message).toMatch(/^tor0: 255 hosts on one ToR do not fit the address plan: a ToR's \/24 holds hosts \.1 to \.254/)
    const pod = errors(fabric(2, 256))
    expect(pod.map((e) => [e.path, e.node, e.message])).toEqual([
      ['topology.nodes[1].pod', 'tor0', 'tor0 is in pod 256, which does not fit the address plan 10.<pod>.<tor>.0/24: pods are numbered 0 to 255'],
    ])
  })
})

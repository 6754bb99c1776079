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

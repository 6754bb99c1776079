// The INT option's control plane: the exact simple_switch_CLI commands a switch gets when a run has
// telemetry.int on (mirror session, intWatch per watched port, intReport's default with the
// report's addresses and Node ID), none when it is off, and every command checked against the
// v1model programs read with -DP4LAB_INT (and refused by the same programs read without it).
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildFabric, type FabricSpec } from '../../src-main/model/topology'
import { readDeclarations } from '../../src-main/core/p4/declarations'
import { cliCommandLines, computeControlPlane, intNodeNames, intPlan, renderCli, schemeModule, type ControlPlaneState } from '../../src-main/core/controlplane'
import { SCHEME_NAMES } from '../../src-main/schemes'
import { checkCli } from '../../src-main/core/controlplane/check'
import { readTopologyYaml, renderPipeline } from '../../src-main/core/p4build'

const ROOT = resolve(import.meta.dirname, '../..')
const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }
const LEAF_SPINE: FabricSpec = { kind: 'leaf-spine', leaves: 2, spines: 2, hostsPerLeaf: 2, ...RATES }
const FABRICS: Record<string, FabricSpec> = {
  'leaf-spine 2x2': LEAF_SPINE,
  'HULA 3-tier': { kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 4, ...RATES },
  'k=4 fat-tree': { kind: 'fat-tree', k: 4, ...RATES },
}

function intLines(state: ControlPlaneState, sw: string, plan = intPlan(state, { port: 32766 })): string[] {
  const all = cliCommandLines(renderCli(state, sw, undefined, { int: plan, ceilingBps: 1e9 }))
  return all.filter((l) => l.startsWith('mirroring_add 500') || l.includes('MyEgress.int'))
}

describe('INT entries in the simple_switch_CLI files', () => {
  const state = computeControlPlane(buildFabric(LEAF_SPINE), 'ecmp')

  it('a leaf: its mirror session to port 4 (after its last fabric port), every host and fabric port watched, its addresses and Node ID', () => {
    // leaf0: ports 0, 1 to hosts, 2, 3 up to the spines; switch id 0.
    expect(intLines(state, 'leaf0')).toEqual([
      'mirroring_add 500 4',
      'table_add MyEgress.intWatch MyEgress.intPostcard 0 => 500',
      'table_add MyEgress.intWatch MyEgress.intPostcard 1 => 500',
      'table_add MyEgress.intWatch MyEgress.intPostcard 2 => 500',
      'table_add MyEgress.intWatch MyEgress.intPostcard 3 => 500',
      'table_set_default MyEgress.intReport MyEgress.intEncap 02:53:00:00:00:04 02:c0:00:00:00:01 10.255.0.1 10.255.255.254 32766 0',
    ])
  })

  it('a spine: port 2, Node ID 3, the port of the experiment', () => {
    expect(intLines(state, 'spine1', intPlan(state, { port: 9555 }))).toEqual([
      'mirroring_add 500 2',
      'table_add MyEgress.intWatch MyEgress.intPostcard 0 => 500',
      'table_add MyEgress.intWatch MyEgress.intPostcard 1 => 500',
      'table_set_default MyEgress.intReport MyEgress.intEncap 02:53:00:03:00:02 02:c0:00:03:00:01 10.255.0.4 10.255.255.254 9555 3',
    ])
  })

  it('watch: fabric and watch: hosts pick the ports by what they face', () => {
    const fabric = intLines(state, 'leaf1', intPlan(state, { port: 32766, watch: 'fabric' }))
    expect(fabric.filter((l) => l.includes('intWatch'))).toEqual(['table_add MyEgress.intWatch MyEgress.intPostcard 2 => 500', 'table_add MyEgress.intWatch MyEgress.intPostcard 3 => 500'])
    const hosts = intLines(state, 'leaf1', intPlan(state, { port: 32766, watch: 'hosts' }))
    expect(hosts.filter((l) => l.includes('intWatch'))).toEqual(['table_add MyEgress.intWatch MyEgress.intPostcard 0 => 500', 'table_add MyEgress.intWatch MyEgress.intPostcard 1 => 500'])
    // A spine has no host port: it still reports nothing but keeps its session and addresses.
    const spine = intLines(state, 'spine0', intPlan(state, { port: 32766, watch: 'hosts' }))
    expect(spine).toEqual(['mirroring_add 500 2', 'table_set_default MyEgress.intReport MyEgress.intEncap 02:53:00:02:00:02 02:c0:00:02:00:01 10.255.0.3 10.255.255.254 32766 2'])
  })

  it('without the option a file has no INT command at all (the default build has no INT tables)', () => {
    for (const sw of state.switches) {
      const text = renderCli(state, sw.name, undefined, { ceilingBps: 1e9 })
      expect(text).not.toMatch(/int(Watch|Report|Encap|Postcard)|mirroring_add 500|INT/)
      // And the option only adds its section.
      const withInt = cliCommandLines(renderCli(state, sw.name, undefined, { ceilingBps: 1e9, int: intPlan(state, { port: 32766 }) }))
      expect(withInt.filter((l) => !intLines(state, sw.name).includes(l))).toEqual(cliCommandLines(text))
    }
  })

  it('Node IDs name the switches back, and every switch has its own address', () => {
    const plan = intPlan(state, { port: 32766 })
    expect([...intNodeNames(plan)]).toEqual([
      [0, 'leaf0'],
      [1, 'leaf1'],
      [2, 'spine0'],
      [3, 'spine1'],
    ])
    expect(new Set(plan.switches.map((s) => s.srcIp)).size).toBe(4)
    expect(new Set(plan.switches.map((s) => s.dstMac)).size).toBe(4)
  })

  it('refuses a BMv2 port map that puts a watched port on the collector port', () => {
    const plan = intPlan(state, { port: 32766 })
    // leaf0's collector port is 4; mapping fabric port 3 there collides.
    expect(() => renderCli(state, 'leaf0', undefined, { int: plan, bmv2Port: (p) => (p === 3 ? 4 : p) })).toThrow(/leaf0: BMv2 port 4 is both a fabric port and the INT collector port/)
  })

  it('refuses a port that is not a UDP port', () => {
    expect(() => intPlan(state, { port: 0 })).toThrow(/not 1-65535/)
    expect(() => intPlan(state, { port: 65536 })).toThrow(/not 1-65535/)
  })
})

describe('INT commands against the v1model programs', () => {
  const read = (scheme: string, defines?: string[]) => {
    const rel = `p4/${scheme}/v1model/${scheme}.p4`
    return readDeclarations(readFileSync(join(ROOT, rel), 'utf8'), (p, from) => readFileSync(join(ROOT, dirname(from), p), 'utf8'), rel, defines)
  }
  for (const scheme of SCHEME_NAMES) {
    const mod = schemeModule(scheme)
    const program = mod.iface('bmv2').programName
    for (const [fname, spec] of Object.entries(FABRICS)) {
      if (mod.fabrics && !mod.fabrics.includes(spec.kind)) continue
      it(`${scheme} (${program}.p4), ${fname}: every INT command names what the program declares with -DP4LAB_INT, and not without`, () => {
        const state = computeControlPlane(buildFabric(spec), scheme)
        const plan = intPlan(state, { port: 32766 })
        const on = read(program, ['P4LAB_INT'])
        const off = read(program)
        for (const sw of state.switches) {
          const text = renderCli(state, sw.name, undefined, { int: plan })
          expect(checkCli(text, on), `${sw.name} with -DP4LAB_INT`).toEqual([])
          const offProblems = checkCli(text, off)
          expect(offProblems.length, sw.name).toBeGreaterThan(0)
          expect(offProblems.every((p) => /Egress\.int/.test(p)), offProblems.join('\n')).toBe(true)
        }
      })
    }
  }
})

describe('INT in the rendered pipeline files (p4lab p4 render, archives)', () => {
  it('an experiment file with telemetry.int renders its BMv2 files with the INT entries, its Tofino ones without', () => {
    const yaml = `name: x
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 40Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 10 }
telemetry: { int: { port: 9555, watch: fabric } }
`
    const input = readTopologyYaml(yaml, 'x.yaml', join(ROOT, 'resources/workloads'))
    expect(input.int).toEqual({ port: 9555, watch: 'fabric' })
    const bmv2 = renderPipeline(input.topology, 'ecmp', 'bmv2', input.params, { int: input.int })
    const leaf0 = bmv2.switches.find((s) => s.name === 'leaf0')!.deployText.split('\n')
    expect(leaf0.filter((l) => /Egress\.int|mirroring_add/.test(l))).toEqual([
      'mirroring_add 500 4',
      'table_add MyEgress.intWatch MyEgress.intPostcard 2 => 500',
      'table_add MyEgress.intWatch MyEgress.intPostcard 3 => 500',
      'table_set_default MyEgress.intReport MyEgress.intEncap 02:53:00:00:00:04 02:c0:00:00:00:01 10.255.0.1 10.255.255.254 9555 0',
    ])
    const plain = renderPipeline(input.topology, 'ecmp', 'bmv2', input.params)
    expect(plain.switches.every((s) => !s.text.includes('MyEgress.int'))).toBe(true)
    // The TNA programs have no INT option: the Tofino files are the same with it and without (and the tofino driver refuses it: tofino-driver.test.ts).
    const tofino = renderPipeline(input.topology, 'ecmp', 'tofino', input.params, { int: input.int })
    const tofinoPlain = renderPipeline(input.topology, 'ecmp', 'tofino', input.params)
    expect(tofino.switches.map((s) => [s.fileName, s.text])).toEqual(tofinoPlain.switches.map((s) => [s.fileName, s.text]))
    expect(tofino.switches.length).toBe(4)
  })
})

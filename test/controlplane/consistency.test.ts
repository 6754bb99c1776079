// Every rendered simple_switch_CLI file and bfrt_python script names only what its P4 program
// declares (tables, actions with their parameter counts, registers within their sizes,
// multicast), for every scheme, both targets, and three fabrics. Programs are read from p4/
// with the P4 engineer's declaration reader.

import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildFabric, customFromFabric, type FabricSpec } from '../../src-main/model/topology'
import { readDeclarations, type P4Declarations } from '../../src-main/core/p4/declarations'
import { computeControlPlane, renderBfrt, renderCli, schemeModule, type CpScheme, type CpTarget } from '../../src-main/core/controlplane'
import { SCHEME_NAMES } from '../../src-main/schemes'
import { checkBfrt, checkCli } from '../../src-main/core/controlplane/check'
import { programPath as shippedProgramPath } from '../../src-main/core/p4build/programs'

const ROOT = resolve(import.meta.dirname, '../..')
const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }
const FABRICS: Record<string, FabricSpec> = {
  'HULA 3-tier': { kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, ...RATES },
  'k=4 fat-tree': { kind: 'fat-tree', k: 4, ...RATES },
  'leaf-spine 4x4': { kind: 'leaf-spine', leaves: 4, spines: 4, hostsPerLeaf: 4, ...RATES },
  // CONGA's testbed shape: two links from each leaf to each spine.
  'leaf-spine 2x2, 2 links per spine': { kind: 'leaf-spine', leaves: 2, spines: 2, hostsPerLeaf: 4, linksPerSpine: 2, ...RATES },
  // A custom topology: two pods, explicit ports, a parallel agg-spine link, per-link speeds.
  'custom 2-pod': {
    kind: 'custom',
    ...RATES,
    nodes: [
      { name: 'sp0', tier: 'spine' }, { name: 'ag0', tier: 'agg', pod: 0 }, { name: 'ag1', tier: 'agg', pod: 1 },
      { name: 't0', tier: 'tor', pod: 0 }, { name: 't1', tier: 'tor', pod: 1 }, { name: 'x0', tier: 'host' }, { name: 'x1', tier: 'host' }, { name: 'x2', tier: 'host' },
    ],
    links: [
      { a: 't0', b: 'x0', aPort: 2 }, { a: 't0', b: 'x1' }, { a: 't1', b: 'x2' }, { a: 'ag0', b: 't0', bPort: 0 }, { a: 'ag1', b: 't1' },
      { a: 'sp0', b: 'ag0', bps: 100e9 }, { a: 'sp0', b: 'ag0' }, { a: 'sp0', b: 'ag1' },
    ],
  },
}
function programPath(scheme: CpScheme, target: CpTarget): string {
  return shippedProgramPath(join(ROOT, 'p4'), { scheme: schemeModule(scheme).iface(target).programName, target })
}

const cache = new Map<string, P4Declarations>()
function declarations(file: string): P4Declarations {
  if (!cache.has(file)) {
    const src = readFileSync(file, 'utf8')
    const rel = file.slice(ROOT.length + 1)
    cache.set(file, readDeclarations(src, (p, from) => readFileSync(join(ROOT, dirname(from), p), 'utf8'), rel))
  }
  return cache.get(file)!
}

describe('rendered control plane vs the P4 programs', () => {
  for (const target of ['bmv2', 'tofino'] as const) {
    for (const scheme of SCHEME_NAMES) {
      const file = programPath(scheme, target)
      if (!existsSync(file)) {
        it.todo(`${scheme} on ${target}: ${file.slice(ROOT.length + 1)} does not exist yet`)
        continue
      }
      for (const [fname, spec] of Object.entries(FABRICS)) {
        const state = computeControlPlane(buildFabric(spec), scheme)
        const mod = schemeModule(scheme)
        if (mod.fabrics && !mod.fabrics.includes(spec.kind)) {
          it(`${scheme} on ${target}, ${fname}: refused with a reason (the program is ${mod.fabrics.join('/')} only)`, () => {
            expect(() => (target === 'bmv2' ? renderCli : renderBfrt)(state, state.switches[0].name)).toThrow(/supports leaf-spine fabrics/)
          })
          continue
        }
        it(`${scheme} on ${target}, ${fname}: every command names what the program declares`, () => {
          const d = declarations(file)
          const problems: string[] = []
          for (const sw of state.switches) {
            const text = target === 'bmv2' ? renderCli(state, sw.name) : renderBfrt(state, sw.name)
            const found = target === 'bmv2' ? checkCli(text, d) : checkBfrt(text, d, mod.iface(target).programName)
            problems.push(...found.map((p) => `${sw.name} ${p}`))
          }
          expect(problems).toEqual([])
        })
      }
    }
  }
})

describe('a generated fabric written out as a custom topology', () => {
  for (const [fname, spec] of Object.entries(FABRICS).filter(([, x]) => x.kind !== 'custom')) {
    it(`${fname}: renders the same simple_switch_CLI files and bfrt scripts as the generator's`, () => {
      const generated = buildFabric(spec)
      const custom = buildFabric(customFromFabric(generated, RATES))
      for (const scheme of SCHEME_NAMES) {
        const mod = schemeModule(scheme)
        if (mod.fabrics && !mod.fabrics.includes('custom')) continue
        const a = computeControlPlane(generated, scheme)
        const b = computeControlPlane(custom, scheme)
        for (const sw of a.switches) {
          expect(renderCli(b, sw.name)).toBe(renderCli(a, sw.name))
          expect(renderBfrt(b, sw.name)).toBe(renderBfrt(a, sw.name))
        }
      }
    })
  }
})

describe('the checker catches mistakes', () => {
  const hula = programPath('hula', 'bmv2')
  const d = (): P4Declarations => declarations(hula)
  const state = computeControlPlane(buildFabric(FABRICS['HULA 3-tier']), 'hula')
  const good = renderCli(state, 'agg0')

  it('accepts the rendered file', () => {
    expect(checkCli(good, d())).toEqual([])
  })

  const cases: Array<[string, string, RegExp]> = [
    ['an undeclared table', 'table_add MyIngress.nextHops MyIngress.setEgress 1 0 => 2', /no table 'MyIngress.nextHops'/],
    ['an action the table does not have', 'table_add MyIngress.nextHop MyIngress.toTor 1 0 => 2', /has no action MyIngress.toTor/],
    ['too few action parameters', 'table_add MyIngress.ipv4Route MyIngress.toHost 10.0.0.9/32 => 3', /takes 2 parameters, got 1/],
    ['too many action parameters', 'table_add MyIngress.nextHop MyIngress.setEgress 1 0 => 2 3', /takes 1 parameters, got 2/],
    ['a missing key field', 'table_add MyIngress.nextHop MyIngress.setEgress 1 => 2', /has 2 key fields, got 1/],
    ['an lpm key without a length', 'table_add MyIngress.ipv4Route MyIngress.toTor 10.0.0.0 => 1', /lpm/],
    ['a port too wide', 'table_add MyIngress.nextHop MyIngress.setEgress 1 0 => 600', /9 bits/],
    ['an undeclared register', 'register_write MyIngress.bestHops 0 1', /no register/],
    ['a register index past the end', 'register_write MyIngress.bestHop 1024 1', /outside MyIngress.bestHop\[1024\]/],
    ['a probe group that is never created', 'table_add MyIngress.probeGroup MyIngress.setProbeGroup 7 => 9', /multicast group 9 is never created/],
    ['an unknown command', 'table_addd MyIngress.nextHop MyIngress.setEgress 1 0 => 2', /not a command/],
  ]
  for (const [what, line, re] of cases) {
    it(`rejects ${what}`, () => {
      const problems = checkCli(good + line + '\n', d())
      expect(problems.length).toBe(1)
      expect(problems[0]).toMatch(re)
    })
  }

  it('rejects multicast in a program that does not use it (ecmp)', () => {
    const ecmp = programPath('ecmp', 'bmv2')
    const problems = checkCli(renderCli(computeControlPlane(buildFabric(FABRICS['HULA 3-tier']), 'ecmp'), 'agg0') + 'mc_mgrp_create 1\n', declarations(ecmp))
    expect(problems.join('\n')).toMatch(/does not use multicast/)
  })

  it('rejects wrong bfrt_python calls', () => {
    const bf = renderBfrt(state, 'agg0')
    expect(checkBfrt(bf, d(), 'hula')).toEqual([])
    const wrong = [
      ['bfrt.hula.pipe.MyIngress.nextHop.add_with_setEgress(1, 0)', /takes 1 parameters, got 0/],
      ['bfrt.hula.pipe.MyIngress.nextHop.add_with_setEgress(1, 0, prt=3)', /no parameter 'prt'/],
      ['bfrt.hula.pipe.MyIngress.nextHop.add_with_toTor(1, 0, tor=3)', /has no action MyIngress.toTor/],
      ['bfrt.hula.pipe.MyIngress.nexthop.add_with_setEgress(1, 0, port=3)', /no table 'MyIngress.nexthop'/],
      ['bfrt.hula.pipe.MyIngress.pathUtil.mod(REGISTER_INDEX=5000, f1=0)', /outside MyIngress.pathUtil/],
      ['bfrt.hula.pipe.MyIngress.probeGroup.add_with_setProbeGroup(3, group=42)', /group 42 is never created/],
      ['bfrt.ecmp.pipe.MyIngress.nextHop.add_with_setEgress(1, 0, port=3)', /not a call into bfrt.hula/],
    ] as const
    for (const [line, re] of wrong) {
      const problems = checkBfrt(bf + line + '\n', d(), 'hula')
      expect(problems.join('\n'), line).toMatch(re)
    }
  })
})

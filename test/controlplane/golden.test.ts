// Golden files: the HULA 3-tier fabric and a k=4 fat-tree, every switch, rendered as a
// simple_switch_CLI file and a bfrt_python script for HULA, plus one ToR of the 3-tier for
// every other scheme (CONGA on a leaf-spine), the BMv2 queue mapping and the sim tables.
// Reviewed by hand once; UPDATE_GOLDEN=1 rewrites them (then review the diff).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildFabric, type FabricSpec } from '../../src-main/model/topology'
import {
  bmv2QueueMapping,
  cliCommandLines,
  computeControlPlane,
  renderBfrt,
  renderCli,
  renderSimRoutes,
  type CpScheme,
} from '../../src-main/core/controlplane'
import { SCHEME_NAMES } from '../../src-main/schemes'

const DIR = resolve(import.meta.dirname, '../fixtures/controlplane/golden')
const UPDATE = process.env.UPDATE_GOLDEN === '1'
const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }
const HULA3: FabricSpec = { kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, ...RATES }
const FAT4: FabricSpec = { kind: 'fat-tree', k: 4, ...RATES }
const LS: FabricSpec = { kind: 'leaf-spine', leaves: 4, spines: 2, hostsPerLeaf: 4, ...RATES }

function golden(rel: string, actual: string): void {
  const file = join(DIR, rel)
  if (UPDATE || !existsSync(file)) {
    if (!UPDATE) throw new Error(`golden file ${rel} is missing; run with UPDATE_GOLDEN=1 and review it`)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, actual)
    return
  }
  expect(actual, rel).toBe(readFileSync(file, 'utf8'))
}

describe('golden control-plane files', () => {
  for (const [topo, spec] of [
    ['three-tier', HULA3],
    ['fat-tree-k4', FAT4],
  ] as const) {
    it(`HULA on the ${topo}: every switch's CLI file and bfrt script`, () => {
      const state = computeControlPlane(buildFabric(spec), 'hula')
      for (const sw of state.switches) {
        golden(`hula/${topo}/${sw.name}.cmds`, renderCli(state, sw.name))
        golden(`hula/${topo}/${sw.name}.bfrt.py`, renderBfrt(state, sw.name))
      }
      golden(`hula/${topo}/bmv2-queues.json`, JSON.stringify(bmv2QueueMapping(state), null, 1) + '\n')
      golden(`hula/${topo}/sim-routes.json`, JSON.stringify(renderSimRoutes(state), null, 1) + '\n')
    })
  }

  // Every other scheme of the registry (HULA and CONGA have their own fabrics above and below).
  for (const scheme of SCHEME_NAMES.filter((s) => !['hula', 'conga', 'conga-prime'].includes(s)) as CpScheme[]) {
    it(`${scheme} on the three-tier: tor0 and agg0`, () => {
      const state = computeControlPlane(buildFabric(HULA3), scheme)
      for (const s of ['tor0', 'agg0']) {
        golden(`${scheme}/three-tier/${s}.cmds`, renderCli(state, s))
        golden(`${scheme}/three-tier/${s}.bfrt.py`, renderBfrt(state, s))
      }
    })
  }

  it('conga on a leaf-spine: leaf0 and spine0', () => {
    const state = computeControlPlane(buildFabric(LS), 'conga')
    for (const s of ['leaf0', 'spine0']) {
      golden(`conga/leaf-spine/${s}.cmds`, renderCli(state, s))
      golden(`conga/leaf-spine/${s}.bfrt.py`, renderBfrt(state, s))
    }
  })
})

describe('rendered CLI syntax matches a real simple_switch_CLI session', () => {
  // test/fixtures/controlplane/bmv2/cli-session-ok.cmds ran without errors on a real BMv2.
  const session = readFileSync(resolve(import.meta.dirname, '../fixtures/controlplane/bmv2/cli-session-ok.cmds'), 'utf8')
  const real = new Set(cliCommandLines(session).map((l) => l.split(' ')[0]))
  const state = computeControlPlane(buildFabric(HULA3), 'hula')

  it('uses only commands the session used (mirroring_add from docs/runtime_CLI.md)', () => {
    const ours = new Set(state.switches.flatMap((s) => cliCommandLines(renderCli(state, s.name)).map((l) => l.split(' ')[0])))
    ours.delete('mirroring_add')
    for (const c of ours) expect(real.has(c), c).toBe(true)
  })

  it('writes lpm keys, MACs and multicast like the session', () => {
    const lines = cliCommandLines(renderCli(state, 'tor0'))
    // Session: "table_add I.dstTor I.setDstTor 10.0.1.0/24 => 1" and "... => 3 00:00:00:00:01:03 10".
    expect(lines).toContain('table_add MyIngress.ipv4Route MyIngress.toTor 10.0.1.0/24 => 1')
    expect(lines).toContain('table_add MyIngress.ipv4Route MyIngress.toHost 10.0.0.1/32 => 0 02:00:0a:00:00:01')
    // Session: "mc_mgrp_create 1", "mc_node_create 0 1 2 3", "mc_node_associate 1 0".
    const mc = lines.filter((l) => l.startsWith('mc_'))
    expect(mc).toEqual(['mc_mgrp_create 1', 'mc_node_create 0 8 9', 'mc_node_associate 1 0'])
  })
})

describe('BMv2 link-speed mapping', () => {
  it('scales the fastest link to the ceiling and keeps the ratios', () => {
    const state = computeControlPlane(buildFabric({ ...HULA3, rates: { 'spine1-agg3': 10e9 } }), 'ecmp')
    const m = bmv2QueueMapping(state, { ceilingBps: 1e9 })
    expect(m.scale).toBeCloseTo(1 / 40)
    const byRate = (bps: number) => m.ports.filter((p) => p.bps === bps)
    expect(new Set(byRate(40e9).map((p) => p.pps))).toEqual(new Set([Math.round(1e9 / 8 / 1500)]))
    expect(new Set(byRate(10e9).map((p) => p.pps))).toEqual(new Set([Math.round(0.25e9 / 8 / 1500)]))
    // The slowed fabric link shows up on both its ends.
    expect(m.ports.filter((p) => p.bps === 10e9 && (p.switch === 'spine1' || p.switch === 'agg3'))).toHaveLength(2)
    for (const p of m.ports) expect(p.scaledBps).toBeLessThanOrEqual(1e9)
  })

  it('leaves slow fabrics alone and honours a different ceiling', () => {
    const state = computeControlPlane(buildFabric({ kind: 'leaf-spine', leaves: 2, spines: 2, hostsPerLeaf: 2, hostLinkBps: 100e6, fabricLinkBps: 200e6, linkDelayNs: 1000 }), 'ecmp')
    expect(bmv2QueueMapping(state).scale).toBe(1)
    const m = bmv2QueueMapping(state, { ceilingBps: 100e6 })
    expect(m.scale).toBe(0.5)
    expect(m.ports.find((p) => p.bps === 100e6)!.pps).toBe(Math.round(50e6 / 8 / 1500))
    const cli = renderCli(state, 'leaf0', undefined, { ceilingBps: 100e6 })
    expect(cli).toContain(`set_queue_rate ${Math.round(50e6 / 8 / 1500)} 0`)
  })
})

describe('sim tables', () => {
  it('are the same next-hop sets the simulator computes from the topology', async () => {
    const { distancesTo, shortestNextHops } = await import('../../src-main/model/topology')
    for (const spec of [HULA3, FAT4, LS]) {
      const f = buildFabric(spec)
      const routes = renderSimRoutes(computeControlPlane(f, 'hula'))
      for (const s of f.switches) {
        const r = routes.switches[s]
        f.tors.forEach((t, ti) => {
          if (t !== s) expect(r.toTor[ti]).toEqual(shortestNextHops(f, s, distancesTo(f, t)))
        })
        if (f.nodes[s].role === 'tor') expect(r.hosts!.length).toBeGreaterThan(0)
      }
    }
  })
})

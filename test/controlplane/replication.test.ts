// Walks the rendered probe replication as a graph: a probe leaves each ToR (it enters the
// ToR on a host port, as the BMv2 host agent sends it), and every switch copies it to the
// ports of the multicast group its probeGroup entry names for the ingress port. The walk
// must reach every other ToR, terminate, and never bring a ToR's probe back to a switch on
// the port that switch sent it out of.

import { describe, expect, it } from 'vitest'
import { buildFabric, peer, type Fabric, type FabricSpec } from '../../src-main/model/topology'
import { computeControlPlane, type ControlPlaneState, type CpScheme, type SpineScope } from '../../src-main/core/controlplane'

const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }
const HULA3: FabricSpec = { kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, ...RATES }
const FAT4: FabricSpec = { kind: 'fat-tree', k: 4, ...RATES }
const LS: FabricSpec = { kind: 'leaf-spine', leaves: 4, spines: 2, hostsPerLeaf: 4, ...RATES }

interface WalkResult {
  reached: Set<string>
  copies: number
  loops: string[]
  returns: string[]
}

/** Replicates one probe from a ToR through the groups; bounded so a loop cannot hang the test. */
function walk(f: Fabric, state: ControlPlaneState, torName: string, maxCopies = 10_000): WalkResult {
  const byNode = new Map(state.switches.map((s) => [s.node, s]))
  const tor = state.switches.find((s) => s.name === torName)!
  const hostPort = tor.ports.find((p) => p.facing === 'host')!.port
  const reached = new Set<string>()
  const loops: string[] = []
  const returns: string[] = []
  // Ports each switch sent this probe out of, to catch one coming back in on them.
  const sentOn = new Map<number, Set<number>>()
  // (switch, ingress port) pairs already seen on this copy's path: a repeat is a loop.
  const queue: Array<{ node: number; inPort: number; path: string[] }> = [{ node: tor.node, inPort: hostPort, path: [] }]
  let copies = 0
  while (queue.length > 0) {
    const { node, inPort, path } = queue.shift()!
    const sw = byNode.get(node)!
    const here = `${sw.name}:${inPort}`
    if (path.includes(here)) {
      loops.push([...path, here].join(' > '))
      continue
    }
    if (sentOn.get(node)?.has(inPort)) returns.push(`${sw.name} got ${torName}'s probe back on port ${inPort} (${[...path, here].join(' > ')})`)
    if (sw.role === 'tor' && node !== tor.node) reached.add(sw.name)
    const repl = sw.probeReplication.find((r) => r.ingressPort === inPort)!
    if (repl.group === 0) continue
    const group = sw.mcastGroups.find((g) => g.id === repl.group)!
    for (const out of group.ports) {
      const pe = peer(f, node, out)
      if (f.nodes[pe.node].role === 'host') continue
      if (!sentOn.has(node)) sentOn.set(node, new Set())
      sentOn.get(node)!.add(out)
      if (++copies > maxCopies) {
        loops.push(`more than ${maxCopies} copies from ${torName}`)
        return { reached, copies, loops, returns }
      }
      queue.push({ node: pe.node, inPort: pe.port, path: [...path, here] })
    }
  }
  return { reached, copies, loops, returns }
}

function checkAll(spec: FabricSpec, scheme: CpScheme, spineScope?: SpineScope): Array<{ tor: string; r: WalkResult; others: string[] }> {
  const f = buildFabric(spec)
  const state = computeControlPlane(f, scheme, {}, { spineScope })
  return state.tors.map((t) => ({ tor: t.name, r: walk(f, state, t.name), others: state.tors.filter((o) => o.name !== t.name).map((o) => o.name) }))
}

describe('probe replication walk', () => {
  for (const [name, spec] of [
    ['HULA 3-tier', HULA3],
    ['k=4 fat-tree', FAT4],
    ['leaf-spine', LS],
  ] as const) {
    for (const scheme of ['hula', 'dhlb'] as const) {
      it(`${scheme} on the ${name}: every ToR's probe reaches every other ToR, terminates, never comes back`, () => {
        for (const { tor, r, others } of checkAll(spec, scheme)) {
          expect([...r.reached].sort(), `from ${tor}`).toEqual([...others].sort())
          expect(r.loops, `from ${tor}`).toEqual([])
          expect(r.returns, `from ${tor}`).toEqual([])
        }
      })
    }
  }

  it('HULA on the 3-tier: the copies follow the shortest paths (each ToR gets the probe once per path)', () => {
    const f = buildFabric(HULA3)
    const state = computeControlPlane(f, 'hula')
    const r = walk(f, state, 'tor0')
    // tor0 -> agg0, agg1 (2); each agg -> tor1 and both spines (6); each spine gets it from
    // two aggs and sends each to agg2, agg3 (8); each of those goes down to tor2, tor3 (16).
    expect(r.copies).toBe(2 + 6 + 8 + 16)
  })

  it("catches a bad rule: DHLB's spine rule taken literally on a 3-tier sends the probe back to its ToR", () => {
    const results = checkAll(HULA3, 'dhlb', 'all-others')
    const returns = results.flatMap((x) => x.r.returns)
    expect(returns.length).toBeGreaterThan(0)
    expect(returns.some((s) => s.startsWith('tor0 got tor0'))).toBe(true)
  })

  it('catches a loop: a group that sends a probe back up is reported, and the walk still ends', () => {
    const f = buildFabric(HULA3)
    const state = computeControlPlane(f, 'hula')
    // Make agg0 send probes that came down from a spine back up as well.
    const agg0 = state.switches.find((s) => s.name === 'agg0')!
    const fromSpine = agg0.probeReplication.find((r) => r.ingressPort === 2)!
    agg0.mcastGroups.find((g) => g.id === fromSpine.group)!.ports = [0, 1, 2, 3]
    const r = walk(f, state, 'tor2', 2000)
    expect(r.loops.length + r.returns.length).toBeGreaterThan(0)
  })

  it('ToRs consume probes from above and no group is empty or names a host port except at ToRs', () => {
    for (const spec of [HULA3, FAT4, LS]) {
      const state = computeControlPlane(buildFabric(spec), 'hula')
      for (const s of state.switches) {
        for (const g of s.mcastGroups) {
          expect(g.ports.length).toBeGreaterThan(0)
          expect(g.id).toBeGreaterThan(0)
          for (const p of g.ports) expect(s.ports[p].facing).not.toBe('host')
        }
        if (s.role === 'tor') {
          for (const r of s.probeReplication) expect(r.group === 0).toBe(s.ports[r.ingressPort].facing === 'up')
        }
      }
    }
  })
})

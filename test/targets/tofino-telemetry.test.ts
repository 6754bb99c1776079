// What a Tofino run polls: every port counter, and for each scheme the cells its descriptor
// names (the same cells the BMv2 poller reads), with their values from constructed poll rounds.
import { describe, expect, it } from 'vitest'
import { computeControlPlane } from '../../src-main/core/controlplane'
import { bfrtPollKey, type BfrtPollRound } from '../../src-main/core/targets/tofino/output'
import { tofinoSeriesPlan } from '../../src-main/core/targets/tofino/telemetry'
import { SCHEME_NAMES, schemeOf } from '../../src-main/schemes'
import { buildFabric, type FabricSpec } from '../../src-main/model/topology'

const LS: FabricSpec = { kind: 'leaf-spine', leaves: 2, spines: 2, hostsPerLeaf: 2, hostLinkBps: 10e9, fabricLinkBps: 10e9, linkDelayNs: 1000 }

function round(counters: Record<string, [number, number]>, registers: Record<string, number[]> = {}): BfrtPollRound {
  return {
    counters: new Map(Object.entries(counters).map(([k, [bytes, packets]]) => [k, { bytes, packets }])),
    registers: new Map(Object.entries(registers)),
    errors: [],
    session: { completed: true, programs: [], entries: [], errors: [] } as unknown as BfrtPollRound['session'],
  }
}

describe('tofinoSeriesPlan', () => {
  for (const scheme of SCHEME_NAMES) {
    it(`${scheme}: reads each port counter and every cell the descriptor polls, once each`, () => {
      const state = computeControlPlane(buildFabric(LS), scheme)
      const names = state.switches.map((s) => s.name)
      const plan = tofinoSeriesPlan(state, names, scheme)
      const d = schemeOf(scheme)
      const iface = d.controlPlane.iface('tofino')
      const expectedDefs = state.switches.flatMap((sw) => [
        ...sw.ports.map((q) => ({ kind: 'link.util', entity: { switch: sw.name, port: q.port }, unit: 'ratio' })),
        ...(d.poll?.(sw, state, iface) ?? []).map((c) => c.def),
      ])
      expect(plan.defs).toEqual(expectedDefs)
      for (const sw of state.switches) {
        const reads = plan.reads.get(sw.name)!
        const keys = reads.map((r) => `${r.kind}:${bfrtPollKey(r.name, r.index)}`)
        expect(new Set(keys).size).toBe(keys.length)
        for (const q of sw.ports) expect(keys).toContain(`counter:${bfrtPollKey('MyEgress.portTx', q.port)}`)
        for (const c of d.poll?.(sw, state, iface) ?? []) {
          expect(keys).toContain('counter' in c ? `counter:${bfrtPollKey(c.counter, c.index)}` : `register:${bfrtPollKey(c.register, c.index)}`)
        }
      }
    })
  }

  it('turns a round into values: utilization from byte deltas, a register through its decoder from the pipe that holds it, NaN where a read failed', () => {
    const state = computeControlPlane(buildFabric(LS), 'hula')
    const sw = state.switches.find((s) => s.ports.some((p) => p.facing === 'up'))!
    const plan = tofinoSeriesPlan(state, [sw.name], 'hula')
    const cells = schemeOf('hula').poll!(sw, state, schemeOf('hula').controlPlane.iface('tofino'))
    const reg = cells.find((c) => 'register' in c && c.def.kind === 'hula.bestHop')!
    if (!('register' in reg)) throw new Error('expected a register cell')
    const port = sw.ports[0]
    const portKey = bfrtPollKey('MyEgress.portTx', port.port)
    const prev = new Map([[sw.name, round({ [portKey]: [1000, 1] })]])
    // 1.25e9 bytes more in 1 s on a 10 Gb/s port: all of it. Pipe 0 never saw a probe (reset 0);
    // pipe 1 holds port 3 with the valid bit.
    const now = new Map([[sw.name, round({ [portKey]: [1000 + 1.25e9, 2] }, { [bfrtPollKey(reg.register, reg.index)]: [0, 0x8000 | 3] })]])
    const v = plan.values(now, prev, 1)
    expect(v[0]).toBeCloseTo((1.25e9 * 8) / port.bps, 12)
    expect(Number.isNaN(v[1])).toBe(true) // port 2's counter was not in the round
    const at = plan.defs.findIndex((d) => JSON.stringify(d) === JSON.stringify(reg.def))
    expect(at).toBeGreaterThan(0)
    expect(v[at]).toBe(3)
    expect(Number.isNaN(plan.values(now, null, 1)[0])).toBe(true)
  })

  it('refuses a switch the control plane does not have', () => {
    const state = computeControlPlane(buildFabric(LS), 'ecmp')
    expect(() => tofinoSeriesPlan(state, ['nope'], 'ecmp')).toThrow("no switch 'nope'")
  })
})

// The frame check's plan, scripts and judgement on their own (tofino-bringup.test.ts runs them
// through the driver against a stand-in bfshell): a dark cable, a burst that never left, a
// server port cabled to a switch, and a read that failed are each named for what they are.
import { describe, expect, it } from 'vitest'
import { computeControlPlane } from '../../src-main/core/controlplane'
import { countersScript, judgeFrames, parseCounters, planFrames, sendScript, type FramePlan, type FrameRound, type PortCounters } from '../../src-main/core/targets/tofino/frames'
import { buildFabric } from '../../src-main/model/topology'

const state = computeControlPlane(buildFabric({ kind: 'leaf-spine', leaves: 2, spines: 1, hostsPerLeaf: 1, hostLinkBps: 25e9, fabricLinkBps: 100e9, linkDelayNs: 1000 }), 'ecmp')
// leaf0: 0 h0, 1 spine0/0; leaf1: 0 h1, 1 spine0/1; spine0: 0 leaf0/1, 1 leaf1/1.
const plan = planFrames(state, (sw) => state.switches.find((s) => s.name === sw)!.ports.map((p) => ({ port: p.port, frontPanel: `${p.port + 1}/0`, speed: '100G' as const, fec: 'rs' as const, autoneg: 'default' as const })))

type Wires = Record<string, string>
/** Counters of every port before and after each round, given where each front panel is cabled (`sw port` → `sw port`). */
function simulate(p: FramePlan, wires: Wires, opts: { silent?: string[] } = {}): FrameRound[] {
  const c = new Map<string, PortCounters>()
  for (const s of p.switches) for (const q of s.ports) c.set(`${s.name} ${q.port}`, { rx: 5, tx: 7 })
  const snap = () => new Map(p.switches.map((s) => [s.name, new Map(s.ports.map((q) => [q.port, { ...c.get(`${s.name} ${q.port}`)! }]))]))
  const rounds: FrameRound[] = []
  for (let r = 0; r < p.rounds; r++) {
    const before = snap()
    for (const s of p.switches) {
      const q = s.ports[r]
      if (!q || opts.silent?.includes(`${s.name} ${q.port}`)) continue
      c.get(`${s.name} ${q.port}`)!.tx += s.burst
      const far = wires[`${s.name} ${q.port}`]
      if (far && c.has(far)) c.get(far)!.rx += s.burst
    }
    rounds.push({ round: r, before, after: snap(), notSent: new Set() })
  }
  return rounds
}

const cabled: Wires = { 'leaf0 1': 'spine0 0', 'spine0 0': 'leaf0 1', 'leaf1 1': 'spine0 1', 'spine0 1': 'leaf1 1' }

describe('Tofino frame check', () => {
  it('plans one burst size per switch and a round per port', () => {
    expect(plan.switches.map((s) => [s.name, s.burst, s.ports.map((p) => p.port)])).toEqual([
      ['leaf0', 8, [0, 1]],
      ['leaf1', 16, [0, 1]],
      ['spine0', 24, [0, 1]],
    ])
    expect(plan.rounds).toBe(2)
    const send = sendScript(plan.switches[2], 1, 0x0102)!
    expect(send).toContain("d = bfrt.port.port_hdl_info.get(CONN_ID=2, CHNL_ID=0, print_ents=False).data[b'$DEV_PORT']")
    expect(send).toContain('packets_per_batch_cfg=23)')
    expect(sendScript(plan.switches[0], 2, 0)).toBeNull()
    const counters = countersScript(plan.switches[0])
    expect(counters).toContain("s = bfrt.port.port_stat.get(DEV_PORT=d, from_hw=True, print_ents=False).data")
    expect(parseCounters(plan.switches[0], 'cnt 0 1/0 10 20\ncnt 1 2/0 3 4\np4lab counters done leaf0\nbfshell> exit')).toEqual({
      complete: true,
      ports: new Map([
        [0, { rx: 10, tx: 20 }],
        [1, { rx: 3, tx: 4 }],
      ]),
    })
    expect(parseCounters(plan.switches[0], 'cnt 0 1/0 10 20\nTraceback (most recent call last):').complete).toBe(false)
  })

  it('passes a fabric cabled as drawn (server ports: their bursts reach no switch)', () => {
    const r = judgeFrames(plan, simulate(plan, cabled))
    expect(r).toMatchObject({ ok: true, looked: true, problems: [] })
    expect(r.links).toHaveLength(6)
  })

  it('names a dark cable from both ends', () => {
    const w = { ...cabled }
    delete w['leaf1 1']
    delete w['spine0 1']
    expect(judgeFrames(plan, simulate(plan, w)).problems).toEqual([
      'leaf1 port 1 reaches no port, expected spine0 port 1: its 16 frames left leaf1 2/0 and arrived nowhere (a dark or unplugged cable, or one to something outside the fabric; spine0 2/0 expected)',
      'spine0 port 1 reaches no port, expected leaf1 port 1: its 24 frames left spine0 2/0 and arrived nowhere (a dark or unplugged cable, or one to something outside the fabric; leaf1 2/0 expected)',
    ])
  })

  it('names a server port cabled to a switch port', () => {
    const w: Wires = { 'leaf0 0': 'spine0 1', 'spine0 1': 'leaf0 0', 'leaf0 1': 'spine0 0', 'spine0 0': 'leaf0 1' }
    const r = judgeFrames(plan, simulate(plan, w))
    expect(r.problems[0]).toBe('leaf0 port 0 reaches spine0 port 1, expected server h0 (front panel leaf0 1/0 is cabled to spine0 2/0)')
    expect(r.problems).toContain('spine0 port 1 reaches leaf0 port 0, expected leaf1 port 1 (front panel spine0 2/0 is cabled to leaf0 1/0, expected leaf1 2/0)')
  })

  it('does not call a link dark when its burst never left, or when counters were not read', () => {
    const silent = judgeFrames(plan, simulate(plan, cabled, { silent: ['leaf0 1'] }))
    expect(silent.looked).toBe(false)
    expect(silent.problems).toEqual(['leaf0 port 1 (leaf0 2/0): could not look, its TX counter rose by 0 of 8 frames (did the check program load, and pktgen run?)'])
    const rounds = simulate(plan, cabled)
    rounds[1].after.delete('spine0')
    const unread = judgeFrames(plan, rounds)
    expect(unread.looked).toBe(false)
    expect(unread.problems).toEqual([
      "leaf0 port 1 (leaf0 2/0): could not look, a switch's counters were not read in round 2",
      "leaf1 port 1 (leaf1 2/0): could not look, a switch's counters were not read in round 2",
      'spine0 port 1 (spine0 2/0): could not look, the counters of spine0 were not read',
    ])
  })
})

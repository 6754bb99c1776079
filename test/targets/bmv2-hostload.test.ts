// The switch host's load during a BMv2 run (hostload.ts), pure parts: the sample's parser on
// the kernel's own formats (/proc/<pid>/stat, /proc/net/dev as this machine prints them), the
// series computed from two samples, and the verdict on what limited the run.
import { describe, expect, it } from 'vitest'
import { computeControlPlane } from '../../src-main/core/controlplane'
import { activeBps, emptyTally, hostLoadPlan, loadVerdict, parseHostSample, tallyRound, type LoadRound } from '../../src-main/core/targets/bmv2/hostload'
import { planNetns, runPrefix } from '../../src-main/core/targets/remote/netns'
import { seriesProblem } from '../../src-main/schemes'
import { buildFabric } from '../../src-main/model/topology'

const state = computeControlPlane(buildFabric({ kind: 'leaf-spine', leaves: 2, spines: 2, hostsPerLeaf: 2, hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }), 'ecmp')
const plan = planNetns(state, runPrefix(7, 'xy'))

const HEAD = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0`

/** A sample: every interface of the plan at (rx, tx) bytes and packets from `dev`, each switch at `ticks`. */
function sampleText(tNs: number, ticks: Record<string, number>, dev: Record<string, [number, number, number, number]>): string {
  const stat = (pid: number, t: number) => `${pid} (simple_switch) S 1 ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${t - 10} 10 0 0 20 0 9 0 5000 1000 300 18446744073709551615`
  const lines = [`clk 100 2 ${tNs}`]
  let pid = 1000
  for (const [name, t] of Object.entries(ticks)) lines.push(`stat ${name} ${stat(pid++, t)}`)
  lines.push('dev', HEAD)
  for (const [n, [rb, rp, tb, tp]] of Object.entries(dev)) lines.push(`${n.padStart(15)}: ${rb} ${rp} 0 0 0 0 0 0 ${tb} ${tp} 0 0 0 0 0 0`)
  return lines.join('\n') + '\n'
}

describe('a sample of the switch host', () => {
  it('parses the clock, each process CPU ticks (a comm with spaces and parentheses too) and every interface', () => {
    const text = [
      'clk 100 2 1700000000000000000',
      'stat ss-leaf0 4242 (simple_switch) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 5000 1000 300',
      'stat ss-odd 77 (a (b) c) R 1 77 77 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 1 1 1',
      'dev',
      HEAD,
      'p4xy000001: 123456 789 0 1 0 0 0 0 654321 987 0 0 0 0 0 0',
      '',
    ].join('\n')
    const s = parseHostSample(text)!
    expect(s.tNs).toBe(1.7e18)
    expect(s.clkTck).toBe(100)
    expect(s.cpus).toBe(2)
    expect(s.ticks).toEqual(new Map([['ss-leaf0', 300], ['ss-odd', 10]]))
    expect(s.dev.get('p4xy000001')).toEqual({ rxBytes: 123456, rxPackets: 789, txBytes: 654321, txPackets: 987 })
    expect(s.dev.get('lo')).toEqual({ rxBytes: 0, rxPackets: 0, txBytes: 0, txPackets: 0 })
    expect(parseHostSample('sh: 1: getconf: not found\n')).toBeNull()
  })

  it('defines vocabulary series: CPU and drops per switch, sent and received per host', () => {
    const lp = hostLoadPlan(plan, (s) => `ss-${s}`)
    expect(lp.defs.map((d) => seriesProblem(d)).filter(Boolean)).toEqual([])
    expect(lp.defs.filter((d) => d.kind === 'switch.cpu')).toHaveLength(state.switches.length)
    expect(lp.defs.filter((d) => d.kind === 'host.received').map((d) => d.entity.host)).toEqual(plan.hosts.map((h) => h.name))
  })

  it('turns two samples into cores, packets lost inside each switch and the hosts bit rates', () => {
    const lp = hostLoadPlan(plan, (s) => `ss-${s}`)
    const leaf0 = plan.switches.find((s) => s.name === state.switches[0].name)!
    const h0 = plan.hosts[0]
    const h0Port = plan.links.find((l) => l.hostNs === h0.ns)!.a
    const zero = (): Record<string, [number, number, number, number]> => Object.fromEntries(plan.switches.flatMap((s) => s.ports.map((p) => [p.ifname, [0, 0, 0, 0]])))
    const ticks0 = Object.fromEntries(plan.switches.map((s) => [`ss-${s.name}`, 1000]))
    const a = parseHostSample(sampleText(1e18, ticks0, zero()))!
    // Two seconds later: leaf0 used 190 ticks (0.95 cores); h0 sent 25 MB into leaf0's port and got 5 MB back; leaf0 took
    // 20 000 packets in over its ports and sent 19 000 out.
    const dev = zero()
    dev[h0Port] = [25e6, 20_000, 5e6, 4_000]
    dev[leaf0.ports.find((p) => p.facing !== 'host')!.ifname] = [0, 0, 20e6, 15_000]
    const b = parseHostSample(sampleText(1e18 + 2e9, { ...ticks0, [`ss-${leaf0.name}`]: 1190 }, dev))!
    expect(lp.values(b, null)).toBeNull()
    const { values, round } = lp.values(b, a)!
    const at = (kind: string, entity: Record<string, string>) => values[lp.defs.findIndex((d) => d.kind === kind && JSON.stringify(d.entity) === JSON.stringify(entity))]
    expect(at('switch.cpu', { switch: leaf0.name })).toBeCloseTo(0.95)
    expect(at('switch.cpu', { switch: plan.switches[1].name })).toBe(0)
    expect(at('switch.drops', { switch: leaf0.name })).toBe(1000)
    expect(at('host.sent', { host: h0.name })).toBe(100e6)
    expect(at('host.received', { host: h0.name })).toBe(20e6)
    expect(round).toMatchObject({ dtS: 2, cpus: 2, packetsIn: 20_000, packetsLost: 1000, sentBps: 100e6, receivedBps: 20e6 })
  })
})

describe('what limited the run', () => {
  const r = (o: Partial<LoadRound>): LoadRound => ({ dtS: 1, cpu: new Map([['leaf0', 0.3]]), cpus: 2, packetsIn: 10_000, packetsLost: 0, sentBps: 50e6, receivedBps: 50e6, ...o })

  it('the switches: pinned at a core while the links stayed under their rates', () => {
    const t = emptyTally()
    for (let i = 0; i < 8; i++) tallyRound(t, r({ cpu: new Map([['leaf0', 1.0], ['spine0', 0.6]]), receivedBps: 30e6 }), 0.4, 1e6)
    for (let i = 0; i < 2; i++) tallyRound(t, r({}), 0.4, 1e6)
    const v = loadVerdict(t, 120e6)
    expect(v.bottleneck).toBe('switches')
    expect(v.pinnedShare).toBe(0.8)
    expect(v.achievedBps).toBe(34e6)
    expect(v.message).toMatch(/^the switches, not the links, limited this run: .*pinned .* in 8 of 10 rounds, busiest leaf0 at 1.00 cores; 0 % of the packets .* hosts received 34 Mb\/s of 120 Mb\/s offered\)/)
  })

  it('a fabric the switches choke to 2 % of the offered load still counts: the warning comes where it matters most', () => {
    const t = emptyTally()
    const offered = 2.4e9
    for (let i = 0; i < 6; i++) tallyRound(t, r({ cpu: new Map([['leaf0', 0.99]]), sentBps: 0.02 * offered, receivedBps: 0.02 * offered }), 0.05, activeBps(offered))
    expect(t.rounds).toBe(6)
    expect(loadVerdict(t, offered).bottleneck).toBe('switches')
    // Stray IPv6 packets before the clients start do not count, whatever the offered load.
    expect(activeBps(offered)).toBeGreaterThan(20e3)
    expect(activeBps(1e6)).toBe(50e3)
  })

  it('the switches too when they lose packets inside, though no single one is pinned', () => {
    const t = emptyTally()
    for (let i = 0; i < 5; i++) tallyRound(t, r({ packetsLost: 300 }), 0.5, 1e6)
    expect(loadVerdict(t, 60e6)).toMatchObject({ bottleneck: 'switches', lossRatio: 0.03 })
  })

  it('all switches together at the host cores count as pinned', () => {
    const t = emptyTally()
    tallyRound(t, r({ cpu: new Map([['a', 0.6], ['b', 0.6], ['c', 0.7]]) }), 0.2, 1e6)
    expect(t.pinnedRounds).toBe(1)
  })

  it('the links, when a port ran at its rate: the emulated fabric did its job', () => {
    const t = emptyTally()
    for (let i = 0; i < 4; i++) tallyRound(t, r({ cpu: new Map([['leaf0', 1.0]]) }), 0.97, 1e6)
    expect(loadVerdict(t, 60e6).bottleneck).toBe('links')
  })

  it('neither, and nothing to judge when no round carried traffic (stray packets before the clients start are left out)', () => {
    const t = emptyTally()
    for (let i = 0; i < 4; i++) tallyRound(t, r({}), 0.3, 1e6)
    expect(loadVerdict(t, 60e6).bottleneck).toBe('none')
    const idle = emptyTally()
    tallyRound(idle, r({ sentBps: 2000, cpu: new Map([['leaf0', 1.0]]) }), 0, 1e6)
    expect(idle.rounds).toBe(0)
    expect(loadVerdict(idle, 60e6).bottleneck).toBe('unknown')
  })
})

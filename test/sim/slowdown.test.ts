// The ideal FCT (model/slowdown.ts) against the simulator: a flow alone on an idle fabric has
// a slowdown of 1, for sizes from one segment to many windows, on every fabric kind and both
// transports; and the steady-state shortcut gives what the segment-by-segment replay gives.
import { describe, expect, test } from 'vitest'
import { runSim } from '../../src-main/schemes'
import type { SimConfig, Topology, TransportConfig } from '../../src-main/sim'
import { idealFctFor } from '../../src-main/core/slowdown'
import { idealFctNs, type IdealTransport } from '../../src-main/model/slowdown'
import { config, FAT_TREE, THREE_TIER, topo } from './helpers'

const NEWRENO: TransportConfig = { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 }

function lone(topology: Topology, transport: TransportConfig, src: number, dst: number, size: number): number {
  const cfg: SimConfig = config({ kind: 'explicit', flows: [{ src, dst, sizeBytes: size, startNs: 3000 }] }, { topology, transport, telemetryIntervalNs: 0 })
  const r = runSim(cfg)
  expect(r.counters.drops).toBe(0)
  expect(r.flows.finishNs[0]).toBeGreaterThan(0)
  const ideal = idealFctFor({ topology, transport })(src, dst, size)!
  return (r.flows.finishNs[0] - r.flows.startNs[0]) / ideal
}

const SIZES = [1, 1460, 14_600, 14_601, 100_000, 1_000_000, 10_000_000]

describe('a lone flow on an idle simulated fabric has slowdown 1', () => {
  const cases: Array<[string, Topology, TransportConfig, number, number]> = [
    ['leaf-spine 10G hosts, 40G fabric', topo(), NEWRENO, 1, 6],
    ['leaf-spine, same rack', topo(), NEWRENO, 0, 3],
    ['leaf-spine, all 10G, DCTCP', topo({ fabricLinkBps: 10e9 }), { ...NEWRENO, kind: 'dctcp' }, 2, 5],
    ['leaf-spine 25G hosts, 100G fabric, 5 us links, initial window 4', topo({ hostLinkBps: 25e9, fabricLinkBps: 100e9, linkDelayNs: 5000 }), { ...NEWRENO, initCwndPackets: 4 }, 0, 7],
    ['fat-tree k=4 across pods', FAT_TREE, NEWRENO, 0, 15],
    ['three-tier across pods', THREE_TIER, NEWRENO, 1, 30],
    ['leaf-spine, a NIC of 2 packets', topo({ hostQueuePackets: 2, linkDelayNs: 3000 }), NEWRENO, 1, 6],
  ]
  for (const [name, t, tr, src, dst] of cases) {
    test(name, () => {
      for (const size of SIZES) {
        const s = lone(t, tr, src, dst, size)
        expect(Math.abs(s - 1), `${size} B: slowdown ${s}`).toBeLessThan(1e-6)
      }
    })
  }
})

test('a flow sharing its path is slowed down, and its slowdown says by how much', () => {
  const topology = topo()
  const r = runSim(
    config(
      { kind: 'explicit', flows: [{ src: 0, dst: 4, sizeBytes: 2_000_000, startNs: 0 }, { src: 0, dst: 5, sizeBytes: 2_000_000, startNs: 0 }] },
      { topology, telemetryIntervalNs: 0 },
    ),
  )
  const ideal = idealFctFor({ topology, transport: NEWRENO })
  // Two flows from one host share its 10G NIC: each takes about twice its ideal.
  for (const f of [0, 1]) {
    const s = (r.flows.finishNs[f] - r.flows.startNs[f]) / ideal(0, 4 + f, 2_000_000)!
    expect(s).toBeGreaterThan(1.6)
    expect(s).toBeLessThan(2.4)
  }
})

test('the steady-state shortcut equals the segment-by-segment replay', () => {
  const t: IdealTransport = { mssBytes: 1460, headerBytes: 40, ackBytes: 64, initCwndPackets: 10 }
  const paths = [
    [10e9, 40e9, 40e9, 10e9],
    [10e9, 10e9, 10e9, 10e9],
    [40e9, 10e9, 40e9, 40e9],
    [10e9, 25e9, 1e9, 25e9, 10e9, 10e9],
    [100e9, 100e9],
    [25e9, 100e9, 100e9, 25e9],
  ].map((rates, i) => rates.map((bps, k) => ({ bps, delayNs: (i + 1) * 900 + k * 77 })))
  for (const hops of paths) {
    for (const size of [1, 999, 1460, 50_000, 777_777, 3_000_001, 20_000_000]) {
      for (const initCwndPackets of [1, 3, 10]) {
        for (const hostQueuePackets of [undefined, 2, 20]) {
          const o = { ...t, initCwndPackets, hostQueuePackets }
          const what = `${size} B, ${hops.map((h) => h.bps / 1e9).join('/')}G, iw ${initCwndPackets}, NIC ${hostQueuePackets}`
          expect(idealFctNs(size, hops, o), what).toBe(idealFctNs(size, hops, o, { replayAll: true }))
        }
      }
    }
  }
})

test('bad input is refused naming the value', () => {
  const t: IdealTransport = { mssBytes: 1460, headerBytes: 40, ackBytes: 64, initCwndPackets: 10 }
  expect(() => idealFctNs(0, [{ bps: 1e9, delayNs: 0 }], t)).toThrow(/flow size .* got 0/)
  expect(() => idealFctNs(100, [], t)).toThrow(/no hop/)
  expect(() => idealFctNs(100, [{ bps: 0, delayNs: 0 }], t)).toThrow(/bps > 0/)
})

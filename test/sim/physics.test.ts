// Physics checks: each test asserts a property a correct network model must have,
// not a particular number the current code happens to produce.
import { describe, expect, test } from 'vitest'
import { type ExplicitFlow, type SimResult } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { config, meanFct, topo, webSearch } from './helpers'

const sum = (a: Float64Array): number => a.reduce((s, x) => s + x, 0)

function expectAllFinished(r: SimResult): void {
  const { startNs, finishNs } = r.flows
  for (let i = 0; i < finishNs.length; i++) expect(finishNs[i]).toBeGreaterThan(startNs[i])
  expect(r.counters.payloadBytesDelivered).toBe(sum(r.flows.sizeBytes))
}

describe('a lone flow on an idle fabric', () => {
  const t = topo()
  const mss = 1460
  // Base RTT: per hop, propagation plus serializing a full data packet one way and a
  // 64 B ACK back; the path is host-leaf-spine-leaf-host (two host hops, two fabric hops).
  const ser = (bytes: number, bps: number): number => (bytes * 8 * 1e9) / bps
  const perDirection = (bytes: number): number =>
    2 * ser(bytes, t.hostLinkBps) + 2 * ser(bytes, t.fabricLinkBps) + 4 * t.linkDelayNs
  const baseRttNs = perDirection(mss + 40) + perDirection(64)

  for (const size of [1e6, 10e6]) {
    test(`${size / 1e6} MB finishes within 5% of size/rate + RTT`, () => {
      const r = runSim(config({ kind: 'explicit', flows: [{ src: 1, dst: 6, sizeBytes: size, startNs: 5000 }] }))
      const fct = r.flows.finishNs[0] - r.flows.startNs[0]
      const ideal = (size * 8 * 1e9) / t.hostLinkBps + baseRttNs
      expect(Math.abs(fct - ideal) / ideal).toBeLessThan(0.05)
      expect(r.counters.drops).toBe(0)
      expect(r.counters.payloadBytesDelivered).toBe(size)
    })
  }
})

test('a Poisson workload delivers every byte it sends', () => {
  const r = runSim(config({ kind: 'poisson', cdf: webSearch, load: 0.4, flows: 120 }))
  expect(r.flows.finishNs.length).toBe(120)
  expectAllFinished(r)
  expect(r.counters.payloadBytesSent).toBeGreaterThanOrEqual(r.counters.payloadBytesDelivered)
  // The event heap is bounded by the elements (a queue and a pipe per link direction, a
  // timer per flow, the generator and the sampler), not by the packets in flight.
  const t = topo()
  const linkDirections = 2 * (t.leaves * t.hostsPerLeaf + t.leaves * t.spines)
  expect(r.counters.maxHeapSize!).toBeLessThanOrEqual(2 * linkDirections + 120 + 2)
  expect(r.counters.maxPacketsInFlight!).toBeGreaterThan(r.counters.maxHeapSize!)
})

test('without drops there are no retransmissions', () => {
  // Huge buffers let cwnd grow without bound, so queueing delay reaches tens of ms; the
  // RTO floor must exceed that or TCP (correctly) times out spuriously.
  const r = runSim(
    config(
      { kind: 'poisson', cdf: webSearch, load: 0.3, flows: 120 },
      {
        topology: topo({ queuePackets: 100_000 }),
        transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 200e6 },
      },
    ),
  )
  expect(r.counters.drops).toBe(0)
  expect(r.counters.retransmits).toBe(0)
  expect(r.counters.timeouts).toBe(0)
  expect(r.counters.fastRetransmits).toBe(0)
  expectAllFinished(r)
})

test('a higher load gives a higher mean FCT', () => {
  const at = (load: number): number => meanFct(runSim(config({ kind: 'poisson', cdf: webSearch, load, flows: 150 })))
  expect(at(0.7)).toBeGreaterThan(at(0.2))
})

describe('reordering', () => {
  // Fabric links as slow as host links, so the spine ports queue and paths differ in delay.
  const cfg = (scheme: 'ecmp' | 'rps') =>
    config(
      { kind: 'poisson', cdf: webSearch, load: 0.5, flows: 120 },
      { scheme, topology: topo({ fabricLinkBps: 10e9, spines: 4 }) },
    )
  test('ECMP never reorders a flow', () => {
    const r = runSim(cfg('ecmp'))
    expect(r.counters.reorderedPackets).toBe(0)
    expectAllFinished(r)
  })
  test('RPS reorders packets', () => {
    const r = runSim(cfg('rps'))
    expect(r.counters.reorderedPackets).toBeGreaterThan(0)
    expectAllFinished(r)
  })
})

test('flows recover from drops under incast', () => {
  // 12 senders on two leaves converge on host 0 while background flows run.
  const flows: ExplicitFlow[] = []
  for (let i = 0; i < 12; i++) flows.push({ src: 4 + i, dst: 0, sizeBytes: 300_000 + 1000 * i, startNs: 100 * i })
  for (let i = 0; i < 6; i++) flows.push({ src: 1 + (i % 3), dst: 8 + i, sizeBytes: 2_000_000, startNs: 0 })
  for (const scheme of ['ecmp', 'rps'] as const) {
    const r = runSim(
      config({ kind: 'explicit', flows }, { scheme, topology: topo({ leaves: 4, queuePackets: 20 }) }),
    )
    expect(r.counters.drops).toBeGreaterThan(0)
    expect(r.counters.retransmits).toBeGreaterThan(0)
    expect(r.counters.timeouts + r.counters.fastRetransmits).toBeGreaterThan(0)
    expectAllFinished(r)
  }
})

test('unfinished flows are reported with finishNs = -1 at maxSimTimeNs', () => {
  const r = runSim(
    config({ kind: 'explicit', flows: [{ src: 0, dst: 4, sizeBytes: 10e6, startNs: 0 }] }, { maxSimTimeNs: 100_000 }),
  )
  expect(r.flows.finishNs[0]).toBe(-1)
  expect(r.counters.simTimeNs).toBe(100_000)
  expect(r.counters.payloadBytesDelivered).toBeLessThan(10e6)
})

// Floodgate's credit cost (issue 13): the credits a switch owes an upstream port in a credit
// interval ride in one frame, sized by the destinations it carries, so their share of the
// fabric's bytes does not grow with the number of destinations. Real packets, no timing asserts.
import { expect, test } from 'vitest'
import { simulate, type SimConfig, type SimResult } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { FloodgateStage } from '../../src-main/schemes/floodgate/stage'
import { config, topo } from './helpers'

// Eight long-lived flows h0..h7 (leaf0) → h8..h15 (leaf1) over one spine: 80G of NICs into
// each 40G hop, so both switch-to-switch hops run at line rate, 50,000 B per T = 10 us, and
// at every tick the downstream switch of each hop owes credit for 8 destinations.
const PAIRS: Array<[number, number]> = Array.from({ length: 8 }, (_, i) => [i, 8 + i])

function manyDestinations(over: Partial<SimConfig> = {}): SimConfig {
  return config(
    { kind: 'long-lived', pairs: PAIRS },
    { scheme: 'floodgate', schemeParams: { creditOnBytes: 0 }, topology: topo({ spines: 1, hostsPerLeaf: 8 }), maxSimTimeNs: 3_000_000, ...over },
  )
}

function run(cfg: SimConfig): { r: SimResult; stage: FloodgateStage } {
  let stage: FloodgateStage | null = null
  const r = simulate(cfg, (env) => (stage = new FloodgateStage(env)))
  return { r, stage: stage as unknown as FloodgateStage }
}

test('one credit frame per hop and tick carries every destination owed: the share is set by T, not by the destinations', { timeout: 60_000 }, () => {
  const cfg = manyDestinations()
  const { r, stage } = run(cfg)
  const ticks = cfg.maxSimTimeNs! / 10_000
  // Every credit byte the switches put on the wire is counted at send (controlBytes); the
  // claim's share divides it by all bytes on switch-to-switch links (data, ACKs, credits).
  expect(r.counters.controlBytes).toBe(stage.creditBytesSent)
  // Two hops, so at most two frames a tick, each carrying several destinations (a credit
  // releases a destination's VOQ in a burst, so a tick's 33 packets on a hop come from some
  // of the 8, not all); one frame per (port, destination) would send an entry's worth of frames.
  expect(stage.creditPackets).toBeLessThanOrEqual(2 * ticks + 2)
  expect(stage.creditEntries / stage.creditPackets).toBeGreaterThan(4)
  // A frame is 64 B, or 20 B + 6 B an entry past 7 entries: 68 B for all 8. Each busy 40G
  // hop carries 50,000 B of data a tick, plus ACKs the other way (64 B per 1,500 B): the
  // share lies between 64 / (50,000 × 1.05) and 68 / (50,000 × 0.95), 0.12 % to 0.14 %.
  // A 64 B frame per destination costs 5 or more times that here (8 × 64 / 50,000 = 1.02 %
  // when every tick owes all 8).
  const share = r.counters.controlShare!
  expect(share).toBeGreaterThan(64 / (50_000 * 1.05))
  expect(share).toBeLessThan(68 / (50_000 * 0.95))
  // Batching delays no credit past its tick: the flows run as fast as under ECMP.
  const ecmp = runSim({ ...manyDestinations(), scheme: 'ecmp' })
  expect(r.counters.goodputBps).toBeGreaterThan(0.99 * ecmp.counters.goodputBps)
})

test('a credit frame is 64 B up to seven entries, then 6 B more an entry', () => {
  const { stage } = run(manyDestinations({ maxSimTimeNs: 10_000 }))
  expect(stage.creditFrameSize(1)).toBe(64)
  expect(stage.creditFrameSize(7)).toBe(64)
  expect(stage.creditFrameSize(8)).toBe(68)
  expect(stage.creditFrameSize(249)).toBe(1514)
})

// The switch buffer model and the lossless fabric: a shared buffer per switch with dynamic
// thresholds, PFC on it, and DCQCN as a transport. Every measure here comes from the sim's
// own counters and series (simulated time), never from wall-clock time.
import { describe, expect, test } from 'vitest'
import { type BufferConfig, type SimConfig, type SimSeriesDef, type TransportConfig } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { config, topo } from './helpers'

const DCQCN: TransportConfig = { kind: 'dcqcn', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 }
const RENO: TransportConfig = { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 }
const DELAY_NS = 1000
const HOST_BPS = 10e9

/**
 * Eight senders on leaf1 (hosts 4..7) and leaf2 into host 0 and host 1 on leaf0: two hot
 * ToR-down ports; and data the other way too, so the ports pause frames leave by are busy.
 */
const INCAST: Array<[number, number]> = [[4, 0], [5, 0], [6, 0], [7, 0], [8, 1], [9, 1], [10, 1], [11, 1], [0, 4], [1, 8], [2, 5], [3, 9]]

function incastConfig(transport: TransportConfig, buffer: BufferConfig | undefined, sizeBytes = 2_000_000): SimConfig {
  return config(
    { kind: 'explicit', flows: INCAST.map(([src, dst]) => ({ src, dst, sizeBytes, startNs: 0 })) },
    {
      topology: topo({ leaves: 3, hostsPerLeaf: 4 }),
      transport,
      ...(buffer ? { buffer } : {}),
      maxSimTimeNs: 200_000_000,
      telemetryIntervalNs: 20_000,
    },
  )
}

/** Runs and collects every sample of the series of one kind, keyed by their entity. */
function runSeries(cfg: SimConfig, kind: string) {
  let defs: SimSeriesDef[] = []
  const samples = new Map<string, number[]>()
  const r = runSim(cfg, {
    onSeries: (d) => (defs = d),
    onTelemetry: (t, values) => {
      defs.forEach((d, i) => {
        if (d.kind !== kind) return
        const key = JSON.stringify(d.entity)
        const list = samples.get(key) ?? []
        for (let j = 0; j < t.length; j++) list.push(values[i * t.length + j])
        samples.set(key, list)
      })
    },
  })
  return { r, samples }
}

describe('shared buffer with dynamic thresholds', () => {
  const size = 300_000
  const shared: BufferConfig = { kind: 'shared', sizeBytes: size, alpha: 1 }

  test('a switch never holds more than its buffer size, and the hot ports share it', () => {
    const { r, samples } = runSeries(incastConfig(RENO, shared), 'buffer.used')
    expect(r.counters.maxSwitchBufferBytes).toBeLessThanOrEqual(size)
    for (const list of samples.values()) for (const v of list) expect(v).toBeLessThanOrEqual(size)
    // The incast pressed on the buffer: it filled past half and lossy packets were refused.
    expect(r.counters.maxSwitchBufferBytes!).toBeGreaterThan(size / 2)
    expect(r.counters.lossyDrops!).toBeGreaterThan(0)
    // With α = 1 one port may hold at most α/(1+α) = 1/2 of the pool (plus the packet it admits).
    const c = r.counters
    expect(Math.max(c.maxQueueBytesTorUp!, c.maxQueueBytesTorDown!, c.maxQueueBytesCore!)).toBeLessThanOrEqual(size / 2 + 1500)
    expect(c.maxQueueBytesTorDown!).toBeGreaterThan(size / 4)
    expect(r.flows.finishNs.every((x) => x > 0)).toBe(true)
  })

  test('per-port queues stay the default: no buffer block, same run as before', () => {
    const a = runSim(incastConfig(RENO, undefined))
    expect(a.counters.maxSwitchBufferBytes).toBeUndefined()
    expect(a.counters.losslessDrops).toBeUndefined()
  })
})

describe('PFC on the shared buffer', () => {
  // Small enough that the incast overflows it without PFC.
  const size = 400_000
  const pfc: BufferConfig = { kind: 'shared', sizeBytes: size, alpha: 1, pfc: { alpha: 1 / 8, xonOffsetBytes: 3000 } }

  for (const transport of [RENO, DCQCN]) {
    test(`${transport.kind}: no lossless packet is dropped, and a pause takes effect within one link RTT plus one MTU`, () => {
      const lossy = runSim(incastConfig(transport, { kind: 'shared', sizeBytes: size, alpha: 1 }))
      // Without PFC the same incast loses packets to the full buffer ...
      expect(lossy.counters.drops).toBeGreaterThan(0)
      const r = runSim(incastConfig(transport, pfc))
      // ... with PFC none, and it did have to pause.
      expect(r.counters.pfcPauseFrames!).toBeGreaterThan(0)
      expect(r.counters.pfcResumeFrames!).toBeGreaterThan(0)
      expect(r.counters.losslessDrops).toBe(0)
      expect(r.counters.drops).toBe(0)
      expect(r.counters.retransmits).toBe(0)
      expect(r.counters.maxSwitchBufferBytes!).toBeLessThanOrEqual(size)
      expect(r.flows.finishNs.every((x) => x > 0)).toBe(true)
      // From the downstream's decision to the upstream's stop: the packet being serialized
      // downstream, the 64 B frame, and the link delay; bounded by RTT + one MTU at 10G.
      const mtuNs = (1500 * 8 * 1e9) / HOST_BPS
      expect(r.counters.pfcMaxPauseLagNs!).toBeGreaterThan(DELAY_NS)
      expect(r.counters.pfcMaxPauseLagNs!).toBeLessThanOrEqual(2 * DELAY_NS + mtuNs)
    })
  }
})

describe('DCQCN', () => {
  const goodput = (HOST_BPS * 1460) / 1500
  const longLived = (pairs: Array<[number, number]>, endNs: number) =>
    runSim(config({ kind: 'long-lived', pairs }, { transport: DCQCN, maxSimTimeNs: endNs, telemetryIntervalNs: 0 }))

  test('a lone flow runs at line rate, and regains it after a competitor leaves', () => {
    const alone = longLived([[4, 0]], 10_000_000)
    expect((alone.flows.deliveredBytes[0] * 8) / 10e-3).toBeGreaterThan(0.97 * goodput)

    // Flow 1 (5 MB) shares host 0's port with flow 0 and leaves; flow 0 must climb back.
    const cfg = config(
      { kind: 'explicit', flows: [{ src: 4, dst: 0, sizeBytes: 1e9, startNs: 0 }, { src: 5, dst: 0, sizeBytes: 5e6, startNs: 0 }] },
      { transport: DCQCN, maxSimTimeNs: 50_000_000, telemetryIntervalNs: 100_000 },
    )
    const { r, samples } = runSeries(cfg, 'link.util')
    const tLeft = r.flows.finishNs[1]
    expect(tLeft).toBeGreaterThan(0)
    expect(tLeft).toBeLessThan(35_000_000)
    // It was cut while the two shared the port (otherwise there is nothing to regain).
    const rate = runSeries(cfg, 'tcp.dcqcnRate').samples.get('{}')!
    expect(Math.min(...rate.filter((x) => Number.isFinite(x)))).toBeLessThan(0.7 * HOST_BPS)
    // The last 5 ms: host 0's port is full again.
    const util = samples.get(JSON.stringify({ switch: 'leaf0', port: 0 }))!
    const last = util.slice(-50)
    expect(last.reduce((s, x) => s + x, 0) / last.length).toBeGreaterThan(0.95)
  })

  test('two flows on one link get within 10 % of a fair share, and keep the link busy', () => {
    const pairs: Array<[number, number]> = [[4, 0], [5, 0]]
    // α starts at 1, so the first cuts are deep; measure after they have settled.
    const t0 = 40_000_000
    const t1 = 80_000_000
    const a = longLived(pairs, t0)
    const b = longLived(pairs, t1)
    const bps = [0, 1].map((f) => ((b.flows.deliveredBytes[f] - a.flows.deliveredBytes[f]) * 8) / ((t1 - t0) / 1e9))
    const fair = (bps[0] + bps[1]) / 2
    for (const x of bps) expect(Math.abs(x - fair) / fair).toBeLessThan(0.1)
    expect(bps[0] + bps[1]).toBeGreaterThan(0.85 * goodput)
    expect(b.counters.ecnMarks).toBeGreaterThan(0)
    expect(b.counters.drops).toBe(0)
  })

  test('same seed, same run', () => {
    const x = runSim(incastConfig(DCQCN, { kind: 'shared', sizeBytes: 400_000, alpha: 1, pfc: { alpha: 1 / 8, xonOffsetBytes: 3000 } }))
    const y = runSim(incastConfig(DCQCN, { kind: 'shared', sizeBytes: 400_000, alpha: 1, pfc: { alpha: 1 / 8, xonOffsetBytes: 3000 } }))
    expect(Array.from(y.flows.finishNs)).toEqual(Array.from(x.flows.finishNs))
    expect(y.counters).toEqual(x.counters)
  })
})

// DCTCP beside NewReno on one congested port: four long-lived flows into one host. DCTCP's
// ECN marking at K keeps that port's queue near K, where NewReno fills the buffer until it
// drops; DCTCP's α rises with the fraction of marked packets.
import { describe, expect, test } from 'vitest'
import { type SimConfig, type SimSeriesDef, type TransportConfig } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { config, topo } from './helpers'

const BUFFER = 250
const K = 65
const WARMUP_NS = 5_000_000

function run(kind: TransportConfig['kind'], pairs: Array<[number, number]>) {
  const cfg: SimConfig = config(
    { kind: 'long-lived', pairs },
    {
      topology: topo({ queuePackets: BUFFER }),
      transport: { kind, mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
      maxSimTimeNs: 30_000_000,
      telemetryIntervalNs: 50_000,
    },
  )
  let defs: SimSeriesDef[] = []
  const samples = new Map<string, number[]>()
  const r = runSim(cfg, {
    onSeries: (d) => (defs = d),
    onTelemetry: (t, values) => {
      defs.forEach((d, i) => {
        const key = `${d.kind} ${d.entity.switch ?? ''}:${d.entity.port ?? ''}`
        const list = samples.get(key) ?? []
        for (let j = 0; j < t.length; j++) if (t[j] > WARMUP_NS) list.push(values[i * t.length + j])
        samples.set(key, list)
      })
    },
  })
  const mean = (key: string): number => {
    const xs = samples.get(key)!
    return xs.reduce((s, x) => s + x, 0) / xs.length
  }
  return { r, mean }
}

// Hosts 4..7 sit on leaf1; host 0's port is leaf0 port 0.
const incast: Array<[number, number]> = [[4, 0], [5, 0], [6, 0], [7, 0]]

describe('four long-lived flows into one host', () => {
  const dctcp = run('dctcp', incast)
  const reno = run('newreno', incast)
  const depth = 'queue.depth leaf0:0'

  test('DCTCP keeps the bottleneck queue near K; NewReno fills the buffer', () => {
    const d = dctcp.mean(depth)
    const n = reno.mean(depth)
    expect(d).toBeGreaterThan(0.5 * K)
    expect(d).toBeLessThan(1.5 * K)
    expect(n).toBeGreaterThan(0.5 * BUFFER)
    expect(n).toBeGreaterThan(2 * d)
    // Both keep the port busy.
    expect(dctcp.mean('link.util leaf0:0')).toBeGreaterThan(0.95)
    expect(reno.mean('link.util leaf0:0')).toBeGreaterThan(0.95)
  })

  test('DCTCP marks instead of dropping; NewReno is never marked', () => {
    expect(dctcp.r.counters.ecnMarks).toBeGreaterThan(0)
    expect(dctcp.r.counters.drops).toBe(0)
    expect(dctcp.mean('ecn.marks leaf0:0')).toBeGreaterThan(0)
    expect(reno.r.counters.ecnMarks).toBe(0)
    expect(reno.r.counters.drops).toBeGreaterThan(0)
  })

  test('long-lived flows never finish; goodput is reported instead', () => {
    for (const r of [dctcp.r, reno.r]) {
      expect(Array.from(r.flows.finishNs)).toEqual([-1, -1, -1, -1])
      expect(Array.from(r.flows.sizeBytes)).toEqual([-1, -1, -1, -1])
      expect(r.counters.simTimeNs).toBe(30_000_000)
      // Host 0's 10G link, shared by four flows, is the limit.
      expect(r.counters.goodputBps).toBeGreaterThan(0.9 * 10e9 * (1460 / 1500))
      expect(r.counters.goodputBps).toBeLessThan(10e9)
      expect(r.flows.deliveredBytes.reduce((s, x) => s + x, 0)).toBe(r.counters.payloadBytesDelivered)
    }
  })

  test('α rises under congestion and decays without it', () => {
    const alone = run('dctcp', [[4, 0]])
    const congested = dctcp.mean('tcp.dctcpAlpha :')
    const idle = alone.mean('tcp.dctcpAlpha :')
    expect(alone.r.counters.ecnMarks).toBe(0)
    expect(idle).toBeLessThan(0.01)
    expect(congested).toBeGreaterThan(0.05)
  })
})

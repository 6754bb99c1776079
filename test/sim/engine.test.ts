import { expect, test } from 'vitest'
import { type SimSeriesDef } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { EventHeap } from '../../src-main/sim/engine/heap'
import { PacketPool } from '../../src-main/sim/engine/packets'
import { Rng } from '../../src-main/sim/engine/rng'
import { config, topo, webSearch } from './helpers'

test('the indexed heap pops in (time, schedule order) under schedule/reschedule/cancel', () => {
  const n = 200
  const heap = new EventHeap(8)
  heap.ensureElements(n)
  const rng = new Rng(42)
  // Reference model: element -> [time, order] of its pending event.
  const pending = new Map<number, [number, number]>()
  let order = 0
  for (let step = 0; step < 5000; step++) {
    const el = rng.nextInt(n)
    const op = rng.nextInt(4)
    if (op === 0) {
      heap.cancel(el)
      pending.delete(el)
    } else if (op === 3 && heap.size > 0) {
      let best = -1
      for (const [e, k] of pending) {
        const b = best < 0 ? undefined : pending.get(best)!
        if (b === undefined || k[0] < b[0] || (k[0] === b[0] && k[1] < b[1])) best = e
      }
      const t = heap.topTime()
      const got = heap.pop()
      if (got !== best || t !== pending.get(best)![0]) expect({ step, got, t }).toEqual({ step, got: best, t: pending.get(best)![0] })
      pending.delete(best)
    } else {
      const t = rng.nextInt(50) * 1000
      heap.schedule(el, t)
      pending.set(el, [t, order++])
    }
    if (heap.size !== pending.size) expect({ step, size: heap.size }).toEqual({ step, size: pending.size })
  }
  expect(heap.maxSize).toBeLessThanOrEqual(n)
})

test('the packet pool grows by doubling and recycles handles', () => {
  const pool = new PacketPool(4)
  const handles = Array.from({ length: 10 }, () => pool.alloc())
  handles.forEach((p, i) => (pool.seq[p] = i))
  expect(new Set(handles).size).toBe(10)
  expect(pool.capacity).toBe(16)
  handles.forEach((p, i) => expect(pool.seq[p]).toBe(i))
  pool.release(handles[3])
  expect(pool.alloc()).toBe(handles[3])
  expect(pool.maxInUse).toBe(10)
})

test('telemetry: one def set, batches of fresh series-major arrays, utilization within [0, 1]', () => {
  let defs: SimSeriesDef[] = []
  const batches: Array<{ t: Float64Array; values: Float64Array }> = []
  let progress = 0
  const cfg = config(
    { kind: 'poisson', cdf: webSearch, load: 0.5, flows: 30 },
    { telemetryIntervalNs: 20_000, topology: topo({ leaves: 3, spines: 2, hostsPerLeaf: 2 }) },
  )
  const r = runSim(cfg, {
    onSeries: (d) => (defs = d),
    onTelemetry: (t, values) => batches.push({ t, values }),
    onProgress: () => progress++,
  })
  // 3 leaves × (2 hosts + 2 uplinks) + 2 spines × 3 leaves = 18 ports: link.util and
  // queue.depth interleaved, then queue.maxDepth, drops and ecn.marks per port, then
  // the fabric's tcp.retransmits.
  expect(defs.length).toBe(18 * 5 + 1)
  expect(defs[0]).toEqual({ kind: 'link.util', entity: { switch: 'leaf0', port: 0 }, unit: 'ratio' })
  expect(defs[35]).toEqual({ kind: 'queue.depth', entity: { switch: 'spine1', port: 2 }, unit: 'packets' })
  expect(defs[36]).toEqual({ kind: 'queue.maxDepth', entity: { switch: 'leaf0', port: 0 }, unit: 'packets' })
  expect(defs[54]).toEqual({ kind: 'drops', entity: { switch: 'leaf0', port: 0 }, unit: 'count' })
  expect(defs[72]).toEqual({ kind: 'ecn.marks', entity: { switch: 'leaf0', port: 0 }, unit: 'count' })
  expect(defs[90]).toEqual({ kind: 'tcp.retransmits', entity: {}, unit: 'count' })
  expect(batches.length).toBeGreaterThan(1)
  expect(batches[0].t.length).toBe(64)
  let total = 0
  let busy = 0
  const bad: string[] = []
  for (const { t, values } of batches) {
    expect(values.length).toBe(defs.length * t.length)
    total += t.length
    for (let i = 0; i < defs.length; i++) {
      for (let j = 0; j < t.length; j++) {
        const v = values[i * t.length + j]
        const kind = defs[i].kind
        const ok =
          kind === 'link.util'
            ? v >= 0 && v <= 1
            : kind === 'queue.depth' || kind === 'queue.maxDepth'
              ? Number.isInteger(v) && v >= 0 && v <= cfg.topology.queuePackets
              : Number.isInteger(v) && v >= 0
        if (!ok) bad.push(`${defs[i].kind} ${defs[i].entity.switch}:${defs[i].entity.port} = ${v} at ${t[j]} ns`)
        if (defs[i].kind === 'link.util' && v > 0.5) busy++
      }
    }
  }
  expect(bad).toEqual([])
  expect(busy).toBeGreaterThan(0)
  // The peak within an interval is never below the depth at its end.
  for (const { t, values } of batches) {
    for (let i = 0; i < 18; i++) {
      for (let j = 0; j < t.length; j++) expect(values[(36 + i) * t.length + j]).toBeGreaterThanOrEqual(values[(2 * i + 1) * t.length + j])
    }
  }
  expect(batches[batches.length - 1].t[batches[batches.length - 1].t.length - 1]).toBeLessThanOrEqual(r.counters.simTimeNs)
  expect(total).toBe(Math.floor(r.counters.simTimeNs / 20_000))
  expect(progress).toBeGreaterThan(1)
})

test('config errors say what is wrong', () => {
  const bad = config({ kind: 'poisson', cdf: webSearch, load: 1.5, flows: 10 })
  expect(() => runSim(bad)).toThrow(/workload.load/)
  const badFlow = config({ kind: 'explicit', flows: [{ src: 0, dst: 0, sizeBytes: 10, startNs: 0 }] })
  expect(() => runSim(badFlow)).toThrow(/workload.flows\[0\]/)
})

// Link failure and recovery during a run: a dead link holds and carries nothing, routing
// goes around it, flows finish, and the event log says what happened.
import { describe, expect, test } from 'vitest'
import { type SimResult, type SimSeriesDef } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { buildFabric, linkByName } from '../../src-main/model/topology'
import { config, FAT_TREE, THREE_TIER, webSearch } from './helpers'

const FAIL_NS = 3_000_000
const INTERVAL_NS = 100_000

/** Runs and collects, per series key "kind switch:port", its samples as [tNs, value]. */
function runCollect(cfg: Parameters<typeof runSim>[0]): { r: SimResult; series: Map<string, Array<[number, number]>> } {
  let defs: SimSeriesDef[] = []
  const series = new Map<string, Array<[number, number]>>()
  const r = runSim(cfg, {
    onSeries: (d) => (defs = d),
    onTelemetry: (t, values) => {
      defs.forEach((d, i) => {
        const key = `${d.kind} ${d.entity.switch}:${d.entity.port}`
        const list = series.get(key) ?? []
        for (let j = 0; j < t.length; j++) list.push([t[j], values[i * t.length + j]])
        series.set(key, list)
      })
    },
  })
  return { r, series }
}

const failed = linkByName(buildFabric(THREE_TIER), 'spine0-agg0')
const ports = [`spine0:${failed.aPort}`, `agg0:${failed.bPort}`]

const base = (
  linkEvents: Array<{ link: string; atNs: number; up: boolean }>,
  failover?: 'global' | 'local',
  topology = THREE_TIER,
) =>
  config(
    { kind: 'poisson', cdf: webSearch, load: 0.6, flows: 250 },
    { topology, linkEvents, failover, telemetryIntervalNs: INTERVAL_NS },
  )

describe('a link that fails for good', () => {
  const { r, series } = runCollect(base([{ link: 'agg0-spine0', atNs: FAIL_NS, up: false }]))

  test('carried traffic before it failed and nothing after, in either direction', () => {
    for (const p of ports) {
      const util = series.get(`link.util ${p}`)!
      expect(util.filter(([t, v]) => t <= FAIL_NS && v > 0).length).toBeGreaterThan(0)
      // The interval that contains the failure may still show its busy part.
      const after = util.filter(([t]) => t > FAIL_NS + INTERVAL_NS)
      expect(after.length).toBeGreaterThan(10)
      expect(after.filter(([, v]) => v !== 0)).toEqual([])
      expect(series.get(`queue.depth ${p}`)!.filter(([t, v]) => t > FAIL_NS && v !== 0)).toEqual([])
    }
  })

  test('flows route around it and all finish', () => {
    for (let i = 0; i < r.flows.finishNs.length; i++) expect(r.flows.finishNs[i]).toBeGreaterThan(r.flows.startNs[i])
    expect(r.counters.payloadBytesDelivered).toBe(r.flows.sizeBytes.reduce((s, x) => s + x, 0))
    // Routing converged at once: nothing was sent into a dead end.
    expect(r.counters.unroutableDrops).toBe(0)
    expect(r.counters.drops).toBeGreaterThanOrEqual(r.counters.linkDownDrops)
  })

  test('the event log records it', () => {
    expect(r.events).toEqual([{ tNs: FAIL_NS, kind: 'link.down', detail: 'spine0-agg0' }])
  })
})

test('a link that comes back carries traffic again', () => {
  const up = 2 * FAIL_NS
  const { r, series } = runCollect(
    base([
      { link: 'spine0-agg0', atNs: FAIL_NS, up: false },
      { link: 'spine0-agg0', atNs: up, up: true },
    ]),
  )
  expect(r.events.map((e) => e.kind)).toEqual(['link.down', 'link.up'])
  const util = series.get(`link.util ${ports[0]}`)!
  expect(util.filter(([t, v]) => t > FAIL_NS + INTERVAL_NS && t <= up && v > 0)).toEqual([])
  expect(util.filter(([t, v]) => t > up && v > 0).length).toBeGreaterThan(0)
  for (let i = 0; i < r.flows.finishNs.length; i++) expect(r.flows.finishNs[i]).toBeGreaterThan(0)
})

describe('a core that loses its only link into a pod (k=4 fat-tree, core0-agg0)', () => {
  // core0 reaches pod 0 only through agg0. Converged routing ('global') stops every other
  // pod's aggregation switches from sending pod-0 traffic to core0; data-plane failover
  // ('local') only removes the dead port, so core0 still gets that traffic and drops it.
  const events = [{ link: 'core0-agg0', atNs: FAIL_NS, up: false }]
  test("global failover: nothing is unroutable and every flow finishes", () => {
    const { r } = runCollect(base(events, 'global', FAT_TREE))
    expect(r.counters.unroutableDrops).toBe(0)
    for (let i = 0; i < r.flows.finishNs.length; i++) expect(r.flows.finishNs[i]).toBeGreaterThan(0)
  })
  test('local failover: core0 drops pod-0 traffic as unroutable', () => {
    const { r } = runCollect({ ...base(events, 'local', FAT_TREE), maxSimTimeNs: 20_000_000 })
    expect(r.counters.unroutableDrops).toBeGreaterThan(0)
  })
})

test('a link event naming an unknown link is refused', () => {
  expect(() => runSim(base([{ link: 'spine9-agg0', atNs: 0, up: false }]))).toThrow(/linkEvents\[0\]: no link 'spine9-agg0'/)
})

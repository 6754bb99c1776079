// The Fig. 8 measures of scripts/reproduce.ts can fail: on a simulator where HULA's probes are
// disabled (its stage never arms its probe timers), HULA cannot learn of the congested path,
// and the claim checks say the claims do not hold.
import { describe, expect, test } from 'vitest'
import { buildFabric } from '../../src-main/model/topology'
import type { SimConfig } from '../../src-main/sim'
import type { StageFactory } from '../../src-main/sim/routing/stage'
import { stageFor } from '../../src-main/schemes'
import { CLAIMS } from '../../scripts/reproduce-claims'
import { bottleneckPort, p95Ratio, queueMeasures, type PortQueue } from '../../scripts/reproduce-queues'
import { hulaWithoutProbes, runWithSeries, THREE_TIER, webSearch } from './helpers'


interface Trace {
  t: number[]
  series: Map<string, number[]>
}

function run(cfg: SimConfig, factory: StageFactory): Trace {
  const { series } = runWithSeries(cfg, factory)
  return { t: series.t, series: new Map(series.defs.map((d, i) => [`${d.kind} ${String(d.entity.switch)}:${String(d.entity.port)}`, series.values[i]])) }
}

const base = (over: Partial<SimConfig>): SimConfig => ({
  topology: { ...THREE_TIER, queuePackets: 250 },
  scheme: 'hula',
  transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
  workload: { kind: 'poisson', cdf: webSearch, load: 0.6, flows: 600, destinations: 'other-pods' },
  seed: 1,
  telemetryIntervalNs: 100_000,
  maxSimTimeNs: 2e9,
  schemeParams: { flowletGapNs: 100_000, probePeriodNs: 200_000, utilTauNs: 400_000, keepAliveNs: 1_000_000 },
  ...over,
})

const holds = (template: string, claim: string, v: number): boolean => {
  const c = CLAIMS[template].find((x) => x.claim === claim)
  if (!c) throw new Error(`no claim '${claim}' in ${template}`)
  return c.measure.holds(v)
}

describe('Fig. 8: the bottleneck queue', () => {
  test('with HULA\'s probes disabled, the p95 ratio, the empty share and the no-drop claims do not hold', () => {
    const cfg = base({ topology: { ...THREE_TIER, queuePackets: 250, remove: ['spine1-agg3'] } })
    const fabric = buildFabric(cfg.topology)
    const queues = (trace: Trace) => {
      const out = new Map<string, PortQueue>()
      for (const [key, depth] of trace.series) {
        if (!key.startsWith('queue.depth ')) continue
        const at = key.slice('queue.depth '.length)
        const [sw, port] = at.split(':')
        const node = fabric.nodes.find((n) => n.name === sw)!
        const far = fabric.links[node.ports[Number(port)]]
        if (fabric.nodes[far.a === node.id ? far.b : far.a].role === 'host') continue
        out.set(at, { depth, drops: trace.series.get(`drops ${at}`)! })
      }
      return out
    }
    const ecmp = queues(run({ ...cfg, scheme: 'ecmp' }, stageFor('ecmp')))
    const hula = queues(run(cfg, hulaWithoutProbes))
    const port = bottleneckPort(ecmp)
    const e = queueMeasures(ecmp.get(port)!)
    const h = queueMeasures(hula.get(port)!)
    expect(e.p95).toBeGreaterThan(0)
    expect(holds('hula-fig8-queues', 'p95 bottleneck queue, ECMP over HULA', p95Ratio(e, h))).toBe(false)
    expect(holds('hula-fig8-queues', 'HULA bottleneck queue empty, share of samples', h.emptyShare)).toBe(false)
    expect(holds('hula-fig8-queues', 'drops at the bottleneck: HULA none', h.drops)).toBe(false)
  }, 300_000)
})

// The Fig. 8 measures of scripts/reproduce.ts tell a working HULA from a broken one: in the
// template's own setting (hula-fig8-queues.yaml, at fewer flows), HULA with its probes passes
// the claims that matter (the order ECMP > CONGA′ > HULA by p95 bottleneck queue, and ECMP's
// p95 at least 19× HULA's), and HULA with its probes disabled (its stage never arms its probe
// timers, so it picks hashed ports as ECMP does), on the same workload and seed, fails them.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { parseExperiment, type ExperimentSpec } from '../../src-main/core/spec'
import { simConfigFor } from '../../src-main/core/targets/sim/config'
import { buildFabric, peer } from '../../src-main/model/topology'
import type { StageFactory } from '../../src-main/sim/routing/stage'
import { stageFor } from '../../src-main/schemes'
import { CLAIMS } from '../../scripts/reproduce-claims'
import { warmupShare } from '../../src-main/core/stats'
import { arrivalWindow } from '../../scripts/reproduce-probes'
import { bottleneckPort, inWindow, p95Ratio, queueMeasures, strictlyDeeper, waiting, type PortQueue, type QueueMeasures } from '../../scripts/reproduce-queues'
import { hulaWithoutProbes, runWithSeries } from './helpers'

const TEMPLATE = 'hula-fig8-queues'
/** A test's share of the template's 2000 flows: about 70 ms of arrivals, the queues' steady state. */
const FLOWS = 1000

function template(): ExperimentSpec {
  const dir = join(__dirname, '../../resources/experiments')
  const r = parseExperiment(readFileSync(join(dir, `${TEMPLATE}.yaml`), 'utf8'), { file: `${TEMPLATE}.yaml`, baseDir: dir, workloadsDir: join(__dirname, '../../resources/workloads') })
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('\n'))
  return r.spec
}

/** Every switch-to-switch port's sampled queue while flows arrive, as reproduce-results.ts reads them from a stored run. */
function portQueues(spec: ExperimentSpec, scheme: string, factory: StageFactory): Map<string, PortQueue> {
  const cfg = simConfigFor({ runId: 1, spec, scheme, load: spec.workload.loads[0], seed: spec.seeds[0] })
  if (cfg.workload.kind !== 'poisson') throw new Error(`${TEMPLATE}: expected a web-search workload`)
  const { result, series } = runWithSeries({ ...cfg, workload: { ...cfg.workload, flows: FLOWS } }, factory)
  const { fromNs, toNs } = arrivalWindow(Array.from(result.flows.startNs), warmupShare(spec))
  const fabric = buildFabric(spec.topology)
  const out = new Map<string, PortQueue>()
  series.defs.forEach((d, i) => {
    if (d.kind !== 'queue.depth' && d.kind !== 'drops') return
    const node = fabric.nodes.find((n) => n.name === d.entity.switch)
    if (!node || fabric.nodes[peer(fabric, node.id, Number(d.entity.port)).node].role === 'host') return
    const key = `${node.name}:${String(d.entity.port)}`
    const q = out.get(key) ?? { depth: [], drops: [] }
    if (d.kind === 'queue.depth') q.depth = series.values[i]
    else q.drops = series.values[i]
    out.set(key, q)
  })
  for (const [key, q] of out) out.set(key, inWindow(series.t, q, fromNs, toNs))
  return out
}

const claim = (name: string) => {
  const c = CLAIMS[TEMPLATE].find((x) => x.claim === name)
  if (!c) throw new Error(`no claim '${name}' in ${TEMPLATE}`)
  return c.measure
}
const ORDER = claim('order by p95 queue: ECMP > CONGA′ > HULA')
const ECMP_OVER_HULA = claim('p95 bottleneck queue, ECMP over HULA')
const EMPTY = claim('HULA bottleneck queue empty, share of samples')

describe('Fig. 8: the bottleneck queue tells HULA with probes from HULA without', () => {
  let at: Record<'ecmp' | 'conga' | 'hula' | 'blind', QueueMeasures>
  beforeAll(() => {
    const spec = template()
    const ecmp = portQueues(spec, 'ecmp', stageFor('ecmp'))
    const port = bottleneckPort(ecmp)
    const measure = (qs: Map<string, PortQueue>) => queueMeasures(qs.get(port)!)
    at = {
      ecmp: measure(ecmp),
      conga: measure(portQueues(spec, 'conga-prime', stageFor('conga-prime'))),
      hula: measure(portQueues(spec, 'hula', stageFor('hula'))),
      blind: measure(portQueues(spec, 'hula', hulaWithoutProbes)),
    }
  }, 600_000)

  test('the template runs the paper\'s traffic: clients with three persistent connections to a random server, across pods', () => {
    const w = template().workload
    expect(w).toMatchObject({ destinations: 'other-pods', connections: { perServer: 3 } })
    // random is the default choice, so the parsed spec leaves it out
    expect((w as { connections?: { choice?: string } }).connections?.choice ?? 'random').toBe('random')
  })

  test('a queue sample counts the packets waiting, not the one on the serializer', () => {
    expect([0, 1, 2, 250].map(waiting)).toEqual([0, 0, 1, 249])
    expect(queueMeasures({ depth: [1, 1, 1, 0], drops: [0] }).emptyShare).toBe(1)
  })

  test('only the samples taken while flows arrive count: not the warm-up, not the drain after the last arrival', () => {
    const q = inWindow([100, 200, 300, 400, 500], { depth: [9, 0, 5, 7, 0], drops: [1, 0, 2, 3, 0] }, 100, 400)
    expect(q).toEqual({ depth: [0, 5, 7], drops: [0, 2, 3] })
  })

  test('HULA with its probes: ECMP > CONGA′ > HULA, and ECMP\'s p95 at least 19× HULA\'s', () => {
    expect(at.ecmp.p95).toBeGreaterThan(0)
    expect(ORDER.holds(strictlyDeeper(at.ecmp, at.conga, at.hula))).toBe(true)
    expect(ECMP_OVER_HULA.holds(p95Ratio(at.ecmp, at.hula))).toBe(true)
  })

  test('HULA with its probes disabled, same workload and seed: the order, the ratio and the empty share fail', () => {
    expect(ORDER.holds(strictlyDeeper(at.ecmp, at.conga, at.blind))).toBe(false)
    expect(ECMP_OVER_HULA.holds(p95Ratio(at.ecmp, at.blind))).toBe(false)
    expect(EMPTY.holds(at.blind.emptyShare)).toBe(false)
  })
})

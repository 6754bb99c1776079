// LetFlow on the simulator's real packets: flows finish, flowlets alone beat ECMP on an
// asymmetric leaf-spine (and move bytes off the slow link), every uplink gets flowlets, a
// failed link gets none, and a seed gives one result. No timing asserts.
import { beforeAll, describe, expect, test } from 'vitest'
import { type SimConfig, type SimResult } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { buildFabric, linkByName } from '../../src-main/model/topology'
import { ASYMMETRIC, config, findSeries, meanFct, runWithSeries, SLOW_LINK, slowShare, THREE_TIER, webSearch } from './helpers'




const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)

function allFinished(r: SimResult): void {
  for (let i = 0; i < r.flows.finishNs.length; i++) expect(r.flows.finishNs[i], `flow ${i}`).toBeGreaterThan(r.flows.startNs[i])
  expect(r.counters.payloadBytesDelivered).toBe(r.flows.sizeBytes.reduce((s, x) => s + x, 0))
}

// The asymmetric leaf-spine of the CONGA tests: spine1-leaf1 at 10G, the rest of the fabric 40G.
const SLOW = SLOW_LINK
const ASYM = ASYMMETRIC
const FABRIC = buildFabric(ASYM)
/** Port of `sw` on the link `name`. */
function portOn(name: string, sw: 'leaf0' | 'leaf1' | 'spine0' | 'spine1'): number {
  const l = linkByName(FABRIC, name)
  const a = FABRIC.nodes[l.a].name
  return a === sw ? l.aPort : l.bPort
}

function asymmetric(scheme: 'ecmp' | 'letflow', over: Partial<SimConfig> = {}): SimConfig {
  return config({ kind: 'poisson', cdf: webSearch, load: 0.5, flows: 200 }, { scheme, seed: 1, topology: ASYM, telemetryIntervalNs: 100_000, ...over })
}

describe('LetFlow', () => {
  test("every flow of a web-search workload on HULA's 3-tier fabric finishes", () => {
    const r = runSim(config({ kind: 'poisson', cdf: webSearch, load: 0.5, flows: 200 }, { scheme: 'letflow', topology: THREE_TIER }))
    allFinished(r)
  }, 300_000)

  describe('on an asymmetric leaf-spine at 50 % load', () => {
    let ecmp: ReturnType<typeof runWithSeries>
    let letflow: ReturnType<typeof runWithSeries>
    beforeAll(() => {
      ecmp = runWithSeries(asymmetric('ecmp'))
      letflow = runWithSeries(asymmetric('letflow'))
    }, 300_000)

    test('every flow finishes, and the mean FCT is clearly lower than ECMP\'s', () => {
      allFinished(ecmp.result)
      allFinished(letflow.result)
      // ECMP pins half the flows to the slow path for their whole life; LetFlow's flowlets leave it.
      const [l, e] = [meanFct(letflow.result), meanFct(ecmp.result)]
      expect(l).toBeLessThan(0.8 * e)
    })

    test('flowlets alone move bytes off the slow link: LetFlow sends less over it than ECMP', () => {
      // No congestion signal: a flowlet on the slow path lasts longer, so it leaves fewer gaps to
      // start new flowlets there than a fast path does.
      expect(slowShare(ecmp.series)).toBeGreaterThan(0.4)
      expect(slowShare(letflow.series)).toBeLessThan(slowShare(ecmp.series) - 0.1)
    })

    test('flowlets start on both uplinks of each leaf, as many on each: the pick is uniform, whatever the path', () => {
      for (const leaf of ['leaf0', 'leaf1'] as const) {
        const started = (['spine0', 'spine1'] as const).map((spine) => sum(findSeries(letflow.series, 'letflow.flowlets', { switch: leaf, port: portOn(`${spine}-${leaf}`, leaf) })))
        for (const n of started) expect(n, `${leaf}: ${started.join(' / ')}`).toBeGreaterThan(0)
        // Each new flowlet is a fair coin between the two uplinks, independent of the past: the
        // count is binomial, so 40..60 % holds at more than 3 standard deviations for these counts.
        expect(started[0] + started[1], leaf).toBeGreaterThan(100)
        const share = started[1] / (started[0] + started[1])
        expect(share, `${leaf}: ${started.join(' / ')}`).toBeGreaterThan(0.4)
        expect(share, `${leaf}: ${started.join(' / ')}`).toBeLessThan(0.6)
      }
      // Spines have no up ports: one path down, nothing to choose, no series.
      expect(letflow.series.defs.filter((d) => d.kind === 'letflow.flowlets' && String(d.entity.switch).startsWith('spine'))).toEqual([])
      // ECMP emits none.
      expect(ecmp.series.defs.filter((d) => d.kind === 'letflow.flowlets')).toEqual([])
    })
  })

  test('a link that fails mid-run: no flowlet starts on it afterwards, and every flow finishes', () => {
    const FAIL_NS = 3_000_000
    const INTERVAL_NS = 100_000
    const { result, series } = runWithSeries(asymmetric('letflow', { linkEvents: [{ link: SLOW, atNs: FAIL_NS, up: false }], telemetryIntervalNs: INTERVAL_NS }))
    allFinished(result)
    // leaf1's own uplink died (its port is gone from its groups); leaf0's uplink to spine1 is
    // alive but leads nowhere toward leaf1 (routing withdraws it).
    for (const [leaf, port] of [['leaf1', portOn(SLOW, 'leaf1')], ['leaf0', portOn('spine1-leaf0', 'leaf0')]] as const) {
      const started = findSeries(series, 'letflow.flowlets', { switch: leaf, port })
      const before = started.filter((_, j) => series.t[j] <= FAIL_NS)
      const after = started.filter((_, j) => series.t[j] > FAIL_NS + INTERVAL_NS)
      expect(sum(before), `${leaf}:${port} before the failure`).toBeGreaterThan(0)
      expect(after.length, `${leaf}:${port} samples after the failure`).toBeGreaterThan(5)
      expect(after.filter((v) => v !== 0), `${leaf}:${port} after the failure`).toEqual([])
    }
  }, 300_000)

  test('a seed gives one result, another seed another', () => {
    const cfg = (seed: number) => config({ kind: 'poisson', cdf: webSearch, load: 0.5, flows: 80 }, { scheme: 'letflow', seed, topology: ASYM })
    const a = runSim(cfg(4))
    const b = runSim(cfg(4))
    const c = runSim(cfg(5))
    expect(Array.from(a.flows.finishNs)).toEqual(Array.from(b.flows.finishNs))
    expect(Array.from(a.flows.finishNs)).not.toEqual(Array.from(c.flows.finishNs))
  }, 300_000)
})

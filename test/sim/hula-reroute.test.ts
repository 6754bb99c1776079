// The Fig. 9 measures of scripts/reproduce.ts can fail: on a simulator where HULA's probes are
// disabled (its stage never arms its probe timers), HULA forwards as ECMP does, so the switches
// away from a failed link never move off it and never move back, and the claim checks say the
// claims do not hold; with the probes on, in the same run, they do.
import { describe, expect, test } from 'vitest'
import { buildFabric, linkByName, peer } from '../../src-main/model/topology'
import { computeRoutes, type SimConfig } from '../../src-main/sim'
import type { StageFactory } from '../../src-main/sim/routing/stage'
import { stageFor } from '../../src-main/schemes'
import { CLAIMS } from '../../scripts/reproduce-claims'
import { deadEndTraffic, deadEnds, rerouteBack, type BestHops, type Failure } from '../../scripts/reproduce-reroute'
import { hulaWithoutProbes, runWithSeries, THREE_TIER, webSearch } from './helpers'

function bestHops(cfg: SimConfig, factory: StageFactory): BestHops & { unroutable: number[] } {
  const { series: all } = runWithSeries(cfg, factory)
  const { defs, t, values: cols } = all
  const series = new Map<string, Map<string, number[]>>()
  defs.forEach((d, i) => {
    if (d.kind !== 'hula.bestHop') return
    const sw = String(d.entity.switch)
    series.set(sw, (series.get(sw) ?? new Map<string, number[]>()).set(String(d.entity.dstTor), cols[i]))
  })
  return { t, series, unroutable: cols[defs.findIndex((d) => d.kind === 'drops.unroutable')] }
}

// The Fig. 9 template's setting at a small scale: S2-A4 (spine1-agg3) removed as in Fig. 6, and
// the bottleneck S2-A3 (spine1-agg2) fails, so spine1 has no way into pod 1 and agg0/agg1, not
// next to the link, must move their best hops toward pod 1's ToRs to spine0.
const cfg: SimConfig = {
  topology: { ...THREE_TIER, queuePackets: 250, remove: ['spine1-agg3'] },
  scheme: 'hula',
  transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
  workload: { kind: 'poisson', cdf: webSearch, load: 0.6, flows: 300, destinations: 'other-pods' },
  seed: 1,
  telemetryIntervalNs: 100_000,
  maxSimTimeNs: 2e9,
  schemeParams: { flowletGapNs: 100_000, probePeriodNs: 200_000, utilTauNs: 400_000, keepAliveNs: 1_000_000, linkDownClear: 0 },
  linkEvents: [
    { link: 'spine1-agg2', atNs: 6e6, up: false },
    { link: 'spine1-agg2', atNs: 14e6, up: true },
  ],
  failover: 'local',
}

const holds = (claim: string, v: number): boolean => {
  const c = CLAIMS['hula-fig9-failure'].find((x) => x.claim === claim)
  if (!c) throw new Error(`no claim '${claim}' in hula-fig9-failure`)
  return c.measure.holds(v)
}

const NON_ADJACENT = 'HULA moves traffic off a failed link, switches not next to it'
const BACK = 'HULA moves best hops back onto the link when it recovers'

describe('Fig. 9: reroute away from a failed link and back', () => {
  const fabric = buildFabric(cfg.topology)
  const routes = computeRoutes(fabric)
  const failure: Failure = { link: linkByName(fabric, 'spine1-agg2').id, atNs: 6e6, recoverNs: 14e6 }

  test('the dead ends of the failed bottleneck are agg0 and agg1\'s ports to spine1, toward pod 1', () => {
    const named = new Map<string, string>()
    for (const [s, perTor] of deadEnds(fabric, routes, failure.link)) {
      perTor.forEach((ports, t) => {
        if (ports.length > 0) named.set(`${fabric.nodes[s].name}>${fabric.nodes[fabric.tors[t]].name}`, ports.map((p) => fabric.nodes[peer(fabric, s, p).node].name).join())
      })
    }
    expect(Object.fromEntries(named)).toEqual({ 'agg0>tor2': 'spine1', 'agg0>tor3': 'spine1', 'agg1>tor2': 'spine1', 'agg1>tor3': 'spine1' })
  })

  test('with the probes on, the switches away from the failure move off it and back; with them off, they never do', () => {
    const on = bestHops(cfg, stageFor('hula'))
    const back = rerouteBack(fabric, routes, failure, on)
    const away = deadEndTraffic(on.t, on.unroutable, failure)
    expect(holds(NON_ADJACENT, away.worstNs)).toBe(true)
    expect(holds(BACK, back.worstNs)).toBe(true)

    const off = bestHops(cfg, hulaWithoutProbes)
    const backOff = rerouteBack(fabric, routes, failure, off)
    const awayOff = deadEndTraffic(off.t, off.unroutable, failure)
    // Without probes every switch hashes over its group, dead ends included, as ECMP does.
    expect(awayOff.worstNs).toBe(Infinity)
    expect(holds(NON_ADJACENT, awayOff.worstNs)).toBe(false)
    expect(backOff.worstNs).toBe(Infinity)
    expect(holds(BACK, backOff.worstNs)).toBe(false)
  }, 300_000)
})

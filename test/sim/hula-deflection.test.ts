// HULA Fig. 9b: why the long-running flows come back at the retransmission timer. The flows
// hashed onto spine1 before any probe keep that flowlet while they send; what they send into
// spine1 after the failure is lost, so nothing reaches the receiver to draw duplicate ACKs and
// they stall until the timer fires, when the retransmission is a new flowlet on the best hop
// (spine0). The deflection of scripts/reproduce-reroute.ts therefore follows the minimum RTO:
// not before it, and within a slow-start refill after it. If a flowlet stayed on the dead end
// past its gap, or the timer's segment did not take the best hop, the upper bound would fail.
import { describe, expect, test } from 'vitest'
import { buildFabric, linkByName, peer } from '../../src-main/model/topology'
import type { SimConfig } from '../../src-main/sim'
import { deflection } from '../../scripts/reproduce-reroute'
import { runWithSeries, THREE_TIER } from './helpers'

const FAIL_NS = 4e6

// The hula-fig9b-long-flows template, failing earlier and run shorter.
const cfg = (minRtoNs: number): SimConfig => ({
  topology: { ...THREE_TIER, queuePackets: 250, remove: ['spine1-agg3'] },
  scheme: 'hula',
  transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs },
  workload: { kind: 'long-lived', pairs: [[0, 16], [1, 24], [2, 17], [8, 25], [9, 18], [10, 26]] },
  seed: 1,
  telemetryIntervalNs: 100_000,
  maxSimTimeNs: FAIL_NS + 2.5e6,
  schemeParams: { flowletGapNs: 100_000, probePeriodNs: 200_000, utilTauNs: 400_000, keepAliveNs: 1_000_000, linkDownClear: 0 },
  linkEvents: [
    { link: 'spine1-agg2', atNs: FAIL_NS, up: false },
    { link: 'spine1-agg2', atNs: FAIL_NS + 10e6, up: true },
  ],
  failover: 'local',
})

/** The deflection time as reproduce-results.ts reads it from a run's link.util series. */
function deflectionNs(c: SimConfig): number {
  const { series } = runWithSeries(c)
  const fabric = buildFabric(c.topology)
  const link = linkByName(fabric, 'spine1-agg2')
  const n = series.t.length
  const delivered = new Float64Array(n)
  const failed = new Float64Array(n)
  series.defs.forEach((d, i) => {
    if (d.kind !== 'link.util') return
    const node = fabric.nodes.find((x) => x.name === d.entity.switch)
    if (!node) return
    const far = peer(fabric, node.id, Number(d.entity.port))
    for (let j = 0; j < n; j++) {
      if (far.link.id === link.id) failed[j] = Math.max(failed[j], series.values[i][j])
      if (fabric.nodes[far.node].role === 'host') delivered[j] += series.values[i][j] * far.link.bps
    }
  })
  return deflection(series.t, delivered, failed, { atNs: FAIL_NS, recoverNs: FAIL_NS + 10e6 }).worstNs
}

describe('Fig. 9b: long-running flows come back at the retransmission timer', () => {
  test.each([1_000_000, 200_000])('minRto %i ns: deflected not before it, and within 0.5 ms after it', (minRtoNs) => {
    const d = deflectionNs(cfg(minRtoNs))
    expect(d).toBeGreaterThanOrEqual(minRtoNs)
    expect(d).toBeLessThanOrEqual(minRtoNs + 0.5e6)
  }, 300_000)
})

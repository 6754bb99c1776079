// CONGA and CONGA′ mechanism tests (issue 3): real packets on small fabrics, no timing asserts.
import { expect, test } from 'vitest'
import { runSim, type SimConfig, type SimResult, type SimSeriesDef } from '../../src-main/sim'
import { SCHEMES } from '../../src-main/sim/routing'
import { CongaStage } from '../../src-main/sim/routing/conga'
import { config, THREE_TIER, topo, webSearch } from './helpers'

interface Series {
  defs: SimSeriesDef[]
  t: number[]
  /** values[i] = samples of series i */
  values: number[][]
}

function runWithSeries(cfg: SimConfig): { result: SimResult; series: Series } {
  const series: Series = { defs: [], t: [], values: [] }
  const result = runSim(cfg, {
    onSeries: (defs) => {
      series.defs = defs
      series.values = defs.map(() => [])
    },
    onTelemetry: (t, values) => {
      const n = t.length
      for (let j = 0; j < n; j++) series.t.push(t[j])
      for (let i = 0; i < series.defs.length; i++) for (let j = 0; j < n; j++) series.values[i].push(values[i * n + j])
    },
  })
  return { result, series }
}

function find(s: Series, kind: string, entity: Record<string, string | number>): number[] {
  const i = s.defs.findIndex((d) => d.kind === kind && Object.entries(entity).every(([k, v]) => d.entity[k] === v))
  if (i < 0) throw new Error(`no series ${kind} ${JSON.stringify(entity)}`)
  return s.values[i]
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

test('the DRE tracks a constant rate R: X peaks at R·τ before each decay and is (1−α)·R·τ after it', () => {
  // One long-lived flow from leaf0 to leaf1: 10G host links, 40G fabric, so leaf0's uplink
  // carries a steady 10G (a quarter of its rate). T_dre = 50 us, α = 0.2, τ = 250 us.
  const cfg = config(
    { kind: 'long-lived', pairs: [[0, 4]] },
    { scheme: 'conga', topology: topo({ spines: 1 }), telemetryIntervalNs: 25_000, maxSimTimeNs: 5_000_000 },
  )
  const { series } = runWithSeries(cfg)
  const uplink = 4 // leaf0: ports 0-3 face hosts, port 4 faces spine0
  const dre = find(series, 'conga.dre', { switch: 'leaf0', port: uplink })
  const util = find(series, 'link.util', { switch: 'leaf0', port: uplink })
  // Steady state: from 1 ms (4 τ) on.
  const from = series.t.findIndex((t) => t >= 1_000_000)
  const post: number[] = [] // samples at k·T_dre: right after a decay
  const mid: number[] = [] // samples half way between decays
  for (let j = from; j < series.t.length; j++) (Math.round(series.t[j]) % 50_000 === 0 ? post : mid).push(dre[j])
  const rate = mean(util.slice(from)) // R / C, measured by the link itself
  expect(rate).toBeGreaterThan(0.2)
  const alpha = 0.2
  // X/(C·τ) right after a decay is (1 − α)·R/C; so the peak R·τ is within a few %.
  expect(Math.abs(mean(post) / (1 - alpha) / rate - 1)).toBeLessThan(0.03)
  // Half way, X has regained half the decayed amount: (1 − α/2)·R·τ.
  expect(Math.abs(mean(mid) / (1 - alpha / 2) / rate - 1)).toBeLessThan(0.03)
})

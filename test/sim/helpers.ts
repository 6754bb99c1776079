// Shared configs for the simulator tests: small fabrics so the suite stays fast.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadCdf, simulate, type SimConfig, type SimHooks, type SimResult, type SimSeriesDef, type LeafSpineTopology, type Topology, type WorkloadConfig } from '../../src-main/sim'
import { buildFabric, linkByName } from '../../src-main/model/topology'
import { runSim, stageFor } from '../../src-main/schemes'
import type { StageFactory } from '../../src-main/sim/routing/stage'

export const webSearch = loadCdf(
  readFileSync(join(__dirname, '../../resources/workloads/web-search.cdf'), 'utf8'),
)

export function topo(over: Partial<LeafSpineTopology> = {}): LeafSpineTopology {
  return {
    kind: 'leaf-spine',
    leaves: 2,
    spines: 2,
    hostsPerLeaf: 4,
    hostLinkBps: 10e9,
    fabricLinkBps: 40e9,
    linkDelayNs: 1000,
    queuePackets: 500,
    ...over,
  }
}

export function config(workload: WorkloadConfig, over: Partial<SimConfig> = {}): SimConfig {
  return {
    topology: topo(),
    scheme: 'ecmp',
    transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
    workload,
    seed: 1,
    telemetryIntervalNs: 100_000,
    maxSimTimeNs: 10e9,
    ...over,
  }
}

export function meanFct(r: { flows: { startNs: Float64Array; finishNs: Float64Array } }): number {
  let s = 0
  const n = r.flows.startNs.length
  for (let i = 0; i < n; i++) s += r.flows.finishNs[i] - r.flows.startNs[i]
  return s / n
}

const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000, queuePackets: 100 }
/** A k=4 fat-tree: 16 hosts, 20 switches, 4 paths between pods. */
export const FAT_TREE: Topology = { kind: 'fat-tree', k: 4, ...RATES }
/** HULA's 3-tier fabric (the HULA paper, Fig. 4): 32 hosts, 8 paths between pods. */
export const THREE_TIER: Topology = {
  kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, ...RATES,
}

/** The telemetry a run sent: series definitions and their samples. */
export interface Series {
  defs: SimSeriesDef[]
  t: number[]
  /** values[i] = samples of series i */
  values: number[][]
}

/** Runs the simulation keeping every telemetry sample. */
export function runWithSeries(cfg: SimConfig, factory?: StageFactory): { result: SimResult; series: Series } {
  const series: Series = { defs: [], t: [], values: [] }
  const hooks: SimHooks = {
    onSeries: (defs) => {
      series.defs = defs
      series.values = defs.map(() => [])
    },
    onTelemetry: (t, values) => {
      const n = t.length
      for (let j = 0; j < n; j++) series.t.push(t[j])
      for (let i = 0; i < series.defs.length; i++) for (let j = 0; j < n; j++) series.values[i].push(values[i * n + j])
    },
  }
  // With a stage factory, that stage instead of the scheme's own (e.g. one with a part switched off).
  const result = factory ? simulate(cfg, factory, hooks) : runSim(cfg, hooks)
  return { result, series }
}

/** HULA's stage with its probes switched off: start() (which arms the probe timers) never runs. */
export const hulaWithoutProbes: StageFactory = (env) => {
  const stage = stageFor('hula')(env)
  return Object.assign(Object.create(Object.getPrototypeOf(stage) as object) as typeof stage, stage, { start: undefined })
}

/** The samples of the one series of `kind` whose entity has these fields. */
export function findSeries(s: Series, kind: string, entity: Record<string, string | number>): number[] {
  const i = s.defs.findIndex((d) => d.kind === kind && Object.entries(entity).every(([k, v]) => d.entity[k] === v))
  if (i < 0) throw new Error(`no series ${kind} ${JSON.stringify(entity)}`)
  return s.values[i]
}

export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

/**
 * The asymmetric leaf-spine of conga-asymmetric-leafspine.yaml: 2 leaves × 2 spines, 4 hosts of
 * 10G per leaf, 40G fabric, but spine1–leaf1 at 10G. All traffic crosses the leaves, so leaf0 →
 * leaf1 through spine1 meets the slow link on the spine's side.
 */
export const SLOW_LINK = 'spine1-leaf1'
export const ASYMMETRIC = topo({ hostsPerLeaf: 4, queuePackets: 100, rates: { [SLOW_LINK]: 10e9 } })

/** Share of the bytes toward leaf1 that took the slow link, from the spines' link.util toward leaf1. */
export function slowShare(s: Series): number {
  const fabric = buildFabric(ASYMMETRIC)
  const downPort = (name: string) => linkByName(fabric, name).aPort // a spine is the upper end
  const fast = mean(findSeries(s, 'link.util', { switch: 'spine0', port: downPort('spine0-leaf1') })) * 40
  const slow = mean(findSeries(s, 'link.util', { switch: 'spine1', port: downPort(SLOW_LINK) })) * 10
  return slow / (fast + slow)
}

// What a sim run computes, from its cell: the simulator's configuration and the routes it
// forwards by. Every way a sim run starts (the local driver, a Slurm cell, the benchmarks)
// takes both from here; with the workload it maps (targets/shared/workload.ts) this file is
// hashed into the simulator's fingerprint (scripts/reproduce-ledger.ts), the rest of the sim
// target (the worker thread's life) is not.
import type { ExperimentSpec } from '../../spec'
import type { LinkEvent, SchemeName, SimConfig, Topology } from '../../../sim/types'
import { computeControlPlane, renderSimRoutes } from '../../controlplane'
import { buildFabric } from '../../../model/topology'
import { workloadFor } from '../shared/workload'
import type { RunPlan } from '../driver'

/**
 * The routes the sim forwards by: the control plane's next-hop groups, the same ones the
 * simple_switch_CLI files and bfrt scripts carry. They are shortest-path groups and the same
 * for every scheme, so they are computed without the scheme's P4 limits.
 */
export function simRoutes(topology: Topology): NonNullable<SimConfig['routes']> {
  return renderSimRoutes(computeControlPlane(buildFabric(topology), 'ecmp'))
}

/** One cell's configuration with its routes: what the worker is given. */
export function simRunConfig(plan: RunPlan): SimConfig {
  const config = simConfigFor(plan)
  return { ...config, routes: simRoutes(config.topology) }
}

/** The simulator's configuration for one cell of an experiment's run matrix. */
export function simConfigFor(plan: RunPlan): SimConfig {
  const { spec } = plan
  const config: SimConfig = {
    topology: spec.topology,
    scheme: plan.scheme as SchemeName,
    transport: spec.transport,
    workload: workloadFor(spec.workload, plan.load),
    seed: plan.seed,
    telemetryIntervalNs: spec.telemetryIntervalNs,
    maxSimTimeNs: spec.stopAfterNs,
  }
  if (Object.keys(spec.params).length > 0) config.schemeParams = { ...spec.params }
  if (spec.buffer !== undefined) config.buffer = spec.buffer
  const events = linkEventsOf(spec)
  if (events.length > 0) {
    config.linkEvents = events
    config.failover = spec.failover
  }
  return config
}

/** Each failure as a down event at its time and, when it recovers, an up event; in time order. */
export function linkEventsOf(spec: ExperimentSpec): LinkEvent[] {
  const events: LinkEvent[] = []
  for (const f of spec.failures) {
    events.push({ link: f.link, atNs: f.atNs, up: false })
    if (f.recoverNs !== undefined) events.push({ link: f.link, atNs: f.recoverNs, up: true })
  }
  // Stable: at one instant, events keep the order of the file.
  return events.sort((a, b) => a.atNs - b.atNs)
}

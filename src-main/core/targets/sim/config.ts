import type { ExperimentSpec } from '../../spec'
import type { LinkEvent, SchemeName, SimConfig } from '../../../sim/types'
import { workloadFor } from '../shared/workload'
import type { RunPlan } from '../driver'

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

import type { ExperimentSpec } from '../../spec'
import type { LinkEvent, SchemeName, SimConfig, WorkloadConfig } from '../../../sim/types'
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
  const events = linkEventsOf(spec)
  if (events.length > 0) {
    config.linkEvents = events
    config.failover = spec.failover
  }
  return config
}

/** The workload of one run at `load` (the run's cell; 1 for the saturating kinds). */
export function workloadFor(w: ExperimentSpec['workload'], load: number): WorkloadConfig {
  switch (w.kind) {
    case 'incast':
      return {
        kind: 'incast',
        background: { cdf: w.cdf, load, flows: w.flows },
        incast: {
          events: w.incast.events,
          ratePerSec: w.incast.ratePerSec,
          flowBytes: w.incast.flowBytes,
          fanIn: typeof w.incast.fanIn === 'number' ? w.incast.fanIn : w.incast.fanIn.map(([n, weight]) => [n, weight]),
        },
      }
    case 'long-lived':
      return {
        kind: 'long-lived',
        ...(w.pairs ? { pairs: w.pairs.map(([s, d]) => [s, d]) } : {}),
        ...(w.flows !== undefined ? { flows: w.flows } : {}),
        ...(w.sizeBytes !== undefined ? { sizeBytes: w.sizeBytes } : {}),
        ...(w.startNs !== undefined ? { startNs: w.startNs } : {}),
      }
    case 'permutation':
      return {
        kind: 'permutation',
        ...(w.sizeBytes !== undefined ? { sizeBytes: w.sizeBytes } : {}),
        ...(w.startNs !== undefined ? { startNs: w.startNs } : {}),
      }
    default:
      return { kind: 'poisson', cdf: w.cdf, load, flows: w.flows, ...(w.destinations ? { destinations: w.destinations } : {}) }
  }
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

import type { SimConfig, SchemeName } from '../../../sim/types'
import type { RunPlan } from '../driver'

/** The simulator's configuration for one cell of an experiment's run matrix. */
export function simConfigFor(plan: RunPlan): SimConfig {
  const { spec } = plan
  return {
    topology: spec.topology,
    scheme: plan.scheme as SchemeName,
    transport: spec.transport,
    workload: { kind: 'poisson', cdf: spec.workload.cdf, load: plan.load, flows: spec.workload.flows },
    seed: plan.seed,
    telemetryIntervalNs: spec.telemetryIntervalNs,
    maxSimTimeNs: spec.stopAfterNs,
  }
}

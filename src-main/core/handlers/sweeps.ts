// The contract's sweeps.* methods and experiments.runAgain, over the SweepService.
import { join, sep } from 'node:path'
import type { Handlers } from '../../contract'
import type { Orchestrator } from '../orchestrator'
import type { ExperimentSpec } from '../spec'
import type { ExperimentRow, Store } from '../store'
import { SweepService } from '../sweeps'

type SweepHandlers = Pick<Handlers, 'sweeps.matrix' | 'sweeps.rerunFailed' | 'sweeps.resume' | 'experiments.runAgain'>

export interface SweepHandlerDeps {
  store: Store
  orchestrator: Orchestrator
  /** Parses an experiment's text as a run does (throws a CoreError). */
  parse(yaml: string, file: string | null): ExperimentSpec
  notRunnable(testbed: string): string | null
  /** <userData>: where P4 variants live. */
  dataDir: string
}

/** The experiment's own spec, re-read from its file; the stored one when the file's inputs are gone (an import). */
function specOf(d: SweepHandlerDeps, exp: ExperimentRow): ExperimentSpec {
  try {
    return d.parse(exp.yaml, exp.file)
  } catch (err) {
    // An imported experiment's workload files may be on the machine that exported it; its
    // stored spec holds the CDF points, topology and seeds it ran with.
    const imported = exp.file !== null && exp.file.startsWith(join(d.dataDir, 'imports') + sep)
    if (!imported) throw err
    return exp.spec as ExperimentSpec
  }
}

export function sweepService(d: SweepHandlerDeps): SweepService {
  return new SweepService({
    store: d.store,
    orchestrator: d.orchestrator,
    specOf: (exp) => specOf(d, exp),
    notRunnable: d.notRunnable,
  })
}

export function sweepHandlers(d: SweepHandlerDeps): SweepHandlers {
  const sweeps = sweepService(d)
  return {
    'sweeps.matrix': async ({ experimentId }) => sweeps.matrix(experimentId),
    'sweeps.rerunFailed': async ({ experimentId }) => ({ runIds: sweeps.rerunFailed(experimentId).runs.map((r) => r.id) }),
    'sweeps.resume': async ({ experimentId }) => {
      const r = sweeps.resume(experimentId)
      return { runIds: r.runs.map((x) => x.id), done: r.done, incomplete: r.incomplete, cells: r.cells }
    },
    'experiments.runAgain': async ({ id, testbed }) => {
      const r = sweeps.runAgain(id, testbed)
      return { experimentId: r.experiment.id, runIds: r.runs.map((x) => x.id) }
    },
  }
}

// Sweep actions over the orchestrator: re-run failed cells, resume an interrupted sweep,
// and run an (imported) experiment again on the sim or a testbed of one's own.
import { CoreError, notFound } from '../errors'
import type { Orchestrator } from '../orchestrator'
import type { ExperimentSpec } from '../spec'
import type { ExperimentRow, RunRow, Store } from '../store'
import { withTestbed } from '../testbeds/override'
import { cellsToRerun, cellsToResume, sweepMatrix, type SweepCell, type SweepMatrix } from './matrix'

export interface SweepServiceDeps {
  store: Store
  orchestrator: Orchestrator
  /** The experiment's spec, re-read from its file as a run does (throws a CoreError). */
  specOf(exp: ExperimentRow): ExperimentSpec
  /** Why a testbed cannot take runs now, or null. */
  notRunnable(testbed: string): string | null
}

export class SweepService {
  constructor(private readonly d: SweepServiceDeps) {}

  private experiment(id: number): ExperimentRow {
    const exp = this.d.store.getExperiment(id)
    if (!exp) throw notFound('experiment', id)
    return exp
  }

  matrix(experimentId: number): SweepMatrix {
    this.experiment(experimentId)
    // A dead process's runs show as interrupted, not as running forever.
    this.d.orchestrator.recoverInterrupted()
    return sweepMatrix(this.d.store, experimentId)
  }

  private enqueue(exp: ExperimentRow, spec: ExperimentSpec, cells: SweepCell[]): RunRow[] {
    if (cells.length === 0) return []
    const refused = this.d.notRunnable(spec.testbed)
    if (refused) throw new CoreError('conflict', refused)
    return this.d.orchestrator.enqueue(
      exp.id,
      spec,
      cells.map((c) => ({ scheme: c.scheme, load: c.load, seed: c.seed, params: c.params })),
    )
  }

  /** Queues a new run for every failed, incomplete, cancelled, interrupted or held cell. */
  rerunFailed(experimentId: number): { runs: RunRow[]; cells: number } {
    const exp = this.experiment(experimentId)
    const m = this.matrix(experimentId)
    const cells = cellsToRerun(m)
    return { runs: this.enqueue(exp, this.d.specOf(exp), cells), cells: m.cells.length }
  }

  /** Queues every cell without a done run (and not running now, nor ended incomplete); done cells are never run again. */
  resume(experimentId: number): { runs: RunRow[]; done: number; incomplete: number; cells: number } {
    const exp = this.experiment(experimentId)
    const m = this.matrix(experimentId)
    const cells = cellsToResume(m)
    const done = m.cells.filter((c) => c.doneRunId !== null).length
    const incomplete = m.cells.filter((c) => c.inSpec && c.doneRunId === null && c.status === 'incomplete').length
    return { runs: this.enqueue(exp, this.d.specOf(exp), cells), done, incomplete, cells: m.cells.length }
  }

  /**
   * Runs an experiment again, every cell, with the same seeds, workload (its CDF points are in
   * the stored spec) and P4 variants, on `testbed` (default: where it ran). Another testbed is a
   * new revision of the experiment saying so; its earlier runs, on the old target, become stale.
   */
  runAgain(experimentId: number, testbed?: string): { experiment: ExperimentRow; runs: RunRow[] } {
    const src = this.experiment(experimentId)
    const stored = src.spec as ExperimentSpec
    const target = testbed ?? stored.testbed
    const refused = this.d.notRunnable(target)
    if (refused) throw new CoreError('conflict', refused)
    const spec: ExperimentSpec = { ...stored, testbed: target }
    const { store } = this.d
    const exp = target === stored.testbed ? src : store.updateExperiment(src.id, { name: src.name, yaml: withTestbed(src.yaml, target), spec, tags: src.tags }, `to run again on ${target}`)
    const cells = sweepMatrix(store, exp.id).cells.filter((c) => c.inSpec)
    return { experiment: exp, runs: this.enqueue(exp, spec, cells) }
  }
}

// A sweep as a whole: the run matrix of an experiment (scheme × load × seed × params) with
// the status of every cell, where a cell's status is that of its latest run. Which cells a
// resume or a re-run repeats is decided here, from the database alone, so it is the same
// whether the process that ran them is this one, a finished one or one killed mid-sweep.
import { TERMINAL_STATUSES, type RunCompletion, type RunStatus } from '../../contract/schemas'
import { canonicalJson } from '../p4build/key'
import { expandRuns, type ExperimentSpec } from '../spec'
import type { RunRow, Store } from '../store'

/** 'stale': the cell has runs, but none of the current revision on the current target. */
export type CellStatus = RunStatus | 'pending' | 'stale'

export interface SweepCell {
  scheme: string
  load: number
  seed: number
  params: Record<string, unknown>
  /**
   * The latest current run's status (of the current revision, on the current target);
   * 'stale' when the cell has only runs of older revisions or other targets; 'pending' when none.
   */
  status: CellStatus
  /** The latest current run of the cell, else its latest stale one. */
  runId: number | null
  /** How many runs the cell has had, stale ones included. */
  runs: number
  /** How many of them are stale (an older revision that runs cells differently, or another target). */
  stale: number
  /** The latest current run that finished 'done', if any; a stale done run does not count. */
  doneRunId: number | null
  /** How the latest run's flows ended (its numbers and, when incomplete, the likely cause). */
  completion: RunCompletion | null
  /** False for a cell that has runs but is no longer in the experiment's matrix (the file changed). */
  inSpec: boolean
  /** The latest run's Slurm task and its last known state, when it ran on a cluster. */
  slurm?: { job: string; task: number; state: string; reason: string | null } | null
}

export interface SweepMatrix {
  experimentId: number
  axes: { schemes: string[]; loads: number[]; seeds: number[] }
  cells: SweepCell[]
  counts: Record<CellStatus, number>
  /** Cells whose latest run is held (its testbed unreachable), by testbed and reason. */
  held: Array<{ testbed: string; cells: number; reason: string }>
}

/**
 * Failed, incomplete, cancelled, interrupted and held cells: what "re-run failed cells" repeats. An
 * incomplete run did not measure what it was meant to (most often a host or a spec to fix first);
 * re-running it is the user's explicit choice.
 */
export const RERUN_STATUSES: readonly CellStatus[] = ['failed', 'incomplete', 'cancelled', 'interrupted', 'held']

/**
 * What Resume repeats: cells never run (held ones too), or whose latest run stopped before its end. A cell whose
 * latest run ended incomplete is not resumed: it ran to its end, and running it again unchanged
 * gives the same (the simulator is deterministic; on a testbed the cause needs fixing first).
 */
export const RESUME_STATUSES: readonly CellStatus[] = ['pending', 'stale', 'failed', 'cancelled', 'interrupted', 'held']

export function cellKey(c: { scheme: string; load: number; seed: number; params: Record<string, unknown> }): string {
  return canonicalJson([c.scheme, c.load, c.seed, c.params])
}

export function sweepMatrix(store: Store, experimentId: number): SweepMatrix {
  const exp = store.getExperiment(experimentId)
  if (!exp) throw new Error(`experiment ${experimentId} does not exist`)
  const spec = exp.spec as ExperimentSpec
  const cells = new Map<string, SweepCell>()
  for (const c of expandRuns(spec)) {
    const cell: SweepCell = { ...c, params: {}, status: 'pending', runId: null, runs: 0, stale: 0, doneRunId: null, completion: null, inSpec: true }
    cells.set(cellKey(cell), cell)
  }
  // Runs come in id order, so the last one seen is the cell's latest.
  for (const run of store.listRuns({ experimentId })) {
    const key = cellKey(run)
    let cell = cells.get(key)
    if (!cell) {
      cell = { scheme: run.scheme, load: run.load, seed: run.seed, params: run.params, status: 'pending', runId: null, runs: 0, stale: 0, doneRunId: null, completion: null, inSpec: false }
      cells.set(key, cell)
    }
    record(cell, run)
  }
  const list = [...cells.values()]
  for (const c of list) {
    const t = c.runId === null ? undefined : store.slurmTaskOfRun(c.runId)
    c.slurm = t ? { job: t.jobId, task: t.arrayIndex, state: t.state, reason: t.reason } : null
  }
  const counts = Object.fromEntries(['pending', 'stale', ...TERMINAL_STATUSES, 'queued', 'deploying', 'running', 'collecting'].map((s) => [s, 0])) as Record<CellStatus, number>
  for (const c of list) counts[c.status]++
  const held = new Map<string, { testbed: string; cells: number; reason: string }>()
  for (const c of list) {
    const run = c.status === 'held' && c.inSpec && c.runId !== null ? store.getRun(c.runId) : undefined
    if (!run) continue
    const reason = run.error ?? `testbed '${run.target}' could not be reached`
    const key = JSON.stringify([run.target, reason])
    const h = held.get(key) ?? { testbed: run.target, cells: 0, reason }
    h.cells++
    held.set(key, h)
  }
  return {
    experimentId,
    axes: { schemes: [...spec.schemes], loads: [...spec.workload.loads], seeds: [...spec.seeds] },
    cells: list,
    counts,
    held: [...held.values()],
  }
}

function record(cell: SweepCell, run: RunRow): void {
  cell.runs++
  if (run.stale) {
    cell.stale++
    // Shown only while the cell has no current run: a run of the revision as it is now wins.
    if (cell.runs === cell.stale) {
      cell.status = cell.inSpec ? 'stale' : run.status
      cell.runId = run.id
      cell.completion = run.completion
    }
    return
  }
  cell.status = run.status
  cell.runId = run.id
  cell.completion = run.completion
  if (run.status === 'done') cell.doneRunId = run.id
}

/** Cells whose latest run failed, ended incomplete, was cancelled, was interrupted or was held. */
export function cellsToRerun(m: SweepMatrix): SweepCell[] {
  return m.cells.filter((c) => c.inSpec && RERUN_STATUSES.includes(c.status))
}

/**
 * Cells with no done run that nothing is running now and that did not end incomplete: never
 * run (or held), failed, cancelled or interrupted. A cell with a done run is never repeated; one queued
 * or running in a live process is left to it.
 */
export function cellsToResume(m: SweepMatrix): SweepCell[] {
  return m.cells.filter((c) => c.inSpec && c.doneRunId === null && RESUME_STATUSES.includes(c.status))
}

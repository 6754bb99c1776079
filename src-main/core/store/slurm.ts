import { fromJson, toJson, type StoreContext } from './rows'
import { getRun } from './runs'
import { addEvent } from './telemetry'

// Slurm sweeps (migration "slurm jobs"): one row per submitted job array, one per array task
// with the run it carries and the task's last Slurm state. The job ids live here so a sweep
// can be followed, merged and cancelled by any later process (the app reopened, another CLI).

/** How the login node is reached: no secret, only the ssh target (or local). */
export type SlurmClusterRef =
  | { kind: 'local' }
  | { kind: 'ssh'; host: string; port: number; user: string; keyFile: string | null }

export interface SlurmJobRow {
  id: number
  experimentId: number
  /** Slurm's job id of the array. */
  jobId: string
  cluster: SlurmClusterRef
  /** The sweep's folder on the cluster's shared file system. */
  sweepDir: string
  submittedAt: string
  /** When every task had ended and was merged or marked; null while any is open. */
  endedAt: string | null
}

export interface SlurmTaskRow {
  runId: number
  slurmJob: number
  arrayIndex: number
  /** PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, CANCELLED … as Slurm says; SUBMITTED before the first look. */
  state: string
  reason: string | null
  /** True once the task's outcome is in its run (results merged, or the run marked failed/cancelled). */
  settled: boolean
  updatedAt: string
}

interface JobDb {
  id: number
  experiment_id: number
  job_id: string
  cluster: string
  sweep_dir: string
  submitted_at: string
  ended_at: string | null
}
interface TaskDb {
  run_id: number
  slurm_job: number
  array_index: number
  state: string
  reason: string | null
  settled: number
  updated_at: string
}

const job = (r: JobDb): SlurmJobRow => ({
  id: r.id,
  experimentId: r.experiment_id,
  jobId: r.job_id,
  cluster: fromJson(r.cluster) as SlurmClusterRef,
  sweepDir: r.sweep_dir,
  submittedAt: r.submitted_at,
  endedAt: r.ended_at,
})
const task = (r: TaskDb): SlurmTaskRow => ({
  runId: r.run_id,
  slurmJob: r.slurm_job,
  arrayIndex: r.array_index,
  state: r.state,
  reason: r.reason,
  settled: r.settled === 1,
  updatedAt: r.updated_at,
})

/** A submission under way, written before sbatch runs (migration "slurm submissions"). */
export interface SlurmSubmissionRow {
  id: number
  experimentId: number
  /** sbatch --job-name, unique: squeue --name finds the job it made. */
  jobName: string
  cluster: SlurmClusterRef
  sweepDir: string
  runIds: number[]
  /** The submitting process (core/owner.ts). */
  owner: string
  startedAt: string
}

interface SubmissionDb {
  id: number
  experiment_id: number
  job_name: string
  cluster: string
  sweep_dir: string
  run_ids: string
  owner: string
  started_at: string
}

export function addSlurmSubmission(s: StoreContext, input: Omit<SlurmSubmissionRow, 'id' | 'startedAt'>): number {
  return Number(
    s
      .stmt('INSERT INTO slurm_submissions (experiment_id, job_name, cluster, sweep_dir, run_ids, owner, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(input.experimentId, input.jobName, toJson(input.cluster), input.sweepDir, toJson(input.runIds), input.owner, s.isoNow()).lastInsertRowid,
  )
}

/** Oldest first. */
export function listSlurmSubmissions(s: StoreContext): SlurmSubmissionRow[] {
  return (s.stmt('SELECT * FROM slurm_submissions ORDER BY id').all() as SubmissionDb[]).map((r) => ({
    id: r.id,
    experimentId: r.experiment_id,
    jobName: r.job_name,
    cluster: fromJson(r.cluster) as SlurmClusterRef,
    sweepDir: r.sweep_dir,
    runIds: fromJson(r.run_ids) as number[],
    owner: r.owner,
    startedAt: r.started_at,
  }))
}

/** Whether it was there to remove: of two processes looking at one submission, only one removes it. */
export function removeSlurmSubmission(s: StoreContext, id: number): boolean {
  return s.stmt('DELETE FROM slurm_submissions WHERE id = ?').run(id).changes > 0
}

/**
 * Records a submitted array with a task per run, and makes `owner` (the job) the runs' owner in
 * the same transaction, which also removes the `submission` that led to it.
 */
export function addSlurmJob(s: StoreContext, input: { experimentId: number; jobId: string; cluster: SlurmClusterRef; sweepDir: string; runIds: number[]; owner: string; submission?: number }): SlurmJobRow {
  return s.write(() => {
    if (input.submission !== undefined) removeSlurmSubmission(s, input.submission)
    const at = s.isoNow()
    const id = Number(
      s.stmt('INSERT INTO slurm_jobs (experiment_id, job_id, cluster, sweep_dir, submitted_at) VALUES (?, ?, ?, ?, ?)').run(input.experimentId, input.jobId, toJson(input.cluster), input.sweepDir, at).lastInsertRowid,
    )
    const insert = s.stmt(`INSERT INTO slurm_tasks (run_id, slurm_job, array_index, state, updated_at) VALUES (?, ?, ?, 'SUBMITTED', ?)`)
    const own = s.stmt('UPDATE runs SET owner = ? WHERE id = ?')
    input.runIds.forEach((runId, i) => {
      insert.run(runId, id, i, at)
      own.run(input.owner, runId)
    })
    return getSlurmJob(s, id)!
  })
}

/** The statuses a cut-off submission leaves its runs in: queued, then interrupted by the next open. */
const CUT_OFF_STATUSES: ReadonlySet<string> = new Set(['queued', 'interrupted'])

/**
 * Adopts the job a cut-off submission made (found by its name): in one transaction, the job is
 * recorded as addSlurmJob does and its runs queued again, owned by the job, so that they are
 * followed and merged as any other. Only when the submission is still there (no other process
 * took it first), and each of its runs is as the cut-off left it (queued, or interrupted since:
 * not cancelled, failed or done, not in the trash) with no later run of its cell in the
 * experiment (a resume or re-run made since would otherwise have a twin). Else nothing changes
 * and why is returned, for the caller to cancel the job instead.
 */
export function adoptSlurmSubmission(s: StoreContext, sub: SlurmSubmissionRow, jobId: string, owner: string): { job: SlurmJobRow } | { refused: string } {
  return s.write(() => {
    if (!s.stmt('SELECT 1 FROM slurm_submissions WHERE id = ?').get(sub.id)) return { refused: 'another p4lab took it first' }
    for (const id of sub.runIds) {
      const run = getRun(s, id)
      if (!run) return { refused: `run ${id} no longer exists` }
      if (run.deletedAt) return { refused: `run ${id} is in the trash` }
      if (!CUT_OFF_STATUSES.has(run.status)) return { refused: `run ${id} is ${run.status}` }
      const later = s
        .stmt('SELECT l.id FROM runs l JOIN runs r ON r.id = ? WHERE l.experiment_id = r.experiment_id AND l.scheme = r.scheme AND l.load = r.load AND l.seed = r.seed AND l.params = r.params AND l.id > r.id ORDER BY l.id LIMIT 1')
        .get(id) as { id: number } | undefined
      if (later) return { refused: `its cell ${run.scheme} load=${run.load} seed=${run.seed} ran again since (run ${later.id})` }
    }
    const at = s.isoNow()
    const revive = s.stmt("UPDATE runs SET status = 'queued', finished_at = NULL, error = NULL, heartbeat_at = NULL WHERE id = ?")
    for (const id of sub.runIds) {
      const from = getRun(s, id)!.status
      if (from === 'queued') continue
      revive.run(id)
      addEvent(s, id, null, 'status', { from, to: 'queued', error: null, adoptedJob: jobId }, at)
    }
    return { job: addSlurmJob(s, { experimentId: sub.experimentId, jobId, cluster: sub.cluster, sweepDir: sub.sweepDir, runIds: sub.runIds, owner, submission: sub.id }) }
  })
}

export function getSlurmJob(s: StoreContext, id: number): SlurmJobRow | undefined {
  const r = s.stmt('SELECT * FROM slurm_jobs WHERE id = ?').get(id) as JobDb | undefined
  return r ? job(r) : undefined
}

/** An experiment's jobs, oldest first; `open` only: those with a task not yet settled. */
export function listSlurmJobs(s: StoreContext, o: { experimentId?: number; open?: boolean } = {}): SlurmJobRow[] {
  const rows = s
    .stmt(
      `SELECT * FROM slurm_jobs WHERE (? IS NULL OR experiment_id = ?) AND (? = 0 OR ended_at IS NULL) ORDER BY id`,
    )
    .all(o.experimentId ?? null, o.experimentId ?? null, o.open ? 1 : 0) as JobDb[]
  return rows.map(job)
}

export function listSlurmTasks(s: StoreContext, slurmJob: number): SlurmTaskRow[] {
  return (s.stmt('SELECT * FROM slurm_tasks WHERE slurm_job = ? ORDER BY array_index').all(slurmJob) as TaskDb[]).map(task)
}

/** The Slurm task of a run, if it ran on a cluster. */
export function slurmTaskOfRun(s: StoreContext, runId: number): (SlurmTaskRow & { jobId: string }) | undefined {
  const r = s.stmt('SELECT t.*, j.job_id FROM slurm_tasks t JOIN slurm_jobs j ON j.id = t.slurm_job WHERE t.run_id = ?').get(runId) as (TaskDb & { job_id: string }) | undefined
  return r ? { ...task(r), jobId: r.job_id } : undefined
}

export function setSlurmTaskState(s: StoreContext, runId: number, state: string, reason: string | null, settled?: boolean): void {
  s.stmt('UPDATE slurm_tasks SET state = ?, reason = ?, settled = coalesce(?, settled), updated_at = ? WHERE run_id = ?').run(state, reason, settled === undefined ? null : settled ? 1 : 0, s.isoNow(), runId)
}

export function endSlurmJob(s: StoreContext, id: number): void {
  s.stmt('UPDATE slurm_jobs SET ended_at = ? WHERE id = ? AND ended_at IS NULL').run(s.isoNow(), id)
}

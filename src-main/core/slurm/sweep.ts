// A sweep on a Slurm cluster: the cells go out as one job array (one task per cell), are
// followed through squeue/sacct/scontrol, and each finished task's result bundle is merged
// into the store. Everything needed to follow, merge or cancel later is in the store
// (slurm_jobs, slurm_tasks), so a sweep outlives the process that submitted it.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, statSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RunStatus } from '../../contract'
import { ownerIsAlive, processOwner } from '../owner'
import { packageRoot, packageVersion } from '../paths'
import type { ExperimentSpec } from '../spec'
import { cmd } from '../ssh'
import type { ExperimentRow, RunRow, SlurmJobRow, SlurmSubmissionRow, Store } from '../store'
import { SCHEMA_VERSION } from '../store/migrations'
import { simConfigFor, simRoutes } from '../targets/sim/config'
import { BUNDLE, JOB_FILE, JOB_FORMAT, type JobFile } from './bundle'
import { BundleRefusedError, mergeTask } from './merge'
import { check, type ClusterShell, type ShellResult } from './shell'
import { ENDED, readTaskStates, type TaskState } from './states'

export interface SlurmSubmitOptions {
  /** The folder on the cluster's shared file system for the runner and the sweeps (created). */
  workDir: string
  partition?: string
  account?: string
  /** sbatch --time, e.g. 30 or 1:00:00. */
  time?: string
  cpusPerTask?: number
  /** Tasks running at once (sbatch --array=…%M). */
  maxParallel?: number
  /** The Node on the nodes; default `node` from their PATH. */
  node?: string
  /** Submit held (sbatch --hold): nothing starts until `scontrol release`. */
  hold?: boolean
}

export interface SlurmTaskView {
  index: number
  runId: number
  state: string
  reason: string | null
  runStatus: RunStatus
  settled: boolean
}

export interface SlurmProgress {
  jobId: string
  tasks: SlurmTaskView[]
  /** Tasks per Slurm state. */
  states: Record<string, number>
  /** Every task's outcome is in its run. */
  ended: boolean
}

/** A submission stopped by its signal before sbatch ran: nothing went to Slurm (its runs, if stored, are cancelled). */
export class SubmitCancelledError extends Error {}

/** Runs on a cluster are followed through their job, not a process: never marked interrupted. */
export const SLURM_OWNER_PREFIX = 'slurm '

/**
 * Submissions whose process ended before it recorded their job (or was unsure what sbatch did):
 * on their cluster may be a job nothing records; SlurmSweeps.lookForCutOff looks for it.
 */
export function cutOffSubmissions(store: Store): SlurmSubmissionRow[] {
  return store.listSlurmSubmissions().filter((s) => !ownerIsAlive(s.owner))
}

/** The cell runner, built by `npm run build` (vite.cell.config.mts). */
export function cellRunnerPath(): string {
  const p = join(packageRoot(), 'out', 'cell', 'p4lab-cell.mjs')
  if (!existsSync(p)) throw new Error(`the Slurm cell runner ${p} is missing: run 'npm run build' first`)
  const src = join(packageRoot(), 'src-main')
  if (existsSync(src)) {
    const newest = (d: string): number => Math.max(0, ...readdirSync(d, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(d, e.name)) : statSync(join(d, e.name)).mtimeMs)))
    // What the runner bundles: the simulator, the schemes, the model, and these three files.
    const files = ['core/slurm/cell.ts', 'core/slurm/bundle.ts', 'core/archive/manifest.ts'].map((f) => statSync(join(src, f)).mtimeMs)
    if (Math.max(newest(join(src, 'sim')), newest(join(src, 'schemes')), newest(join(src, 'model')), ...files) > statSync(p).mtimeMs) {
      throw new Error(`the Slurm cell runner ${p} is older than its sources: run 'npm run build' first`)
    }
  }
  return p
}

const ACTIVE: ReadonlySet<string> = new Set(['RUNNING', 'COMPLETING', 'CONFIGURING', 'STAGE_OUT', 'SUSPENDED', 'RESIZING'])

function argvOf(o: SlurmSubmitOptions, tasks: number, jobName: string, sweepDir: string, runner: string): string[] {
  return [
    'sbatch',
    '--parsable',
    `--array=0-${tasks - 1}${o.maxParallel ? `%${o.maxParallel}` : ''}`,
    `--job-name=${jobName}`,
    `--chdir=${sweepDir}`,
    `--output=${sweepDir}/logs/%a.out`,
    ...(o.partition ? [`--partition=${o.partition}`] : []),
    ...(o.account ? [`--account=${o.account}`] : []),
    ...(o.time ? [`--time=${o.time}`] : []),
    ...(o.cpusPerTask ? [`--cpus-per-task=${o.cpusPerTask}`] : []),
    ...(o.hold ? ['--hold'] : []),
    '--wrap',
    cmd([o.node ?? 'node', runner, sweepDir]),
  ]
}

export class SlurmSweeps {
  constructor(
    private readonly d: {
      store: Store
      shell: ClusterShell
      /** Told of every run status change (the app's bus). */
      announce?: (run: RunRow) => void
      runnerFile?: string
    },
  ) {}

  /**
   * Creates the runs of `cells` and submits them as one job array. `signal` (a Ctrl-C) stops it
   * before sbatch runs (SubmitCancelledError); once sbatch runs, only its answer tells whether the
   * array exists, so the submission goes on to its record and the caller cancels the job.
   * `created`: told of the runs before their submission is recorded and sbatch runs, for a caller
   * that keeps its own record of them (reproduce's ledger), so that the runs of a job cut off
   * before its record are in that record when a later look adopts the job.
   */
  async submit(
    exp: ExperimentRow,
    spec: ExperimentSpec,
    cells: Array<{ scheme: string; load: number; seed: number; params?: Record<string, unknown> }>,
    o: SlurmSubmitOptions,
    signal?: AbortSignal,
    created?: (runs: RunRow[]) => void,
  ): Promise<{ job: SlurmJobRow; runs: RunRow[]; runnerUploaded: boolean }> {
    if (cells.length === 0) throw new Error('nothing to submit: no cells')
    if (spec.testbed !== 'sim') throw new Error(`experiment ${exp.name} runs on testbed '${spec.testbed}': only simulator experiments (testbed: sim) run on a Slurm cluster`)
    const { store, shell } = this.d
    const runner = this.d.runnerFile ?? cellRunnerPath()
    const hash = createHash('sha256').update(readFileSync(runner)).digest('hex')
    await check(shell, ['mkdir', '-p', o.workDir])
    const work = (await check(shell, ['realpath', o.workDir])).trim()
    const runnerName = `p4lab-cell-${hash.slice(0, 16)}.mjs`
    const sweepDir = `${work}/sweeps/${exp.name.replace(/[^\w.-]/g, '_')}-${exp.id}-${new Date().toISOString().replace(/[:.]/g, '')}-${randomBytes(3).toString('hex')}`
    if (signal?.aborted) throw new SubmitCancelledError('cancelled before anything was stored or submitted')

    // This process owns the runs until the job that carries them is recorded (addSlurmJob hands
    // them to it): killed before that, it leaves them to be marked interrupted, not queued for ever.
    const runs = store.createRuns(exp.id, spec.testbed, processOwner(), cells.map((c) => ({ scheme: c.scheme, load: c.load, seed: c.seed, params: c.params ?? {} })), { spec })
    const stage = mkdtempSync(join(tmpdir(), 'p4lab-slurm-stage-'))
    try {
      // The same configuration the local sim driver builds for the cell (targets/sim/config.ts).
      const routes = simRoutes(spec.topology)
      const job: JobFile = {
        format: JOB_FORMAT,
        version: 1,
        p4labVersion: packageVersion(),
        schemaVersion: SCHEMA_VERSION,
        experiment: { name: exp.name },
        cells: runs.map((r) => ({ runId: r.id, scheme: r.scheme, load: r.load, seed: r.seed, config: { ...simConfigFor({ runId: r.id, spec, scheme: r.scheme, load: r.load, seed: r.seed, experimentId: exp.id }), routes } })),
      }
      mkdirSync(join(stage, 'bin'))
      copyFileSync(runner, join(stage, 'bin', runnerName))
      mkdirSync(join(stage, 'sweep', 'logs'), { recursive: true })
      mkdirSync(join(stage, 'sweep', 'results'))
      writeFileSync(join(stage, 'sweep', JOB_FILE), JSON.stringify(job))
      let up: { uploaded: number }
      try {
        up = await shell.upload(join(stage, 'bin'), `${work}/bin`)
        await shell.upload(join(stage, 'sweep'), sweepDir)
      } catch (err) {
        throw this.notSubmitted(runs, `could not submit the sweep to ${shell.label}: ${err instanceof Error ? err.message : String(err)}`, err)
      }
      if (signal?.aborted) {
        const why = 'cancelled before it was submitted to Slurm'
        for (const r of runs) this.announce(store.setRunStatus(r.id, 'cancelled', { error: why }))
        throw new SubmitCancelledError(`${why}: run(s) ${runs.map((r) => r.id).join(', ')} cancelled, nothing submitted`)
      }
      try {
        created?.(runs)
      } catch (err) {
        throw this.notSubmitted(runs, `not submitted to ${shell.label}: ${err instanceof Error ? err.message : String(err)}`, err)
      }
      // Written before sbatch runs, with the job's unique name: a process killed before the job
      // is recorded leaves it for a later look to find that job (lookForCutOff).
      const jobName = `${`p4lab-${exp.name}`.slice(0, 55)}-${randomBytes(4).toString('hex')}`
      const submission = store.addSlurmSubmission({ experimentId: exp.id, jobName, cluster: shell.ref, sweepDir, runIds: runs.map((r) => r.id), owner: processOwner() })
      const argv = argvOf(o, runs.length, jobName, sweepDir, `${work}/bin/${runnerName}`)
      let answer: ShellResult
      try {
        answer = await shell.run(argv)
      } catch (err) {
        // The login node lost while sbatch ran: whether it made the job is unknown, so the
        // submission stays, for a later look once this process has ended.
        throw this.notSubmitted(runs, `could not submit the sweep to ${shell.label}: ${err instanceof Error ? err.message : String(err)}; whether sbatch made the job is unknown: once this p4lab has ended, p4lab slurm status looks for a job named ${jobName} and cancels it`, err)
      }
      if (answer.code !== 0) {
        // sbatch answered that it made nothing; killed by a signal, it may have.
        if (answer.code !== null) store.removeSlurmSubmission(submission)
        throw this.notSubmitted(runs, `could not submit the sweep to ${shell.label}: sbatch exited ${answer.code ?? 'by a signal'}: ${answer.stderr.trim().split('\n').slice(-5).join('\n')}`)
      }
      const out = answer.stdout.toString('utf8')
      const jobId = out.trim().split(';')[0]
      if (!/^\d+$/.test(jobId)) throw this.notSubmitted(runs, `sbatch on ${shell.label} printed '${out.trim()}', not a job id: whether it submitted anything is unknown (squeue there shows a job named ${jobName}; once this p4lab has ended, p4lab slurm status cancels it)`)
      const row = store.addSlurmJob({ experimentId: exp.id, jobId, cluster: shell.ref, sweepDir, runIds: runs.map((r) => r.id), owner: `${SLURM_OWNER_PREFIX}${shell.label}`, submission })
      for (const r of runs) store.addLog(r.id, 'slurm', `submitted as task ${jobId}_${runs.indexOf(r)} on ${shell.label} (${sweepDir})`)
      return { job: row, runs, runnerUploaded: up.uploaded > 0 }
    } finally {
      rmSync(stage, { recursive: true, force: true })
    }
  }

  /**
   * Reads every open task's state, moves its run (queued → running), merges the results of
   * those that completed and marks the others that ended (failed, timed out, cancelled) with
   * Slurm's reason. Idempotent: a settled task is never looked at again.
   */
  async refresh(slurmJob: number, o: { merge?: boolean } = {}): Promise<SlurmProgress> {
    const { store, shell } = this.d
    const job = store.getSlurmJob(slurmJob)
    if (!job) throw new Error(`Slurm job record ${slurmJob} does not exist`)
    const tasks = store.listSlurmTasks(job.id)
    const open = tasks.filter((t) => !t.settled)
    if (open.length > 0) {
      const { states } = await readTaskStates(shell, job.jobId, tasks.length)
      const bundles = await this.bundlesPresent(job.sweepDir)
      // A task Slurm no longer lists, while it lists others of the job, that left no bundle and
      // no log never started: Slurm drops a pending task cancelled (scancel JOB_N) from the array
      // at once and, without accounting, keeps no record of it. When Slurm lists none of the job
      // (forgotten after MinJobAge, or its state lost), a task may have failed before its log
      // was made: that one ends failed, below, as before.
      const lost = states.size > 0 && open.some((t) => !states.has(t.arrayIndex) && !bundles.has(t.arrayIndex))
      const logs = lost ? await this.filesIn(`${job.sweepDir}/logs`) : null
      const current = store.getExperiment(job.experimentId)!.spec as ExperimentSpec
      for (const t of open) {
        // The text the run was submitted with, not the experiment's now: an edit while the job
        // waited gave a run of the old fabric the new one's ideal FCTs (slowdowns under 1).
        const spec = (store.getRunRecord(t.runId)?.spec ?? current) as ExperimentSpec
        const s: TaskState =
          states.get(t.arrayIndex) ??
          (bundles.has(t.arrayIndex)
            ? { state: 'COMPLETED', reason: 'Slurm no longer lists the task; its result bundle is there', exitCode: null }
            : logs && !logs.has(`${t.arrayIndex}.out`)
              ? { state: 'CANCELLED', reason: 'removed from the queue before it started (a pending task cancelled): Slurm lists other tasks of the job but not this one, and it left no log and no result', exitCode: null }
              : { state: 'UNKNOWN', reason: 'Slurm no longer lists the task and it left no result bundle', exitCode: null })
        const reason = [s.reason, s.exitCode && s.exitCode !== '0:0' ? `exit ${s.exitCode}` : null].filter(Boolean).join(', ') || null
        if (s.state !== t.state || reason !== t.reason) store.setSlurmTaskState(t.runId, s.state, reason)
        const run = store.getRun(t.runId)!
        if (ACTIVE.has(s.state) && run.status === 'queued') this.announce(store.setRunStatus(run.id, 'running'))
        if (s.state === 'COMPLETED' && o.merge !== false) await this.merge(job, run, t.arrayIndex, spec)
        else if (ENDED.has(s.state) && s.state !== 'COMPLETED') await this.endUnmerged(job, run, t.arrayIndex, s.state, reason)
        else if (s.state === 'UNKNOWN' && states.size === 0) await this.endUnmerged(job, run, t.arrayIndex, 'FAILED', reason)
      }
    }
    return this.progress(job.id)
  }

  progress(slurmJob: number): SlurmProgress {
    const { store } = this.d
    const job = store.getSlurmJob(slurmJob)!
    const tasks = store.listSlurmTasks(job.id).map((t) => ({ index: t.arrayIndex, runId: t.runId, state: t.state, reason: t.reason, settled: t.settled, runStatus: store.getRun(t.runId)!.status }))
    const states: Record<string, number> = {}
    for (const t of tasks) states[t.state] = (states[t.state] ?? 0) + 1
    const ended = tasks.every((t) => t.settled)
    if (ended) store.endSlurmJob(job.id)
    return { jobId: job.jobId, tasks, states, ended }
  }

  /** Refreshes until every task is settled (or `signal` aborts), calling `onProgress` after each look. */
  async follow(slurmJob: number, o: { intervalMs?: number; signal?: AbortSignal; onProgress?: (p: SlurmProgress) => void } = {}): Promise<SlurmProgress> {
    for (;;) {
      const p = await this.refresh(slurmJob)
      o.onProgress?.(p)
      if (p.ended || o.signal?.aborted) return p
      await new Promise<void>((resolve) => {
        // One listener per wait, removed when the wait ends: a long follow added one every look.
        const stop = () => {
          clearTimeout(t)
          resolve()
        }
        const t = setTimeout(() => {
          o.signal?.removeEventListener('abort', stop)
          resolve()
        }, o.intervalMs ?? 2000)
        o.signal?.addEventListener('abort', stop, { once: true })
      })
    }
  }

  /** scancel the array, wait until squeue holds none of it, then settle every task (completed ones merge). */
  async cancel(slurmJob: number): Promise<SlurmProgress> {
    const { store, shell } = this.d
    const job = store.getSlurmJob(slurmJob)
    if (!job) throw new Error(`Slurm job record ${slurmJob} does not exist`)
    await check(shell, ['scancel', job.jobId])
    for (let i = 0; i < 120; i++) {
      const r = await shell.run(['squeue', '-h', '-r', '-j', job.jobId, '-o', '%i'])
      if (r.code !== 0 || r.stdout.toString('utf8').trim() === '') break
      await new Promise((res) => setTimeout(res, 500))
    }
    return this.refresh(job.id)
  }

  private async merge(job: SlurmJobRow, run: RunRow, index: number, spec: ExperimentSpec): Promise<void> {
    try {
      this.announce(await mergeTask({ store: this.d.store, shell: this.d.shell, job, run, index, spec }))
    } catch (err) {
      if (!(err instanceof BundleRefusedError)) throw err
      this.d.store.transaction(() => {
        this.d.store.addLog(run.id, 'slurm', err.message)
        this.d.store.setSlurmTaskState(run.id, 'COMPLETED', err.message, true)
        this.announce(this.d.store.setRunStatus(run.id, 'failed', { error: `task ${job.jobId}_${index}: ${err.message}` }))
      })
    }
  }

  /** A task that ended without results: the run fails (or is cancelled) with Slurm's reason and the task's last log lines. */
  private async endUnmerged(job: SlurmJobRow, run: RunRow, index: number, state: string, reason: string | null): Promise<void> {
    const tail = await this.d.shell.run(['tail', '-n', '5', `${job.sweepDir}/logs/${index}.out`])
    const log = tail.code === 0 ? tail.stdout.toString('utf8').trim() : ''
    const error = `Slurm: task ${job.jobId}_${index} ${state}${reason ? ` (${reason})` : ''}${log ? `: ${log.split('\n').slice(-3).join(' | ')}` : ''}`
    const { store } = this.d
    store.transaction(() => {
      if (log) for (const line of log.split('\n')) store.addLog(run.id, 'slurm', line)
      store.setSlurmTaskState(run.id, state, reason, true)
      if (!['done', 'incomplete', 'failed', 'cancelled', 'interrupted'].includes(store.getRun(run.id)!.status)) {
        this.announce(store.setRunStatus(run.id, state === 'CANCELLED' ? 'cancelled' : 'failed', { error }))
      }
    })
  }

  /** Array indices with a complete bundle under results/ (a `.partial` one is still being written). */
  private async bundlesPresent(sweepDir: string): Promise<Set<number>> {
    const out = new Set<number>()
    for (const name of (await this.filesIn(`${sweepDir}/results`)) ?? []) if (/^\d+$/.test(name)) out.add(Number(name))
    return out
  }

  /** The names in a folder on the cluster; null when it cannot be listed (then nothing is concluded from what is missing). */
  private async filesIn(dir: string): Promise<Set<string> | null> {
    const r = await this.d.shell.run(['ls', '-1', dir])
    return r.code === 0 ? new Set(r.stdout.toString('utf8').split('\n').map((n) => n.trim()).filter(Boolean)) : null
  }

  /**
   * The job a cut-off submission made, looked for by its unique name: first in squeue, which
   * lists it queued, running, or ended within the cluster's MinJobAge; then in sacct, where the
   * cluster keeps accounting; then, when Slurm has forgotten it, in the result bundles its tasks
   * left in the sweep folder (each names its job). `active`: those ids still queued or running.
   * Null when none of these knows of a job: sbatch made none, or it ended long ago leaving no result.
   */
  private async findCutOffJob(sub: SlurmSubmissionRow): Promise<{ ids: string[]; active: string[]; via: string } | null> {
    const { shell } = this.d
    const listed = (lines: string[], via: string) => {
      const ids = new Map<string, boolean>()
      for (const line of lines) {
        const [id, state] = line.trim().split('|')
        const m = /^(\d+)/.exec(id ?? '')
        if (!m || !state) continue
        ids.set(m[1], (ids.get(m[1]) ?? false) || !ENDED.has(state.split(' ')[0]))
      }
      return ids.size ? { ids: [...ids.keys()], active: [...ids].filter(([, a]) => a).map(([id]) => id), via } : null
    }
    const sq = listed((await check(shell, ['squeue', '-h', '-t', 'all', `--name=${sub.jobName}`, '-o', '%F|%T'])).split('\n'), 'squeue')
    if (sq) return sq
    // sacct looks from midnight today unless told: from the day before the submission (its clock may be behind).
    const since = new Date(Date.parse(sub.startedAt) - 86_400_000).toISOString().slice(0, 10)
    const sa = await shell.run(['sacct', '-n', '-X', '-P', `--name=${sub.jobName}`, '-S', since, '-o', 'JobID,State'])
    const acct = sa.code === 0 ? listed(sa.stdout.toString('utf8').split('\n'), 'sacct') : null
    if (acct) return acct
    const bundles = [...(await this.bundlesPresent(sub.sweepDir))]
    if (bundles.length === 0) return null
    const named = await shell.run(['grep', '-h', '-o', '"jobId":"[0-9]*"', ...bundles.map((i) => `${sub.sweepDir}/results/${i}/${BUNDLE.cell}`)])
    const ids = [...new Set([...named.stdout.toString('utf8').matchAll(/"jobId":"(\d+)"/g)].map((m) => m[1]))]
    return ids.length ? { ids, active: [], via: `the result bundles in ${sub.sweepDir}` } : null
  }

  /**
   * Submissions to this cluster whose process ended before it recorded their job (killed while
   * sbatch ran, or unsure what sbatch did): the job each may have made is looked for
   * (findCutOffJob). One found, queued, running or ended, is adopted when `adopt` allows it (a
   * function: null, or why not) and so do its runs (store.adoptSlurmSubmission: recorded, its runs
   * queued again and followed as any other); one that has ended is merged at once (refresh), so
   * what its tasks wrote is not run again. One not adopted is cancelled if still queued or running
   * (its runs, their process gone, stay interrupted); one that has ended is left as it is, its
   * results unmerged in its folder, and the line says so and why. The submission is forgotten
   * either way. Returns what was found, a line each, and the jobs adopted.
   */
  async lookForCutOff(o: { adopt: boolean | ((sub: SlurmSubmissionRow) => string | null) }): Promise<{ lines: string[]; adopted: SlurmJobRow[] }> {
    const { store, shell } = this.d
    const lines: string[] = []
    const adopted: SlurmJobRow[] = []
    for (const sub of cutOffSubmissions(store)) {
      if (JSON.stringify(sub.cluster) !== JSON.stringify(shell.ref)) continue
      const job = await this.findCutOffJob(sub)
      let line: string
      if (!job) {
        line = `a submission for run(s) ${sub.runIds.join(', ')} to ${shell.label} was cut off before its job was recorded: no job named ${sub.jobName} is queued there or known to Slurm, and no task of one left results in ${sub.sweepDir}: nothing to cancel or merge`
        store.removeSlurmSubmission(sub.id)
      } else {
        const ended = job.active.length === 0
        const found = `Slurm job ${job.ids.join(', ')} (${sub.jobName}) on ${shell.label}, submitted for run(s) ${sub.runIds.join(', ')} by a p4lab that ended before recording it${ended ? `, ended since (found through ${job.via})` : ''}`
        // One sbatch makes one array: two jobs of the name are not this submission's alone.
        const refused = job.ids.length > 1 ? 'more than one job has its name' : o.adopt === false ? 'its runs are submitted again here' : o.adopt === true ? null : o.adopt(sub)
        const took = refused === null ? store.adoptSlurmSubmission(sub, job.ids[0], `${SLURM_OWNER_PREFIX}${shell.label}`) : { refused }
        if ('job' in took) {
          adopted.push(took.job)
          for (const id of sub.runIds) this.announce(store.getRun(id)!)
          if (!ended) line = `${found}: adopted, its runs queued again and followed as the job's (p4lab slurm follow merges them)`
          else {
            try {
              const p = await this.refresh(took.job.id)
              line = `${found}: adopted and its results merged: ${p.tasks.map((t) => `run ${t.runId} ${t.runStatus}`).join(', ')}`
            } catch (err) {
              line = `${found}: adopted, its results not merged yet (${err instanceof Error ? err.message : String(err)}): p4lab slurm follow merges them`
            }
          }
        } else if (!store.removeSlurmSubmission(sub.id)) {
          // Another p4lab looking at the same time (the app and a command) took it first: the job
          // is that one's to follow or cancel, and a scancel here would end a job it adopted.
          line = `${found}: left to another p4lab, which looked at it at the same time`
        } else if (job.active.length) {
          try {
            await check(shell, ['scancel', ...job.active])
          } catch (err) {
            // Not cancelled: the submission stays for the next look.
            const { id: _, startedAt: __, ...again } = sub
            store.addSlurmSubmission(again)
            throw err
          }
          line = `${found}: cancelled (scancel), not adopted: ${took.refused}`
        } else line = `${found}: not adopted, its results left unmerged in ${sub.sweepDir}: ${took.refused}`
      }
      for (const id of sub.runIds) if (store.getRun(id)) store.addLog(id, 'slurm', line)
      lines.push(line)
    }
    return { lines, adopted }
  }

  /**
   * A submission that did not go through, or whose answer cannot be read: its runs fail with why
   * (they would otherwise stay queued while this process lives). Returns the error to throw.
   */
  private notSubmitted(runs: RunRow[], why: string, cause?: unknown): Error {
    for (const r of runs) this.announce(this.d.store.setRunStatus(r.id, 'failed', { error: why }))
    return new Error(why, cause === undefined ? {} : { cause })
  }

  private announce(run: RunRow): void {
    this.d.announce?.(run)
  }
}

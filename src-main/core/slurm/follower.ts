// The app's side of Slurm sweeps: submits an experiment's cells to a saved cluster and follows
// every open job array in the background (squeue/sacct, merging finished tasks), telling the
// UI as it goes. The job ids are in the store, so a reopened app picks its sweeps up again
// (followOpen), and a follow that loses the login node retries until it is back.
import type { SlurmJobView } from '../../contract'
import { CoreError, notFound } from '../errors'
import { HostKeyChangedError, HostKeyUnknownError } from '../ssh'
import type { ExperimentSpec } from '../spec'
import type { RunRow, Store } from '../store'
import { cellsToResume, sweepMatrix } from '../sweeps'
import { loginLabel, type ClusterService } from './clusters'
import { SlurmSweeps, cutOffSubmissions, type SlurmSubmitOptions } from './sweep'

export interface SlurmSubmitInput {
  experimentId: number
  cluster: string
  /** undefined: the cluster's default; null: none. */
  partition?: string | null
  account?: string | null
  time?: string | null
  cpusPerTask?: number
  maxParallel?: number
  resume?: boolean
}

interface Loop {
  abort: AbortController
  done: Promise<void>
  error: string | null
}

export class SlurmFollower {
  private readonly loops = new Map<number, Loop>()
  private stopped = false

  constructor(
    private readonly d: {
      store: Store
      clusters: ClusterService
      /** The experiment's spec as a run reads it (its file re-read). */
      specOf: (experimentId: number) => ExperimentSpec
      announce: (run: RunRow) => void
      progress: (job: SlurmJobView) => void
      intervalMs?: number
    },
  ) {}

  /**
   * Follows every job array the store has open (the app started, or reopened mid-sweep), and
   * adopts (then follows) or cancels the jobs of submissions cut off before their record;
   * resolves once those are done.
   */
  followOpen(): Promise<void> {
    for (const j of this.d.store.listSlurmJobs({ open: true })) this.follow(j.id)
    return this.lookForCutOff()
  }

  /**
   * SlurmSweeps.lookForCutOff on each cluster a cut-off submission went to, what it finds written
   * to the runs' logs; a job adopted is followed. A cluster that cannot be reached now is looked
   * at on the next start (or by p4lab slurm status).
   */
  private async lookForCutOff(): Promise<void> {
    const { store } = this.d
    const clusters = new Map(cutOffSubmissions(store).map((s) => [JSON.stringify(s.cluster), s.cluster]))
    for (const ref of clusters.values()) {
      if (this.stopped || !store.open) return
      let shell
      try {
        shell = await this.d.clusters.shellFor(ref)
        const { adopted } = await new SlurmSweeps({ store, shell, announce: this.d.announce }).lookForCutOff({ adopt: true })
        for (const j of adopted) this.follow(j.id)
      } catch {
        // Left for the next look: the submission stays in the store.
      } finally {
        shell?.close()
      }
    }
  }

  async submit(req: SlurmSubmitInput): Promise<{ job: SlurmJobView; runIds: number[] }> {
    const { store } = this.d
    const exp = store.getExperiment(req.experimentId)
    if (!exp) throw notFound('experiment', req.experimentId)
    const spec = this.d.specOf(exp.id)
    if (spec.testbed !== 'sim') throw new CoreError('conflict', `experiment '${exp.name}' runs on testbed '${spec.testbed}': only simulator experiments (testbed: sim) run on a Slurm cluster`)
    const cluster = this.d.clusters.row(req.cluster)
    const m = sweepMatrix(store, exp.id)
    const cells = req.resume ? cellsToResume(m) : m.cells.filter((c) => c.inSpec)
    if (cells.length === 0) throw new CoreError('conflict', req.resume ? `every cell of '${exp.name}' is done, incomplete or running: nothing to resume` : `'${exp.name}' has no cells`)
    const pick = <T>(v: T | null | undefined, dflt: T | null): T | undefined => (v === undefined ? (dflt ?? undefined) : (v ?? undefined))
    const partition = pick(req.partition, cluster.partition)
    const account = pick(req.account, cluster.account)
    const time = pick(req.time, cluster.time)
    const opts: SlurmSubmitOptions = {
      workDir: this.d.clusters.workDir(cluster),
      ...(partition ? { partition } : {}),
      ...(account ? { account } : {}),
      ...(time ? { time } : {}),
      ...(req.cpusPerTask ? { cpusPerTask: req.cpusPerTask } : {}),
      ...(req.maxParallel ? { maxParallel: req.maxParallel } : {}),
    }
    const shell = await this.d.clusters.shellFor(cluster.login)
    try {
      const sweeps = new SlurmSweeps({ store, shell, announce: this.d.announce })
      let sub
      try {
        sub = await sweeps.submit(exp, spec, cells, opts)
      } catch (err) {
        const cause = (err as { cause?: unknown }).cause
        if (err instanceof HostKeyUnknownError || cause instanceof HostKeyUnknownError) {
          throw new CoreError('conflict', `the login node of cluster '${cluster.name}' (${loginLabel(cluster.login)}) is not trusted yet: check the cluster (Clusters, or p4lab cluster check) and confirm its host key first`)
        }
        if (err instanceof HostKeyChangedError || cause instanceof HostKeyChangedError) throw new CoreError('conflict', (err as Error).message)
        throw new CoreError('internal', (err as Error).message)
      }
      for (const r of sub.runs) this.d.announce(store.getRun(r.id)!)
      const view = this.view(sub.job.id)
      this.d.progress(view)
      this.follow(sub.job.id)
      return { job: view, runIds: sub.runs.map((r) => r.id) }
    } finally {
      shell.close()
    }
  }

  jobs(experimentId: number): SlurmJobView[] {
    return this.d.store.listSlurmJobs({ experimentId }).map((j) => this.view(j.id))
  }

  /** scancel every open job array of the experiment, waiting for each follow loop to let go first. */
  async cancel(experimentId: number): Promise<SlurmJobView[]> {
    const { store } = this.d
    const open = store.listSlurmJobs({ experimentId, open: true })
    const out: SlurmJobView[] = []
    for (const j of open) {
      const loop = this.loops.get(j.id)
      if (loop) {
        // One look at a time per job: a merge running now finishes before scancel's settle.
        loop.abort.abort()
        await loop.done
      }
      const shell = await this.d.clusters.shellFor(j.cluster)
      try {
        const p = await new SlurmSweeps({ store, shell, announce: this.d.announce }).cancel(j.id)
        if (!p.ended) this.follow(j.id)
      } catch (err) {
        this.follow(j.id)
        throw new CoreError('internal', `could not cancel Slurm job ${j.jobId} on ${shell.label}: ${(err as Error).message}`)
      } finally {
        shell.close()
      }
      const v = this.view(j.id)
      this.d.progress(v)
      out.push(v)
    }
    return out
  }

  /** Stops following (the app quits); the jobs go on on the cluster and are picked up next time. */
  async stop(): Promise<void> {
    this.stopped = true
    const loops = [...this.loops.values()]
    for (const l of loops) l.abort.abort()
    await Promise.all(loops.map((l) => l.done))
  }

  view(id: number): SlurmJobView {
    const { store } = this.d
    const job = store.getSlurmJob(id)
    if (!job) throw notFound('Slurm job record', id)
    const tasks = store.listSlurmTasks(id)
    const states: Record<string, number> = {}
    for (const t of tasks) states[t.state] = (states[t.state] ?? 0) + 1
    return {
      id: job.id,
      experimentId: job.experimentId,
      jobId: job.jobId,
      cluster: loginLabel(job.cluster),
      submittedAt: job.submittedAt,
      ended: job.endedAt !== null,
      tasks: tasks.length,
      settled: tasks.filter((t) => t.settled).length,
      states,
      error: this.loops.get(id)?.error ?? null,
    }
  }

  private follow(id: number): void {
    if (this.stopped || this.loops.has(id)) return
    const { store } = this.d
    const intervalMs = this.d.intervalMs ?? 3000
    const loop: Loop = { abort: new AbortController(), done: Promise.resolve(), error: null }
    const signal = loop.abort.signal
    this.loops.set(id, loop)
    loop.done = (async () => {
      try {
        while (!signal.aborted && store.open) {
          const job = store.getSlurmJob(id)
          if (!job || job.endedAt !== null) return
          let shell
          try {
            shell = await this.d.clusters.shellFor(job.cluster)
            const sweeps = new SlurmSweeps({ store, shell, announce: this.d.announce })
            const p = await sweeps.follow(id, {
              intervalMs,
              signal,
              onProgress: () => {
                loop.error = null
                if (store.open) this.d.progress(this.view(id))
              },
            })
            if (p.ended) return
          } catch (err) {
            if (!store.open) return
            loop.error = `could not look at Slurm job ${job.jobId} on ${loginLabel(job.cluster)} (trying again): ${(err as Error).message}`
            this.d.progress(this.view(id))
          } finally {
            shell?.close()
          }
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, intervalMs * 3)
            signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
          })
        }
      } finally {
        this.loops.delete(id)
      }
    })()
  }
}

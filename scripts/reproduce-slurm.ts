// `npm run reproduce -- --on slurm`: the runs a reproduce would make here go to a Slurm cluster
// instead, one job array per spec (a template, or a sweep's row) through core/slurm's
// SlurmSweeps, and come back as runs of the reproduce database as a local run would (each
// task's bundle merged). The flags are `p4lab run --on slurm`'s, parsed and checked by the same
// code (cli/slurm.ts); a saved cluster (--cluster) is read from the user's p4lab database.
import { existsSync } from 'node:fs'
import type { Core } from '../src-main/core'
import { defaultDbPath, userDataDir } from '../src-main/core/paths'
import { FileSecretStore, defaultSecretsPath } from '../src-main/core/secrets'
import { ClusterService, SlurmSweeps, SubmitCancelledError, cutOffSubmissions, loginLabel, type ClusterShell, type SlurmProgress, type SlurmSubmitOptions } from '../src-main/core/slurm'
import { p4labKnownHosts } from '../src-main/core/ssh'
import { openStore, type RunRow, type SlurmSubmissionRow, type Store } from '../src-main/core/store'
import { SLURM_RUN_OPTIONS, connectPinned, namedCluster, slurmFlagsAlone, slurmTarget, unknownCluster, type ClusterHost, type SlurmRunValues } from '../src-main/cli/slurm'
import { UsageError } from '../src-main/cli/common'
import type { Ledger } from './reproduce-ledger'

/** `p4lab run --on slurm`'s flags but --detach: a reproduce needs its runs back to write the page. */
export const REPRODUCE_SLURM_OPTIONS = Object.fromEntries(Object.entries(SLURM_RUN_OPTIONS).filter(([k]) => k !== 'detach')) as Omit<typeof SLURM_RUN_OPTIONS, 'detach'>

export const REPRODUCE_SLURM_USAGE = [
  '--on slurm: the runs to make (what --plan lists as to run) go to a Slurm cluster, one job array per template,',
  '  and the sensitivity sweeps too (one job array per sweep row); they come back into the database as local runs do.',
  '  Where: --cluster NAME (saved with p4lab cluster add), --login USER@HOST[:PORT] [--key FILE] [--trust-host-key SHA256:...],',
  '  or neither (this machine is the login node); --work DIR (shared folder), --partition, --account, --time,',
  '  --cpus-per-task N, --max-parallel M, --node PATH; --time must cover the longest run (a full HULA Fig. 5b run takes',
  '  about 5 CPU-minutes on a 2-core reference machine; allow for slower nodes). Ctrl-C cancels the jobs (scancel) and',
  '  keeps the runs that finished; jobs a killed invocation',
  '  left on the cluster are followed by the next one with the same cluster, not submitted again; so is one it was',
  '  killed before recording (merged at once if it has ended), unless its runs were made for another simulator',
  '  or --fresh is given: then it is cancelled (an ended one left unmerged) and its cells submitted again, as said.',
]

/** Where the runs go: the cluster's name for the page and the log, the sbatch options, and a shell opened on first use. */
export class SlurmPlace {
  private opened: Promise<ClusterShell> | undefined

  constructor(
    /** The saved cluster's name, or the login node (`me@host:22`, `this machine`). */
    readonly name: string,
    readonly opts: SlurmSubmitOptions,
    private readonly connect: () => Promise<ClusterShell>,
    /** How often the jobs are looked at. */
    readonly intervalMs = 5000,
    /** `name` is a saved cluster's, not a login. */
    private readonly named = false,
  ) {}

  /** Where the runs ran, for the page: the saved cluster, or the one reached through a login node. */
  get where(): string {
    return this.name === loginLabel({ kind: 'local' }) ? 'the cluster whose login node is this machine' : this.named ? `the cluster ${this.name}` : `the cluster reached through ${this.name}`
  }

  shell(): Promise<ClusterShell> {
    this.opened ??= this.connect()
    return this.opened
  }

  close(): void {
    void this.opened?.then((s) => s.close()).catch(() => {})
  }
}

/**
 * The Slurm place the flags name, or undefined without --on slurm. Throws a UsageError naming
 * the flag at fault (Slurm flags without --on slurm, --parallel with it, an unknown saved
 * cluster, a malformed --login) before anything is submitted; nothing connects until a run is
 * to be submitted.
 */
export function reproduceSlurm(core: Core, values: SlurmRunValues & { parallel?: string }): SlurmPlace | undefined {
  const onSlurm = values.on === 'slurm'
  slurmFlagsAlone(values, onSlurm)
  if (!onSlurm) return undefined
  if (values.parallel !== undefined) throw new UsageError('--parallel sets the runs at a time here; on Slurm give --max-parallel (tasks at a time)')
  const named = namedCluster(values, undefined)
  let host: ClusterHost = core
  let userStore: Store | undefined
  if (named !== undefined) {
    // Saved clusters live in the user's p4lab database, not in the reproduce one.
    const file = defaultDbPath()
    if (!existsSync(file)) throw unknownCluster(values, named, [])
    userStore = openStore(file)
    const dir = userDataDir()
    const knownHosts = p4labKnownHosts(dir)
    host = { opts: { store: userStore, knownHosts }, clusters: new ClusterService({ store: userStore, knownHosts, secrets: new FileSecretStore(defaultSecretsPath(dir)) }) }
  }
  try {
    const { ref, opts } = slurmTarget(host, values, undefined)
    const name = named ?? loginLabel(ref)
    const trust = typeof values['trust-host-key'] === 'string' ? values['trust-host-key'] : undefined
    return new SlurmPlace(name, opts, async () => {
      try {
        return await connectPinned(host, ref, trust)
      } finally {
        userStore?.close()
      }
    }, undefined, named !== undefined)
  } catch (err) {
    userStore?.close()
    throw err
  }
}

export interface SlurmSpecRuns {
  /** The spec's key (template or sweep row) for the log. */
  key: string
  yaml: string
  file: string
  spec: Parameters<SlurmSweeps['submit']>[1]
  cells: Array<{ scheme: string; load: number; seed: number }>
  /** Told of the runs, in the cells' order, before sbatch runs (the ledger records them there). */
  created?: (runs: RunRow[]) => void
}

/**
 * Looks on the cluster for the jobs of submissions cut off before their record (an invocation
 * killed while sbatch ran, or before it recorded the job) and adopts each whose runs the ledger
 * holds for this simulator: the runner records a submission's runs in the ledger before sbatch
 * runs, keyed as every run (spec, computation, simulator, cell), so an adopted job's runs are
 * found by plan() as any other: followed while open, reused once done (one that has ended is
 * merged by the look). Not adopted, and so cancelled (or, ended, left unmerged in its folder),
 * the job of runs the ledger lacks or holds for another simulator (their results would not be
 * used: the cells are submitted again), and every job under --fresh. Each line is logged.
 */
export async function adoptCutOff(core: Core, place: SlurmPlace, o: { ledger: Pick<Ledger, 'get'>; fingerprint: string; fresh: boolean; log: (line: string) => void }): Promise<void> {
  const store = core.opts.store
  if (cutOffSubmissions(store).length === 0) return
  const why = (sub: SlurmSubmissionRow): string | null => {
    if (o.fresh) return '--fresh runs every cell anew'
    for (const id of sub.runIds) {
      const l = o.ledger.get(id)
      if (!l) return `run ${id} is not in the reproduce ledger (no invocation would use it): its cell is submitted again`
      if (l.fingerprint !== o.fingerprint) return `run ${id} was made for simulator ${l.fingerprint}, not this one (${o.fingerprint}): its cell is submitted again`
    }
    return null
  }
  try {
    const shell = await place.shell()
    for (const line of (await new SlurmSweeps({ store, shell }).lookForCutOff({ adopt: why })).lines) o.log(`reproduce: ${line}`)
  } catch (err) {
    o.log(`reproduce: could not look on ${place.name} for the jobs of submissions cut off before their record (the next invocation looks again): ${(err as Error).message}`)
  }
}

const countText = (states: Record<string, number>) =>
  Object.entries(states)
    .sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${n} ${s}`)
    .join(', ')

/**
 * Submits each spec's cells as one job array and returns their runs, in the cells' order. When a
 * submission fails, the arrays already submitted are cancelled and the error thrown. On abort it
 * submits nothing more: a submission under way stops before sbatch (its runs cancelled) or is
 * recorded, and the specs left are not submitted, so `runs` is shorter than `specs`; the arrays
 * submitted are returned for the caller to cancel (followJobs does on abort).
 */
export async function submitSpecs(core: Core, place: SlurmPlace, specs: readonly SlurmSpecRuns[], log: (line: string) => void, signal?: AbortSignal): Promise<{ jobs: number[]; runs: RunRow[][] }> {
  const shell = await place.shell()
  const store = core.opts.store
  const sweeps = new SlurmSweeps({ store, shell })
  const jobs: number[] = []
  const runs: RunRow[][] = []
  try {
    for (const s of specs) {
      if (signal?.aborted) break
      const exp = core.findOrCreateExperiment(s.yaml, s.file)
      let sub
      try {
        sub = await sweeps.submit(exp, s.spec, s.cells, place.opts, signal, s.created)
      } catch (err) {
        if (!(err instanceof SubmitCancelledError)) throw err
        log(`reproduce: ${s.key}: ${err.message}`)
        break
      }
      jobs.push(sub.job.id)
      runs.push(sub.runs)
      log(`reproduce: ${s.key}: ${s.cells.length} runs submitted as Slurm job ${sub.job.jobId} on ${place.name}`)
    }
  } catch (err) {
    for (const j of jobs) await sweeps.cancel(j).catch(() => undefined)
    throw err
  }
  const left = specs.length - runs.length
  if (left) log(`reproduce: stopped submitting: ${left} job array${left === 1 ? '' : 's'} not submitted`)
  return { jobs, runs }
}

/**
 * Follows the job arrays until every task is settled (merged, or its run failed or cancelled),
 * calling `settled` once per run as it settles and logging the tasks' Slurm states whenever they
 * change. On abort every array still open is cancelled (scancel) and what completed is merged.
 * A look that fails (the login node unreachable a while) is logged and tried again.
 */
export async function followJobs(core: Core, place: SlurmPlace, jobs: readonly number[], o: { log: (line: string) => void; settled: (runId: number) => void; signal?: AbortSignal }): Promise<void> {
  const shell = await place.shell()
  const sweeps = new SlurmSweeps({ store: core.opts.store, shell })
  const seen = new Set<number>()
  const latest = new Map<number, SlurmProgress>()
  let lastLine = ''
  const take = (p: SlurmProgress, job: number) => {
    latest.set(job, p)
    for (const t of p.tasks) {
      if (t.settled && !seen.has(t.runId)) {
        seen.add(t.runId)
        o.settled(t.runId)
      }
    }
  }
  const report = () => {
    const states: Record<string, number> = {}
    let settled = 0
    let tasks = 0
    for (const p of latest.values()) {
      for (const [s, n] of Object.entries(p.states)) states[s] = (states[s] ?? 0) + n
      settled += p.tasks.filter((t) => t.settled).length
      tasks += p.tasks.length
    }
    const line = `reproduce: Slurm on ${place.name}: ${jobs.length} job array${jobs.length === 1 ? '' : 's'}, ${settled}/${tasks} tasks settled: ${countText(states)}`
    if (line !== lastLine) o.log(line)
    lastLine = line
  }
  let open = [...jobs]
  while (open.length) {
    if (o.signal?.aborted) {
      o.log(`reproduce: cancelling ${open.length} Slurm job array${open.length === 1 ? '' : 's'} on ${place.name} (scancel); the runs that finished are kept`)
      for (const j of open) take(await sweeps.cancel(j), j)
      report()
      return
    }
    for (const j of open) {
      try {
        take(await sweeps.refresh(j), j)
      } catch (err) {
        o.log(`reproduce: could not look at Slurm job ${core.opts.store.getSlurmJob(j)?.jobId ?? j} on ${place.name} (trying again): ${(err as Error).message}`)
      }
    }
    report()
    open = open.filter((j) => !latest.get(j)?.ended)
    if (!open.length) return
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, place.intervalMs)
      o.signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
    })
  }
}

/** A merged run's CPU and wall time on its node (from its bundle), or null where the bundle did not say. */
export function nodeTimes(run: RunRow): { cpuMs: number | null; wallMs: number | null } {
  const f = run.facts ?? {}
  return { cpuMs: typeof f.cpuMs === 'number' ? f.cpuMs : null, wallMs: typeof f.wallMs === 'number' ? f.wallMs : null }
}

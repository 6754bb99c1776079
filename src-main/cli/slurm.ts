// `p4lab run FILE --on slurm` and `p4lab slurm follow|cancel`: the CLI side of core/slurm.
import { constants, homedir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Core } from '../core'
import { cellKey, cellsToResume, sweepMatrix } from '../core/sweeps'
import { HostKeyUnknownError, p4labKnownHosts, type KnownHosts } from '../core/ssh'
import { userDataDir } from '../core/paths'
import { SlurmSweeps, SubmitCancelledError, cutOffSubmissions, loginLabel, type ClusterService, type ClusterShell, type SlurmProgress, type SlurmSubmitOptions } from '../core/slurm'
import type { ClusterRow, ExperimentRow, SlurmClusterRef, SlurmJobRow, Store } from '../core/store'
import type { ExperimentSpec, RunnerSpec } from '../core/spec'
import { printable } from '../model/printable'
import { openCore, COMMON_OPTIONS, UsageError, type Command } from './common'

export const SLURM_RUN_OPTIONS = {
  on: { type: 'string' },
  cluster: { type: 'string' },
  login: { type: 'string' },
  key: { type: 'string' },
  'trust-host-key': { type: 'string' },
  work: { type: 'string' },
  partition: { type: 'string' },
  account: { type: 'string' },
  time: { type: 'string' },
  'cpus-per-task': { type: 'string' },
  'max-parallel': { type: 'string' },
  node: { type: 'string' },
  detach: { type: 'boolean', default: false },
} as const

export const SLURM_RUN_USAGE = [
  '    --on slurm runs the cells as one Slurm job array: on a saved cluster (--cluster NAME, see p4lab cluster),',
  '      or the runner: of the file (--on local runs it here anyway); on this machine as the login node, or',
  '      --login USER@HOST[:PORT] [--key FILE] [--trust-host-key SHA256:...] over SSH; --work DIR (shared folder,',
  '      default ~/.p4lab/slurm), --partition, --account, --time, --cpus-per-task N, --max-parallel M, --node PATH,',
  '      --detach (submit only; `p4lab slurm follow` later)',
]

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer, got '${text}'`)
  return n
}

/** USER@HOST[:PORT] → the stored reference (no secret in it). */
export function parseLogin(login: string, keyFile: string | undefined): SlurmClusterRef {
  const m = /^([^@\s]+)@(\[[^\]]+\]|[^:\s]+)(?::(\d+))?$/.exec(login)
  if (!m) throw new UsageError(`--login must be USER@HOST or USER@HOST:PORT, got '${login}'`)
  return { kind: 'ssh', user: m[1], host: m[2].replace(/^\[|\]$/g, ''), port: m[3] ? Number(m[3]) : 22, keyFile: keyFile ?? null }
}

/**
 * Where saved clusters are read and login nodes reached from: a core (its store), or the user's
 * database beside another store (`npm run reproduce` runs into a database of its own).
 */
export interface ClusterHost {
  opts: { store: Store; knownHosts?: KnownHosts }
  clusters: ClusterService
}

const knownHostsOf = (core: ClusterHost): KnownHosts => core.opts.knownHosts ?? p4labKnownHosts(userDataDir())

/** The testbeds' known_hosts and secrets (a login node pinned once is pinned for both); a saved cluster's passphrase. */
export function clusterShell(core: ClusterHost, ref: SlurmClusterRef): Promise<ClusterShell> {
  return core.clusters.shellFor(ref)
}

/** The Slurm flags given without --on slurm: refused, naming the first. */
export function slurmFlagsAlone(values: SlurmRunValues, onSlurm: boolean, without = '--on slurm'): void {
  if (values.on !== undefined && values.on !== 'slurm' && values.on !== 'local') throw new UsageError(`--on takes slurm or local, got '${String(values.on)}'`)
  const given = (Object.keys(SLURM_RUN_OPTIONS) as Array<keyof typeof SLURM_RUN_OPTIONS>).filter((k) => k !== 'on' && values[k] !== undefined && values[k] !== false)
  if (!onSlurm && given.length) throw new UsageError(`--${given[0]} goes with ${without}`)
}

/** A first contact with an unknown login node: pinned only when the user names its fingerprint. */
export async function connectPinned(core: ClusterHost, ref: SlurmClusterRef, trust: string | undefined): Promise<ClusterShell> {
  const shell = await clusterShell(core, ref)
  try {
    await shell.run(['true'])
    return shell
  } catch (err) {
    shell.close()
    if (!(err instanceof HostKeyUnknownError)) throw err
    if (trust !== err.fingerprint) {
      throw new Error(`${err.message}\n  check it with the cluster's administrators, then run again with --trust-host-key ${err.fingerprint}`, { cause: err })
    }
    await knownHostsOf(core).trust(err.host, err.port, err.key)
    process.stderr.write(`p4lab: pinned the ${err.keyType} key ${err.fingerprint} of ${err.hostLabel}\n`)
    return clusterShell(core, ref)
  }
}

export type SlurmRunValues = { [K in keyof typeof SLURM_RUN_OPTIONS]?: string | boolean }

/** The saved cluster a run names: --cluster, else (without --login) the file's runner.cluster. */
export function namedCluster(values: SlurmRunValues, runner: RunnerSpec | undefined): string | undefined {
  if (typeof values.cluster === 'string') return values.cluster
  return values.login || runner?.kind !== 'slurm' ? undefined : runner.cluster
}

export function unknownCluster(values: SlurmRunValues, name: string, known: string[]): UsageError {
  const where = values.cluster ? '--cluster' : 'runner.cluster in the experiment file'
  return new UsageError(`${where}: no saved Slurm cluster '${name}' (${known.length ? `saved: ${known.join(', ')}` : 'none saved yet'}); add it with p4lab cluster add ${name} --login USER@HOST --work DIR`)
}

/**
 * Where and how a sweep goes: a saved cluster (--cluster, else the file's runner:) or an ad-hoc
 * login (--login, or this machine); each sbatch option from its flag, else the file's runner:,
 * else the saved cluster's default. Throws a UsageError before anything is written.
 */
export function slurmTarget(core: ClusterHost, values: SlurmRunValues, runner: RunnerSpec | undefined): { ref: SlurmClusterRef; opts: SlurmSubmitOptions } {
  const v = values as Record<string, string | undefined>
  const fromFile = runner?.kind === 'slurm' ? runner : undefined
  if (v.cluster && v.login) throw new UsageError('give --cluster NAME (a saved cluster) or --login USER@HOST, not both')
  if (!v.login && v.key) throw new UsageError('--key goes with --login')
  const name = namedCluster(values, runner)
  let saved: ClusterRow | undefined
  if (name !== undefined) {
    saved = core.opts.store.getCluster(name)
    if (!saved) throw unknownCluster(values, name, core.opts.store.listClusters().map((c) => c.name))
  }
  const ref: SlurmClusterRef = saved ? saved.login : v.login ? parseLogin(v.login, v.key) : { kind: 'local' }
  const partition = v.partition ?? fromFile?.partition ?? saved?.partition ?? undefined
  const account = v.account ?? fromFile?.account ?? saved?.account ?? undefined
  const time = v.time ?? fromFile?.time ?? saved?.time ?? undefined
  const cpusPerTask = positiveInt('cpus-per-task', v['cpus-per-task']) ?? fromFile?.cpusPerTask
  const maxParallel = positiveInt('max-parallel', v['max-parallel']) ?? fromFile?.maxParallel
  const opts: SlurmSubmitOptions = {
    workDir: v.work ?? (saved ? core.clusters.workDir(saved) : ref.kind === 'local' ? join(homedir(), '.p4lab', 'slurm') : '.p4lab/slurm'),
    ...(partition ? { partition } : {}),
    ...(account ? { account } : {}),
    ...(time ? { time } : {}),
    ...(cpusPerTask ? { cpusPerTask } : {}),
    ...(maxParallel ? { maxParallel } : {}),
    ...(v.node ? { node: v.node } : {}),
  }
  return { ref, opts }
}

function bar(p: SlurmProgress): string {
  const n = p.tasks.length
  const settled = p.tasks.filter((t) => t.settled).length
  const width = 30
  const fill = Math.round((settled / Math.max(1, n)) * width)
  const states = Object.entries(p.states).map(([s, k]) => `${k} ${s}`).join(', ')
  return `[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${settled}/${n} settled: ${states}`
}

/**
 * Follows a submitted job to its end, a progress line on stderr; Ctrl-C cancels it (scancel).
 * `interrupt`: the caller's Ctrl-C instead of one caught here; aborted already, the job is cancelled at once.
 */
export async function followJob(sweeps: SlurmSweeps, slurmJob: number, o: { intervalMs?: number; interrupt?: AbortSignal } = {}): Promise<SlurmProgress> {
  const intervalMs = o.intervalMs ?? 2000
  const abort = new AbortController()
  let cancelling: Promise<SlurmProgress> | null = null
  const onSigint = () => {
    if (cancelling) return
    process.stderr.write('\np4lab: cancelling the Slurm job (scancel)...\n')
    abort.abort()
    cancelling = sweeps.cancel(slurmJob)
  }
  const interrupt = o.interrupt
  if (interrupt) interrupt.addEventListener('abort', onSigint, { once: true })
  else process.on('SIGINT', onSigint)
  if (interrupt?.aborted) onSigint()
  const tty = process.stderr.isTTY
  let last = ''
  try {
    const p = await sweeps.follow(slurmJob, {
      intervalMs,
      signal: abort.signal,
      onProgress: (q) => {
        const line = bar(q)
        if (line === last) return
        last = line
        // The guard on stderr (cli/main.ts) escapes every CR and ESC of a string, so the line
        // is escaped here and only this redraw's own CR and erase-line go out as bytes.
        if (tty) process.stderr.write(Buffer.from(`\r${printable(line)}\x1b[K`))
        else process.stderr.write(`${line}\n`)
      },
    })
    if (tty) process.stderr.write('\n')
    return cancelling ? await cancelling : p
  } finally {
    if (interrupt) interrupt.removeEventListener('abort', onSigint)
    else process.off('SIGINT', onSigint)
  }
}

function outcome(core: Core, p: SlurmProgress): number {
  const store = core.opts.store
  for (const t of p.tasks) {
    const r = store.getRun(t.runId)!
    process.stdout.write(`run ${r.id} ${r.scheme} load=${r.load} seed=${r.seed}: ${r.status} (Slurm ${t.state}${t.reason ? `: ${t.reason}` : ''})${r.error && r.status !== 'done' ? ` ${r.error}` : ''}\n`)
  }
  const statuses = p.tasks.map((t) => store.getRun(t.runId)!.status)
  if (statuses.some((s) => s === 'cancelled')) return 130
  return statuses.every((s) => s === 'done') ? 0 : 1
}

/**
 * Follows each job to its end in turn (one that has ended answers at once) and says how each of
 * its runs in `runs` ended (an adopted job's failed task was submitted again: not its outcome);
 * the exit status is the worst: 130 for one cancelled, else 1 unless all are done.
 */
async function followAll(core: Core, sweeps: SlurmSweeps, jobs: readonly number[], runs: ReadonlySet<number>, interrupt: AbortSignal): Promise<number> {
  let code = 0
  for (const j of jobs) {
    const p = await followJob(sweeps, j, { interrupt })
    const c = outcome(core, { ...p, tasks: p.tasks.filter((t) => runs.has(t.runId)) })
    code = c === 130 || code === 130 ? 130 : Math.max(code, c)
  }
  return code
}

/** Besides SIGINT, the signals a submission catches (`kill`, a terminal closed) until its job is recorded. */
const SUBMIT_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP']

export async function runOnSlurm(core: Core, exp: ExperimentRow, resume: boolean, target: { ref: SlurmClusterRef; opts: SlurmSubmitOptions }, values: SlurmRunValues): Promise<number> {
  const v = values as Record<string, string | undefined> & { detach?: boolean }
  const { ref, opts } = target
  const store = core.opts.store
  const spec = exp.spec as ExperimentSpec
  const m = sweepMatrix(store, exp.id)
  let cells = resume ? cellsToResume(m) : m.cells.filter((c) => c.inSpec)
  if (resume) process.stderr.write(`p4lab: resuming on Slurm: ${m.cells.filter((c) => c.doneRunId !== null).length} of ${m.cells.length} cell(s) already done, ${cells.length} to submit\n`)
  if (cells.length === 0) return 0
  // Ctrl-C is this command's from here to the end, and so are `kill` (SIGTERM) and a terminal
  // closed (SIGHUP) until the job is recorded: left to their default they end the process at
  // once, and one between sbatch and the job's record left a job on the cluster that nothing
  // follows, its runs queued for ever. Before sbatch runs one stops the submission (the runs
  // cancelled); after, the submission is recorded first and its job then cancelled. The exit
  // status is 128 + the first signal's number. Once the job is recorded SIGTERM and SIGHUP take
  // their default again: the job goes on, and the app or `p4lab slurm follow` follows it. The
  // default is restored by the handler (it lets go and raises the signal again), not by removing
  // it at the record: Node drops a signal caught but not yet handed to its listener when the
  // last listener goes, so one sent while sbatch ran and handled just after its answer did nothing
  // at all (the command then followed its job as if never signalled).
  const interrupt = new AbortController()
  let caught: NodeJS.Signals = 'SIGINT'
  let recorded = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (recorded && signal !== 'SIGINT') {
      for (const s of SUBMIT_SIGNALS) process.off(s, onSignal)
      process.kill(process.pid, signal)
      return
    }
    if (interrupt.signal.aborted) return
    caught = signal
    process.stderr.write(`\np4lab: ${signal === 'SIGINT' ? '' : `${signal}: `}cancelling...\n`)
    interrupt.abort()
  }
  const interrupted = () => 128 + constants.signals[caught]
  process.on('SIGINT', onSignal)
  for (const s of SUBMIT_SIGNALS) process.on(s, onSignal)
  try {
    const shell = await connectPinned(core, ref, v['trust-host-key'])
    try {
      const sweeps = new SlurmSweeps({ store, shell })
      // The jobs of this experiment adopted here and the runs of theirs that carry a cell: followed
      // with the job submitted, or alone, and said as its runs are.
      let mine: SlurmJobRow[] = []
      const carriedRuns = new Set<number>()
      try {
        const look = await sweeps.lookForCutOff({ adopt: true })
        for (const line of look.lines) process.stderr.write(`p4lab: ${line}\n`)
        // A cell a job adopted here carries is that job's (queued again, or merged if it has
        // ended): submitted again, it would run twice. So with --resume or without. A task that
        // ended failed (or cancelled) carries nothing: its cell is submitted again, as any failed one.
        mine = look.adopted.filter((j) => j.experimentId === exp.id)
        if (mine.length) {
          const carried = new Set<string>()
          for (const j of mine) {
            for (const t of store.listSlurmTasks(j.id)) {
              const run = store.getRun(t.runId)
              // A run of an older revision computed another cell: the current one is still to run.
              if (run && !run.stale && (!t.settled || run.status === 'done' || run.status === 'incomplete')) {
                carried.add(cellKey(run))
                carriedRuns.add(run.id)
              }
            }
          }
          cells = (resume ? cellsToResume(sweepMatrix(store, exp.id)) : cells).filter((c) => !carried.has(cellKey(c)))
          process.stderr.write(`p4lab: ${cells.length} cell(s) left to submit beside the job adopted\n`)
          if (cells.length === 0) {
            if (v.detach) return 0
            const code = await followAll(core, sweeps, mine.map((j) => j.id), carriedRuns, interrupt.signal)
            return code === 130 && interrupt.signal.aborted ? interrupted() : code
          }
        }
      } catch (err) {
        process.stderr.write(`p4lab: could not look on ${shell.label} for the jobs of submissions cut off before their record (p4lab slurm status looks again): ${err instanceof Error ? err.message : String(err)}\n`)
      }
      let submitted
      try {
        submitted = await sweeps.submit(exp, spec, cells, opts, interrupt.signal)
      } catch (err) {
        if (!(err instanceof SubmitCancelledError)) throw err
        process.stderr.write(`p4lab: ${err.message}\n`)
        return interrupted()
      } finally {
        recorded = true
      }
      const { job, runnerUploaded } = submitted
      process.stderr.write(`p4lab: submitted ${cells.length} cell(s) as Slurm job ${job.jobId} on ${shell.label} (${job.sweepDir}); runner ${runnerUploaded ? 'uploaded' : 'already there'}\n`)
      if (v.detach && !interrupt.signal.aborted) {
        process.stdout.write(`${job.jobId}\n`)
        return 0
      }
      const code = await followAll(core, sweeps, [job.id, ...mine.map((j) => j.id)], new Set([...store.listSlurmTasks(job.id).map((t) => t.runId), ...carriedRuns]), interrupt.signal)
      return code === 130 && interrupt.signal.aborted ? interrupted() : code
    } finally {
      shell.close()
    }
  } finally {
    for (const s of ['SIGINT', ...SUBMIT_SIGNALS] as const) process.off(s, onSignal)
  }
}

/**
 * Looks on each cluster for the jobs of submissions cut off before their record (a p4lab killed
 * while sbatch ran): each found is adopted (followed from then on as any recorded job) or, when its
 * runs were run again, removed or ended otherwise, cancelled, and what was found is said. A cluster
 * it cannot reach is named and left for the next look.
 */
async function lookForCutOff(core: Core): Promise<void> {
  const store = core.opts.store
  const clusters = new Map(cutOffSubmissions(store).map((s) => [JSON.stringify(s.cluster), s.cluster]))
  for (const ref of clusters.values()) {
    try {
      const shell = await clusterShell(core, ref)
      try {
        for (const line of (await new SlurmSweeps({ store, shell }).lookForCutOff({ adopt: true })).lines) process.stdout.write(`${line}\n`)
      } finally {
        shell.close()
      }
    } catch (err) {
      process.stderr.write(`p4lab: could not look on ${loginLabel(ref)} for the jobs of submissions cut off before their record (p4lab slurm status looks again): ${err instanceof Error ? err.message : String(err)}\n`)
    }
  }
}

async function cmdSlurm(action: string, jobArg: string | undefined, db: string | undefined): Promise<number> {
  const core = openCore(db)
  const store = core.opts.store
  try {
    await lookForCutOff(core)
    const jobs = store.listSlurmJobs({ open: action !== 'status' }).filter((j) => jobArg === undefined || j.jobId === jobArg)
    if (jobArg !== undefined && jobs.length === 0) throw new UsageError(`no ${action === 'status' ? '' : 'open '}Slurm job ${jobArg} in ${store.file}`)
    let code = 0
    for (const j of jobs) {
      const shell = await clusterShell(core, j.cluster)
      try {
        const sweeps = new SlurmSweeps({ store, shell })
        const p = action === 'cancel' ? await sweeps.cancel(j.id) : action === 'follow' ? await followJob(sweeps, j.id) : await sweeps.refresh(j.id)
        process.stdout.write(`Slurm job ${j.jobId} (experiment ${j.experimentId}) on ${shell.label}: ${bar(p)}\n`)
        code = Math.max(code, outcome(core, p))
      } finally {
        shell.close()
      }
    }
    if (jobs.length === 0) process.stdout.write(`no ${action === 'status' ? '' : 'open '}Slurm jobs in ${store.file}\n`)
    return code
  } finally {
    store.close()
  }
}

export const slurmCommand: Command = {
  name: 'slurm',
  usage: ['slurm follow|cancel|status [JOBID] [--db PATH]', '    follow Slurm sweeps to their end and merge them, cancel them (scancel), or look once'],
  run(argv) {
    const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS })
    const [action, job, ...rest] = positionals
    if (!['follow', 'cancel', 'status'].includes(action ?? '')) throw new UsageError('slurm takes follow, cancel or status')
    if (rest.length) throw new UsageError(`slurm ${action} takes one JOBID, got '${rest[0]}' too`)
    return cmdSlurm(action, job, values.db)
  },
}

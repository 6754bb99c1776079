// The runs of `npm run reproduce`: for each resolved spec (a template after --quick, or a
// sweep's variant), reuse every cell (scheme, load, seed) that a run in the database already
// finished `done` for the same spec (its text, or what it computes: a comment edited keeps the
// runs) on the identical simulator (reproduce-ledger.ts), and
// run the others, longest expected first across every spec, so that the cores stay busy at the
// tail; one progress line per finished run, with an ETA; an abort (Ctrl-C) cancels the runs
// under way and keeps those that finished.
import type { Core } from '../src-main/core'
import { cutOffSubmissions } from '../src-main/core/slurm'
import type { ExperimentSpec } from '../src-main/core/spec'
import { expandRuns } from '../src-main/core/spec'
import type { RunRow } from '../src-main/core/store'
import { cdfMean } from '../src-main/sim/workload/cdf'
import { RunCpu } from './reproduce-cpu'
import { computeKey, Ledger, specHash, type Invocation } from './reproduce-ledger'
import { adoptCutOff, followJobs, nodeTimes, submitSpecs, type SlurmPlace } from './reproduce-slurm'

/**
 * CPU seconds per byte a run carries, when the database has no timed run to learn it from:
 * HULA Fig. 5b's runs (20,000 data-mining flows of 12.66 MB on average) took about 12.7
 * CPU-minutes each on the 2-core machine this was written on, about 3 s per GB.
 */
export const DEFAULT_CPU_PER_BYTE = 762 / (20_000 * 12.66e6)

/** What a run is expected to cost: the bytes it carries, which its events are in proportion to. */
export function runCost(spec: ExperimentSpec): number {
  const w = spec.workload
  if (w.kind === 'long-lived' || w.kind === 'permutation') {
    // Saturating flows: bounded by their size, or by the run's end at about a 10G link each.
    const n = w.kind === 'long-lived' ? (w.pairs?.length ?? w.flows ?? 1) : 16
    return n * (w.sizeBytes ?? (spec.stopAfterNs / 1e9) * 1.25e9)
  }
  const background = w.flows * cdfMean(w.cdf)
  if (w.kind !== 'incast') return background
  const fanIn = typeof w.incast.fanIn === 'number' ? w.incast.fanIn : Math.max(...w.incast.fanIn.map(([f]) => f))
  return background + w.incast.events * fanIn * w.incast.flowBytes
}

export interface RunSpec {
  /** Names the spec's runs in the result (a template, or a sweep's row). */
  key: string
  yaml: string
  file: string
}

export interface Cell {
  key: string
  scheme: string
  load: number
  seed: number
  cost: number
  /** A run of this cell that is reused, and when it was made. */
  reuse?: { run: RunRow; cpuMs: number | null; wallMs: number | null; invocationId: number }
  /** Else a run of it an earlier invocation left open on Slurm (it left while its job array ran): followed with --on slurm, not submitted again. */
  open?: RunRow
}

export interface Planned extends RunSpec {
  spec: ExperimentSpec
  hash: string
  /** What its runs compute, however the text is written (reproduce-ledger.ts). */
  computeKey: string
  cells: Cell[]
}

export class Interrupted extends Error {
  constructor(readonly finished: number, readonly cancelled: number) {
    super(`interrupted: ${finished} runs finished and kept in the database, ${cancelled} cancelled; run the same command again to continue`)
  }
}

/** The runs behind a page: how many were reused or made now, their CPU time, and the invocations that made them. */
export interface Totals {
  runs: number
  reused: number
  cpuMs: number
  /** Runs whose CPU time could not be read, counted by their wall time instead. */
  cpuUnknown: number
  /** When the reused runs finished: the earliest and the latest. */
  reusedFrom?: string
  reusedTo?: string
  invocationIds: number[]
}

const fmtDuration = (s: number) => (s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(1)} min` : `${s.toFixed(1)} s`)
export { fmtDuration }

type Todo = { p: Planned; i: number; cell: Cell }

/** The progress lines: one per run that ends, with the runs left and an ETA at the rate so far. */
class Progress {
  finished = 0
  cancelled = 0
  private doneCost = 0
  private doneWallMs = 0
  private readonly start = Date.now()

  constructor(
    private left: number,
    private readonly total: number,
  ) {}

  ended(t: Todo, run: RunRow, cpuMs: number | null, wallMs: number | null, aborted: boolean): string | undefined {
    if (run.status === 'cancelled') {
      this.cancelled++
      // Runs cancelled before they started need no line each: the summary counts them.
      if (wallMs === null) return undefined
    } else {
      this.finished++
      this.doneCost += t.cell.cost
      this.doneWallMs = Date.now() - this.start
    }
    this.left -= t.cell.cost
    const remaining = this.total - this.finished - this.cancelled
    // ETA: the remaining cost at the rate (cost per wall second, all cores together) the finished runs went.
    const eta = remaining > 0 && this.doneCost > 0 && !aborted ? `, ETA ${fmtDuration(((this.left / this.doneCost) * this.doneWallMs) / 1000)}` : ''
    const cpuText = cpuMs === null ? 'CPU unknown' : `${fmtDuration(cpuMs / 1000)} CPU`
    return (
      `reproduce: [${this.finished + this.cancelled}/${this.total}] ${t.p.key} ${run.scheme} load ${run.load} seed ${run.seed}: ${run.status}` +
      `${run.status === 'done' ? '' : run.error ? ` (${run.error})` : ''}, ${wallMs === null ? '?' : fmtDuration(wallMs / 1000)} wall, ${cpuText}; ${remaining} left${eta}`
    )
  }
}

const wallOf = (r: RunRow) => (r.startedAt && r.finishedAt ? Date.parse(r.finishedAt) - Date.parse(r.startedAt) : null)

export class Runner {
  readonly cpu: RunCpu
  private readonly used = new Map<number, { cpuMs: number | null; wallMs: number | null; reused: boolean; finishedAt: string | null; invocationId: number }>()
  private readonly started = Date.now()
  private readonly cpuAtStart = process.cpuUsage()
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly o: {
      core: Core
      ledger: Ledger
      invocation: Invocation
      fingerprint: string
      /** Ignore earlier runs. */
      fresh: boolean
      parallelRuns: number
      log: (line: string) => void
      signal?: AbortSignal
      /** Runs go to this Slurm cluster instead of this machine's cores (reproduce-slurm.ts). */
      slurm?: SlurmPlace
    },
  ) {
    this.cpu = new RunCpu(o.core)
    // Stored every minute too, so a killed invocation loses at most a minute of its wall time.
    this.timer = setInterval(() => this.saveWall(), 60_000)
    this.timer.unref()
  }

  /** The Slurm cluster the runs go to, if they do not run here. */
  get slurm(): SlurmPlace | undefined {
    return this.o.slurm
  }

  get parallelRuns(): number {
    return this.o.parallelRuns
  }

  /** Whether the page's run `id` was reused rather than run by this invocation. */
  isReused(id: number): boolean {
    return this.used.get(id)?.reused ?? false
  }

  stop(): void {
    clearInterval(this.timer)
    this.cpu.stop()
    this.saveWall()
  }

  /** Whether the ledger's rows from before computeKey were keyed in this invocation. */
  private keyed = false

  /** Each spec's cells, with the run each reuses where there is one. */
  plan(specs: readonly RunSpec[]): Planned[] {
    const { core, ledger, fingerprint } = this.o
    // Once an invocation: plan() runs for every template and every sweep, and a row no record vouches for stays unkeyed.
    if (!this.o.fresh && !this.keyed) {
      this.keyed = true
      ledger.backfillComputeKeys((id) => {
        const rec = core.opts.store.getRunRecord(id)
        return rec && !rec.reconstructed ? rec : undefined
      })
    }
    return specs.map((s) => {
      const spec = core.parseOrThrow(s.yaml, s.file)
      const hash = specHash(s.yaml, spec)
      const keyOfRuns = computeKey(spec)
      const cost = runCost(spec)
      const cells = expandRuns(spec).map((c): Cell => {
        const cell: Cell = { key: s.key, ...c, cost }
        if (this.o.fresh) return cell
        for (const l of ledger.candidates({ specHash: hash, computeKey: keyOfRuns, fingerprint, ...c })) {
          const run = core.opts.store.getRun(l.runId)
          if (run && !run.deletedAt && !cell.open && (run.status === 'queued' || run.status === 'running') && core.opts.store.slurmTaskOfRun(run.id)?.settled === false) cell.open = run
          if (run && run.status === 'done' && !run.deletedAt) {
            // A Slurm run merged by another process (p4lab slurm follow) has its times in its facts only.
            const node = nodeTimes(run)
            cell.reuse = { run, cpuMs: l.cpuMs ?? node.cpuMs, wallMs: l.wallMs ?? node.wallMs, invocationId: l.invocationId }
            delete cell.open
            break
          }
        }
        return cell
      })
      return { ...s, spec, hash, computeKey: keyOfRuns, cells }
    })
  }

  /** Estimated CPU seconds of the cells to run, from the database's timed runs or DEFAULT_CPU_PER_BYTE. */
  estimate(cells: readonly Cell[]): { cpuSeconds: number; from: string } {
    const learned = this.o.ledger.cpuPerCost()
    const rate = learned ?? DEFAULT_CPU_PER_BYTE
    const cost = cells.reduce((a, c) => a + c.cost, 0)
    return { cpuSeconds: cost * rate, from: learned ? 'the CPU per byte of the runs timed in this database' : 'about 3 CPU-s per GB carried (HULA Fig. 5b on a 2-core machine)' }
  }

  /** Runs the cells without a reusable run, longest first across all specs; each spec's runs in its cells' order. */
  async run(planned: readonly Planned[]): Promise<Map<string, RunRow[]>> {
    const { ledger, log } = this.o
    const out = new Map<string, Array<RunRow | undefined>>()
    const todo: Todo[] = []
    for (const p of planned) {
      out.set(p.key, p.cells.map((c) => c.reuse?.run))
      p.cells.forEach((cell, i) => {
        if (cell.reuse) {
          const r = cell.reuse
          this.used.set(r.run.id, { cpuMs: r.cpuMs, wallMs: r.wallMs ?? wallOf(r.run), reused: true, finishedAt: r.run.finishedAt, invocationId: r.invocationId })
        } else todo.push({ p, i, cell })
      })
    }
    const reused = planned.reduce((a, p) => a + p.cells.filter((c) => c.reuse).length, 0)
    if (todo.length === 0) {
      if (reused) log(`reproduce: all ${reused} runs reused`)
      return this.collect(out)
    }
    this.throwIfAborted(0, 0)
    const where = this.o.slurm ? ` on Slurm (${this.o.slurm.name})` : ''
    log(`reproduce: ${todo.length} runs to run${where}, ${reused} reused; estimated ${fmtDuration(this.estimate(todo.map((t) => t.cell)).cpuSeconds)} of CPU`)
    // Longest first: the orchestrator starts queued runs in the order they were queued.
    todo.sort((a, b) => b.cell.cost - a.cell.cost)
    const progress = new Progress(todo.reduce((a, t) => a + t.cell.cost, 0), todo.length)
    const ended = (t: Todo, run: RunRow, cpuMs: number | null, wallMs: number | null) => {
      ledger.setTimes(run.id, cpuMs, wallMs)
      this.used.set(run.id, { cpuMs, wallMs, reused: false, finishedAt: run.finishedAt, invocationId: this.o.invocation.id })
      this.saveWall()
      const line = progress.ended(t, run, cpuMs, wallMs, !!this.o.signal?.aborted)
      if (line) log(line)
    }
    const remember = (t: Todo, run: RunRow) =>
      ledger.record({ runId: run.id, specHash: t.p.hash, computeKey: t.p.computeKey, fingerprint: this.o.fingerprint, scheme: run.scheme, load: run.load, seed: run.seed, cost: t.cell.cost, invocationId: this.o.invocation.id })
    const record = (t: Todo, run: RunRow) => {
      remember(t, run)
      out.get(t.p.key)![t.i] = run
    }
    const open = todo.filter((t) => t.cell.open).length
    if (open && !this.o.slurm) log(`reproduce: ${open} of these runs are still open on Slurm, left by an earlier invocation; they run here anew (--on slurm with the same cluster follows them instead)`)
    if (this.o.slurm) await this.runSlurm(this.o.slurm, todo, remember, (t, run) => (out.get(t.p.key)![t.i] = run), ended)
    else await this.runLocal(todo, record, ended)
    this.throwIfAborted(progress.finished, progress.cancelled)
    return this.collect(out)
  }

  private async runLocal(todo: readonly Todo[], record: (t: Todo, run: RunRow) => void, ended: (t: Todo, run: RunRow, cpuMs: number | null, wallMs: number | null) => void): Promise<void> {
    const { core } = this.o
    const experiments = new Map<string, number>()
    for (const t of todo) if (!experiments.has(t.p.key)) experiments.set(t.p.key, core.findOrCreateExperiment(t.p.yaml, t.p.file).id)
    const ids: number[] = []
    for (const t of todo) {
      const [run] = core.orchestrator.enqueue(experiments.get(t.p.key)!, t.p.spec, [{ scheme: t.cell.scheme, load: t.cell.load, seed: t.cell.seed }])
      record(t, run)
      ids.push(run.id)
    }
    const onAbort = () => {
      for (const id of ids) core.orchestrator.cancel(id)
    }
    this.o.signal?.addEventListener('abort', onAbort, { once: true })
    try {
      await Promise.all(
        todo.map(async (t, k) => {
          const id = ids[k]
          await core.orchestrator.wait([id])
          const run = core.opts.store.getRun(id)!
          const cpuMs = this.cpu.cpuMs(id)
          this.cpu.forget(id)
          ended(t, run, cpuMs, wallOf(run))
        }),
      )
    } finally {
      this.o.signal?.removeEventListener('abort', onAbort)
    }
  }

  /**
   * For --plan, which looks at no cluster: the submissions an earlier invocation was cut off
   * from, whose cells the plan counts as to run though the invocation may adopt their jobs.
   */
  cutOffNote(): string | undefined {
    const cut = cutOffSubmissions(this.o.core.opts.store)
    if (!cut.length) return undefined
    const runs = cut.flatMap((s) => s.runIds)
    return this.o.slurm
      ? `${cut.length} Slurm submission${cut.length === 1 ? '' : 's'} of an invocation killed before recording ${cut.length === 1 ? 'its job' : 'their jobs'} (run(s) ${runs.join(', ')}): ` +
          'counted above as to run; the invocation first looks for the job and adopts it if the ledger holds its runs for this simulator (its cells then followed or reused, not submitted)'
      : `${cut.length} Slurm submission${cut.length === 1 ? '' : 's'} of an invocation killed before recording ${cut.length === 1 ? 'its job' : 'their jobs'} (run(s) ${runs.join(', ')}): ` +
          'not looked for without --on slurm; --on slurm with that cluster adopts the job if the ledger holds its runs for this simulator'
  }

  /**
   * With --on slurm, before plan(): adopts the jobs of submissions an earlier invocation was cut
   * off from before recording them (reproduce-slurm.ts adoptCutOff), so that plan() finds their
   * runs as it finds those an earlier invocation left open (followed) or done (reused). Without
   * --on slurm it only says that such submissions are there and what becomes of them.
   */
  async adoptCutOff(): Promise<void> {
    if (this.o.slurm) await adoptCutOff(this.o.core, this.o.slurm, { ledger: this.o.ledger, fingerprint: this.o.fingerprint, fresh: this.o.fresh, log: this.o.log })
    else {
      const cut = cutOffSubmissions(this.o.core.opts.store)
      const runs = cut.flatMap((s) => s.runIds)
      if (cut.length) {
        this.o.log(
          `reproduce: ${cut.length} Slurm submission${cut.length === 1 ? '' : 's'} of an invocation killed before recording ${cut.length === 1 ? 'its job' : 'their jobs'} (run(s) ${runs.join(', ')}) ` +
            `${cut.length === 1 ? 'is' : 'are'} not looked for without --on slurm: ${cut.length === 1 ? 'its' : 'their'} cells run here anew if planned, and the next --on slurm invocation to that cluster ` +
            'then cancels the job (one that has ended it leaves unmerged) rather than count a cell twice',
        )
      }
    }
  }

  /**
   * One job array per spec, its cells longest first; each run's times are its node's, from its
   * bundle. Each array's runs go into the ledger (`remember`) before sbatch runs: an invocation
   * cut off before it records the job leaves runs the next one can adopt (adoptCutOff).
   */
  private async runSlurm(place: SlurmPlace, todo: readonly Todo[], remember: (t: Todo, run: RunRow) => void, out: (t: Todo, run: RunRow) => void, ended: (t: Todo, run: RunRow, cpuMs: number | null, wallMs: number | null) => void): Promise<void> {
    const { core, log } = this.o
    const store = core.opts.store
    const shell = await place.shell()
    // Runs an earlier invocation left open on this same cluster are followed, not submitted again.
    const byRun = new Map<number, Todo>()
    const followed = new Set<number>()
    for (const t of todo) {
      const task = t.cell.open && store.slurmTaskOfRun(t.cell.open.id)
      const job = task ? store.getSlurmJob(task.slurmJob) : undefined
      if (!t.cell.open || !job || JSON.stringify(job.cluster) !== JSON.stringify(shell.ref)) continue
      out(t, t.cell.open)
      byRun.set(t.cell.open.id, t)
      followed.add(job.id)
    }
    if (byRun.size) log(`reproduce: following ${byRun.size} runs an earlier invocation left open on Slurm (${followed.size} job array${followed.size === 1 ? '' : 's'})`)
    const groups = new Map<string, Todo[]>()
    for (const t of todo) if (!(t.cell.open && byRun.has(t.cell.open.id))) groups.set(t.p.key, [...(groups.get(t.p.key) ?? []), t])
    const list = [...groups.values()]
    const { jobs, runs } = await submitSpecs(
      core,
      place,
      list.map((g) => ({
        key: g[0].p.key,
        yaml: g[0].p.yaml,
        file: g[0].p.file,
        spec: g[0].p.spec,
        cells: g.map((t) => ({ scheme: t.cell.scheme, load: t.cell.load, seed: t.cell.seed })),
        created: (runs: RunRow[]) => g.forEach((t, k) => remember(t, runs[k])),
      })),
      log,
      this.o.signal,
    )
    // Aborted, the specs after the last submitted were not: their cells have no run.
    list.slice(0, runs.length).forEach((g, i) => g.forEach((t, k) => (out(t, runs[i][k]), byRun.set(runs[i][k].id, t))))
    await followJobs(core, place, [...followed, ...jobs], {
      log,
      signal: this.o.signal,
      settled: (runId) => {
        // A job array followed again also carries runs settled before, or of cells done since.
        if (!byRun.has(runId)) return
        const run = store.getRun(runId)!
        const node = nodeTimes(run)
        ended(byRun.get(runId)!, run, node.cpuMs, node.wallMs ?? wallOf(run))
      },
    })
  }

  /** The time behind every run used so far (reused or made), for the page. */
  totals(): Totals {
    const rows = [...this.used.values()]
    const reusedAt = rows
      .filter((r) => r.reused && r.finishedAt)
      .map((r) => r.finishedAt!)
      .sort()
    return {
      runs: rows.length,
      reused: rows.filter((r) => r.reused).length,
      cpuMs: rows.reduce((a, r) => a + (r.cpuMs ?? r.wallMs ?? 0), 0),
      cpuUnknown: rows.filter((r) => r.cpuMs === null).length,
      ...(reusedAt.length ? { reusedFrom: reusedAt[0], reusedTo: reusedAt[reusedAt.length - 1] } : {}),
      invocationIds: [...new Set([...rows.map((r) => r.invocationId), this.o.invocation.id])].sort((a, b) => a - b),
    }
  }

  /** This invocation's wall time (returned) and process CPU time so far, stored. */
  saveWall(): number {
    const ms = Date.now() - this.started
    const cpu = process.cpuUsage(this.cpuAtStart)
    this.o.ledger.setInvocationTimes(this.o.invocation.id, ms, (cpu.user + cpu.system) / 1000)
    return ms
  }

  private throwIfAborted(finished: number, cancelled: number): void {
    if (this.o.signal?.aborted) throw new Interrupted(finished, cancelled)
  }

  private collect(out: Map<string, Array<RunRow | undefined>>): Map<string, RunRow[]> {
    const store = this.o.core.opts.store
    return new Map([...out].map(([k, rs]) => [k, rs.map((r) => store.getRun(r!.id)!)]))
  }
}

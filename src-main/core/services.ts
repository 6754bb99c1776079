// The core's implementation of the contract. Built from what it needs (a store, the
// drivers, where resources live), so the CLI, the web bridge, the Electron shell and
// the tests all construct the same thing.
import { dirname, isAbsolute, join } from 'node:path'
import { TERMINAL_STATUSES, type Experiment, type ExperimentSummary, type Handlers, type SpecError } from '../contract'
import { EventBus } from './bus'
import { fabricHandlers } from './handlers/fabric'
import { manageHandlers, toSummary } from './handlers/manage'
import { archiveHandlers, type ArchiveDialogs } from './handlers/archive'
import { compareHandlers } from './handlers/compare'
import { pipelineHandlers } from './handlers/pipelines'
import { schemeHandlers } from './handlers/schemes'
import { sweepHandlers } from './handlers/sweeps'
import { testbedHandlers } from './handlers/testbeds'
import { topologyHandlers } from './handlers/topology'
import { slurmHandlers } from './handlers/slurm'
import { ClusterService, SlurmFollower } from './slurm'
import { CoreError, notFound, printableOrRefuse } from './errors'
import { Orchestrator, ownerIsAlive } from './orchestrator'
import { packageRoot, packageVersion, userDataDir } from './paths'
import { FileSecretStore, defaultSecretsPath, type SecretStore } from './secrets'
import { p4labKnownHosts, SshPool, type KnownHosts } from './ssh'
import { expandRuns, parseExperiment, type ExperimentSpec, type ParseOptions } from './spec'
import type { ExperimentRow, RunRow, Store } from './store'
import type { TargetDriver } from './targets/driver'
import type { FabricSpec } from '../model/topology'
import { cleanTestbedLeftovers, type CleanupResult } from './targets/shared/leftovers'
import { sshTarget } from './targets/shared/remote'
import { TestbedService } from './testbeds'
import { listTemplates } from './templates'
import { toWireBatch } from './wire'
import { ranWith, toRun } from './run-view'
import { setTopLevelScalar } from './spec/rewrite'
import { NameTakenError } from './store'
import { isRemoteKind } from './targets/kinds'

export { toRun }

export interface CoreOptions {
  store: Store
  drivers: Record<string, TargetDriver>
  workloadsDir: string
  templatesDir: string
  /** Where relative paths in an experiment without a file of its own resolve. */
  defaultBaseDir: string
  /** Host keys p4lab trusts; default `<userData>/known_hosts` (+ ~/.ssh/known_hosts read-only). */
  knownHosts?: KnownHosts
  /** Key passphrases; default `<userData>/secrets.json` (0600). */
  secrets?: SecretStore
  /** The desktop shell's save/open dialogs for archives; without them archive.export/import are refused. */
  archiveDialogs?: ArchiveDialogs
  /** The desktop shell's open dialog for an SSH private key (testbeds.pickKeyFile); absent in web mode. */
  keyFileDialog?: () => Promise<string | null>
  /** What Slurm commands see when a cluster's login node is this machine; default process.env. */
  slurmEnv?: NodeJS.ProcessEnv
  /** How often a Slurm sweep is looked at (squeue/sacct); default 3 s. */
  slurmIntervalMs?: number
}


/** A taken name is the caller's conflict to resolve, not an internal error. */
function conflicts<T>(fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (err instanceof NameTakenError) throw new CoreError('conflict', err.message)
    throw err
  }
}

export class Core {
  readonly bus = new EventBus()
  readonly orchestrator: Orchestrator
  readonly handlers: Handlers
  readonly testbeds: TestbedService
  readonly clusters: ClusterService
  readonly slurm: SlurmFollower

  private readonly knownHosts: KnownHosts
  private readonly secrets: SecretStore

  constructor(readonly opts: CoreOptions) {
    this.orchestrator = new Orchestrator({ store: opts.store, bus: this.bus, drivers: opts.drivers })
    this.knownHosts = opts.knownHosts ?? p4labKnownHosts(userDataDir())
    this.secrets = opts.secrets ?? new FileSecretStore(defaultSecretsPath(userDataDir()))
    this.testbeds = new TestbedService({
      store: opts.store,
      knownHosts: this.knownHosts,
      secrets: this.secrets,
      runnableKinds: () => Object.keys(opts.drivers),
      baseDir: opts.defaultBaseDir,
    })
    this.clusters = new ClusterService({ store: opts.store, knownHosts: this.knownHosts, secrets: this.secrets, ...(opts.slurmEnv ? { localEnv: opts.slurmEnv } : {}) })
    this.slurm = new SlurmFollower({
      store: opts.store,
      clusters: this.clusters,
      specOf: (id) => {
        const exp = opts.store.getExperiment(id)
        if (!exp) throw notFound('experiment', id)
        return this.parseOrThrow(exp.yaml, exp.file)
      },
      announce: (run) =>
        this.bus.emit('run.status', { runId: run.id, experimentId: run.experimentId, status: run.status, error: run.error, at: new Date().toISOString(), run: toRun(run) }),
      progress: (job) => this.bus.emit('slurm.progress', { experimentId: job.experimentId, job }),
      ...(opts.slurmIntervalMs ? { intervalMs: opts.slurmIntervalMs } : {}),
    })
    this.handlers = this.makeHandlers()
  }

  /**
   * For a long-lived process (serve, the app): follows the Slurm sweeps the store has open,
   * submitted by an earlier session or another process, and cancels the jobs of submissions cut
   * off before their record. Returns the stop function.
   */
  followSlurm(): () => Promise<void> {
    void this.slurm.followOpen()
    return () => this.slurm.stop()
  }

  /** <userData> of the database: artifacts/, variants/ and imports/ live beside it. */
  dataDir(): string {
    return this.opts.store.file === ':memory:' ? userDataDir() : dirname(this.opts.store.file)
  }

  /**
   * Removes what earlier runs could not tear down on the testbed's hosts (they were
   * unreachable then): the records of targets/shared/leftovers.ts, cleaned by their pid
   * files and prefixes. A run on the testbed does the same when it starts.
   */
  async cleanTestbed(name: string, log: (line: string) => void = () => undefined): Promise<CleanupResult[]> {
    const row = this.opts.store.getTestbed(name)
    if (!row) throw notFound('testbed', name)
    if (row.kind === 'sim') return []
    const pool = new SshPool({ knownHosts: this.knownHosts, secrets: this.secrets, backoff: { maxAttempts: 1 }, log })
    try {
      const hosts = row.hosts.map((h) => ({ id: h.id, name: h.name, address: h.address, port: h.port, user: h.user, auth: h.auth, keyFile: h.keyFile, role: h.role }))
      return await cleanTestbedLeftovers(this.dataDir(), { name: row.name, hosts }, async (h) => pool.host(await sshTarget(h, this.secrets)), log)
    } finally {
      pool.closeAll()
    }
  }

  /**
   * Call once at start-up: runs a dead process left behind become 'interrupted' (marked). A store
   * opened read-only cannot write that, so it reads them as interrupted instead (unrecorded).
   */
  start(): { marked: number[]; unrecorded: number[] } {
    if (this.opts.store.readOnly) return { marked: [], unrecorded: this.opts.store.readInterrupted(ownerIsAlive) }
    return { marked: this.orchestrator.recoverInterrupted(), unrecorded: [] }
  }

  /**
   * For a long-lived process (serve, the app): looks again every everyMs for runs whose owner
   * died meanwhile (another p4lab on the same database, killed), so they do not show as live.
   * Returns the stop function.
   */
  watchInterrupted(everyMs = 15_000): () => void {
    const timer = setInterval(() => {
      if (!this.opts.store.open) return
      try {
        this.orchestrator.recoverInterrupted()
      } catch {
        // The database busy past its timeout: the next round looks again.
      }
    }, everyMs)
    timer.unref?.()
    return () => clearInterval(timer)
  }

  /**
   * An experiment's folder is where its file is, when the user gave one on disk (the CLI, an
   * import); one made in the UI has a name only, and no folder: its workload files come from
   * the workloads folder alone.
   */
  parseOptions(file: string | null | undefined): ParseOptions {
    const abs = file && isAbsolute(file)
    return {
      file: file ?? 'experiment.yaml',
      baseDir: abs ? dirname(file) : this.opts.workloadsDir,
      workloadsDir: this.opts.workloadsDir,
      // Driver keys name testbeds only for built-in targets (sim); the remote kinds run on stored testbeds.
      testbeds: [...new Set([...Object.keys(this.opts.drivers).filter((k) => !isRemoteKind(k)), ...this.opts.store.testbedNames()])],
    }
  }

  /**
   * The file a text from the page is read as: the stored experiment's own (`from`, a path when
   * it was run from the CLI) or the picked file's name; the page itself never names a path.
   */
  private fileOf(from: number | undefined, picked: string | undefined): string | null | undefined {
    if (from === undefined) return picked
    const exp = this.opts.store.getExperiment(from)
    if (!exp) throw notFound('experiment', from)
    return exp.file
  }

  /** Every problem of a text, and how many runs it makes when it has none. */
  validate(yaml: string, file: string | null | undefined): { ok: boolean; errors: SpecError[]; runCount: number } {
    const parsed = parseExperiment(yaml, this.parseOptions(file))
    return parsed.ok ? { ok: true, errors: [], runCount: expandRuns(parsed.spec).length } : { ok: false, errors: parsed.errors, runCount: 0 }
  }

  /** Parses or throws a CoreError carrying every problem found. */
  parseOrThrow(yaml: string, file: string | null | undefined): ExperimentSpec {
    const parsed = parseExperiment(yaml, this.parseOptions(file))
    if (!parsed.ok) {
      const first = parsed.errors[0]
      const more = parsed.errors.length > 1 ? ` (and ${parsed.errors.length - 1} more)` : ''
      throw new CoreError(
        'invalid-spec',
        `${first.file}:${first.line}:${first.column}: ${first.path}: ${first.message}${more}`,
        parsed.errors,
      )
    }
    return parsed.spec
  }

  /**
   * The experiment of this name (names are unique), with this text as its current revision (a
   * new one when the text changed), or a new experiment.
   */
  findOrCreateExperiment(yaml: string, file: string | null): ExperimentRow {
    const spec = this.parseOrThrow(yaml, file)
    const { store } = this.opts
    const existing = store.findExperimentByName(spec.name)
    if (!existing) return store.createExperiment({ name: spec.name, yaml, spec, file, tags: spec.tags })
    if (existing.deletedAt || existing.archivedAt) throw new CoreError('conflict', new NameTakenError(spec.name, existing.id, existing.deletedAt ? 'deleted' : 'archived').message)
    return store.updateExperiment(existing.id, { name: spec.name, yaml, spec, tags: spec.tags }, file ? `edited (run from ${file})` : 'edited')
  }

  /** Queues every cell of the experiment's run matrix; the spec is re-read, files included. */
  runExperiment(id: number): RunRow[] {
    const exp = this.opts.store.getExperiment(id)
    if (!exp) throw notFound('experiment', id)
    const spec = this.parseOrThrow(exp.yaml, exp.file)
    const refused = this.opts.drivers[spec.testbed] ? null : this.testbeds.notRunnable(spec.testbed)
    if (refused) throw new CoreError('conflict', refused)
    return this.orchestrator.enqueue(exp.id, spec, expandRuns(spec))
  }

  private summary(id: number): ExperimentSummary {
    const s = this.opts.store.listExperiments('all').find((e) => e.id === id)
    if (!s) throw notFound('experiment', id)
    return toSummary(s)
  }

  private experiment(row: ExperimentRow): Experiment {
    return { ...this.summary(row.id), yaml: row.yaml, file: row.file, notes: row.notes }
  }

  private makeHandlers(): Handlers {
    const { store } = this.opts
    const getRun = (id: number) => {
      const r = store.getRun(id)
      if (!r) throw notFound('run', id)
      return r
    }
    return {
      'app.info': async () => ({
        version: packageVersion(),
        dbPath: store.file,
        targets: Object.keys(this.opts.drivers),
      }),
      'templates.list': async () => listTemplates(this.opts.templatesDir),
      ...schemeHandlers(),
      'experiments.list': async ({ shown }) => store.listExperiments(shown).map(toSummary),
      ...manageHandlers({ store, experiment: (id) => this.experiment(store.getExperiment(id)!) }),
      'experiments.get': async ({ id }) => {
        const row = store.getExperiment(id)
        if (!row) throw notFound('experiment', id)
        return this.experiment(row)
      },
      'experiments.validate': async ({ yaml, file, from }) => this.validate(yaml, this.fileOf(from, file)),
      ...topologyHandlers(store, (yaml, file, from) => this.validate(yaml, this.fileOf(from, file))),
      'experiments.create': async ({ yaml, file }) => {
        const spec = this.parseOrThrow(yaml, file)
        return this.experiment(conflicts(() => store.createExperiment({ name: spec.name, yaml, spec, file: file ?? null, tags: spec.tags })))
      },
      'experiments.update': async ({ id, yaml }) => {
        const existing = store.getExperiment(id)
        if (!existing) throw notFound('experiment', id)
        const spec = this.parseOrThrow(yaml, existing.file)
        if (spec.name !== existing.name) {
          throw new CoreError('conflict', `the text names the experiment '${spec.name}', but it is '${existing.name}': rename it (Rename, or p4lab rename), or save the text as a new experiment`)
        }
        return this.experiment(store.updateExperiment(id, { name: spec.name, yaml, spec, tags: spec.tags }))
      },
      'experiments.rename': async ({ id, name }) => {
        if (!store.getExperiment(id)) throw notFound('experiment', id)
        return this.experiment(conflicts(() => store.renameExperiment(id, printableOrRefuse('the name', name))))
      },
      'experiments.saveAs': async ({ yaml, name, file: picked, from }) => {
        const file = this.fileOf(from, picked)
        const text = setTopLevelScalar(yaml, 'name', name ?? store.freeExperimentName(this.parseOrThrow(yaml, file).name))
        const spec = this.parseOrThrow(text, file)
        return this.experiment(conflicts(() => store.createExperiment({ name: spec.name, yaml: text, spec, file: file ?? null, tags: spec.tags }, 'saved as a new experiment')))
      },
      'experiments.revisions': async ({ id }) => {
        const exp = store.getExperiment(id)
        if (!exp) throw notFound('experiment', id)
        const revs = store.listRevisions(id)
        const current = revs.find((r) => r.rev === exp.revision)
        const runs = new Map<number, number>()
        for (const r of store.listRuns({ experimentId: id, shown: 'all' })) if (r.revision !== null) runs.set(r.revision, (runs.get(r.revision) ?? 0) + 1)
        return revs.map((r) => ({
          rev: r.rev,
          name: r.name,
          yaml: r.yaml,
          createdAt: r.createdAt,
          note: r.note,
          current: r.rev === exp.revision,
          sameConfigAsCurrent: current !== undefined && r.configKey === current.configKey,
          runs: runs.get(r.rev) ?? 0,
        }))
      },
      'experiments.run': async ({ id }) => ({ runIds: this.runExperiment(id).map((r) => r.id) }),
      'runs.list': async ({ experimentId, shown }) => store.listRuns({ experimentId, shown }).map(toRun),
      'runs.get': async ({ id }) => toRun(getRun(id)),
      'runs.ranWith': async ({ id }) => ranWith(store, getRun(id)),
      'runs.cancel': async ({ id }) => {
        const run = getRun(id)
        if (this.orchestrator.cancel(id)) return { cancelled: true }
        // Only this process's runs can be cancelled here: say why not, rather than nothing happening.
        if (run.status === 'held') throw new CoreError('conflict', `run ${id} is held, never started (${run.error ?? 'its testbed could not be reached'}): there is nothing to cancel`)
        if ((TERMINAL_STATUSES as readonly string[]).includes(run.status)) throw new CoreError('conflict', `run ${id} has already ended (${run.status}): there is nothing to cancel`)
        const task = store.slurmTaskOfRun(id)
        if (task && !task.settled) throw new CoreError('conflict', `run ${id} is a task of Slurm job ${task.jobId}: cancel the job (p4lab slurm cancel ${task.jobId}), not the run`)
        throw new CoreError('conflict', `run ${id} is ${run.status} in another p4lab process (${run.owner}), not this one: stop it where it runs (Ctrl-C on its p4lab run)`)
      },
      'runs.series': async ({ id, kinds, fromNs, toNs, maxValues }) => {
        getRun(id)
        if (fromNs !== undefined && toNs !== undefined && toNs < fromNs) throw new CoreError('invalid-request', `runs.series: toNs (${toNs}) is before fromNs (${fromNs})`)
        const { defs, t, values, level } = store.readSamples(id, kinds, { fromNs, toNs, maxValues })
        return { defs, batch: toWireBatch({ t, values }), level }
      },
      'runs.seriesDefs': async ({ id }) => {
        getRun(id)
        return store.listSeries(id)
      },
      ...fabricHandlers(store),
      ...testbedHandlers(this.testbeds, {
        ...(this.opts.keyFileDialog ? { pickKeyFile: this.opts.keyFileDialog } : {}),
        topologyOf: (experimentId) => {
          const exp = store.getExperiment(experimentId)
          if (!exp) throw notFound('experiment', experimentId)
          return this.parseOrThrow(exp.yaml, exp.file).topology as FabricSpec
        },
      }),
      ...slurmHandlers(this.clusters, this.slurm),
      ...pipelineHandlers({
        store,
        dataDir: store.file === ':memory:' ? userDataDir() : dirname(store.file),
        p4Dir: join(packageRoot(), 'p4'),
        workloadsDir: this.opts.workloadsDir,
        parseExperiment: (yaml, file) => this.parseOrThrow(yaml, file),
      }),
      ...sweepHandlers({
        store,
        orchestrator: this.orchestrator,
        parse: (yaml, file) => this.parseOrThrow(yaml, file),
        notRunnable: (testbed) => (this.opts.drivers[testbed] ? null : this.testbeds.notRunnable(testbed)),
        dataDir: this.dataDir(),
      }),
      ...compareHandlers({ store }),
      ...archiveHandlers({ store, dataDir: this.dataDir(), p4Dir: join(packageRoot(), 'p4'), dialogs: this.opts.archiveDialogs }),
    }
  }
}

import { z } from 'zod'
import type { EventName, MethodName } from './names'
import {
  ClusterCheck,
  ClusterName,
  SlurmCluster,
  SlurmClusterInput,
  SlurmJobView,
  SlurmSubmitRequest,
  CompareMetric,
  CompareResult,
  Experiment,
  ExperimentRevision,
  ExperimentSummary,
  FabricGraph,
  P4Target,
  PipelineArtifact,
  PipelineProgram,
  PipelineRender,
  PipelineSource,
  RunRecords,
  ProgramName,
  Run,
  RunRanWith,
  PointStats,
  RunEvent,
  RunLogLine,
  RunFlows,
  RunStatus,
  Scheme,
  SeriesBatch,
  SeriesDef,
  SpecError,
  SweepMatrix,
  TopologyLayout,
  TopologyLinkMark,
  NodePosition,
  Template,
  Testbed,
  TestbedCheck,
  MappingPreview,
  TestbedInput,
  TestbedName,
} from './schemas'
import { IdList, Notes, OnDuplicate, SearchResult, SetAsideHow, Shown, Tags } from './manage'

const Id = z.number().int().positive()
const Empty = z.object({}).strict()

/**
 * The name of the file an experiment came from in the UI (a picked file's name): shown in
 * errors, never a path, so the page cannot choose the folder workload files are read from.
 */
const FileName = z
  .string()
  .min(1)
  .max(255)
  .refine((s) => !/[/\\]/.test(s) && !s.includes('\0') && s !== '.' && s !== '..', { error: 'expected a file name without a folder (the page cannot name paths)' })

/** What an import brought in: the new experiment, archive run id → new run id, the files, whether the comparison recomputed equals the archived one (null: none archived). */
export const ImportResult = z.object({
  experimentId: z.number().int(),
  name: z.string(),
  runIds: z.record(z.string(), z.number().int()),
  files: z.number().int(),
  compareMatches: z.boolean().nullable(),
  /** When it differs: the first line that does (1-based), as archived and as recomputed, and the p4lab that wrote the archive. */
  compareDifference: z.object({ line: z.number().int(), archived: z.string(), here: z.string(), writtenBy: z.string() }).nullable().optional(),
  /** The archive's content hash: sha256 over its manifest's file list (core/archive/import.ts). */
  contentHash: z.string(),
  /** The store already held this archive (same content hash) and nothing was imported: experimentId and name are the one holding it. */
  skipped: z.boolean(),
  /** The experiment that already held this archive (skipped, or imported as a copy beside it); null when it was new here. */
  duplicateOf: z.object({ experimentId: z.number().int(), name: z.string(), archived: z.boolean() }).nullable(),
})

/** Every request and response between the UI (or CLI) and the core. */
export const methods = {
  'app.info': {
    req: Empty,
    res: z.object({ version: z.string(), dbPath: z.string(), targets: z.array(z.string()) }),
  },
  'templates.list': { req: Empty, res: z.array(Template) },
  /** Every scheme p4lab knows, in the order the UI lists them: what it is, its parameters, series, switch tables and P4 program. */
  'schemes.list': { req: Empty, res: z.array(Scheme) },
  /** The active experiments, or with `shown` the archived ones, the trash, or all. */
  'experiments.list': { req: z.object({ shown: Shown.optional() }).strict(), res: z.array(ExperimentSummary) },
  /** Sets the store's own tags of an experiment (its YAML's `tags:` stay: edit the text to change those). */
  'experiments.setTags': { req: z.object({ id: Id, tags: Tags }).strict(), res: Experiment },
  'experiments.setNotes': { req: z.object({ id: Id, notes: Notes }).strict(), res: Experiment },
  /** Archives or deletes (to the trash, restorable) experiments with their runs; refused while one has a run that has not ended. */
  'experiments.setAside': { req: z.object({ ids: IdList, how: SetAsideHow }).strict(), res: z.object({ ids: z.array(z.number().int()) }) },
  'experiments.restore': { req: z.object({ ids: IdList }).strict(), res: z.object({ ids: z.array(z.number().int()) }) },
  /** Runs across every active experiment matching a query of the `--where` language (name as `experiment`, `tag:T`, scheme, parameters, metrics); a bad query is an invalid-request naming its column. */
  'search.runs': { req: z.object({ query: z.string().max(4000) }).strict(), res: SearchResult },
  'experiments.get': { req: z.object({ id: Id }).strict(), res: Experiment },
  /**
   * Checks a text. `from`: the stored experiment it is a draft of, whose own file (a CLI run's
   * path included) decides where its workload files are read, as Save would; else `file`, a name.
   */
  'experiments.validate': {
    req: z.object({ yaml: z.string(), file: FileName.optional(), from: Id.optional() }).strict(),
    res: z.object({ ok: z.boolean(), errors: z.array(SpecError), runCount: z.number().int() }),
  },
  'experiments.create': {
    req: z.object({ yaml: z.string(), file: FileName.optional() }).strict(),
    res: Experiment,
  },
  /** Saves a changed text as a new revision (the same text changes nothing); a text with another `name:` is refused: rename instead. */
  'experiments.update': { req: z.object({ id: Id, yaml: z.string() }).strict(), res: Experiment },
  /** Renames an experiment (names are unique): a new revision whose text says the new name, noting the old. */
  'experiments.rename': { req: z.object({ id: Id, name: z.string().trim().min(1).max(200) }).strict(), res: Experiment },
  /**
   * Saves a text as a new experiment, leaving the one it came from as it is: named `name`, else
   * the text's own name, else (taken) the first free `NAME (N)`; its `name:` is rewritten to match.
   * `from`: the experiment it came from, whose file the copy keeps (workload files beside it stay found).
   */
  'experiments.saveAs': { req: z.object({ yaml: z.string(), name: z.string().trim().min(1).max(200).optional(), file: FileName.optional(), from: Id.optional() }).strict(), res: Experiment },
  /** Every revision of an experiment, oldest first. */
  'experiments.revisions': { req: z.object({ id: Id }).strict(), res: z.array(ExperimentRevision) },
  'experiments.run': {
    req: z.object({ id: Id }).strict(),
    res: z.object({ runIds: z.array(z.number().int()) }),
  },
  /**
   * The fabric an experiment text builds, before any run: its graph as soon as the topology block
   * is valid (null before), each link's marks (delay, loss, slow, failing and recovering), the
   * links `remove:` takes out, and the problems of the whole text (as experiments.validate, `from` too).
   */
  'experiments.fabric': {
    req: z.object({ yaml: z.string(), file: FileName.optional(), from: Id.optional() }).strict(),
    res: z.object({ graph: FabricGraph.nullable(), marks: z.array(TopologyLinkMark), removed: z.array(z.string()), errors: z.array(SpecError) }),
  },
  /** Where the topology editor's nodes sit for this experiment (kept beside it, not in its YAML). */
  'experiments.layout': { req: z.object({ id: Id }).strict(), res: TopologyLayout },
  /** Replaces the saved positions (an empty mapping forgets them: the editor lays out by tier). */
  'experiments.saveLayout': {
    req: z.object({ id: Id, positions: z.record(z.string().max(200), NodePosition).refine((p) => Object.keys(p).length <= 20_000, { message: 'at most 20000 positions' }) }).strict(),
    res: TopologyLayout,
  },
  /** The active runs, or with `shown` the archived ones, the trash, or all. */
  'runs.list': { req: z.object({ experimentId: Id.optional(), shown: Shown.optional() }).strict(), res: z.array(Run) },
  'runs.setTags': { req: z.object({ id: Id, tags: Tags }).strict(), res: Run },
  'runs.setNotes': { req: z.object({ id: Id, notes: Notes }).strict(), res: Run },
  /** Archives or deletes (to the trash, restorable) runs; a run that has not ended is refused (cancel it first). */
  'runs.setAside': { req: z.object({ ids: IdList, how: SetAsideHow }).strict(), res: z.object({ ids: z.array(z.number().int()) }) },
  'runs.restore': { req: z.object({ ids: IdList }).strict(), res: z.object({ ids: z.array(z.number().int()) }) },
  'runs.get': { req: z.object({ id: Id }).strict(), res: Run },
  /** What the run ran with, from its own record: YAML, resolved parameters, topology, workload, seed, target facts. */
  'runs.ranWith': { req: z.object({ id: Id }).strict(), res: RunRanWith },
  'runs.cancel': { req: z.object({ id: Id }).strict(), res: z.object({ cancelled: z.boolean() }) },
  /**
   * The run's stored samples (of `kinds`, within [fromNs, toNs]). With `maxValues`, a long run
   * comes as roll-up bucket means (t = each bucket's start) when its raw samples would be more
   * values (instants × series) than that; `level` says which: 'raw' or the bucket width in ns.
   * A run that keeps no roll-ups (sampled more coarsely than 1 ms) comes raw whatever its size.
   */
  'runs.series': {
    req: z
      .object({
        id: Id,
        kinds: z.array(z.string()).optional(),
        fromNs: z.number().int().optional(),
        toNs: z.number().int().optional(),
        maxValues: z.number().int().positive().optional(),
      })
      .strict(),
    res: z.object({ defs: z.array(SeriesDef), batch: SeriesBatch, level: z.union([z.literal('raw'), z.number().int().positive()]) }),
  },
  /** The run's series, without samples: what a view joining a live run needs to name the ids of 'run.points'. */
  'runs.seriesDefs': { req: z.object({ id: Id }).strict(), res: z.array(SeriesDef) },
  /** The fabric graph of the run's experiment topology, for the fabric view. */
  'runs.fabric': { req: z.object({ id: Id }).strict(), res: FabricGraph },
  /** The run's stored events, oldest first; `kinds` keeps those kinds (a name ending in '.' is a prefix); `limit` keeps the newest. */
  'runs.events': {
    req: z.object({ id: Id, kinds: z.array(z.string()).optional(), limit: z.number().int().positive().max(100_000).optional() }).strict(),
    res: z.array(RunEvent),
  },
  /** The run's log lines (orchestrator steps, hosts, switches, compilers), oldest first; `limit` keeps the newest. */
  'runs.logs': {
    req: z.object({ id: Id, limit: z.number().int().positive().max(100_000).optional() }).strict(),
    res: z.array(RunLogLine),
  },
  /** The run's flows, in columns (one entry per flow, in flow order). */
  'runs.flows': { req: z.object({ id: Id }).strict(), res: RunFlows },
  'testbeds.list': { req: Empty, res: z.array(Testbed) },
  'testbeds.get': { req: z.object({ name: z.string() }).strict(), res: Testbed },
  'testbeds.create': { req: z.object({ testbed: TestbedInput }).strict(), res: Testbed },
  /** Replaces the testbed `name` (which may be renamed) with `testbed`; hosts keep their ids, pinned keys and passphrases. */
  'testbeds.update': { req: z.object({ name: z.string(), testbed: TestbedInput }).strict(), res: Testbed },
  'testbeds.delete': { req: z.object({ name: z.string() }).strict(), res: z.object({ deleted: z.boolean() }) },
  /** Connects to every host (or one) and reports the tools found; an unknown host key stops that host with its fingerprint. */
  'testbeds.check': { req: z.object({ name: z.string(), host: z.string().optional() }).strict(), res: TestbedCheck },
  /** Pins a host's key, only if the key the host presents now has the fingerprint the user confirmed. */
  'testbeds.trust': {
    req: z.object({ testbed: TestbedName, host: z.string(), fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'expected a SHA256:… fingerprint') }).strict(),
    res: z.object({ host: z.string(), keyType: z.string(), fingerprint: z.string(), alreadyTrusted: z.boolean() }),
  },
  /** Stores the testbed's mapping (an object, or `yaml` text), or removes it with null; errors name the field. */
  'testbeds.setMapping': { req: z.object({ name: z.string(), mapping: z.unknown().optional(), yaml: z.string().optional() }).strict(), res: Testbed },
  /** Desktop app only: the user picks a private key file in the system's dialog (null: cancelled). */
  'testbeds.pickKeyFile': { req: Empty, res: z.object({ path: z.string().nullable() }) },
  /** The mapping (given, else the stored one) laid over an experiment's fabric: what goes where, what does not fit. */
  'testbeds.previewMapping': {
    req: z.object({ name: z.string(), experimentId: Id, mapping: z.unknown().optional() }).strict(),
    res: MappingPreview,
  },
  'clusters.list': { req: Empty, res: z.array(SlurmCluster) },
  /** Saves a cluster, new or replacing `replacing` (which may be renamed); its passphrase goes to the secret store. */
  'clusters.save': { req: z.object({ replacing: ClusterName.optional(), cluster: SlurmClusterInput }).strict(), res: SlurmCluster },
  'clusters.delete': { req: z.object({ name: ClusterName }).strict(), res: z.object({ deleted: z.boolean() }) },
  /** Reaches the login node and looks for sbatch, squeue, sacct, scancel, Node >= 20 and a writable work folder; an unknown host key stops it with the fingerprint. */
  'clusters.check': { req: z.object({ name: ClusterName }).strict(), res: ClusterCheck },
  /** Pins the login node's key, only if the key it presents now has the fingerprint the user confirmed. */
  'clusters.trust': {
    req: z.object({ name: ClusterName, fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'expected a SHA256:… fingerprint') }).strict(),
    res: z.object({ keyType: z.string(), fingerprint: z.string(), alreadyTrusted: z.boolean() }),
  },
  /** Submits the experiment's cells (or, with resume, those with no done run) as one job array on a saved cluster; the core follows and merges it. */
  'slurm.submit': { req: SlurmSubmitRequest, res: z.object({ job: SlurmJobView, runIds: z.array(z.number().int()) }) },
  /** The experiment's job arrays, newest last, as of the last look. */
  'slurm.jobs': { req: z.object({ experimentId: Id }).strict(), res: z.array(SlurmJobView) },
  /** scancel every open job array of the experiment; its cells end cancelled (completed ones merge). */
  'slurm.cancel': { req: z.object({ experimentId: Id }).strict(), res: z.array(SlurmJobView) },
  /** The programs in p4/ per scheme and target, with their tables and registers. */
  'pipelines.list': { req: Empty, res: z.array(PipelineProgram) },
  /** A program's text and includes; with experimentId, that experiment's variant when it has one. */
  'pipelines.source': {
    req: z.object({ scheme: ProgramName, target: P4Target, experimentId: Id.optional() }).strict(),
    res: PipelineSource,
  },
  /** Per-switch control-plane files for an experiment's topology, or a topology mapping as in an experiment file. */
  'pipelines.render': {
    req: z
      .object({ scheme: z.string(), target: P4Target, experimentId: Id.optional(), topology: z.record(z.string(), z.unknown()).optional() })
      .strict()
      .refine((r) => (r.experimentId === undefined) !== (r.topology === undefined), { message: 'give either experimentId or topology' }),
    res: PipelineRender,
  },
  /** Stored builds, newest first; `program` as in PipelineSource.program. */
  'pipelines.artifacts': {
    req: z.object({ program: z.string().optional(), limit: z.number().int().positive().max(1000).optional() }).strict(),
    res: z.array(PipelineArtifact),
  },
  /** Compiles a program (or an experiment's variant) with the compiler on this machine, through the artifact cache. A failed compile is an artifact with status 'failed'. */
  'pipelines.build': {
    req: z.object({ scheme: ProgramName, target: P4Target, experimentId: Id.optional() }).strict(),
    res: z.object({ hit: z.boolean(), artifact: PipelineArtifact }),
  },
  /** Copies a program into an experiment's editable variant (an existing variant is returned unchanged). */
  'pipelines.variant': {
    req: z.object({ experimentId: Id, scheme: ProgramName, target: P4Target }).strict(),
    res: PipelineSource,
  },
  /** Saves one file of a variant (path as in PipelineSource.files). */
  'pipelines.saveVariant': {
    req: z.object({ experimentId: Id, scheme: ProgramName, target: P4Target, path: z.string(), text: z.string().max(4_000_000) }).strict(),
    res: PipelineSource,
  },
  /** The run matrix (scheme × load × seed × params) with every cell's latest status. */
  'sweeps.matrix': { req: z.object({ experimentId: Id }).strict(), res: SweepMatrix },
  /** Queues a new run for every failed, incomplete, cancelled, interrupted or held cell. */
  'sweeps.rerunFailed': { req: z.object({ experimentId: Id }).strict(), res: z.object({ runIds: z.array(z.number().int()) }) },
  /** Queues every cell without a done run that is not running now and did not end incomplete; done cells are never run twice. */
  'sweeps.resume': {
    req: z.object({ experimentId: Id }).strict(),
    /** incomplete: cells left alone because their latest run ended incomplete (Re-run failed repeats them). */
    res: z.object({ runIds: z.array(z.number().int()), done: z.number().int(), incomplete: z.number().int(), cells: z.number().int() }),
  },
  /** Runs an (imported) experiment again, every cell, with its seeds and pipeline, on the sim or a testbed. */
  'experiments.runAgain': {
    req: z.object({ id: Id, testbed: TestbedName.optional() }).strict(),
    res: z.object({ experimentId: z.number().int(), runIds: z.array(z.number().int()) }),
  },
  /** A metric against a parameter across experiments (and pinned runs), filtered by a query. */
  'compare.query': {
    req: z
      .object({
        experimentIds: z.array(Id).min(1).max(100),
        runIds: z.array(Id).optional(),
        query: z.string().max(4000).optional(),
        metric: CompareMetric.optional(),
        by: z.string().max(200).optional(),
        baseline: z.string().max(100).optional(),
        band: z.enum(['minmax', 'ci95']).optional(),
        cdf: z.enum(['fct', 'queue', 'slowdown']).optional(),
        /** The fields that make a line; default scheme (+ experiment, target, parameters where they vary). */
        lines: z.array(z.string().max(200)).max(20).optional(),
      })
      .strict(),
    res: CompareResult,
  },
  /**
   * The runs of experiments (or the runs given) with every field the query language knows, filtered by a
   * query; metrics are those from the stored statistics plus the `metrics` asked for (flow-class
   * percentiles read the flows). A bad query is an invalid-request naming its column.
   */
  'compare.runs': {
    req: z
      .object({
        experimentIds: z.array(Id).min(1).max(100),
        runIds: z.array(Id).optional(),
        query: z.string().max(4000).optional(),
        metrics: z.array(CompareMetric).optional(),
      })
      .strict(),
    res: RunRecords,
  },
  /**
   * Writes an experiment as a .tar.gz archive to a file the user picks in the desktop app's own
   * save dialog; null when the dialog was cancelled. The page never names a path: in web mode
   * an export is a download (ARCHIVE_HTTP.export), and this method is refused.
   */
  'archive.export': {
    req: z.object({ experimentId: Id }).strict(),
    res: z.object({ file: z.string(), bytes: z.number().int(), files: z.number().int(), runs: z.number().int() }).nullable(),
  },
  /**
   * Imports an archive the user picks in the desktop app's own open dialog (new ids); null when
   * cancelled; a refused archive is an error naming the file and why. Web mode uploads instead
   * (ARCHIVE_HTTP.import), answering with this method's envelope.
   */
  'archive.import': {
    /** An archive whose content is already here is skipped (default) or imported as a copy. */
    req: z.object({ onDuplicate: OnDuplicate.optional() }).strict(),
    res: ImportResult.nullable(),
  },
} as const satisfies Record<MethodName, { req: z.ZodType; res: z.ZodType }>

/** Everything the core pushes: run lifecycle and telemetry. */
export const events = {
  /**
   * A run moved to a new status. `run` is the run as stored at that moment, its results (stats,
   * counters) included: the core stores a run's results before it stores the status that ends it,
   * so a view applies status and results together and never shows a finished run without them.
   */
  'run.status': z.object({
    runId: z.number().int(),
    experimentId: z.number().int(),
    status: RunStatus,
    error: z.string().nullable(),
    at: z.string(),
    run: Run,
  }),
  'run.progress': z.object({
    runId: z.number().int(),
    simTimeNs: z.number(),
    flowsDone: z.number().int(),
    flowsTotal: z.number().int(),
  }),
  /** The series a run will stream, sent once before its first telemetry batch. */
  'run.series': z.object({ runId: z.number().int(), defs: z.array(SeriesDef) }),
  /** values are in the order of the run's 'run.series' defs. */
  'run.telemetry': z.object({ runId: z.number().int(), batch: SeriesBatch }),
  /**
   * The irregular samples (points: INT's, of series a later 'run.series' defined) summed up per
   * series at most every 100 ms while the run streams: what live views show of them; the store
   * keeps every sample.
   */
  'run.points': z.object({ runId: z.number().int(), stats: z.array(PointStats) }),
  /** An event the run's target recorded while it runs (a decoded INT report), as stored. */
  'run.event': z.object({ runId: z.number().int(), event: RunEvent }),
  /** A Slurm job array was looked at (squeue/sacct) and its finished tasks merged. */
  'slurm.progress': z.object({ experimentId: z.number().int(), job: SlurmJobView }),
} as const satisfies Record<EventName, z.ZodType>

export type Req<M extends MethodName> = z.input<(typeof methods)[M]['req']>
export type Res<M extends MethodName> = z.output<(typeof methods)[M]['res']>
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>

/** What the core implements; both bindings (IPC and WebSocket) call it. */
export type Handlers = {
  [M in MethodName]: (req: z.output<(typeof methods)[M]['req']>) => Promise<Res<M>>
}

/** The envelope every response travels in, over IPC and over the WebSocket alike. */
export type Envelope<T> = { ok: true; result: T } | { ok: false; error: import('./schemas').ApiError }

import { z } from 'zod'
import { RunCompletion, RunStatus } from './status'

export { COMPLETE_SHARE, RunCompletion, RunStatus, TERMINAL_STATUSES, completionNumbers, unfinishedText } from './status'

// Domain shapes shared by the core and the UI. Times crossing the contract are
// integers in nanoseconds (sim time) or ISO-8601 strings (wall clock).

/** A validation error in an experiment file: where, which field, what was expected. */
export const SpecError = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  path: z.string(),
  message: z.string(),
  /** The node or link of the fabric the problem concerns, so the graph can mark it. */
  node: z.string().optional(),
  link: z.string().optional(),
})
export type SpecError = z.infer<typeof SpecError>

export const ApiError = z.object({
  code: z.enum(['invalid-request', 'invalid-spec', 'not-found', 'conflict', 'internal']),
  message: z.string(),
  specErrors: z.array(SpecError).optional(),
})
export type ApiError = z.infer<typeof ApiError>

export const Template = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  yaml: z.string(),
})
export type Template = z.infer<typeof Template>

export const ExperimentSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: z.string(),
  tags: z.array(z.string()),
  runCounts: z.record(z.string(), z.number().int()),
  /** The current revision (1-based): saving a changed text adds one. */
  revision: z.number().int(),
  /** Of `tags`, those added in the app or with p4lab tag (the others come from the YAML's `tags:`). */
  storeTags: z.array(z.string()),
  /** Archived or deleted (in the trash); null when shown in the lists. */
  setAside: z.enum(['archived', 'deleted']).nullable(),
})
export type ExperimentSummary = z.infer<typeof ExperimentSummary>

export const Experiment = ExperimentSummary.extend({
  yaml: z.string(),
  file: z.string().nullable(),
  notes: z.string(),
})
export type Experiment = z.infer<typeof Experiment>

/**
 * FCT slowdown of a run's finished flows: each flow's FCT over its ideal FCT alone on an idle
 * fabric (model/slowdown.ts), so 1 is the best a flow can do.
 */
export const SlowdownStats = z.object({
  /** Finished flows with an ideal (bounded, on a path). */
  flows: z.number().int(),
  mean: z.number(),
  p50: z.number(),
  p95: z.number(),
  p99: z.number(),
})
export type SlowdownStats = z.infer<typeof SlowdownStats>

/** Flow-completion-time statistics of one run, in nanoseconds. */
export const FctStats = z.object({
  flows: z.number().int(),
  finished: z.number().int(),
  /** Finished flows left out of the statistics as warm-up (workload.warmup); absent: no warm-up. */
  warmup: z.number().int().optional(),
  meanNs: z.number().nullable(),
  p50Ns: z.number().nullable(),
  p99Ns: z.number().nullable(),
  /** Mean FCT of flows under 100 KB. */
  smallMeanNs: z.number().nullable(),
  /** Mean FCT of flows over 10 MB. */
  largeMeanNs: z.number().nullable(),
  /** FCT slowdown; absent in runs stored before it was measured, null when no flow has an ideal. */
  slowdown: SlowdownStats.nullable().optional(),
})
export type FctStats = z.infer<typeof FctStats>

export const Run = z.object({
  id: z.number().int(),
  experimentId: z.number().int(),
  experimentName: z.string(),
  target: z.string(),
  scheme: z.string(),
  load: z.number(),
  seed: z.number().int(),
  params: z.record(z.string(), z.unknown()),
  status: RunStatus,
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable(),
  stats: FctStats.nullable(),
  /** Simulator or target counters: packets, drops, retransmissions, events, ... */
  counters: z.record(z.string(), z.number()).nullable(),
  /** How its flows ended (done or incomplete runs); null before that, or for runs that stopped without results. */
  completion: RunCompletion.nullable(),
  /** The experiment revision the run ran (null: a run with no record). */
  revision: z.number().int().nullable(),
  /** Not a run of the experiment as it is now: an older revision that runs cells differently, or another target. */
  stale: z.boolean(),
  /** The run's own tags and notes. */
  tags: z.array(z.string()),
  notes: z.string(),
  /** Archived or deleted (in the trash); null when shown in the lists. */
  setAside: z.enum(['archived', 'deleted']).nullable(),
})
export type Run = z.infer<typeof Run>

/** A telemetry series: a kind from the series vocabulary, the entity it measures, its unit. */
export const SeriesSpec = z.object({
  kind: z.string(),
  entity: z.record(z.string(), z.union([z.string(), z.number()])),
  unit: z.string(),
})
export type SeriesSpec = z.infer<typeof SeriesSpec>

/** A stored series: its spec and the id the store gave it. */
export const SeriesDef = SeriesSpec.extend({ id: z.number().int() })
export type SeriesDef = z.infer<typeof SeriesDef>

/**
 * Samples of many series at shared instants: values[i][j] is series defs[i] at t[j], or null
 * where that series has no sample at t[j] (NaN in the store; series sampled at their own
 * instants, such as INT's, leave such gaps). JSON has no NaN, and a NaN is not a number to zod
 * either, so the core sends null on both transports (core/wire.ts).
 */
export const SeriesBatch = z.object({
  t: z.array(z.number()),
  values: z.array(z.array(z.number().nullable())),
})
export type SeriesBatch = z.infer<typeof SeriesBatch>

/**
 * A summary of one series' irregular samples (INT's) that arrived since the last summary: how
 * many, their sum, least and greatest, and the latest one and its instant. Samples without a
 * value are not counted.
 */
export const PointStats = z.object({
  seriesId: z.number().int(),
  count: z.number().int().positive(),
  sum: z.number(),
  min: z.number(),
  max: z.number(),
  lastTNs: z.number(),
  last: z.number(),
})
export type PointStats = z.infer<typeof PointStats>

/** A node of a run's fabric graph (src-main/topology), as the fabric view draws it. */
export const FabricNode = z.object({
  name: z.string(),
  role: z.enum(['host', 'tor', 'agg', 'spine']),
  /** Tier: host 0, ToR 1, aggregation 2, spine 3 (2 in a leaf-spine). */
  level: z.number().int(),
  /** Pod of a ToR, aggregation switch or host; -1 for spines and in leaf-spines. */
  pod: z.number().int(),
})
export type FabricNode = z.infer<typeof FabricNode>

/** A link, upper node first; `aPort`/`bPort` are each end's port numbers (as in link.util{switch,port}). */
export const FabricLink = z.object({
  name: z.string(),
  a: z.string(),
  aPort: z.number().int(),
  b: z.string(),
  bPort: z.number().int(),
  bps: z.number(),
})
export type FabricLink = z.infer<typeof FabricLink>

/** The fabric a run ran on, built from its experiment's topology (links removed before the run are absent). */
export const FabricGraph = z.object({
  kind: z.enum(['leaf-spine', 'fat-tree', 'three-tier', 'custom']),
  nodes: z.array(FabricNode),
  links: z.array(FabricLink),
  /** Host names in host-index order (flows name hosts by index). */
  hosts: z.array(z.string()),
  /** Drop-tail capacity of a switch output queue, in packets. */
  queuePackets: z.number().int(),
})
export type FabricGraph = z.infer<typeof FabricGraph>

/** One stored event of a run: a status change, a step, a scheme's event, an INT report... */
export const RunEvent = z.object({
  id: z.number().int(),
  /** Sim or wire time of the event when it has one. */
  tNs: z.number().nullable(),
  at: z.string(),
  kind: z.string(),
  detail: z.unknown(),
})
export type RunEvent = z.infer<typeof RunEvent>

/** One line of a run's log: `t` is the wall clock (ISO) it was written at; `source` the orchestrator, a host, a switch or a compiler. */
export const RunLogLine = z.object({ t: z.string(), source: z.string(), line: z.string() })
export type RunLogLine = z.infer<typeof RunLogLine>

/** A run's flows, column by column: src/dst are host indices; finishNs is -1 for an unfinished flow. */
export const RunFlows = z.object({
  src: z.array(z.number().int()),
  dst: z.array(z.number().int()),
  sizeBytes: z.array(z.number()),
  startNs: z.array(z.number()),
  finishNs: z.array(z.number()),
  /** Each flow's FCT slowdown (FCT over its ideal FCT on the idle fabric); null for an unfinished flow or one with no ideal. */
  slowdown: z.array(z.number().nullable()).optional(),
})
export type RunFlows = z.infer<typeof RunFlows>

// The shapes of each later domain live in their own file; this module gathers them.
export * from './testbeds'
export * from './testbed-mapping'
export * from './clusters'
export * from './pipelines'
export * from './sweeps'
export * from './revisions'
export * from './manage'
export * from './schemes'
export * from './topology'

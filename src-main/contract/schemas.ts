import { z } from 'zod'

// Domain shapes shared by the core and the UI. Times crossing the contract are
// integers in nanoseconds (sim time) or ISO-8601 strings (wall clock).

export const RunStatus = z.enum([
  'queued',
  'deploying',
  'running',
  'collecting',
  'done',
  'failed',
  'interrupted',
  'cancelled',
])
export type RunStatus = z.infer<typeof RunStatus>
export const TERMINAL_STATUSES: readonly RunStatus[] = ['done', 'failed', 'interrupted', 'cancelled']

/** A validation error in an experiment file: where, which field, what was expected. */
export const SpecError = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  path: z.string(),
  message: z.string(),
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
})
export type ExperimentSummary = z.infer<typeof ExperimentSummary>

export const Experiment = ExperimentSummary.extend({
  yaml: z.string(),
  file: z.string().nullable(),
  notes: z.string(),
})
export type Experiment = z.infer<typeof Experiment>

/** Flow-completion-time statistics of one run, in nanoseconds. */
export const FctStats = z.object({
  flows: z.number().int(),
  finished: z.number().int(),
  meanNs: z.number().nullable(),
  p50Ns: z.number().nullable(),
  p99Ns: z.number().nullable(),
  /** Mean FCT of flows under 100 KB. */
  smallMeanNs: z.number().nullable(),
  /** Mean FCT of flows over 10 MB. */
  largeMeanNs: z.number().nullable(),
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
})
export type Run = z.infer<typeof Run>

/** One telemetry series: a kind from the series vocabulary, the entity it measures, its unit. */
export const SeriesDef = z.object({
  id: z.number().int(),
  kind: z.string(),
  entity: z.record(z.string(), z.union([z.string(), z.number()])),
  unit: z.string(),
})
export type SeriesDef = z.infer<typeof SeriesDef>

/** Samples of many series at shared instants: values[i][j] is series defs[i] at t[j]. */
export const SeriesBatch = z.object({
  t: z.array(z.number()),
  values: z.array(z.array(z.number())),
})
export type SeriesBatch = z.infer<typeof SeriesBatch>

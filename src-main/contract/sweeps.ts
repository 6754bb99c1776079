import { z } from 'zod'
import { RunCompletion, RunStatus } from './status'

// ---- Sweeps, compare and archives (issue 7). ----

/**
 * A cell of an experiment's run matrix; its status is its latest current run's (of the current
 * revision on the current target): 'stale' when it has only runs of an older revision or another
 * target, 'pending' when it never ran.
 */
export const SweepCell = z.object({
  scheme: z.string(),
  load: z.number(),
  seed: z.number().int(),
  params: z.record(z.string(), z.unknown()),
  status: z.union([RunStatus, z.literal('pending'), z.literal('stale')]),
  runId: z.number().int().nullable(),
  runs: z.number().int(),
  /** How many of its runs are stale. */
  stale: z.number().int(),
  doneRunId: z.number().int().nullable(),
  /** How the latest run's flows ended: finished / failed / unfinished of all, and for an incomplete run the likely cause. */
  completion: RunCompletion.nullable(),
  /** False for a cell with runs that the experiment's matrix no longer has. */
  inSpec: z.boolean(),
  /** When the latest run is a task of a Slurm job array: the task and its state as Slurm gave it at the last look. */
  slurm: z.object({ job: z.string(), task: z.number().int(), state: z.string(), reason: z.string().nullable() }).nullable().optional(),
})
export type SweepCell = z.infer<typeof SweepCell>

export const SweepMatrix = z.object({
  experimentId: z.number().int(),
  axes: z.object({ schemes: z.array(z.string()), loads: z.array(z.number()), seeds: z.array(z.number().int()) }),
  cells: z.array(SweepCell),
  counts: z.record(z.string(), z.number().int()),
  /** Cells whose latest run is held (not started: its testbed could not be reached), by testbed and reason. */
  held: z.array(z.object({ testbed: z.string(), cells: z.number().int(), reason: z.string() })).optional(),
})
export type SweepMatrix = z.infer<typeof SweepMatrix>

export const CompareMetric = z.enum([
  'mean', 'p50', 'p99', 'small.mean', 'small.p50', 'small.p99', 'large.mean', 'large.p50', 'large.p99',
  'slowdown.mean', 'slowdown.p50', 'slowdown.p95', 'slowdown.p99',
  'probeOverhead', 'goodput', 'drops', 'retransmits',
])
export type CompareMetric = z.infer<typeof CompareMetric>

const FieldValue = z.union([z.string(), z.number(), z.null()])

/** A metric against a parameter: one row per line (scheme, …) × x, with the mean and band across seeds. */
export const CompareResult = z.object({
  experiments: z.array(z.string()),
  metric: CompareMetric,
  unit: z.enum(['ns', 'ratio', 'bps', 'count']),
  by: z.string(),
  band: z.enum(['minmax', 'ci95']),
  baseline: z.string().nullable(),
  query: z.string(),
  lineKeys: z.array(z.string()),
  rows: z.array(
    z.object({
      line: z.record(z.string(), FieldValue),
      x: FieldValue,
      n: z.number().int(),
      mean: z.number(),
      lo: z.number(),
      hi: z.number(),
      sd: z.number(),
      values: z.array(z.number()),
      seeds: z.array(z.number().int()),
      /** Beside an FCT statistic: the same statistic of FCT slowdown (null: no run of the cell has one). */
      slowdown: z.number().nullable().optional(),
    }),
  ),
  /** Flows of the runs in the rows, and of those the unfinished ones (left out of every FCT statistic). */
  unfinishedFlows: z.object({ flows: z.number().int(), unfinished: z.number().int() }).optional(),
  matched: z.number().int(),
  excluded: z.number().int(),
  /** Cells whose latest run ended incomplete: left out of the rows (their FCTs describe the flows that finished), listed with their numbers and likely cause. */
  incomplete: z.array(
    z.object({
      experiment: z.string(),
      target: z.string(),
      scheme: z.string(),
      load: z.number(),
      seed: z.number().int(),
      flows: z.number().int(),
      finished: z.number().int(),
      failed: z.number().int(),
      unfinished: z.number().int(),
      cause: z.string().nullable(),
    }),
  ),
  /** "Diff only": the parameters (hashes of program, topology and config included) that differ, per run. */
  differences: z.array(z.object({ field: z.string(), values: z.array(FieldValue) })),
  /**
   * CDF points per line and x (and flow-size bucket, for slowdown CDFs, with how many flows of
   * that size the runs had and how many of them finished: the points are theirs).
   */
  cdfs: z
    .array(
      z.object({
        line: z.record(z.string(), FieldValue),
        x: FieldValue,
        points: z.array(z.tuple([z.number(), z.number()])),
        bucket: z.string().optional(),
        flows: z.number().int().optional(),
        finished: z.number().int().optional(),
      }),
    )
    .optional(),
})
export type CompareResult = z.infer<typeof CompareResult>

/** A field of the runs table: what a run is (run), what its spec fixes (spec), a scheme parameter, a hash, a metric. */
export const RunFieldInfo = z.object({
  name: z.string(),
  group: z.enum(['run', 'spec', 'param', 'hash', 'metric']),
})
export type RunFieldInfo = z.infer<typeof RunFieldInfo>

/** Runs as the runs table and the query language see them: every parameter, hash and metric, by field name. */
export const RunRecords = z.object({
  query: z.string(),
  /** Every field a query may name over these experiments' runs. */
  fields: z.array(RunFieldInfo),
  /** The runs the query matched, in experiment order and by id within each. */
  runs: z.array(z.object({ id: z.number().int(), experimentId: z.number().int(), tags: z.array(z.string()), fields: z.record(z.string(), FieldValue) })),
  /** "Diff only" over these runs: the parameters (hashes included) that differ, values in the runs' order. */
  differences: z.array(z.object({ field: z.string(), values: z.array(FieldValue) })),
  /** When the query matched no run: each value it names that no run has, with the values there are. */
  hints: z.array(z.string()).optional(),
})
export type RunRecords = z.infer<typeof RunRecords>

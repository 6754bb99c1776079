import { z } from 'zod'
import { TestbedKind } from './testbeds'

// ---- Experiment revisions and what each run ran with (issue 14). ----

/** One saved text of an experiment. Saving a changed YAML adds one; a rename adds one saying so. */
export const ExperimentRevision = z.object({
  rev: z.number().int(),
  /** The experiment's name in this revision. */
  name: z.string(),
  yaml: z.string(),
  createdAt: z.string(),
  /** Why it was made: created, edited, renamed A -> B, imported, a database upgrade. */
  note: z.string(),
  current: z.boolean(),
  /** False when its runs would not count for the current revision (it runs cells differently). */
  sameConfigAsCurrent: z.boolean(),
  /** How many runs ran this revision. */
  runs: z.number().int(),
})
export type ExperimentRevision = z.infer<typeof ExperimentRevision>

/**
 * The testbed as a run found it when it started: kind, settings, hosts, mapping; nothing secret
 * or local (no key file path). The one definition of a well-formed record, as a run or an
 * imported archive (which may bring anything) stored it.
 */
export const SeenTestbed = z.object({
  name: z.string(),
  kind: TestbedKind,
  settings: z.record(z.string(), z.unknown()),
  hosts: z.array(z.object({ name: z.string(), address: z.string(), port: z.number().int(), user: z.string(), auth: z.string(), role: z.string(), hostKey: z.string().nullable() })),
  mapping: z.unknown().optional(),
})
export type SeenTestbed = z.infer<typeof SeenTestbed>

/**
 * What a run ran with, read from the run's own record, never from the experiment's current text:
 * the YAML as run, the resolved spec (topology, workload, seed, parameters) and the target's facts.
 */
export const RunRanWith = z.object({
  runId: z.number().int(),
  experimentId: z.number().int(),
  /** The revision it ran; null for a run with no record. */
  revision: z.number().int().nullable(),
  /** True when a database upgrade rebuilt the record from the spec the run pointed at. */
  reconstructed: z.boolean(),
  /** The experiment's name as the run's text gave it. */
  name: z.string().nullable(),
  yaml: z.string().nullable(),
  target: z.string(),
  scheme: z.string(),
  load: z.number(),
  seed: z.number().int(),
  /** The parameters the scheme saw: the spec's, with the cell's own over them. */
  params: z.record(z.string(), z.unknown()),
  topology: z.unknown(),
  workload: z.unknown(),
  spec: z.unknown(),
  /** Tool versions, artifact hashes, target mapping, as the run recorded them. */
  facts: z.record(z.string(), z.unknown()).nullable(),
  /**
   * The testbed as the run found it when it started (kind, settings, hosts, mapping; nothing
   * secret); null for a sim run or one that started before p4lab kept it.
   */
  testbed: SeenTestbed.nullable(),
  stale: z.boolean(),
})
export type RunRanWith = z.infer<typeof RunRanWith>

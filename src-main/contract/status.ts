import { z } from 'zod'

// Run statuses on their own, so every domain's shapes can use them without a cycle.
// 'incomplete': the run went to its end, but fewer of its flows finished than a done run needs
// (the rule and its reason: README, "An honest status"; core/completion.ts).
// 'held': the run was never started: a run before it on the same testbed could not reach a host
// there (refused, timed out, host key, login); its error names the testbed, the host and why.
// Resume or Re-run failed runs its cell again once the testbed is fixed.
export const RunStatus = z.enum([
  'queued',
  'held',
  'deploying',
  'running',
  'collecting',
  'done',
  'incomplete',
  'failed',
  'interrupted',
  'cancelled',
])
export type RunStatus = z.infer<typeof RunStatus>
/** Statuses a run never leaves: a held run stays held, and a resume runs its cell as a new run. */
export const TERMINAL_STATUSES: readonly RunStatus[] = ['done', 'incomplete', 'failed', 'interrupted', 'cancelled', 'held']

/** A run is done only when at least this share of its flows did what they were meant to (finish; run to the end for flows without a size). */
export const COMPLETE_SHARE = 0.99

/**
 * How a run's flows ended, and whether that makes the run done: finished + failed + unfinished +
 * unbounded = flows. `cause` is the likely cause of an incomplete run, derived from what the run
 * recorded (the agents' error texts, its log, its counters); null for a complete one.
 */
export const RunCompletion = z.object({
  flows: z.number().int().nonnegative(),
  finished: z.number().int().nonnegative(),
  /** Flows the traffic generator reported as failed (a testbed's agents). */
  failed: z.number().int().nonnegative(),
  /** Flows with a size that had neither finished nor failed when the run stopped (or left no record). */
  unfinished: z.number().int().nonnegative(),
  /** Flows without a size (long-lived): they run until the stop, and count as complete unless they failed. */
  unbounded: z.number().int().nonnegative(),
  complete: z.boolean(),
  cause: z.string().nullable(),
})
export type RunCompletion = z.infer<typeof RunCompletion>

/** "12 of 600 flows finished (588 failed, 0 unfinished)": the numbers every view of a run shows alike. */
export function completionNumbers(c: RunCompletion): string {
  const rest = [`${c.failed} failed`, `${c.unfinished} unfinished`, ...(c.unbounded ? [`${c.unbounded} without a size ran to the end`] : [])]
  return `${c.finished} of ${c.flows} flows finished (${rest.join(', ')})`
}

/** "12 unfinished (0.12 % of the flows)": the count and the share, for runs done with a few flows left. */
export function unfinishedText(c: RunCompletion): string {
  const share = c.flows > 0 ? (100 * c.unfinished) / c.flows : 0
  return `${c.unfinished} unfinished (${share.toFixed(2)} % of the flows)`
}

// A stored run as the contract shows it: what runs.get and runs.list answer, and what a
// 'run.status' event carries, so a view gets a run's status and its results in one message.
import { SeenTestbed, type Run, type RunRanWith } from '../contract'
import type { RunRow, Store } from './store'

export function toRun(r: RunRow): Run {
  return {
    id: r.id,
    experimentId: r.experimentId,
    experimentName: r.experimentName,
    target: r.target,
    scheme: r.scheme,
    load: r.load,
    seed: r.seed,
    params: r.params,
    status: r.status,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    error: r.error,
    stats: r.stats,
    counters: r.counters,
    completion: r.completion,
    revision: r.revision,
    stale: r.stale,
    tags: r.tags,
    notes: r.notes,
    setAside: r.deletedAt ? 'deleted' : r.archivedAt ? 'archived' : null,
  }
}

/**
 * The testbed a run recorded at start: null when it recorded none, and `malformed` when the
 * record is not one (an imported archive may bring anything), which then counts as none.
 */
export function readSeenTestbed(store: Store, runId: number): { seen: SeenTestbed | null; malformed: boolean } {
  const recorded = store.getRunTestbed(runId)
  if (recorded === null) return { seen: null, malformed: false }
  const parsed = SeenTestbed.safeParse(recorded)
  return parsed.success ? { seen: parsed.data, malformed: false } : { seen: null, malformed: true }
}

/**
 * What a run ran with, from its own record (never the experiment's current text). `testbed`
 * spares a second read when the caller has already read the run's (an export).
 */
export function ranWith(store: Store, r: RunRow, testbed: SeenTestbed | null = readSeenTestbed(store, r.id).seen): RunRanWith {
  const rec = store.getRunRecord(r.id)
  const spec = (rec?.spec ?? null) as { name?: unknown; topology?: unknown; workload?: unknown } | null
  return {
    runId: r.id,
    experimentId: r.experimentId,
    revision: rec?.revision ?? r.revision,
    reconstructed: rec?.reconstructed ?? false,
    name: typeof spec?.name === 'string' ? spec.name : null,
    yaml: rec?.yaml ?? null,
    target: r.target,
    scheme: r.scheme,
    load: r.load,
    seed: r.seed,
    params: rec?.params ?? r.params,
    topology: spec?.topology ?? null,
    workload: spec?.workload ?? null,
    spec: rec?.spec ?? null,
    facts: r.facts,
    testbed,
    stale: r.stale,
  }
}

// A stored run as the contract shows it: what runs.get and runs.list answer, and what a
// 'run.status' event carries, so a view gets a run's status and its results in one message.
import { RunRanWith, type Run } from '../contract'
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

/** The testbed a run recorded at start; null when none, or when the record is not one (an imported archive may bring anything). */
function seenTestbed(store: Store, runId: number): RunRanWith['testbed'] {
  const seen = RunRanWith.shape.testbed.safeParse(store.getRunTestbed(runId))
  return seen.success ? seen.data : null
}

/** What a run ran with, from its own record (never the experiment's current text). */
export function ranWith(store: Store, r: RunRow): RunRanWith {
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
    testbed: seenTestbed(store, r.id),
    stale: r.stale,
  }
}

// A stored run as the contract shows it: what runs.get and runs.list answer, and what a
// 'run.status' event carries, so a view gets a run's status and its results in one message.
import type { Run } from '../contract'
import type { RunRow } from './store'

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
  }
}

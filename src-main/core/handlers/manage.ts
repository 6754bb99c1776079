// The contract's tags, notes, archive, trash and search (store/manage.ts, compare/search.ts).
import type { Experiment, ExperimentSummary, Handlers } from '../../contract'
import { QueryError, searchRuns } from '../compare'
import { CoreError, printableOrRefuse } from '../errors'
import { toRun } from '../run-view'
import { ManageError, type ExperimentSummaryRow, type Store } from '../store'

/** An experiment as lists show it: its tags are its YAML's and the store's together. */
export function toSummary(e: ExperimentSummaryRow): ExperimentSummary {
  return {
    id: e.id,
    name: e.name,
    createdAt: e.createdAt,
    tags: [...new Set([...e.tags, ...e.storeTags])],
    storeTags: e.storeTags,
    runCounts: e.runCounts,
    revision: e.revision,
    setAside: e.deletedAt ? 'deleted' : e.archivedAt ? 'archived' : null,
  }
}

function managed<T>(fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (err instanceof ManageError) throw new CoreError(err.notFound ? 'not-found' : 'conflict', err.message)
    throw err
  }
}

type ManageMethods = 'experiments.setTags' | 'experiments.setNotes' | 'experiments.setAside' | 'experiments.restore' | 'runs.setTags' | 'runs.setNotes' | 'runs.setAside' | 'runs.restore' | 'search.runs'

export function manageHandlers(d: { store: Store; experiment: (id: number) => Experiment }): Pick<Handlers, ManageMethods> {
  const { store } = d
  const run = (id: number) => toRun(store.getRun(id)!)
  return {
    'experiments.setTags': async ({ id, tags }) => {
      managed(() => store.setExperimentTags(id, tags.map((t) => printableOrRefuse('a tag', t))))
      return d.experiment(id)
    },
    'experiments.setNotes': async ({ id, notes }) => {
      managed(() => store.setNotes('experiments', id, printableOrRefuse('the notes', notes, { multiLine: true })))
      return d.experiment(id)
    },
    'experiments.setAside': async ({ ids, how }) => ({ ids: managed(() => store.setAside('experiments', ids, how)) }),
    'experiments.restore': async ({ ids }) => ({ ids: managed(() => store.restore('experiments', ids)) }),
    'runs.setTags': async ({ id, tags }) => {
      managed(() => store.setRunTags(id, tags.map((t) => printableOrRefuse('a tag', t))))
      return run(id)
    },
    'runs.setNotes': async ({ id, notes }) => {
      managed(() => store.setNotes('runs', id, printableOrRefuse('the notes', notes, { multiLine: true })))
      return run(id)
    },
    'runs.setAside': async ({ ids, how }) => ({ ids: managed(() => store.setAside('runs', ids, how)) }),
    'runs.restore': async ({ ids }) => ({ ids: managed(() => store.restore('runs', ids)) }),
    'search.runs': async ({ query }) => {
      try {
        const r = searchRuns(store, query)
        return {
          query,
          experiments: r.hits.map((h) => ({ id: h.experimentId, name: h.name, tags: h.tags, runIds: h.runs.map((x) => x.run.id) })),
          runs: r.matched,
          hints: r.hints,
        }
      } catch (err) {
        if (err instanceof QueryError) throw new CoreError('invalid-request', `query: ${err.message}`)
        throw err
      }
    },
  }
}

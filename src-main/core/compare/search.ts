// Search across experiments: every active run of every active experiment, filtered by a query
// of the `--where` language (query.ts), grouped by experiment. The app's search box and
// `p4lab list --where` both ask here, so a query means the same in both.
import type { Store } from '../store'
import { checkFields, matches, parseQuery, unmatchedHints, type Queryable } from './query'
import { knownFields, loadRecords, type RunRecord } from './records'

export interface SearchHit {
  experimentId: number
  name: string
  /** The experiment's tags: its YAML's and the store's. */
  tags: string[]
  runs: RunRecord[]
}

/**
 * Runs matching `query` across the active experiments, newest experiment first. Throws a
 * QueryError (naming the column) for a query that does not parse or names an unknown field;
 * `hints` say, when nothing matches, which values the runs do have.
 */
export function searchRuns(store: Store, query: string): { hits: SearchHit[]; matched: number; hints: string[] } {
  const experiments = store.listExperiments()
  const all = loadRecords(
    store,
    experiments.map((e) => e.id),
  )
  const tree = parseQuery(query)
  checkFields(tree, knownFields(all), query)
  const hits: SearchHit[] = []
  let matched = 0
  for (const e of experiments) {
    const tags = [...new Set([...e.tags, ...e.storeTags])]
    const own = all.filter((r) => r.experiment.id === e.id)
    const runs = own.filter((r) => matches(tree, r))
    // An experiment without runs is found by what it has: its name and tags.
    const bare: Queryable = { tags, get: (f) => (f === 'experiment' ? e.name : f === 'id' ? e.id : undefined) }
    if (runs.length === 0 && !(own.length === 0 && tree !== null && matches(tree, bare))) continue
    matched += runs.length
    hits.push({ experimentId: e.id, name: e.name, tags, runs })
  }
  return { hits, matched, hints: hits.length === 0 ? unmatchedHints(tree, all, 'searched') : [] }
}

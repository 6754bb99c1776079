// The contract's compare.query and compare.runs: queries, groups and compares runs (core/compare).
import type { Handlers } from '../../contract'
import { CompareError, QueryError, checkFields, compareRuns, diffOnly, knownFields, loadRecords, matches, parseQuery, unmatchedHints, type FieldValue, type MetricName } from '../compare'
import { METRICS } from '../compare/metrics'
import { BASE_FIELDS, HASH_FIELDS, SPEC_FIELDS } from '../compare/records'
import { CoreError, notFound } from '../errors'
import type { Store } from '../store'

/** Metrics the stored run statistics hold: the runs table shows these without reading flows. */
const STATS_METRICS: readonly MetricName[] = ['mean', 'p50', 'p99', 'small.mean', 'large.mean', 'probeOverhead', 'goodput', 'drops', 'retransmits']

function fieldGroup(name: string, params: ReadonlySet<string>): 'run' | 'spec' | 'param' | 'hash' | 'metric' {
  if ((BASE_FIELDS as readonly string[]).includes(name)) return 'run'
  if ((SPEC_FIELDS as readonly string[]).includes(name)) return 'spec'
  if ((HASH_FIELDS as readonly string[]).includes(name)) return 'hash'
  if ((METRICS as readonly string[]).includes(name)) return 'metric'
  return params.has(name) ? 'param' : 'spec'
}

export function compareHandlers(d: { store: Store }): Pick<Handlers, 'compare.query' | 'compare.runs'> {
  const check = (ids: number[]) => {
    for (const id of ids) if (!d.store.getExperiment(id)) throw notFound('experiment', id)
  }
  const asCoreError = (err: unknown): never => {
    if (err instanceof QueryError) throw new CoreError('invalid-request', `query: ${err.message}`)
    if (err instanceof CompareError) throw new CoreError('invalid-request', err.message)
    throw err
  }
  return {
    'compare.query': async (req) => {
      check(req.experimentIds)
      try {
        return compareRuns(d.store, req)
      } catch (err) {
        return asCoreError(err)
      }
    },
    'compare.runs': async (req) => {
      check(req.experimentIds)
      const query = req.query?.trim() ?? ''
      const all = loadRecords(d.store, req.experimentIds)
      const known = knownFields(all)
      const params = new Set(all.flatMap((r) => r.paramNames))
      let records = all
      let tree: ReturnType<typeof parseQuery>
      try {
        tree = parseQuery(query)
        checkFields(tree, known, query)
      } catch (err) {
        return asCoreError(err)
      }
      if (req.runIds) {
        const only = new Set(req.runIds)
        records = records.filter((r) => only.has(r.run.id))
      }
      const picked = records
      records = records.filter((r) => matches(tree, r))
      const metrics = [...new Set([...STATS_METRICS, ...(req.metrics ?? [])])]
      return {
        query,
        fields: [...known].map((name) => ({ name, group: fieldGroup(name, params) })),
        runs: records.map((r) => {
          const fields: Record<string, FieldValue> = { ...r.fields }
          for (const m of metrics) fields[m] = r.metric(m)
          return { id: r.run.id, experimentId: r.experiment.id, tags: r.tags, fields }
        }),
        differences: diffOnly(records),
        // A typo in a value reads as one (as in p4lab compare --where), not as empty plots.
        hints: records.length === 0 && tree !== null ? unmatchedHints(tree, picked) : [],
      }
    },
  }
}

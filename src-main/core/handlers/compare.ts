// The contract's compare.query: queries, groups and compares runs (core/compare).
import type { Handlers } from '../../contract'
import { CompareError, QueryError, compareRuns } from '../compare'
import { CoreError, notFound } from '../errors'
import type { Store } from '../store'

export function compareHandlers(d: { store: Store }): Pick<Handlers, 'compare.query'> {
  return {
    'compare.query': async (req) => {
      for (const id of req.experimentIds) if (!d.store.getExperiment(id)) throw notFound('experiment', id)
      try {
        return compareRuns(d.store, req)
      } catch (err) {
        if (err instanceof QueryError) throw new CoreError('invalid-request', `query: ${err.message}`)
        if (err instanceof CompareError) throw new CoreError('invalid-request', err.message)
        throw err
      }
    },
  }
}

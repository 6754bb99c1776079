// compare.runs for the runs table: every field, hash and metric of an experiment's runs,
// filtered by a query; refetched (debounced) when runs change status and when the query or
// the flow-derived metric columns shown change. A bad query keeps the last good rows.
import { ref, shallowRef, watch, type Ref } from 'vue'
import type { CompareMetric, RunRecords } from '@contract/index'
import { call, errorMessage } from '../client'
import { queryProblem, type QueryProblem } from '../lib/queryerror'

export function useRunRecords(experimentId: Ref<number>, query: Ref<string>, metrics: Ref<CompareMetric[]>, changes: Ref<string>) {
  const records = shallowRef<RunRecords | null>(null)
  /** Ids the query matched; null with no query. */
  const matched = shallowRef<Set<number> | null>(null)
  const problem = ref<QueryProblem | null>(null)
  const error = ref<string | null>(null)
  const loading = ref(false)
  let seq = 0
  let timer: ReturnType<typeof setTimeout> | null = null

  async function fetchNow(): Promise<void> {
    const my = ++seq
    const q = query.value.trim()
    loading.value = true
    try {
      const res = await call('compare.runs', { experimentIds: [experimentId.value], query: q || undefined, metrics: metrics.value.length ? metrics.value : undefined })
      if (my !== seq) return
      records.value = res
      matched.value = q ? new Set(res.runs.map((r) => r.id)) : null
      problem.value = null
      error.value = null
    } catch (err) {
      if (my !== seq) return
      const msg = errorMessage(err)
      if (/query:/.test(msg)) problem.value = queryProblem(msg)
      else error.value = msg
    } finally {
      if (my === seq) loading.value = false
    }
  }

  function schedule(ms = 250): void {
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      void fetchNow()
    }, ms)
  }

  watch([experimentId, () => metrics.value.join(',')], () => void fetchNow(), { immediate: true })
  watch(query, () => schedule(300))
  watch(changes, () => schedule(400))

  return { records, matched, problem, error, loading, refresh: fetchNow }
}

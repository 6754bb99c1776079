import { defineStore } from 'pinia'
import { computed, ref, shallowRef, watch } from 'vue'
import type { CompareMetric, CompareResult, Req, RunRecords } from '@contract/index'
import { call, errorMessage } from '../client'
import { queryProblem, type QueryProblem } from '../lib/queryerror'

export type FieldValue = string | number | null

/** One fetched compare result, or why not. */
export interface Fetched<T> {
  value: T | null
  error: string | null
  loading: boolean
}
const idle = <T>(): Fetched<T> => ({ value: null, error: null, loading: false })

/** the HULA paper's Figs. 5–8: mean and p99 FCT for all, small (<100 KB) and large (>10 MB) flows. */
export const FCT_GRID: ReadonlyArray<{ metric: CompareMetric; title: string }> = [
  { metric: 'mean', title: 'Mean FCT · all flows' },
  { metric: 'small.mean', title: 'Mean FCT · <100 KB' },
  { metric: 'large.mean', title: 'Mean FCT · >10 MB' },
  { metric: 'p99', title: 'p99 FCT · all flows' },
  { metric: 'small.p99', title: 'p99 FCT · <100 KB' },
  { metric: 'large.p99', title: 'p99 FCT · >10 MB' },
]

/**
 * The compare view: which experiments and runs (across experiments too), the metric and the
 * parameter it is plotted against, the band, a baseline and a query; and every plot's data,
 * fetched through compare.query (and compare.runs for the runs and the differences table).
 */
export const useCompareStore = defineStore('compare', () => {
  /** Whether the main area shows the compare view. */
  const active = ref(false)
  const experimentIds = ref<number[]>([])
  /** Specific runs (pinned, or picked); null: every run of the experiments. */
  const runIds = ref<number[] | null>(null)
  const metric = ref<CompareMetric>('mean')
  const by = ref('load')
  const band = ref<'minmax' | 'ci95'>('minmax')
  /** The scheme the normalised plot divides by; null: the first scheme. */
  const baseline = ref<string | null>(null)
  const query = ref('')
  /** The x (e.g. load) the CDFs are drawn at; null: the highest. */
  const cdfX = ref<FieldValue>(null)
  /** Lines: null is the core's default (scheme, plus experiment/target/parameters that vary). */
  const lines = ref<string[] | null>(null)

  const records = shallowRef<Fetched<RunRecords>>(idle())
  const main = shallowRef<Fetched<CompareResult>>(idle())
  const normalised = shallowRef<Fetched<CompareResult>>(idle())
  const grid = shallowRef<Array<Fetched<CompareResult>>>(FCT_GRID.map(() => idle()))
  const fctCdf = shallowRef<Fetched<CompareResult>>(idle())
  const queueCdf = shallowRef<Fetched<CompareResult>>(idle())
  const probe = shallowRef<Fetched<CompareResult>>(idle())
  /** FCT slowdown against the x (mean and p99, bands across seeds) and its CDFs per flow-size bucket. */
  const slowdown = shallowRef<Fetched<CompareResult>>(idle())
  const slowdownP99 = shallowRef<Fetched<CompareResult>>(idle())
  const slowdownCdf = shallowRef<Fetched<CompareResult>>(idle())
  const byTarget = shallowRef<Array<{ target: string; result: Fetched<CompareResult> }>>([])
  const problem = ref<QueryProblem | null>(null)
  const refreshes = ref(0)
  /** Calls in flight: the view is settled when 0. */
  const busy = ref(0)
  /** Line labels in the order first seen: a scheme keeps its colour in every plot, whatever the filter. */
  const colorOrder = ref<string[]>([])
  let colorKeys = ''
  /**
   * Labels get colours in the order first seen, so a line keeps its colour when a filter hides
   * another. Lines named by other keys (experiment × scheme instead of scheme) start the order
   * afresh: labels of another shape would hold palette slots no line uses.
   */
  function noteLabels(labels: readonly string[], keys: readonly string[]): void {
    const sig = keys.join(',')
    if (sig !== colorKeys) {
      colorKeys = sig
      colorOrder.value = []
    }
    const add = [...new Set(labels)].filter((l) => !colorOrder.value.includes(l))
    if (add.length) colorOrder.value = [...colorOrder.value, ...add]
  }

  /** Every scheme among the runs, in the experiments' order. */
  const schemes = computed(() => {
    const out: string[] = []
    for (const r of records.value.value?.runs ?? []) {
      const s = String(r.fields.scheme)
      if (!out.includes(s)) out.push(s)
    }
    return out
  })
  const targets = computed(() => [...new Set((records.value.value?.runs ?? []).map((r) => String(r.fields.target)))])
  const effectiveBaseline = computed(() => (baseline.value && schemes.value.includes(baseline.value) ? baseline.value : (schemes.value[0] ?? null)))

  function open(ids?: number[], runs?: number[] | null): void {
    if (ids) experimentIds.value = [...ids]
    if (runs !== undefined) runIds.value = runs && runs.length ? [...runs] : null
    active.value = true
  }

  function toggleExperiment(id: number): void {
    colorOrder.value = []
    colorKeys = ''
    experimentIds.value = experimentIds.value.includes(id) ? experimentIds.value.filter((x) => x !== id) : [...experimentIds.value, id]
    if (runIds.value) {
      const keep = new Set((records.value.value?.runs ?? []).filter((r) => experimentIds.value.includes(r.experimentId)).map((r) => r.id))
      runIds.value = runIds.value.filter((r) => keep.has(r))
      if (runIds.value.length === 0) runIds.value = null
    }
  }

  function base(): Omit<Req<'compare.query'>, 'metric'> {
    const q = query.value.trim()
    return {
      experimentIds: experimentIds.value,
      ...(runIds.value ? { runIds: runIds.value } : {}),
      ...(q ? { query: q } : {}),
      by: by.value,
      band: band.value,
      ...(lines.value ? { lines: lines.value } : {}),
    }
  }

  let seq = 0
  async function fetchInto(target: { value: Fetched<CompareResult> }, req: Req<'compare.query'>, my: number): Promise<void> {
    target.value = { ...target.value, loading: true }
    busy.value++
    try {
      const res = await call('compare.query', req)
      if (my === seq) target.value = { value: res, error: null, loading: false }
    } catch (err) {
      if (my === seq) target.value = { value: null, error: errorMessage(err), loading: false }
    } finally {
      busy.value--
    }
  }

  async function refresh(): Promise<void> {
    const my = ++seq
    refreshes.value++
    if (experimentIds.value.length === 0) {
      records.value = idle()
      for (const r of [main, normalised, fctCdf, queueCdf, probe, slowdown, slowdownP99, slowdownCdf]) r.value = idle()
      grid.value = FCT_GRID.map(() => idle())
      byTarget.value = []
      problem.value = null
      return
    }
    // The runs (for the picker, the schemes and the differences), and whether the query parses.
    busy.value++
    try {
      const q = query.value.trim()
      const res = await call('compare.runs', { experimentIds: experimentIds.value, ...(runIds.value ? { runIds: runIds.value } : {}), ...(q ? { query: q } : {}) })
      if (my !== seq) return
      records.value = { value: res, error: null, loading: false }
      problem.value = null
    } catch (err) {
      if (my !== seq) return
      const msg = errorMessage(err)
      if (/query:/.test(msg)) {
        problem.value = queryProblem(msg)
        return
      }
      records.value = { value: null, error: msg, loading: false }
      return
    } finally {
      busy.value--
    }
    const b = base()
    const jobs: Array<Promise<void>> = [
      fetchInto(main, { ...b, metric: metric.value }, my),
      fetchInto(probe, { ...b, metric: 'probeOverhead' }, my),
      fetchInto(fctCdf, { ...b, metric: 'mean', cdf: 'fct' }, my),
      fetchInto(queueCdf, { ...b, metric: 'mean', cdf: 'queue' }, my),
      fetchInto(slowdown, { ...b, metric: 'slowdown.mean' }, my),
      fetchInto(slowdownP99, { ...b, metric: 'slowdown.p99' }, my),
      fetchInto(slowdownCdf, { ...b, metric: 'slowdown.mean', cdf: 'slowdown' }, my),
    ]
    const bl = effectiveBaseline.value
    if (bl) jobs.push(fetchInto(normalised, { ...b, metric: metric.value, baseline: bl }, my))
    else normalised.value = idle()
    const cells = FCT_GRID.map(() => ({ value: idle<CompareResult>() }))
    FCT_GRID.forEach((g, i) => jobs.push(fetchInto(cells[i], { ...b, metric: g.metric }, my).then(() => void (my === seq && (grid.value = cells.map((c) => c.value))))))
    // Sim and BMv2 (any targets) side by side: one plot per target, same metric and query.
    const ts = targets.value
    if (ts.length > 1) {
      const q = query.value.trim()
      const per = ts.map((t) => ({ target: t, cell: { value: idle<CompareResult>() } }))
      for (const p of per) {
        const tq = `target = ${JSON.stringify(p.target)}`
        jobs.push(
          fetchInto(p.cell, { ...b, metric: metric.value, query: q ? `(${q}) and ${tq}` : tq, lines: lines.value ?? ['scheme'] }, my).then(() => {
            if (my === seq) byTarget.value = per.map((x) => ({ target: x.target, result: x.cell.value }))
          }),
        )
      }
    } else byTarget.value = []
    await Promise.all(jobs)
  }

  let timer: ReturnType<typeof setTimeout> | null = null
  /** A refresh is waiting for its debounce. */
  const pending = ref(false)
  function schedule(ms = 200): void {
    if (timer) clearTimeout(timer)
    pending.value = true
    timer = setTimeout(() => {
      timer = null
      pending.value = false
      void refresh()
    }, ms)
  }
  watch([experimentIds, runIds, metric, by, band, baseline, lines], () => active.value && schedule(50), { deep: true })
  watch(query, () => active.value && schedule(350))
  watch(active, (a) => a && schedule(0))

  return {
    active,
    experimentIds,
    runIds,
    metric,
    by,
    band,
    baseline,
    query,
    cdfX,
    lines,
    records,
    main,
    normalised,
    grid,
    fctCdf,
    queueCdf,
    probe,
    slowdown,
    slowdownP99,
    slowdownCdf,
    byTarget,
    problem,
    refreshes,
    busy,
    pending,
    colorOrder,
    noteLabels,
    schemes,
    targets,
    effectiveBaseline,
    open,
    toggleExperiment,
    refresh,
    schedule,
  }
})

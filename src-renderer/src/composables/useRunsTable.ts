// The runs table's non-visual state (column model, query, sort, pins, grouping, diff only), kept out of RunsTable.vue so the component is mostly template.
import { computed, ref, watch } from 'vue'
import type { CompareMetric, Run } from '@contract/index'
import { plural } from '../lib/format'
import {
  addColumn,
  availableColumns,
  defaultState,
  diffOnlyColumns,
  fieldsOfRun,
  groupRows,
  hiddenColumns,
  hideColumn,
  loadColumnState,
  loadPins,
  moveColumn,
  placeColumn,
  resultsPending,
  saveColumnState,
  savePins,
  sortRows,
  visibleColumns,
  type ColumnDef,
  type ColumnState,
  type FieldValue,
  type RunRowData,
} from '../lib/runcolumns'
import { useRunRecords } from './useRunRecords'

const FLOW_METRICS: CompareMetric[] = ['small.p50', 'small.p99', 'large.p50', 'large.p99']

export interface RunsTableRow extends RunRowData {
  run: Run
  /** The run has ended with results this row does not hold yet: empty result cells show "loading". */
  pending: boolean
}

/** props: the component's own (reactive) props; read inside computeds and watchers. */
export function useRunsTable(props: { readonly experimentId: number; readonly runs: readonly Run[] }) {
  const state = ref<ColumnState>(loadColumnState(localStorage, props.experimentId))
  const pins = ref<number[]>(loadPins(localStorage, props.experimentId))
  watch(
    () => props.experimentId,
    (id) => {
      state.value = loadColumnState(localStorage, id)
      pins.value = loadPins(localStorage, id)
    },
  )
  watch(state, (s) => saveColumnState(localStorage, props.experimentId, s), { deep: true })
  watch(pins, (p) => savePins(localStorage, props.experimentId, p), { deep: true })

  const query = ref('')
  const diffOnly = ref(false)
  const groupBy = ref('')
  const sortKey = ref('id')
  const sortDir = ref<1 | -1>(1)

  const extraMetrics = computed(() => FLOW_METRICS.filter((m) => state.value.shown.includes(m)))
  const changes = computed(() => props.runs.map((r) => `${r.id}:${r.status}`).join(','))
  const { records, matched, problem, error } = useRunRecords(
    computed(() => props.experimentId),
    query,
    extraMetrics,
    changes,
  )

  const allColumns = computed(() => availableColumns(records.value?.fields ?? []))

  const rows = computed<RunsTableRow[]>(() => {
    const rec = new Map((records.value?.runs ?? []).map((r) => [r.id, r.fields]))
    const only = matched.value
    return props.runs
      .filter((r) => only === null || only.has(r.id))
      .map((r) => {
        const live = fieldsOfRun(r)
        const stored = rec.get(r.id)
        // The live row's status is newer than a record fetched before the last event.
        const fields: Record<string, FieldValue> = stored ? { ...stored, status: r.status } : live
        // The record holds only the metrics asked for (slowdown is not among them): the run's own stats fill the rest.
        if (stored) for (const [k, v] of Object.entries(live)) fields[k] ??= v
        fields.finished = live.finished
        return { id: r.id, run: r, fields, pending: resultsPending(r, stored) }
      })
  })

  const pinned = computed(() => new Set(pins.value))
  const sorted = computed(() => sortRows(rows.value, sortKey.value, sortDir.value, pinned.value))
  const columns = computed<ColumnDef[]>(() => (diffOnly.value ? diffOnlyColumns(allColumns.value, state.value, sorted.value) : visibleColumns(allColumns.value, state.value)))
  const hidden = computed(() => hiddenColumns(allColumns.value, state.value))
  const shownDefs = computed(() => visibleColumns(allColumns.value, state.value))
  const groupable = computed(() => allColumns.value.filter((c) => c.group !== 'metric' && c.group !== 'live' && c.key !== 'id'))

  /** Group rows show the mean and a min–max band of each metric column. */
  const numericKeys = computed(() => columns.value.filter((c) => c.group === 'metric' || c.key === 'finished').map((c) => c.key))
  const groups = computed(() => (groupBy.value ? groupRows(sorted.value, groupBy.value, numericKeys.value) : null))
  const collapsed = ref(new Set<string>())
  function toggleGroup(v: FieldValue): void {
    const k = JSON.stringify(v)
    const next = new Set(collapsed.value)
    if (next.has(k)) next.delete(k)
    else next.add(k)
    collapsed.value = next
  }

  function sortBy(key: string): void {
    if (key === 'progress') return
    if (sortKey.value === key) sortDir.value = sortDir.value === 1 ? -1 : 1
    else {
      sortKey.value = key
      sortDir.value = 1
    }
  }
  // A no-break space: a header that wraps keeps its arrow beside the label.
  const arrow = (key: string) => (sortKey.value === key ? (sortDir.value === 1 ? '\u00a0▲' : '\u00a0▼') : '')

  function togglePin(id: number): void {
    pins.value = pins.value.includes(id) ? pins.value.filter((p) => p !== id) : [...pins.value, id]
  }

  function show(c: ColumnDef): void {
    state.value = addColumn(state.value, c.key)
  }
  function hide(c: ColumnDef): void {
    state.value = hideColumn(state.value, c.key)
  }
  function move(c: ColumnDef, delta: number): void {
    state.value = moveColumn(state.value, c.key, delta)
  }
  function resetColumns(): void {
    state.value = defaultState()
  }

  // Drag a header onto another to put it before that one.
  const dragging = ref<string | null>(null)
  function onDrop(target: string): void {
    if (dragging.value && !diffOnly.value) state.value = placeColumn(state.value, dragging.value, target)
    dragging.value = null
  }

  const hiddenByGroup = computed(() => {
    const out: Array<{ group: string; cols: ColumnDef[] }> = []
    for (const c of hidden.value) {
      let g = out.find((x) => x.group === c.group)
      if (!g) out.push((g = { group: c.group, cols: [] }))
      g.cols.push(c)
    }
    return out
  })
  const countText = computed(() => (matched.value === null ? plural(rows.value.length, 'run') : `${rows.value.length} of ${plural(props.runs.length, 'run')}`))

  return {
    pins,
    query,
    diffOnly,
    groupBy,
    problem,
    error,
    rows,
    pinned,
    sorted,
    columns,
    shownDefs,
    groupable,
    groups,
    collapsed,
    toggleGroup,
    sortBy,
    arrow,
    togglePin,
    show,
    hide,
    move,
    resetColumns,
    dragging,
    onDrop,
    hiddenByGroup,
    countText,
  }
}

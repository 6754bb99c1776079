import { computed, onBeforeUnmount, ref, watch, type Ref } from 'vue'
import type { Run } from '@contract/index'
import { useConnectionStore } from '../stores/connection'
import { isActive, useRunsStore } from '../stores/runs'
import { useRunViewStore } from '../stores/runview'
import { useTelemetryStore } from '../stores/telemetry'

/**
 * An experiment's runs and the one its run views show: the rows loaded for the experiment (again
 * after a reconnect, as events missed meanwhile are not replayed), the shown run's telemetry
 * followed live or replayed from the store, and the views' redraw tick.
 */
export function useShownRun(experimentId: Ref<number>) {
  const runs = useRunsStore()
  const telemetry = useTelemetryStore()
  const connection = useConnectionStore()
  const view = useRunViewStore()

  watch(experimentId, (id) => void runs.load(id), { immediate: true })
  watch(
    () => connection.epoch,
    () => void runs.load(experimentId.value),
  )

  const shownRun = computed<Run | null>(() => (runs.shownRunId === null ? null : (runs.byId[runs.shownRunId] ?? null)))
  watch(
    () => [runs.shownRunId, shownRun.value ? isActive(shownRun.value.status) : false] as const,
    ([id, active]) => telemetry.show(id, { active }),
    { immediate: true },
  )
  onBeforeUnmount(() => telemetry.show(null, { active: false }))
  watch(
    () => runs.shownRunId,
    (id) => view.setRun(id),
    { immediate: true },
  )

  /** Bumped each time the telemetry store publishes (at most once per frame): the views' redraw tick. */
  const version = ref(0)
  watch(
    () => telemetry.shown,
    () => version.value++,
  )
  const runDone = computed(() => shownRun.value !== null && !isActive(shownRun.value.status))
  /** What the Log tab shows: the shown run, else the newest run (failed ones included). */
  const logRun = computed<Run | null>(() => shownRun.value ?? runs.runs[runs.runs.length - 1] ?? null)

  return { shownRun, version, runDone, logRun }
}

import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { TERMINAL_STATUSES, type EventPayload, type Run, type RunStatus, type SetAsideHow } from '@contract/index'
import { call, errorMessage, on } from '../client'

export type RunProgress = EventPayload<'run.progress'>

export const ACTIVE_STATUSES: readonly RunStatus[] = ['queued', 'deploying', 'running', 'collecting']
export const isTerminal = (s: RunStatus) => TERMINAL_STATUSES.includes(s)
export const isActive = (s: RunStatus) => !isTerminal(s)

/** The runs of the experiment on screen, kept live by run.status and run.progress. */
export const useRunsStore = defineStore('runs', () => {
  const byId = ref<Record<number, Run>>({})
  const progress = ref<Record<number, RunProgress>>({})
  const experimentId = ref<number | null>(null)
  const loading = ref(false)
  const error = ref<string | null>(null)
  /** The run the user clicked, for the charts; null means "follow the latest". */
  const selectedRunId = ref<number | null>(null)

  const runs = computed(() =>
    Object.values(byId.value)
      .filter((r) => r.experimentId === experimentId.value)
      .sort((a, b) => a.id - b.id),
  )

  /** The run the charts follow when none is selected: the newest active one, else the newest one with results (done or incomplete). */
  const followedRunId = computed(() => {
    const list = runs.value
    for (let i = list.length - 1; i >= 0; i--) if (list[i].status === 'running' || list[i].status === 'collecting') return list[i].id
    for (let i = list.length - 1; i >= 0; i--) if (list[i].status === 'done' || list[i].status === 'incomplete') return list[i].id
    return null
  })

  const shownRunId = computed(() => selectedRunId.value ?? followedRunId.value)

  async function load(id: number): Promise<void> {
    if (experimentId.value !== id) {
      experimentId.value = id
      selectedRunId.value = null
    }
    loading.value = true
    try {
      const list = await call('runs.list', { experimentId: id })
      if (experimentId.value !== id) return
      const next: Record<number, Run> = {}
      for (const r of Object.values(byId.value)) if (r.experimentId !== id) next[r.id] = r
      for (const r of list) next[r.id] = r
      byId.value = next
      error.value = null
    } catch (err) {
      error.value = errorMessage(err)
    } finally {
      loading.value = false
    }
  }

  async function cancel(id: number): Promise<void> {
    await call('runs.cancel', { id })
  }

  async function setTags(id: number, tags: string[]): Promise<void> {
    byId.value[id] = await call('runs.setTags', { id, tags })
  }

  async function setNotes(id: number, notes: string): Promise<void> {
    byId.value[id] = await call('runs.setNotes', { id, notes })
  }

  /** Archives or deletes (to the trash: restorable) a run; it leaves the table at once. */
  async function setAside(id: number, how: SetAsideHow): Promise<void> {
    await call('runs.setAside', { ids: [id], how })
    delete byId.value[id]
    if (selectedRunId.value === id) selectedRunId.value = null
  }

  async function restore(id: number): Promise<void> {
    await call('runs.restore', { ids: [id] })
    if (experimentId.value !== null) await load(experimentId.value)
  }

  function select(id: number | null): void {
    selectedRunId.value = id
  }

  let subscribed = false
  function subscribe(): void {
    if (subscribed) return
    subscribed = true
    on('run.status', (p) => {
      if (p.experimentId !== experimentId.value) return
      // The event carries the run as stored with that status, results included: status and
      // statistics land in one assignment, so no view sees a finished run without its results.
      byId.value[p.runId] = p.run
      if (isTerminal(p.status)) delete progress.value[p.runId]
    })
    on('run.progress', (p) => {
      if (byId.value[p.runId]) progress.value[p.runId] = p
    })
  }

  return {
    byId,
    runs,
    progress,
    experimentId,
    loading,
    error,
    selectedRunId,
    followedRunId,
    shownRunId,
    load,
    cancel,
    setTags,
    setNotes,
    setAside,
    restore,
    select,
    subscribe,
  }
})

import { defineStore } from 'pinia'
import { computed, ref, watch } from 'vue'
import type { Experiment, ExperimentSummary, Res, SetAsideHow, Shown, Template } from '@contract/index'
import { call, on } from '../client'

/** What the main area shows. */
/** A draft's stored experiment (`from`) or, for a new one, its picked file's name: never a path. */
export type SpecSource = { from?: number; file?: string }

export type MainView = { kind: 'home' } | { kind: 'new' } | { kind: 'experiment'; id: number }

export const useExperimentsStore = defineStore('experiments', () => {
  const list = ref<ExperimentSummary[]>([])
  const listLoaded = ref(false)
  const listError = ref<string | null>(null)
  const templates = ref<Template[]>([])
  const templatesError = ref<string | null>(null)
  const current = ref<Experiment | null>(null)
  const currentError = ref<string | null>(null)
  const view = ref<MainView>({ kind: 'home' })

  const selectedId = computed(() => (view.value.kind === 'experiment' ? view.value.id : null))

  // The open experiment survives a reload of the tab (the token does too, see client/token).
  const VIEW_KEY = 'p4lab.view'
  watch(selectedId, (id) => {
    if (id === null) sessionStorage.removeItem(VIEW_KEY)
    else sessionStorage.setItem(VIEW_KEY, String(id))
  })
  function restoreView(): void {
    const id = Number(sessionStorage.getItem(VIEW_KEY))
    if (view.value.kind === 'home' && Number.isInteger(id) && list.value.some((e) => e.id === id)) void open(id)
  }

  async function refreshList(): Promise<void> {
    try {
      const items = await call('experiments.list', {})
      list.value = items.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      listError.value = null
      if (!listLoaded.value) restoreView()
    } catch (err) {
      listError.value = err instanceof Error ? err.message : String(err)
    } finally {
      listLoaded.value = true
    }
  }

  async function loadTemplates(): Promise<void> {
    if (templates.value.length > 0) return
    try {
      templates.value = await call('templates.list', {})
      templatesError.value = null
    } catch (err) {
      templatesError.value = err instanceof Error ? err.message : String(err)
    }
  }

  async function open(id: number): Promise<void> {
    view.value = { kind: 'experiment', id }
    if (current.value?.id !== id) current.value = null
    currentError.value = null
    try {
      const exp = await call('experiments.get', { id })
      if (selectedId.value === id) current.value = exp
    } catch (err) {
      if (selectedId.value === id) currentError.value = err instanceof Error ? err.message : String(err)
    }
  }

  function startNew(): void {
    view.value = { kind: 'new' }
    void loadTemplates()
  }

  function goHome(): void {
    view.value = { kind: 'home' }
  }

  /** Where a text's workload files are read: the stored experiment it is a draft of (`from`), or a picked file's name. */
  function validate(yaml: string, where: SpecSource = {}): Promise<Res<'experiments.validate'>> {
    return call('experiments.validate', { yaml, ...where })
  }

  async function create(yaml: string, file?: string): Promise<Experiment> {
    const exp = await call('experiments.create', file ? { yaml, file } : { yaml })
    current.value = exp
    view.value = { kind: 'experiment', id: exp.id }
    await refreshList()
    return exp
  }

  async function update(id: number, yaml: string): Promise<Experiment> {
    const exp = await call('experiments.update', { id, yaml })
    if (selectedId.value === id) current.value = exp
    await refreshList()
    return exp
  }

  /** Renames (names are unique); the rename is a revision of its own. */
  async function rename(id: number, name: string): Promise<Experiment> {
    const exp = await call('experiments.rename', { id, name })
    if (selectedId.value === id) current.value = exp
    await refreshList()
    return exp
  }

  /** The text as a new experiment (its own name, or the first free `NAME (N)`), which then opens. */
  async function saveAs(yaml: string, where: SpecSource = {}): Promise<Experiment> {
    const exp = await call('experiments.saveAs', { yaml, ...where })
    current.value = exp
    view.value = { kind: 'experiment', id: exp.id }
    await refreshList()
    return exp
  }

  /** The store's own tags (the YAML's stay as its text says). */
  async function setTags(id: number, tags: string[]): Promise<Experiment> {
    const exp = await call('experiments.setTags', { id, tags })
    if (selectedId.value === id) current.value = exp
    await refreshList()
    return exp
  }

  async function setNotes(id: number, notes: string): Promise<Experiment> {
    const exp = await call('experiments.setNotes', { id, notes })
    if (selectedId.value === id) current.value = exp
    return exp
  }

  /** Archives or deletes (to the trash: restorable); leaves the view when it showed that experiment. */
  async function setAside(id: number, how: SetAsideHow): Promise<void> {
    await call('experiments.setAside', { ids: [id], how })
    if (selectedId.value === id) goHome()
    await refreshList()
  }

  async function restore(id: number): Promise<void> {
    await call('experiments.restore', { ids: [id] })
    await refreshList()
  }

  /** The archived experiments, or the trash (the sidebar's other lists). */
  function listShown(shown: Shown): Promise<ExperimentSummary[]> {
    return call('experiments.list', { shown })
  }

  async function run(id: number): Promise<number[]> {
    const { runIds } = await call('experiments.run', { id })
    scheduleRefresh()
    return runIds
  }

  // Run counts in the sidebar follow run.status; a burst of events gives one refetch.
  let refreshTimer: ReturnType<typeof setTimeout> | null = null
  function scheduleRefresh(): void {
    if (refreshTimer) return
    refreshTimer = setTimeout(() => {
      refreshTimer = null
      void refreshList()
    }, 400)
  }

  let subscribed = false
  function subscribe(): void {
    if (subscribed) return
    subscribed = true
    on('run.status', scheduleRefresh)
  }

  return {
    list,
    listLoaded,
    listError,
    templates,
    templatesError,
    current,
    currentError,
    view,
    selectedId,
    refreshList,
    loadTemplates,
    open,
    startNew,
    goHome,
    validate,
    create,
    update,
    rename,
    saveAs,
    setTags,
    setNotes,
    setAside,
    restore,
    listShown,
    run,
    subscribe,
  }
})

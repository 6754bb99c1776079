import { computed, ref, type Ref } from 'vue'
import { errorMessage } from '../client'

/** A host key waiting for the user's verdict in HostKeyDialog. */
export interface PendingHostKey {
  /** The saved item (testbed or cluster) the key belongs to. */
  testbed: string
  host: string
  login: string
  keyType: string
  fingerprint: string
}

/** How one kind of saved, checkable SSH target (testbeds, Slurm clusters) is listed, removed, checked and trusted. */
export interface SavedListApi<T extends { name: string }, C> {
  list(): Promise<T[]>
  remove(name: string): Promise<unknown>
  check(name: string): Promise<C>
  /** The host key a check found unknown, to ask the user about; null when there is none. */
  unknownKey(name: string, check: C, item: T | undefined): PendingHostKey | null
  trust(p: PendingHostKey): Promise<unknown>
  /** Which item to show when none is selected. */
  firstShown(list: T[]): string | null
}

/**
 * The state a view of saved targets shares: the list, the one shown and its form mode, each
 * one's last Check, and the host-key dialog fed by a check that met an unknown key.
 */
export function useSavedList<T extends { name: string }, C>(api: SavedListApi<T, C>) {
  /** Whether the section fills the main area. */
  const active = ref(false)
  const list = ref([]) as Ref<T[]>
  const loaded = ref(false)
  const listError = ref<string | null>(null)
  const selected = ref<string | null>(null)
  /** 'view' shows the selected item; 'new' and 'edit' show the form. */
  const mode = ref<'view' | 'new' | 'edit'>('view')
  const checks = ref({}) as Ref<Record<string, C>>
  const checking = ref<string | null>(null)
  const checkError = ref<string | null>(null)
  const pendingKey = ref<PendingHostKey | null>(null)
  const trusting = ref(false)
  const trustError = ref<string | null>(null)

  const current = computed(() => list.value.find((t) => t.name === selected.value) ?? null)

  async function refresh(): Promise<void> {
    try {
      list.value = await api.list()
      listError.value = null
      if (selected.value && !list.value.some((t) => t.name === selected.value)) selected.value = null
      if (!selected.value && mode.value === 'view') selected.value = api.firstShown(list.value)
    } catch (err) {
      listError.value = errorMessage(err)
    } finally {
      loaded.value = true
    }
  }

  function open(): void {
    active.value = true
    void refresh()
  }

  function select(name: string): void {
    selected.value = name
    mode.value = 'view'
    checkError.value = null
  }

  /** After a save: the saved item is shown, and a rename drops the old name's check. */
  async function saved(name: string, replacing: string | undefined): Promise<void> {
    if (replacing && replacing !== name) delete checks.value[replacing]
    await refresh()
    selected.value = name
    mode.value = 'view'
  }

  async function remove(name: string): Promise<void> {
    await api.remove(name)
    delete checks.value[name]
    if (selected.value === name) selected.value = null
    await refresh()
  }

  function ask(p: PendingHostKey | null): void {
    if (!p) return
    pendingKey.value = p
    trustError.value = null
  }

  /** Runs Check; an unknown host key opens the dialog. */
  async function check(name: string): Promise<void> {
    checking.value = name
    checkError.value = null
    try {
      const r = await api.check(name)
      checks.value = { ...checks.value, [name]: r }
      ask(api.unknownKey(name, r, list.value.find((t) => t.name === name)))
    } catch (err) {
      checkError.value = errorMessage(err)
    } finally {
      if (checking.value === name) checking.value = null
    }
  }

  /** Pins the key shown in the dialog (the core re-fetches it and compares), then checks again. */
  async function trustPending(): Promise<void> {
    const p = pendingKey.value
    if (!p) return
    trusting.value = true
    trustError.value = null
    try {
      await api.trust(p)
      pendingKey.value = null
      await refresh()
      await check(p.testbed)
    } catch (err) {
      trustError.value = errorMessage(err)
    } finally {
      trusting.value = false
    }
  }

  function cancelTrust(): void {
    pendingKey.value = null
    trustError.value = null
  }

  return { active, list, loaded, listError, selected, mode, current, checks, checking, checkError, pendingKey, trusting, trustError, refresh, open, select, saved, remove, ask, check, trustPending, cancelTrust }
}

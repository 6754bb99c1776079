import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { HostCheck, Testbed, TestbedCheck, TestbedInput } from '@contract/index'
import { call, errorMessage } from '../client'

/** A host key waiting for the user's verdict in HostKeyDialog. */
export interface PendingHostKey {
  testbed: string
  host: string
  login: string
  keyType: string
  fingerprint: string
}

/** Testbeds: the list, the one shown, its last Check, and the host-key dialog. */
export const useTestbedsStore = defineStore('testbeds', () => {
  /** Whether the Testbeds section fills the main area. */
  const active = ref(false)
  const list = ref<Testbed[]>([])
  const loaded = ref(false)
  const listError = ref<string | null>(null)
  const selected = ref<string | null>(null)
  /** 'view' shows the selected testbed; 'new' and 'edit' show the form. */
  const mode = ref<'view' | 'new' | 'edit'>('view')
  const checks = ref<Record<string, TestbedCheck>>({})
  const checking = ref<string | null>(null)
  const checkError = ref<string | null>(null)
  const pendingKey = ref<PendingHostKey | null>(null)
  const trusting = ref(false)
  const trustError = ref<string | null>(null)

  const current = computed(() => list.value.find((t) => t.name === selected.value) ?? null)

  async function refresh(): Promise<void> {
    try {
      list.value = await call('testbeds.list', {})
      listError.value = null
      if (selected.value && !list.value.some((t) => t.name === selected.value)) selected.value = null
      if (!selected.value && mode.value === 'view') selected.value = list.value.find((t) => !t.builtin)?.name ?? list.value[0]?.name ?? null
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

  function startNew(): void {
    mode.value = 'new'
  }

  function startEdit(): void {
    if (current.value && !current.value.builtin) mode.value = 'edit'
  }

  function cancelForm(): void {
    mode.value = 'view'
  }

  /** Creates or updates; errors are thrown for the form to show. */
  async function save(input: TestbedInput): Promise<Testbed> {
    const t =
      mode.value === 'edit' && selected.value
        ? await call('testbeds.update', { name: selected.value, testbed: input })
        : await call('testbeds.create', { testbed: input })
    if (mode.value === 'edit' && selected.value && selected.value !== t.name) delete checks.value[selected.value]
    await refresh()
    selected.value = t.name
    mode.value = 'view'
    return t
  }

  async function remove(name: string): Promise<void> {
    await call('testbeds.delete', { name })
    delete checks.value[name]
    if (selected.value === name) selected.value = null
    await refresh()
  }

  function askAbout(testbed: string, h: HostCheck): void {
    if (h.status !== 'unknown-key' || !h.hostKey) return
    const addr = h.address.includes(':') ? `[${h.address}]` : h.address
    pendingKey.value = {
      testbed,
      host: h.host,
      login: `${h.user}@${addr}${h.port === 22 ? '' : `:${h.port}`}`,
      keyType: h.hostKey.keyType,
      fingerprint: h.hostKey.fingerprint,
    }
    trustError.value = null
  }

  /** Runs Check; the first host with an unknown key opens the dialog. */
  async function check(name: string): Promise<void> {
    checking.value = name
    checkError.value = null
    try {
      const r = await call('testbeds.check', { name })
      checks.value = { ...checks.value, [name]: r }
      const unknown = r.hosts.find((h) => h.status === 'unknown-key')
      if (unknown) askAbout(name, unknown)
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
      await call('testbeds.trust', { testbed: p.testbed, host: p.host, fingerprint: p.fingerprint })
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

  return {
    active,
    list,
    loaded,
    listError,
    selected,
    mode,
    current,
    checks,
    checking,
    checkError,
    pendingKey,
    trusting,
    trustError,
    refresh,
    open,
    select,
    startNew,
    startEdit,
    cancelForm,
    save,
    remove,
    check,
    askAbout,
    trustPending,
    cancelTrust,
  }
})

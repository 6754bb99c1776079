import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { ClusterCheck, Req, SlurmCluster, SlurmClusterInput, SlurmJobView } from '@contract/index'
import { call, errorMessage, on } from '../client'
import type { PendingHostKey } from './testbeds'

/** Slurm clusters (saved like testbeds, with Check and the host-key dialog) and the job arrays sent to them. */
export const useClustersStore = defineStore('clusters', () => {
  /** Whether the Clusters section fills the main area. */
  const active = ref(false)
  const list = ref<SlurmCluster[]>([])
  const loaded = ref(false)
  const listError = ref<string | null>(null)
  const selected = ref<string | null>(null)
  const mode = ref<'view' | 'new' | 'edit'>('view')
  const checks = ref<Record<string, ClusterCheck>>({})
  const checking = ref<string | null>(null)
  const checkError = ref<string | null>(null)
  const pendingKey = ref<PendingHostKey | null>(null)
  const trusting = ref(false)
  const trustError = ref<string | null>(null)
  /** Job arrays per experiment, kept live by slurm.progress. */
  const jobs = ref<Record<number, SlurmJobView[]>>({})

  const current = computed(() => list.value.find((c) => c.name === selected.value) ?? null)

  async function refresh(): Promise<void> {
    try {
      list.value = await call('clusters.list', {})
      listError.value = null
      if (selected.value && !list.value.some((c) => c.name === selected.value)) selected.value = null
      if (!selected.value && mode.value === 'view') selected.value = list.value[0]?.name ?? null
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

  /** Saves new or edited; errors are thrown for the form to show. */
  async function save(input: SlurmClusterInput): Promise<SlurmCluster> {
    const replacing = mode.value === 'edit' && selected.value ? selected.value : undefined
    const c = await call('clusters.save', { cluster: input, ...(replacing ? { replacing } : {}) })
    if (replacing && replacing !== c.name) delete checks.value[replacing]
    await refresh()
    selected.value = c.name
    mode.value = 'view'
    return c
  }

  async function remove(name: string): Promise<void> {
    await call('clusters.delete', { name })
    delete checks.value[name]
    if (selected.value === name) selected.value = null
    await refresh()
  }

  async function check(name: string): Promise<void> {
    checking.value = name
    checkError.value = null
    try {
      const r = await call('clusters.check', { name })
      checks.value = { ...checks.value, [name]: r }
      const c = list.value.find((x) => x.name === name)
      if (r.status === 'unknown-key' && r.hostKey && c && c.login.kind === 'ssh') {
        pendingKey.value = { testbed: name, host: c.login.host, login: c.label, keyType: r.hostKey.keyType, fingerprint: r.hostKey.fingerprint }
        trustError.value = null
      }
    } catch (err) {
      checkError.value = errorMessage(err)
    } finally {
      if (checking.value === name) checking.value = null
    }
  }

  async function trustPending(): Promise<void> {
    const p = pendingKey.value
    if (!p) return
    trusting.value = true
    trustError.value = null
    try {
      await call('clusters.trust', { name: p.testbed, fingerprint: p.fingerprint })
      pendingKey.value = null
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

  function putJob(job: SlurmJobView): void {
    const all = [...(jobs.value[job.experimentId] ?? [])]
    const i = all.findIndex((j) => j.id === job.id)
    if (i >= 0) all[i] = job
    else all.push(job)
    jobs.value = { ...jobs.value, [job.experimentId]: all }
  }

  async function loadJobs(experimentId: number): Promise<void> {
    const all = await call('slurm.jobs', { experimentId })
    jobs.value = { ...jobs.value, [experimentId]: all }
  }

  async function submit(req: Req<'slurm.submit'>): Promise<{ job: SlurmJobView; runIds: number[] }> {
    const r = await call('slurm.submit', req)
    putJob(r.job)
    return r
  }

  async function cancel(experimentId: number): Promise<void> {
    for (const j of await call('slurm.cancel', { experimentId })) putJob(j)
  }

  let unsubscribe: (() => void) | null = null
  function subscribe(): void {
    unsubscribe ??= on('slurm.progress', (p) => putJob(p.job))
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
    jobs,
    refresh,
    open,
    select,
    save,
    remove,
    check,
    trustPending,
    cancelTrust,
    loadJobs,
    submit,
    cancel,
    subscribe,
  }
})

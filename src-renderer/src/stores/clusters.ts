import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { ClusterCheck, Req, SlurmCluster, SlurmClusterInput, SlurmJobView } from '@contract/index'
import { call, on } from '../client'
import { useSavedList } from './savedList'

/** Slurm clusters (saved like testbeds, with Check and the host-key dialog) and the job arrays sent to them. */
export const useClustersStore = defineStore('clusters', () => {
  const s = useSavedList<SlurmCluster, ClusterCheck>({
    list: () => call('clusters.list', {}),
    remove: (name) => call('clusters.delete', { name }),
    check: (name) => call('clusters.check', { name }),
    unknownKey: (name, r, c) =>
      r.status === 'unknown-key' && r.hostKey && c && c.login.kind === 'ssh'
        ? { testbed: name, host: c.login.host, login: c.label, keyType: r.hostKey.keyType, fingerprint: r.hostKey.fingerprint }
        : null,
    trust: (p) => call('clusters.trust', { name: p.testbed, fingerprint: p.fingerprint }),
    firstShown: (list) => list[0]?.name ?? null,
  })
  /** Job arrays per experiment, kept live by slurm.progress. */
  const jobs = ref<Record<number, SlurmJobView[]>>({})

  /** Saves new or edited; errors are thrown for the form to show. */
  async function save(input: SlurmClusterInput): Promise<SlurmCluster> {
    const replacing = s.mode.value === 'edit' && s.selected.value ? s.selected.value : undefined
    const c = await call('clusters.save', { cluster: input, ...(replacing ? { replacing } : {}) })
    await s.saved(c.name, replacing)
    return c
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

  return { ...s, jobs, save, loadJobs, submit, cancel, subscribe }
})

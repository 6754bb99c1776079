import { fromJson, toJson, type StoreContext } from './rows'
import type { SlurmClusterRef } from './slurm'

// Saved Slurm clusters (migration "slurm clusters"). Secrets have no column: a key file's
// passphrase is in the SecretStore under an id derived from the cluster's id.

export interface ClusterRow {
  id: number
  name: string
  login: SlurmClusterRef
  workDir: string
  partition: string | null
  account: string | null
  time: string | null
  createdAt: string
}

export type ClusterRowInput = Omit<ClusterRow, 'id' | 'createdAt'>

interface ClusterRecord {
  id: number
  name: string
  login: string
  work_dir: string
  partition: string | null
  account: string | null
  time_limit: string | null
  created_at: string
}

const row = (r: ClusterRecord): ClusterRow => ({
  id: r.id,
  name: r.name,
  login: fromJson(r.login) as SlurmClusterRef,
  workDir: r.work_dir,
  partition: r.partition,
  account: r.account,
  time: r.time_limit,
  createdAt: r.created_at,
})

export function listClusters(s: StoreContext): ClusterRow[] {
  return (s.stmt('SELECT * FROM slurm_clusters ORDER BY name').all() as ClusterRecord[]).map(row)
}

export function getCluster(s: StoreContext, name: string): ClusterRow | undefined {
  const r = s.stmt('SELECT * FROM slurm_clusters WHERE name = ?').get(name) as ClusterRecord | undefined
  return r && row(r)
}

/** Inserts, or replaces the cluster `replacing` names (which may be renamed); throws on a taken name. */
export function saveCluster(s: StoreContext, input: ClusterRowInput, replacing?: string): ClusterRow {
  return s.write(() => {
    const old = replacing === undefined ? undefined : getCluster(s, replacing)
    const holder = getCluster(s, input.name)
    if (holder && holder.id !== old?.id) throw new Error(`a Slurm cluster named '${input.name}' exists already; choose another name or edit that one`)
    const values = [input.name, toJson(input.login), input.workDir, input.partition, input.account, input.time] as const
    if (old) {
      s.stmt('UPDATE slurm_clusters SET name = ?, login = ?, work_dir = ?, partition = ?, account = ?, time_limit = ? WHERE id = ?').run(...values, old.id)
    } else {
      s.stmt('INSERT INTO slurm_clusters (name, login, work_dir, partition, account, time_limit, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(...values, s.isoNow())
    }
    return getCluster(s, input.name)!
  })
}

/** Deletes by name; returns the deleted row's id (its secret is the caller's to drop). */
export function deleteCluster(s: StoreContext, name: string): number | null {
  const r = getCluster(s, name)
  if (!r) return null
  s.stmt('DELETE FROM slurm_clusters WHERE id = ?').run(r.id)
  return r.id
}

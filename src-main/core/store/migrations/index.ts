import type { Database } from 'better-sqlite3'
import type { Migration } from './types'
import { initialSchema } from './001-initial-schema'
import { rollups } from './002-rollups'
import { sampleChunks } from './003-sample-chunks'
import { incompleteStatus } from './004-incomplete-status'
import { revisions } from './005-revisions'
import { heartbeats } from './006-heartbeats'
import { slurmJobs } from './007-slurm-jobs'
import { manage } from './008-manage'
import { slurmClusters } from './009-slurm-clusters'
import { testbedMappings } from './010-testbed-mappings'
import { topologyLayouts } from './011-topology-layouts'
import { slurmSubmissions } from './012-slurm-submissions'
import { runTestbeds } from './013-run-testbeds'
import { heldStatus } from './014-held-status'

// Schema migrations, in order. Migration i (1-based) brings PRAGMA user_version from
// i - 1 to i. Append new ones; never edit one that has shipped, since databases in the
// field have already run it.
//
// Conventions: JSON columns hold TEXT written by JSON.stringify; times are ISO-8601 wall
// clock in *_at columns and integer nanoseconds (sim or target time) in *_ns columns.
// Secrets (passwords, key passphrases) have no column: they live in the SecretStore.
// One file per migration, named by its number; the list is in that order.

export type { Migration } from './types'

export const MIGRATIONS: readonly Migration[] = [initialSchema, rollups, sampleChunks, incompleteStatus, revisions, heartbeats, slurmJobs, manage, slurmClusters, testbedMappings, topologyLayouts, slurmSubmissions, runTestbeds, heldStatus]

export const SCHEMA_VERSION = MIGRATIONS.length

/**
 * Brings the database to SCHEMA_VERSION, one transaction per migration so a failure
 * leaves it at the last good version. Refuses a database from a newer p4lab: guessing
 * at an unknown schema risks corrupting someone's results. Each step takes the write
 * lock first and re-reads the version, so two processes opening a new file at once
 * (the app and the CLI) do not both run a migration.
 */
/**
 * Rows whose foreign key points at nothing: in `tables` and in every table that references one
 * of them, or in the whole database when `tables` is not given.
 */
export function danglingRows(db: Database, tables?: readonly string[]): number {
  if (!tables) return (db.pragma('foreign_key_check') as unknown[]).length
  const all = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]
  const refersTo = db.prepare('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)').pluck()
  const checked = all.filter((t) => tables.includes(t) || (refersTo.all(t) as string[]).some((p) => tables.includes(p)))
  return checked.reduce((n, t) => n + (db.pragma(`foreign_key_check(${JSON.stringify(t)})`) as unknown[]).length, 0)
}

export function migrate(db: Database, file: string): void {
  const version = () => db.pragma('user_version', { simple: true }) as number
  const refuseNewer = (v: number) => {
    if (v > SCHEMA_VERSION) {
      throw new Error(
        `${file}: database schema version ${v} is newer than this p4lab supports ` +
          `(${SCHEMA_VERSION}); upgrade p4lab, or open a different database file`,
      )
    }
  }
  refuseNewer(version())
  while (version() < SCHEMA_VERSION) {
    const rebuilds = MIGRATIONS[version()].rebuildsTables === true
    const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number
    if (rebuilds) db.pragma('foreign_keys = OFF')
    try {
      db.transaction(() => {
        const v = version()
        refuseNewer(v)
        if (v >= SCHEMA_VERSION) return
        // Another process moved the version meanwhile: a rebuild only ever runs with foreign keys
        // off (dropping a referenced table with them on would delete its children); go round again.
        if (MIGRATIONS[v].rebuildsTables && db.pragma('foreign_keys', { simple: true })) return
        // Rows already pointing at nothing (written with foreign keys off) are left as they are;
        // a rebuild must not add any.
        const dangling = () => (MIGRATIONS[v].rebuildsTables ? danglingRows(db, MIGRATIONS[v].rebuilt) : 0)
        const before = dangling()
        MIGRATIONS[v].up(db)
        const after = dangling()
        if (after > before) throw new Error(`${file}: migration ${v + 1} (${MIGRATIONS[v].name}) would leave ${after - before} more rows pointing at nothing`)
        db.pragma(`user_version = ${v + 1}`)
      }).immediate()
    } finally {
      if (rebuilds) db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`)
    }
  }
}

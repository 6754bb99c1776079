import type { Database } from 'better-sqlite3'

export interface Migration {
  name: string
  /**
   * Rebuilds a table that others reference (SQLite cannot change a CHECK in place): foreign
   * keys are off while it runs (they can only be switched outside a transaction), and checked
   * before it commits.
   */
  rebuildsTables?: boolean
  up(db: Database): void
}

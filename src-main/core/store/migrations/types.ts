import type { Database } from 'better-sqlite3'

export interface Migration {
  name: string
  /**
   * Rebuilds a table that others reference (SQLite cannot change a CHECK in place): foreign
   * keys are off while it runs (they can only be switched outside a transaction), and checked
   * before it commits.
   */
  rebuildsTables?: boolean
  /**
   * The tables it rebuilds, when it says: only they and the tables that reference them are
   * checked, not every table (on a database of many runs the telemetry tables alone take
   * minutes to check, and nothing of theirs changed). Unsaid: every table is checked.
   */
  rebuilt?: readonly string[]
  up(db: Database): void
}

import type { Database, Statement } from 'better-sqlite3'
import type { FctStats, RunCompletion, RunStatus } from '../../contract/schemas'

// Row shapes the store returns (camelCase; JSON columns parsed), and the small context
// every table module shares.

export interface ExperimentRow {
  id: number
  name: string
  yaml: string
  spec: unknown
  file: string | null
  /** The current revision's YAML `tags:` (written by create/update/import from the text). */
  tags: string[]
  /** Tags added in the app or with `p4lab tag`, kept in the store and out of the text. */
  storeTags: string[]
  notes: string
  createdAt: string
  /** The current revision (1-based); yaml and spec are its text. */
  revision: number
  /** Set aside: archived, or deleted (in the trash); both hidden from lists and restorable. */
  archivedAt: string | null
  deletedAt: string | null
}

/** Which rows a listing shows: the active ones (default), the archived, the trash, or all. */
export type Shown = 'active' | 'archived' | 'deleted' | 'all'

/** The SQL condition for `shown` on a table aliased `t` (deleted wins over archived). */
export function shownWhere(t: string, shown: Shown): string {
  switch (shown) {
    case 'active':
      return `${t}.archived_at IS NULL AND ${t}.deleted_at IS NULL`
    case 'archived':
      return `${t}.archived_at IS NOT NULL AND ${t}.deleted_at IS NULL`
    case 'deleted':
      return `${t}.deleted_at IS NOT NULL`
    case 'all':
      return '1'
  }
}

export interface ExperimentSummaryRow extends ExperimentRow {
  /** Of its active runs (archived and deleted ones are not counted); every status, zero included. */
  runCounts: Record<RunStatus, number>
}

export interface RunRow {
  id: number
  experimentId: number
  experimentName: string
  target: string
  scheme: string
  load: number
  seed: number
  params: Record<string, unknown>
  status: RunStatus
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  error: string | null
  stats: FctStats | null
  counters: Record<string, number> | null
  facts: Record<string, unknown> | null
  /** How the run's flows ended (done and incomplete runs). */
  completion: RunCompletion | null
  owner: string
  /** The experiment revision the run ran; null only for a run that has no record. */
  revision: number | null
  /**
   * Not a run of the experiment as it is now: its revision runs cells differently from the
   * current one (a rename or a new tag does not count), or it ran on another target.
   */
  stale: boolean
  /** The run's own tags and notes (store only). */
  tags: string[]
  notes: string
  archivedAt: string | null
  deletedAt: string | null
}

export interface FlowRow {
  id: number
  src: number
  dst: number
  sizeBytes: number
  startNs: number
  finishNs: number | null
  fctNs: number | null
}

export interface SeriesRow {
  id: number
  kind: string
  entity: Record<string, string | number>
  unit: string
}

export interface EventRow {
  id: number
  tNs: number | null
  at: string
  kind: string
  detail: unknown
}

/** A run the store reads as interrupted without having recorded it (runs.readInterrupted). */
export interface UnrecordedInterruption {
  error: string
  finishedAt: string | null
}

/** What the table modules share: the connection, a statement cache and the clock. */
export class StoreContext {
  private readonly statements = new Map<string, Statement>()
  /** By run id: set on a store opened read-only only, which cannot mark them (runs.readInterrupted). */
  readonly unrecorded = new Map<number, UnrecordedInterruption>()

  constructor(
    readonly db: Database,
    readonly now: () => Date,
  ) {}

  /** Prepares once per SQL text; better-sqlite3 statements are reusable. */
  stmt(sql: string): Statement {
    let s = this.statements.get(sql)
    if (!s) {
      s = this.db.prepare(sql)
      this.statements.set(sql, s)
    }
    return s
  }

  /**
   * Runs fn in a transaction that takes the write lock at BEGIN (IMMEDIATE), so the busy
   * timeout applies. A deferred one that reads first and then writes gets SQLITE_BUSY at
   * once, without waiting, when another process wrote in between: its snapshot is stale.
   * Nested calls become savepoints of the outer transaction.
   */
  write<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate()
  }

  isoNow(): string {
    return this.now().toISOString()
  }
}

export function toJson(v: unknown): string {
  return JSON.stringify(v ?? null)
}

export function fromJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T)
}

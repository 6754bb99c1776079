import { RunStatus, TERMINAL_STATUSES } from '../../contract/schemas'
import { fromJson, shownWhere, toJson, type ExperimentRow, type ExperimentSummaryRow, type Shown, type StoreContext } from './rows'
import { insertRevision, renamed } from './revisions'

interface ExperimentRecord {
  id: number
  name: string
  yaml: string
  spec: string
  file: string | null
  tags: string
  notes: string
  created_at: string
  revision: number
  store_tags: string
  archived_at: string | null
  deleted_at: string | null
}

function toRow(r: ExperimentRecord): ExperimentRow {
  return {
    id: r.id,
    name: r.name,
    yaml: r.yaml,
    spec: fromJson(r.spec),
    file: r.file,
    tags: fromJson<string[]>(r.tags) ?? [],
    notes: r.notes,
    createdAt: r.created_at,
    revision: r.revision,
    storeTags: fromJson<string[]>(r.store_tags) ?? [],
    archivedAt: r.archived_at,
    deletedAt: r.deleted_at,
  }
}

/**
 * Names are unique: the error says which experiment holds the name and what to do. A rename
 * can only pick another name; a new text may also go in as a revision of the holder.
 */
export class NameTakenError extends Error {
  constructor(
    readonly takenName: string,
    readonly holder: number,
    set?: 'archived' | 'deleted',
    forRename = false,
  ) {
    const where = set === 'deleted' ? ', in the trash' : set === 'archived' ? ', archived' : ''
    const more = set ? `; restore it (p4lab restore experiment ${holder}, or Restore in the app)${set === 'deleted' ? ', or empty the trash (p4lab rm --purge)' : ''}` : ''
    super(`an experiment named '${takenName}' already exists (experiment ${holder}${where}); choose another name${forRename ? '' : ', or save the text as a new revision of that experiment'}${more}`)
  }
}

function checkNameFree(s: StoreContext, name: string, self: number | null): void {
  const holder = s.stmt('SELECT id, archived_at, deleted_at FROM experiments WHERE name = ?').get(name) as { id: number; archived_at: string | null; deleted_at: string | null } | undefined
  if (holder !== undefined && holder.id !== self) throw new NameTakenError(name, holder.id, holder.deleted_at ? 'deleted' : holder.archived_at ? 'archived' : undefined, self !== null)
}

export function createExperiment(
  s: StoreContext,
  input: { name: string; yaml: string; spec: unknown; file: string | null; tags: string[] },
  note = 'created',
): ExperimentRow {
  return s.write(() => {
    checkNameFree(s, input.name, null)
    const at = s.isoNow()
    const { lastInsertRowid } = s
      .stmt(
        `INSERT INTO experiments (name, yaml, spec, file, tags, notes, created_at, revision)
         VALUES (?, ?, ?, ?, ?, '', ?, 1)`,
      )
      .run(input.name, input.yaml, toJson(input.spec), input.file, toJson(input.tags), at)
    const id = Number(lastInsertRowid)
    insertRevision(s.db, { experimentId: id, rev: 1, name: input.name, yaml: input.yaml, spec: input.spec, note, at })
    return getExperiment(s, id)!
  })
}

/**
 * Saves a text as the experiment's new current revision; the same text as now is no change.
 * The name is not changed here: a text naming the experiment otherwise is refused (renaming is
 * its own action, renameExperiment).
 */
export function updateExperiment(
  s: StoreContext,
  id: number,
  input: { name: string; yaml: string; spec: unknown; tags: string[] },
  note = 'edited',
): ExperimentRow {
  return s.write(() => {
    const cur = getExperiment(s, id)
    if (!cur) throw new Error(`experiment ${id} does not exist`)
    if (input.name !== cur.name) {
      throw new Error(`the text names the experiment '${input.name}', but it is '${cur.name}': rename it (p4lab rename, or Rename in the app), or save the text as a new experiment`)
    }
    if (input.yaml === cur.yaml) return cur
    const rev = cur.revision + 1
    s.stmt('UPDATE experiments SET yaml = ?, spec = ?, tags = ?, revision = ? WHERE id = ?').run(input.yaml, toJson(input.spec), toJson(input.tags), rev, id)
    insertRevision(s.db, { experimentId: id, rev, name: cur.name, yaml: input.yaml, spec: input.spec, note, at: s.isoNow() })
    return getExperiment(s, id)!
  })
}

/** Renames an experiment: a new revision whose text says the new name, noting the old one. */
export function renameExperiment(s: StoreContext, id: number, name: string): ExperimentRow {
  return s.write(() => {
    const cur = getExperiment(s, id)
    if (!cur) throw new Error(`experiment ${id} does not exist`)
    if (name === cur.name) return cur
    checkNameFree(s, name, id)
    const next = renamed(cur.yaml, cur.spec, name)
    const rev = cur.revision + 1
    s.stmt('UPDATE experiments SET name = ?, yaml = ?, spec = ?, revision = ? WHERE id = ?').run(name, next.yaml, toJson(next.spec), rev, id)
    insertRevision(s.db, { experimentId: id, rev, name, yaml: next.yaml, spec: next.spec, note: `renamed ${cur.name} -> ${name}`, at: s.isoNow() })
    return getExperiment(s, id)!
  })
}

export function findExperimentByName(s: StoreContext, name: string): ExperimentRow | undefined {
  const r = s.stmt('SELECT * FROM experiments WHERE name = ?').get(name) as ExperimentRecord | undefined
  return r && toRow(r)
}

/** A name not yet taken: `name`, else `name (2)`, `name (3)`, ... */
export function freeName(s: StoreContext, name: string): string {
  const taken = (n: string) => s.stmt('SELECT 1 FROM experiments WHERE name = ?').get(n) !== undefined
  if (!taken(name)) return name
  for (let i = 2; ; i++) if (!taken(`${name} (${i})`)) return `${name} (${i})`
}

export function getExperiment(s: StoreContext, id: number): ExperimentRow | undefined {
  const r = s.stmt('SELECT * FROM experiments WHERE id = ?').get(id) as ExperimentRecord | undefined
  return r && toRow(r)
}

export function findExperiment(s: StoreContext, name: string, yaml: string): ExperimentRow | undefined {
  const r = s
    .stmt('SELECT * FROM experiments WHERE name = ? AND yaml = ? ORDER BY id DESC LIMIT 1')
    .get(name, yaml) as ExperimentRecord | undefined
  return r && toRow(r)
}

/** Newest first; `shown` picks the active ones (default), the archived, the trash, or all. */
export function listExperiments(s: StoreContext, shown: Shown = 'active'): ExperimentSummaryRow[] {
  const rows = s
    .stmt(`SELECT * FROM experiments e WHERE ${shownWhere('e', shown)} ORDER BY created_at DESC, id DESC`)
    .all() as ExperimentRecord[]
  // Runs a read-only store reads as interrupted (runs.readInterrupted) count as such.
  const counts = s
    .stmt(
      `SELECT experiment_id AS id, CASE WHEN r.id IN (SELECT value FROM json_each(?)) AND r.status NOT IN (${TERMINAL_STATUSES.map(() => '?').join(', ')}) THEN 'interrupted' ELSE r.status END AS status, COUNT(*) AS n
       FROM runs r WHERE r.archived_at IS NULL AND r.deleted_at IS NULL GROUP BY 1, 2`,
    )
    .all(JSON.stringify([...s.unrecorded.keys()]), ...TERMINAL_STATUSES) as Array<{ id: number; status: RunStatus; n: number }>
  const byExperiment = new Map<number, Record<RunStatus, number>>()
  for (const r of rows) {
    byExperiment.set(r.id, Object.fromEntries(RunStatus.options.map((st) => [st, 0])) as Record<RunStatus, number>)
  }
  for (const c of counts) {
    const rc = byExperiment.get(c.id)
    if (rc) rc[c.status] = c.n
  }
  return rows.map((r) => ({ ...toRow(r), runCounts: byExperiment.get(r.id)! }))
}

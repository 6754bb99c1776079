// Managing what the store holds, as MLflow and W&B users expect: tags and notes on experiments
// and runs, and setting them aside. Archived and deleted rows are hidden from every listing but
// kept, and restorable; deleted ones are the trash, which only an explicit purge empties. So a
// delete in the app is undone by a restore, and is never lost if the app closes meanwhile.
import { TERMINAL_STATUSES } from '../../contract/schemas'
import { toJson, type StoreContext } from './rows'

export type SetAside = 'archived' | 'deleted'
export type ManagedKind = 'runs' | 'experiments'

/** Refused as asked (a run still in flight, an id that does not exist): the message says what to do. */
export class ManageError extends Error {
  constructor(
    message: string,
    readonly notFound = false,
  ) {
    super(message)
    this.name = 'ManageError'
  }
}

/** Trimmed, each once, in the order first given. */
export function cleanTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t !== ''))]
}

function exists(s: StoreContext, kind: ManagedKind, id: number): void {
  if (s.stmt(`SELECT 1 FROM ${kind} WHERE id = ?`).get(id) === undefined) {
    throw new ManageError(`${kind === 'runs' ? 'run' : 'experiment'} ${id} does not exist`, true)
  }
}

/** Sets the store's own tags of an experiment (those of its YAML stay as the text says). */
export function setExperimentTags(s: StoreContext, id: number, tags: readonly string[]): void {
  s.write(() => {
    exists(s, 'experiments', id)
    s.stmt('UPDATE experiments SET store_tags = ? WHERE id = ?').run(toJson(cleanTags(tags)), id)
  })
}

export function setRunTags(s: StoreContext, id: number, tags: readonly string[]): void {
  s.write(() => {
    exists(s, 'runs', id)
    s.stmt('UPDATE runs SET tags = ? WHERE id = ?').run(toJson(cleanTags(tags)), id)
  })
}

export function setNotes(s: StoreContext, kind: ManagedKind, id: number, notes: string): void {
  s.write(() => {
    exists(s, kind, id)
    s.stmt(`UPDATE ${kind} SET notes = ? WHERE id = ?`).run(notes, id)
  })
}

const IN_FLIGHT = `status NOT IN (${TERMINAL_STATUSES.map((t) => `'${t}'`).join(', ')})`

/** Throws the ManageError a setAside of these would throw (a missing id, a run in flight); nothing is written. */
export function checkSetAside(s: StoreContext, kind: ManagedKind, ids: readonly number[], how: SetAside): void {
  for (const id of ids) exists(s, kind, id)
  if (ids.length === 0) return
  const marks = ids.map(() => '?').join(', ')
  const busy = s.db
    .prepare(`SELECT experiment_id AS eid, id, status FROM runs WHERE ${kind === 'runs' ? 'id' : 'experiment_id'} IN (${marks}) AND ${IN_FLIGHT} ORDER BY id`)
    .all(...ids) as Array<{ eid: number; id: number; status: string }>
  if (busy.length === 0) return
  const verb = how === 'deleted' ? 'delete' : 'archive'
  const list = busy.map((b) => `run ${b.id} is ${b.status}`).join(', ')
  throw new ManageError(
    kind === 'runs'
      ? `cannot ${verb} a run that has not ended: ${list}; cancel it first (Cancel in the app), or wait for it to end`
      : `cannot ${verb} experiment ${busy[0].eid} while it has runs that have not ended: ${list}; cancel them first, or wait for them to end`,
  )
}

/**
 * Archives or deletes (to the trash) runs or experiments, all or none. A run still in flight is
 * refused (cancel it first), and so is an experiment with one. Returns the ids that changed
 * (one already set aside the same way is left as it is).
 */
export function setAside(s: StoreContext, kind: ManagedKind, ids: readonly number[], how: SetAside): number[] {
  return s.write(() => {
    checkSetAside(s, kind, ids, how)
    const col = how === 'deleted' ? 'deleted_at' : 'archived_at'
    const at = s.isoNow()
    const changed: number[] = []
    const set = s.stmt(`UPDATE ${kind} SET ${col} = ? WHERE id = ? AND ${col} IS NULL`)
    for (const id of ids) if (set.run(at, id).changes > 0) changed.push(id)
    return changed
  })
}

/** Brings archived or deleted runs or experiments back into the lists; returns the ids that changed. */
export function restore(s: StoreContext, kind: ManagedKind, ids: readonly number[]): number[] {
  return s.write(() => {
    for (const id of ids) exists(s, kind, id)
    const set = s.stmt(`UPDATE ${kind} SET archived_at = NULL, deleted_at = NULL WHERE id = ? AND (archived_at IS NOT NULL OR deleted_at IS NOT NULL)`)
    return ids.filter((id) => set.run(id).changes > 0)
  })
}

/** What is in the trash: the ids and names a purge would remove for good. */
export function trash(s: StoreContext): { runs: Array<{ id: number; experimentName: string; scheme: string }>; experiments: Array<{ id: number; name: string; runs: number }> } {
  return {
    runs: s
      .stmt('SELECT r.id, e.name AS experimentName, r.scheme FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE r.deleted_at IS NOT NULL AND e.deleted_at IS NULL ORDER BY r.id')
      .all() as Array<{ id: number; experimentName: string; scheme: string }>,
    experiments: s
      .stmt('SELECT e.id, e.name, (SELECT COUNT(*) FROM runs r WHERE r.experiment_id = e.id) AS runs FROM experiments e WHERE e.deleted_at IS NOT NULL ORDER BY e.id')
      .all() as Array<{ id: number; name: string; runs: number }>,
  }
}

/** Empties the trash: its runs and experiments (with all their rows) are removed for good. */
export function purgeDeleted(s: StoreContext): { runs: number; experiments: number } {
  return s.write(() => {
    const t = trash(s)
    s.stmt('DELETE FROM runs WHERE deleted_at IS NOT NULL').run()
    s.stmt('DELETE FROM experiments WHERE deleted_at IS NOT NULL').run()
    return { runs: t.runs.length, experiments: t.experiments.length }
  })
}

/** Notes that an archive with this content hash was written from, or read into, an experiment. */
export function recordArchiveHash(s: StoreContext, experimentId: number, hash: string, how: 'exported' | 'imported'): void {
  s.write(() => {
    s.stmt('INSERT OR IGNORE INTO archive_hashes (experiment_id, hash, how, at) VALUES (?, ?, ?, ?)').run(experimentId, hash, how, s.isoNow())
  })
}

/** The experiment (not in the trash) that holds an archive of this content hash, oldest first. */
export function findArchiveHash(s: StoreContext, hash: string): { experimentId: number; name: string; how: 'exported' | 'imported'; archived: boolean } | undefined {
  const r = s
    .stmt(
      `SELECT e.id, e.name, a.how, e.archived_at FROM archive_hashes a JOIN experiments e ON e.id = a.experiment_id
       WHERE a.hash = ? AND e.deleted_at IS NULL ORDER BY a.at, e.id LIMIT 1`,
    )
    .get(hash) as { id: number; name: string; how: 'exported' | 'imported'; archived_at: string | null } | undefined
  return r && { experimentId: r.id, name: r.name, how: r.how, archived: r.archived_at !== null }
}

// Experiment revisions and the record each run keeps of what it ran with. Saving a changed
// YAML adds a revision; a run points at the revision it ran and carries its own copy of the
// text and the resolved spec, so editing, renaming or importing never rewrites what an old
// run says about itself.
import { createHash } from 'node:crypto'
import { canonicalJson } from '../p4build/key'
import { setTopLevelScalar } from '../spec/rewrite'
import { fromJson, toJson, type StoreContext } from './rows'

/** What a run ran with, as stored in runs.record. */
export interface RunRecordJson {
  /** The experiment revision it ran (1-based, per experiment). */
  revision: number
  /** The experiment YAML as run. */
  yaml: string
  /** The resolved spec (files read, defaults filled). */
  spec: unknown
  /** The parameters the scheme saw: the spec's params with the cell's own over them. */
  params: Record<string, unknown>
  /** True when a database upgrade rebuilt it from the spec the run pointed at, not written as it ran. */
  reconstructed: boolean
}

export interface RevisionRow {
  experimentId: number
  rev: number
  name: string
  yaml: string
  spec: unknown
  /** sha256 over what decides a run's results: the spec without name, description, tags, testbed. */
  configKey: string
  testbed: string
  note: string
  createdAt: string
}

interface RevisionRecord {
  experiment_id: number
  rev: number
  name: string
  yaml: string
  spec: string
  config_key: string
  testbed: string
  note: string
  created_at: string
}

/**
 * Two revisions whose keys are equal run the same cells the same way: a rename, a new tag or a
 * comment does not make earlier runs stale. The testbed is compared apart (a run's target).
 */
export function configKey(spec: unknown): string {
  const s = { ...((spec ?? {}) as Record<string, unknown>) }
  delete s.name
  delete s.description
  delete s.tags
  delete s.testbed
  // Where the cells ran (runner:) does not change what they compute.
  delete s.runner
  return createHash('sha256').update(canonicalJson(s)).digest('hex')
}

export function specTestbed(spec: unknown): string {
  const t = (spec as { testbed?: unknown } | null)?.testbed
  return typeof t === 'string' ? t : 'sim'
}

/** The text and spec with `name:` set to `name` (a rename writes it into the YAML, so the two agree). */
export function renamed(yaml: string, spec: unknown, name: string): { yaml: string; spec: unknown } {
  return { yaml: setTopLevelScalar(yaml, 'name', name), spec: { ...((spec ?? {}) as Record<string, unknown>), name } }
}

/** Adds revision `rev` of an experiment; the caller keeps experiments.revision in step. */
export function insertRevision(
  db: StoreContext['db'],
  r: { experimentId: number; rev: number; name: string; yaml: string; spec: unknown; note: string; at: string },
): void {
  db.prepare(
    `INSERT INTO experiment_revisions (experiment_id, rev, name, yaml, spec, config_key, testbed, note, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(r.experimentId, r.rev, r.name, r.yaml, toJson(r.spec), configKey(r.spec), specTestbed(r.spec), r.note, r.at)
}

function toRow(r: RevisionRecord): RevisionRow {
  return {
    experimentId: r.experiment_id,
    rev: r.rev,
    name: r.name,
    yaml: r.yaml,
    spec: fromJson(r.spec),
    configKey: r.config_key,
    testbed: r.testbed,
    note: r.note,
    createdAt: r.created_at,
  }
}

/** Oldest first. */
export function listRevisions(s: StoreContext, experimentId: number): RevisionRow[] {
  return (s.stmt('SELECT * FROM experiment_revisions WHERE experiment_id = ? ORDER BY rev').all(experimentId) as RevisionRecord[]).map(toRow)
}

/** Experiments that were once called `name` and are called otherwise now (renamed), with their names now. */
export function renamedFrom(s: StoreContext, name: string): Array<{ id: number; name: string }> {
  return s
    .stmt('SELECT DISTINCT e.id AS id, e.name AS name FROM experiment_revisions r JOIN experiments e ON e.id = r.experiment_id WHERE r.name = ? AND e.name != ? ORDER BY e.id')
    .all(name, name) as Array<{ id: number; name: string }>
}

export function getRevision(s: StoreContext, experimentId: number, rev: number): RevisionRow | undefined {
  const r = s.stmt('SELECT * FROM experiment_revisions WHERE experiment_id = ? AND rev = ?').get(experimentId, rev) as RevisionRecord | undefined
  return r && toRow(r)
}

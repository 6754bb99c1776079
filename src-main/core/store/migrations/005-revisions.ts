import type { Database } from 'better-sqlite3'
import { insertRevision, renamed, type RunRecordJson } from '../revisions'
import type { Migration } from './types'

export const revisions: Migration = {
  name: 'experiment revisions, unique names and run records',
  up(db) {
    db.exec(`
      -- Every saved text of an experiment, numbered from 1; experiments.yaml and .spec are the
      -- current one's (experiments.revision). A run points at the revision it ran (runs.revision)
      -- and keeps its own record of it (runs.record, JSON: yaml, spec, params, reconstructed).
      CREATE TABLE experiment_revisions (
        id            INTEGER PRIMARY KEY,
        experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
        rev           INTEGER NOT NULL,
        name          TEXT NOT NULL,             -- the experiment's name in this revision
        yaml          TEXT NOT NULL,
        spec          TEXT NOT NULL,
        config_key    TEXT NOT NULL,             -- sha256 of the spec without name, description, tags, testbed
        testbed       TEXT NOT NULL,
        note          TEXT NOT NULL DEFAULT '',  -- why it was made: edited, renamed A -> B, imported, ...
        created_at    TEXT NOT NULL,
        UNIQUE (experiment_id, rev)
      );
      ALTER TABLE experiments ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE runs ADD COLUMN revision INTEGER;
      ALTER TABLE runs ADD COLUMN record TEXT;
    `)
    recordRevisions(db)
    db.exec('DROP INDEX experiments_by_name; CREATE UNIQUE INDEX experiments_by_name ON experiments (name);')
  },
}

/**
 * Migration 6: each experiment's text becomes its revision 1, and each of its runs gets a record
 * from that spec, marked reconstructed (the release before kept no copy of what a run ran with,
 * and the text may have been edited since). Names become unique: of experiments sharing a name
 * (an archive imported twice, a file run again after an edit), the newest keeps it and each older
 * one is renamed "NAME (ID)" in a revision 2 that says why, so nothing is lost.
 */
function recordRevisions(db: Database): void {
  const at = new Date().toISOString()
  const exps = db.prepare('SELECT id, name, yaml, spec, created_at FROM experiments ORDER BY id').all() as Array<{ id: number; name: string; yaml: string; spec: string; created_at: string }>
  const setRecord = db.prepare('UPDATE runs SET revision = 1, record = ? WHERE id = ?')
  const runsOf = db.prepare('SELECT id, params FROM runs WHERE experiment_id = ?')
  for (const e of exps) {
    const spec = JSON.parse(e.spec) as { params?: Record<string, unknown> }
    insertRevision(db, { experimentId: e.id, rev: 1, name: e.name, yaml: e.yaml, spec, note: 'as stored before revisions were kept', at: e.created_at })
    for (const r of runsOf.all(e.id) as Array<{ id: number; params: string }>) {
      const record: RunRecordJson = { revision: 1, yaml: e.yaml, spec, params: { ...(spec.params ?? {}), ...(JSON.parse(r.params) as Record<string, unknown>) }, reconstructed: true }
      setRecord.run(JSON.stringify(record), r.id)
    }
  }
  const taken = new Set(exps.map((e) => e.name))
  const newest = new Map<string, number>()
  for (const e of exps) newest.set(e.name, e.id)
  const rename = db.prepare('UPDATE experiments SET name = ?, yaml = ?, spec = ?, revision = 2 WHERE id = ?')
  for (const e of exps) {
    if (newest.get(e.name) === e.id) continue
    let name = `${e.name} (${e.id})`
    for (let i = 2; taken.has(name); i++) name = `${e.name} (${e.id}-${i})`
    taken.add(name)
    const next = renamed(e.yaml, JSON.parse(e.spec), name)
    insertRevision(db, { experimentId: e.id, rev: 2, name, yaml: next.yaml, spec: next.spec, note: `renamed ${e.name} -> ${name} by the database upgrade: experiment names are unique, and experiment ${newest.get(e.name)} is the newest named ${e.name}`, at })
    rename.run(name, next.yaml, JSON.stringify(next.spec), e.id)
  }
}

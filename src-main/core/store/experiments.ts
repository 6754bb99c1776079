import { RunStatus } from '../../contract/schemas'
import { fromJson, toJson, type ExperimentRow, type ExperimentSummaryRow, type StoreContext } from './rows'

interface ExperimentRecord {
  id: number
  name: string
  yaml: string
  spec: string
  file: string | null
  tags: string
  notes: string
  created_at: string
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
  }
}

export function createExperiment(
  s: StoreContext,
  input: { name: string; yaml: string; spec: unknown; file: string | null; tags: string[] },
): ExperimentRow {
  const { lastInsertRowid } = s
    .stmt(
      `INSERT INTO experiments (name, yaml, spec, file, tags, notes, created_at)
       VALUES (?, ?, ?, ?, ?, '', ?)`,
    )
    .run(input.name, input.yaml, toJson(input.spec), input.file, toJson(input.tags), s.isoNow())
  return getExperiment(s, Number(lastInsertRowid))!
}

export function updateExperiment(
  s: StoreContext,
  id: number,
  input: { name: string; yaml: string; spec: unknown; tags: string[] },
): ExperimentRow {
  const { changes } = s
    .stmt('UPDATE experiments SET name = ?, yaml = ?, spec = ?, tags = ? WHERE id = ?')
    .run(input.name, input.yaml, toJson(input.spec), toJson(input.tags), id)
  if (changes === 0) throw new Error(`experiment ${id} does not exist`)
  return getExperiment(s, id)!
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

export function listExperiments(s: StoreContext): ExperimentSummaryRow[] {
  const rows = s
    .stmt('SELECT * FROM experiments ORDER BY created_at DESC, id DESC')
    .all() as ExperimentRecord[]
  const counts = s
    .stmt('SELECT experiment_id AS id, status, COUNT(*) AS n FROM runs GROUP BY experiment_id, status')
    .all() as Array<{ id: number; status: RunStatus; n: number }>
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

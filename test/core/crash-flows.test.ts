// `kill -9` of a p4lab run in the middle of two simulations: the flows that finished more
// than one batch before the kill are in the store afterwards, identical to those of a full
// run of the same cells, and the next p4lab marks the runs interrupted at their owner's last
// heartbeat. Before flows were stored in batches, the in-flight runs kept none.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { killWhen, p4lab, withDb } from '../helpers/cli'

const YAML = `name: crash-flows
testbed: sim
topology: { kind: leaf-spine, leaves: 4, spines: 4, hostsPerLeaf: 8, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.5], flows: 800 }
seeds: [1]
telemetry: { interval: 100us }
`
/** The simulator sends finished flows once per this much simulated time (sim/run.ts). */
const BATCH_NS = 1e6
/** Kill once both runs have stored samples this far into the simulation (of some 100 ms). */
const KILL_AT_NS = 25e6

interface Flow {
  id: number
  src: number
  dst: number
  size_bytes: number
  start_ns: number
  finish_ns: number | null
}


/** How far into the simulation each run's stored samples reach, by run id. */
function sampledUpTo(d: Database.Database): Map<number, number> {
  const rows = d
    .prepare('SELECT s.run_id AS run, MAX(c.t_last_ns) AS t FROM sample_chunks c JOIN series s ON s.id = c.series_id GROUP BY s.run_id')
    .all() as Array<{ run: number; t: number }>
  return new Map(rows.map((r) => [r.run, r.t]))
}

const flowsOf = (d: Database.Database, run: number) =>
  d.prepare('SELECT id, src, dst, size_bytes, start_ns, finish_ns FROM flows WHERE run_id = ? ORDER BY id').all(run) as Flow[]

describe('kill -9 during a run', () => {
  it('keeps every flow that finished more than a batch before the kill, and stamps the runs with the last heartbeat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-crash-'))
    writeFileSync(join(dir, 'k.yaml'), YAML)
    const db = join(dir, 'k.db')
    await killWhen(['run', 'k.yaml', '--db', db, '--parallel', '2'], dir, db, (d) => {
      const reach = sampledUpTo(d)
      const runs = d.prepare('SELECT id, status FROM runs').all() as Array<{ id: number; status: string }>
      return runs.length === 2 && runs.every((r) => r.status !== 'running' || (reach.get(r.id) ?? 0) >= KILL_AT_NS) && runs.some((r) => r.status === 'running')
    })

    const before = withDb(db, (d) => {
      const reach = sampledUpTo(d)
      const runs = d.prepare('SELECT * FROM runs ORDER BY id').all() as Array<{ id: number; scheme: string; status: string; heartbeat_at?: string | null }>
      return runs.map((r) => ({ ...r, reach: reach.get(r.id) ?? 0, flows: flowsOf(d, r.id) }))
    })
    expect(before.map((r) => r.status), 'both runs must be in flight at the kill').toEqual(['running', 'running'])

    // The next p4lab marks them interrupted; --resume runs the two cells again to the end.
    const r = p4lab(['run', 'k.yaml', '--db', db, '--resume'], dir, { timeoutMs: 600_000 })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('marked 2 run(s) cut off earlier as interrupted')

    const after = withDb(db, (d) => {
      const runs = d.prepare('SELECT id, scheme, status, finished_at FROM runs ORDER BY id').all() as Array<{ id: number; scheme: string; status: string; finished_at: string }>
      return runs.map((run) => ({ ...run, flows: flowsOf(d, run.id) }))
    })
    expect(after.map((x) => x.status)).toEqual(['interrupted', 'interrupted', 'done', 'done'])
    for (const cut of before) {
      const full = after.find((x) => x.status === 'done' && x.scheme === cut.scheme)!
      const stored = new Map(cut.flows.map((f) => [f.id, f]))
      const due = full.flows.filter((f) => f.finish_ns !== null && f.finish_ns < cut.reach - BATCH_NS)
      expect(due.length, `${cut.scheme}: flows finished before the kill`).toBeGreaterThan(50)
      const missing = due.filter((f) => !stored.has(f.id))
      expect(missing.length, `${cut.scheme}: of ${due.length} flows finished more than a batch before the kill, missing`).toBe(0)
      for (const f of due) expect(stored.get(f.id)).toEqual(f)
      // Whatever else was kept is the flow as the full run has it, never a half-written one.
      const byId = new Map(full.flows.map((f) => [f.id, f]))
      for (const f of cut.flows) expect(f).toEqual(byId.get(f.id))

      expect(cut.heartbeat_at, `${cut.scheme}: the owner's last heartbeat`).toBeTruthy()
      expect(after.find((x) => x.id === cut.id)!.finished_at).toBe(cut.heartbeat_at)
    }
  }, 900_000)
})

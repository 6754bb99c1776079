// A sweep interrupted by killing the process (SIGKILL: no clean-up at all) resumes where it
// stopped: `p4lab run FILE --resume` runs the cells with no done run, the cut-off ones end
// 'interrupted' and get a new run, and no finished cell runs twice.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { killWhen, p4lab } from '../helpers/cli'

const SWEEP = `name: kill-sweep
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.6], flows: 60 }
seeds: [1, 2, 3]
`

interface RunRecord {
  id: number
  scheme: string
  load: number
  seed: number
  status: string
}

function readRuns(db: string): RunRecord[] {
  if (!existsSync(db)) return []
  const d = new Database(db, { readonly: true, fileMustExist: true })
  try {
    return d.prepare('SELECT id, scheme, load, seed, status FROM runs ORDER BY id').all() as RunRecord[]
  } catch {
    return [] // the schema may not be there yet
  } finally {
    d.close()
  }
}

const cellOf = (r: RunRecord) => `${r.scheme}/${r.load}/${r.seed}`

describe('p4lab run --resume after SIGKILL', () => {
  it('re-runs only the cells with no done run; finished cells are not run twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-kill-'))
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP)
    const db = join(dir, 'k.db')
    // Kill without warning once some cells are done.
    await killWhen(['run', 'sweep.yaml', '--db', db, '--parallel', '1'], dir, db, (d) => (d.prepare("SELECT count(*) FROM runs WHERE status = 'done'").pluck().get() as number) >= 3, 60_000)
    const before = readRuns(db)
    const doneBefore = before.filter((r) => r.status === 'done')
    const cutOff = before.filter((r) => r.status !== 'done')
    expect(before).toHaveLength(12)
    expect(doneBefore.length).toBeGreaterThanOrEqual(3)
    expect(cutOff.length, 'the kill must come before the sweep ends').toBeGreaterThan(0)
    expect(cutOff.every((r) => ['queued', 'deploying', 'running', 'collecting'].includes(r.status))).toBe(true)

    const r = p4lab(['run', 'sweep.yaml', '--db', db, '--resume', '--json'], dir)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(new RegExp(`marked ${cutOff.length} run\\(s\\) cut off earlier as interrupted`))
    expect(r.stderr).toContain(`resuming: ${doneBefore.length} of 12 cell(s) already done, ${cutOff.length} to run`)

    const after = readRuns(db)
    const byCell = new Map<string, RunRecord[]>()
    for (const run of after) byCell.set(cellOf(run), [...(byCell.get(cellOf(run)) ?? []), run])
    expect(byCell.size).toBe(12)
    for (const done of doneBefore) {
      // A finished cell: its one run, untouched.
      expect(byCell.get(cellOf(done))).toEqual([done])
    }
    for (const cut of cutOff) {
      const runs = byCell.get(cellOf(cut))!
      expect(runs.map((x) => x.status)).toEqual(['interrupted', 'done'])
      expect(runs[0].id).toBe(cut.id)
    }
    expect(JSON.parse(r.stdout).runs).toHaveLength(cutOff.length)

    // Resuming a finished sweep runs nothing.
    const again = p4lab(['run', 'sweep.yaml', '--db', db, '--resume'], dir)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('resuming: 12 of 12 cell(s) already done, 0 to run')
    expect(readRuns(db)).toHaveLength(after.length)
    // A hang guard: 45 s alone, over two minutes on a loaded 2-core machine (its CLI calls block the test's own timer).
  }, 300_000)
})

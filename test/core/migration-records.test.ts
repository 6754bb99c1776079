// The migration to experiment revisions and run records, on a database the release before it
// wrote (test/fixtures/store/schema4-release.sqlite: `p4lab run` of a two-scheme sim experiment
// "tiny" with 20 flows, then of the same file edited to one scheme and 30 flows, which that
// release stored as a second experiment also named "tiny"). It opens in place; each run gets a
// record from the spec it pointed at, marked reconstructed; names become unique without losing
// a row; and the runs' results are untouched.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { createNodeCore, type Core } from '../../src-main/core'
import { SCHEMA_VERSION } from '../../src-main/core/store'

const FIXTURE = join(__dirname, '..', 'fixtures', 'store', 'schema4-release.sqlite')

let dir: string | undefined
let core: Core | undefined
afterEach(() => {
  core?.opts.store.close()
  core = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

function before(file: string) {
  const db = new Database(file, { readonly: true })
  try {
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      experiments: db.prepare('SELECT id, name, yaml, spec FROM experiments ORDER BY id').all() as Array<{ id: number; name: string; yaml: string; spec: string }>,
      runs: db.prepare('SELECT id, experiment_id, scheme, status, stats, counters, facts, completion FROM runs ORDER BY id').all(),
      flows: (db.prepare('SELECT COUNT(*) AS n FROM flows').get() as { n: number }).n,
    }
  } finally {
    db.close()
  }
}

describe('migration: revisions and run records', () => {
  it('opens a store of the previous release in place and gives its runs reconstructed records', { timeout: 120_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-migrate-'))
    const file = join(dir, 'p4lab.db')
    copyFileSync(FIXTURE, file)
    const old = before(file)
    expect(old.version).toBe(4)
    expect(old.experiments.map((e) => e.name)).toEqual(['tiny', 'tiny'])

    core = createNodeCore({ dbPath: file, baseDir: dir, parallelRuns: 1 })
    const h = core.handlers
    const db = new Database(file, { readonly: true })
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
      // Results, flows and everything else a run has are as they were.
      expect(db.prepare('SELECT id, experiment_id, scheme, status, stats, counters, facts, completion FROM runs ORDER BY id').all()).toEqual(old.runs)
      expect((db.prepare('SELECT COUNT(*) AS n FROM flows').get() as { n: number }).n).toBe(old.flows)
      // A second experiment of a name cannot be made any more, not even by SQL.
      expect((db.prepare("SELECT sql FROM sqlite_master WHERE name = 'experiments_by_name'").get() as { sql: string }).sql).toMatch(/^CREATE UNIQUE INDEX/)
    } finally {
      db.close()
    }

    // The newest "tiny" keeps the name; the older one is renamed in a revision that says why.
    const list = await h['experiments.list']({})
    expect(list.map((e) => [e.id, e.name, e.revision])).toEqual([
      [2, 'tiny', 1],
      [1, 'tiny (1)', 2],
    ])
    const revs = await h['experiments.revisions']({ id: 1 })
    expect(revs.map((r) => [r.rev, r.name, r.current, r.sameConfigAsCurrent, r.runs])).toEqual([
      [1, 'tiny', false, true, 2],
      [2, 'tiny (1)', true, true, 0],
    ])
    expect(revs[0].yaml).toBe(old.experiments[0].yaml)
    expect(revs[1].note).toMatch(/renamed tiny -> tiny \(1\) by the database upgrade: experiment names are unique, and experiment 2 is the newest named tiny/)
    expect(revs[1].yaml).toBe(old.experiments[0].yaml.replace(/^name: tiny$/m, 'name: "tiny (1)"'))

    // Every run's record comes from the spec it pointed at, marked reconstructed; the rename
    // runs no cell differently, so none is stale.
    const flowsOf = (e: { spec: string }) => (JSON.parse(e.spec) as { workload: { flows: number } }).workload.flows
    for (const [runId, exp] of [[1, old.experiments[0]], [2, old.experiments[0]], [3, old.experiments[1]]] as const) {
      const ran = await h['runs.ranWith']({ id: runId })
      expect(ran).toMatchObject({ revision: 1, reconstructed: true, yaml: exp.yaml, name: 'tiny', stale: false, params: { flowletGapNs: 100_000 } })
      expect(ran.spec).toEqual(JSON.parse(exp.spec))
      expect((ran.workload as { flows: number }).flows).toBe(flowsOf(exp))
    }
    expect([flowsOf(old.experiments[0]), flowsOf(old.experiments[1])]).toEqual([20, 30])
    const m = await h['sweeps.matrix']({ experimentId: 1 })
    expect(m.cells.map((c) => [c.scheme, c.status, c.stale])).toEqual([
      ['ecmp', 'done', 0],
      ['conga', 'done', 0],
    ])

    // Names are unique from now on.
    await expect(h['experiments.rename']({ id: 1, name: 'tiny' })).rejects.toThrow(/an experiment named 'tiny' already exists \(experiment 2\)/)
    await expect(h['experiments.create']({ yaml: old.experiments[1].yaml })).rejects.toThrow(/an experiment named 'tiny' already exists/)
  })
})

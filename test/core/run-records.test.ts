// A run keeps what it ran with. An experiment is run from its file, then its text changes (more
// flows, another flowlet gap, shorter queues, a new name): the old runs still report the text, flows, parameter
// and name they ran with, through the contract, the CLI and an export; the run matrix shows their
// cells as stale and `run --resume` runs those cells again under the text as it is now.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { x as extractTar } from 'tar'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeCore, type Core } from '../../src-main/core'
import { p4lab } from '../helpers/cli'

const V1 = `name: rec-a
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, conga]
params: { flowletGap: 100us }
workload: { kind: web-search, load: [0.3], flows: 20 }
seeds: [1]
`
const V2 = V1.replace('name: rec-a', 'name: rec-b').replace('flows: 20', 'flows: 40').replace('flowletGap: 100us', 'flowletGap: 200us').replace('queuePackets: 100', 'queuePackets: 80')

let dir: string
let db: string
let core: Core | undefined

function open(): Core {
  core ??= createNodeCore({ dbPath: db, baseDir: dir, parallelRuns: 2 })
  return core
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-records-'))
  db = join(dir, 'lab.db')
  writeFileSync(join(dir, 'exp.yaml'), V1)
})
afterAll(() => {
  core?.opts.store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('run records and revisions', () => {
  it('keeps what old runs ran with across edits and a rename, and resumes their stale cells', { timeout: 300_000 }, async () => {
    const first = p4lab(['run', 'exp.yaml', '--db', db, '--json'], dir)
    expect(first.code, first.stderr).toBe(0)
    expect((JSON.parse(first.stdout) as { runs: Array<{ status: string }> }).runs.map((r) => r.status)).toEqual(['done', 'done'])

    const c = open()
    const h = c.handlers
    const exp = (await h['experiments.list']({})).find((e) => e.name === 'rec-a')!
    expect(exp.revision).toBe(1)
    const oldIds = (await h['runs.list']({ experimentId: exp.id })).map((r) => r.id)
    expect(oldIds).toHaveLength(2)

    // The name changes only by an explicit rename: a text naming it otherwise is refused.
    await expect(h['experiments.update']({ id: exp.id, yaml: V2 })).rejects.toThrow(/names the experiment 'rec-b', but it is 'rec-a'.*rename/)
    const renamed = p4lab(['rename', 'rec-a', 'rec-b', '--db', db], dir)
    expect(renamed.code, renamed.stderr).toBe(0)
    expect(renamed.stdout).toMatch(/renamed rec-a -> rec-b \(revision 2/)
    // A rename alone runs no cell differently: the old runs still count.
    expect((await h['runs.list']({ experimentId: exp.id })).every((r) => !r.stale)).toBe(true)
    const saved = await h['experiments.update']({ id: exp.id, yaml: V2 })
    expect(saved).toMatchObject({ name: 'rec-b', revision: 3, yaml: V2 })
    // A name another experiment has is refused.
    await h['experiments.create']({ yaml: V1.replace('name: rec-a', 'name: other') })
    await expect(h['experiments.rename']({ id: exp.id, name: 'other' })).rejects.toThrow(/an experiment named 'other' already exists/)

    const revs = await h['experiments.revisions']({ id: exp.id })
    expect(revs.map((r) => [r.rev, r.name, r.current, r.sameConfigAsCurrent, r.runs])).toEqual([
      [1, 'rec-a', false, false, 2],
      [2, 'rec-b', false, false, 0],
      [3, 'rec-b', true, true, 0],
    ])
    expect(revs[0].yaml).toBe(V1)
    expect(revs[1].note).toBe('renamed rec-a -> rec-b')

    // Contract: each old run reports its own text, flows, parameter and name.
    for (const id of oldIds) {
      const run = await h['runs.get']({ id })
      expect(run).toMatchObject({ revision: 1, stale: true, experimentName: 'rec-b' })
      const ran = await h['runs.ranWith']({ id })
      expect(ran).toMatchObject({ revision: 1, reconstructed: false, name: 'rec-a', yaml: V1, stale: true, params: { flowletGapNs: 100_000 } })
      expect(ran.workload).toMatchObject({ kind: 'web-search', flows: 20, loads: [0.3] })
      expect(ran.topology).toMatchObject({ kind: 'leaf-spine', leaves: 2 })
      expect(ran.facts).toMatchObject({ target: 'sim', engine: 'p4lab-sim v0' })
      expect((await h['runs.fabric']({ id })).queuePackets).toBe(100)
    }
    const records = await h['compare.runs']({ experimentIds: [exp.id] })
    expect(records.runs.map((r) => [r.fields.flows, r.fields.flowletGapNs, r.fields.revision, r.fields.stale])).toEqual([
      [20, 100_000, 1, 'yes'],
      [20, 100_000, 1, 'yes'],
    ])

    // The matrix: the cells of the current text have only stale runs.
    let m = await h['sweeps.matrix']({ experimentId: exp.id })
    expect(m.cells.map((x) => [x.scheme, x.status, x.runs, x.stale, x.doneRunId])).toEqual([
      ['ecmp', 'stale', 1, 1, null],
      ['conga', 'stale', 1, 1, null],
    ])
    expect(m.counts).toMatchObject({ stale: 2, done: 0 })

    // CLI: show reads the run's record.
    const shown = p4lab(['show', String(oldIds[1]), '--db', db], dir)
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toMatch(/ran with {2}revision 1 of rec-a \(stale: the experiment has changed since\)/)
    expect(shown.stdout).toMatch(/workload {2}kind web-search, .*loads \[0\.3\], flows 20/)
    expect(shown.stdout).toMatch(/params {4}flowletGapNs 100 µs/)
    const shownJson = JSON.parse(p4lab(['show', String(oldIds[1]), '--db', db, '--json'], dir).stdout) as { ranWith: { yaml: string; workload: { flows: number } } }
    expect(shownJson.ranWith).toMatchObject({ yaml: V1, workload: { flows: 20 } })

    // --resume on the edited file runs both cells again, under revision 3.
    writeFileSync(join(dir, 'exp.yaml'), V2)
    const resumed = p4lab(['run', 'exp.yaml', '--db', db, '--resume', '--json'], dir)
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toMatch(/resuming: 0 of 2 cell\(s\) already done, 2 to run/)
    expect((JSON.parse(resumed.stdout) as { runs: Array<{ status: string }> }).runs.map((r) => r.status)).toEqual(['done', 'done'])
    const newIds = (await h['runs.list']({ experimentId: exp.id })).map((r) => r.id).filter((id) => !oldIds.includes(id))
    expect(newIds).toHaveLength(2)
    m = await h['sweeps.matrix']({ experimentId: exp.id })
    expect(m.cells.map((x) => [x.status, x.runs, x.stale])).toEqual([
      ['done', 2, 1],
      ['done', 2, 1],
    ])
    for (const id of newIds) {
      expect(await h['runs.ranWith']({ id })).toMatchObject({ revision: 3, name: 'rec-b', yaml: V2, stale: false, params: { flowletGapNs: 200_000 }, workload: { flows: 40 } })
      expect((await h['runs.fabric']({ id })).queuePackets).toBe(80)
    }
    expect((await h['runs.fabric']({ id: oldIds[0] })).queuePackets).toBe(100)
    // A second resume has nothing left to do.
    const again = p4lab(['run', 'exp.yaml', '--db', db, '--resume'], dir)
    expect(again.stderr).toMatch(/resuming: 2 of 2 cell\(s\) already done, 0 to run/)

    // Export: the archive holds each run's record and every revision's text.
    const out = join(dir, 'out')
    mkdirSync(out)
    const exported = p4lab(['export', 'rec-b', '--db', db, '-o', join(out, 'rec.tar.gz')], dir)
    expect(exported.code, exported.stderr).toBe(0)
    const x = join(out, 'x')
    mkdirSync(x)
    await extractTar({ file: join(out, 'rec.tar.gz'), cwd: x })
    for (const id of oldIds) {
      const rec = JSON.parse(readFileSync(join(x, 'runs', `run-${id}.json`), 'utf8')) as { yaml: string; name: string; params: Record<string, unknown>; workload: { flows: number } }
      expect(rec).toMatchObject({ yaml: V1, name: 'rec-a', params: { flowletGapNs: 100_000 }, workload: { flows: 20 } })
    }
    expect(readFileSync(join(x, 'experiment', 'revisions', 'rev-1.yaml'), 'utf8')).toBe(V1)
    expect(readFileSync(join(x, 'experiment', 'experiment.yaml'), 'utf8')).toBe(V2)
    const csv = readFileSync(join(x, 'data', 'runs.csv'), 'utf8')
    expect(csv).toContain('flowletGapNs"":100000')
    expect(csv).toContain('flowletGapNs"":200000')
    const sub = new Database(join(x, 'data', 'p4lab.sqlite'), { readonly: true })
    try {
      const rows = sub.prepare('SELECT id, revision, record FROM runs ORDER BY id').all() as Array<{ id: number; revision: number; record: string }>
      expect(rows.map((r) => [r.revision, (JSON.parse(r.record) as { spec: { workload: { flows: number } } }).spec.workload.flows])).toEqual([
        [1, 20],
        [1, 20],
        [3, 40],
        [3, 40],
      ])
      expect(sub.prepare('SELECT COUNT(*) AS n FROM experiment_revisions').get()).toEqual({ n: 3 })
    } finally {
      sub.close()
    }

    // Imported twice: names stay unique, and each copy's runs keep their records.
    const other = join(dir, 'other')
    mkdirSync(other)
    for (const expected of ['rec-b', 'rec-b (2)']) {
      const copy = expected === 'rec-b' ? [] : ['--copy'] // the second is the same archive: skipped unless --copy
      const imp = p4lab(['import', join(out, 'rec.tar.gz'), '--db', join(other, 'b.db'), '--json', ...copy], dir, { home: join(other, 'home') })
      expect(imp.code, imp.stderr).toBe(0)
      expect(JSON.parse(imp.stdout)).toMatchObject({ name: expected, compareMatches: true })
    }
    const listed = p4lab(['show', '1', '--db', join(other, 'b.db'), '--json'], dir, { home: join(other, 'home') })
    expect(JSON.parse(listed.stdout)).toMatchObject({ ranWith: { yaml: V1, revision: 1, workload: { flows: 20 } } })
  })
})

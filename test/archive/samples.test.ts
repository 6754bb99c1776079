// The archive's samples with chunked storage: the subset copies the chunks, samples.csv has one
// line per sample (series, t_ns, value; NaN empty; an instant written twice as its last write),
// import renumbers the chunks keeping their order (so the last write still wins), and an
// archive written at schema version 2 (one row per sample) still imports.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MIGRATIONS, openStore } from '../../src-main/core/store'
import { checkSubset, importSubset, writeSubset } from '../../src-main/core/archive/subset'
import { writeCsvTables } from '../../src-main/core/archive/tables'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-archive-samples-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** A store with one finished run: two series, written out of order, an instant twice, a NaN. */
function source(file: string): { experimentId: number; runId: number } {
  const s = openStore(file)
  try {
    const e = s.createExperiment({ name: 'a', yaml: 'name: a\n', spec: {}, file: null, tags: [] })
    const [run] = s.createRuns(e.id, 'sim', 'o', [{ scheme: 'ecmp', load: 0.5, seed: 1, params: {} }])
    const ids = s.defineSeries(run.id, [
      { kind: 'link.util', entity: { port: 0 }, unit: 'ratio' },
      { kind: 'link.util', entity: { port: 1 }, unit: 'ratio' },
    ])
    s.insertSamples(ids, [100, 200, 300], [0.1, 0.2, 0.3, 1, 2, 3])
    s.insertSamples(ids, [200, 50], [NaN, 0.05, 20, 0.5]) // 200 again (series 0 now NaN), 50 out of order
    s.insertSampleRows([ids[1]], [300], [30.5])
    s.setRunStatus(run.id, 'done')
    return { experimentId: e.id, runId: run.id }
  } finally {
    s.close()
  }
}

const EXPECTED_CSV = ['series,t_ns,value', '1,50,0.05', '1,100,0.1', '1,200,', '1,300,0.3', '2,50,0.5', '2,100,1', '2,200,20', '2,300,30.5', ''].join('\r\n')

describe('archive samples in chunks', () => {
  it('exports one CSV line per sample, imports with the last write of an instant still winning', () => {
    const { experimentId } = source(join(dir, 'a.db'))
    writeSubset(join(dir, 'a.db'), join(dir, 'subset.sqlite'), { experimentId, artifactKeys: [] })
    writeCsvTables(join(dir, 'subset.sqlite'), dir)
    expect(readFileSync(join(dir, 'samples.csv'), 'utf8')).toBe(EXPECTED_CSV)

    // Into a database that already has series (ids shift), twice (merging archives).
    const b = join(dir, 'b.db')
    source(b)
    checkSubset(join(dir, 'subset.sqlite'), 'data/p4lab.sqlite')
    const first = importSubset(b, join(dir, 'subset.sqlite'), () => null)
    const second = importSubset(b, join(dir, 'subset.sqlite'), () => null)
    const s = openStore(b)
    try {
      for (const ids of [first, second]) {
        const runId = ids.runs.get(1)!
        expect(s.readSamples(runId)).toMatchObject({ t: [50, 100, 200, 300], values: [[0.05, 0.1, NaN, 0.3], [0.5, 1, 20, 30.5]] })
      }
      expect(s.listSeries(second.runs.get(1)!).map((d) => d.id)).toEqual([5, 6])
    } finally {
      s.close()
    }
  })

  it('imports an archive written at schema version 2 (a samples row per sample)', () => {
    const sub = join(dir, 'old.sqlite')
    const db = new Database(sub)
    for (const m of MIGRATIONS.slice(0, 2)) m.up(db)
    db.pragma('user_version = 2')
    db.exec(`DELETE FROM testbeds;
      INSERT INTO experiments (id, name, yaml, spec, created_at) VALUES (1, 'old', 'name: old\n', '{}', '2025-01-01T00:00:00Z');
      INSERT INTO runs (id, experiment_id, target, scheme, load, seed, status, owner, created_at) VALUES (1, 1, 'sim', 'ecmp', 0.5, 1, 'done', 'o', '2025-01-01T00:00:00Z');
      INSERT INTO series (id, run_id, kind, entity, unit) VALUES (1, 1, 'link.util', '{"port":0}', 'ratio');
      INSERT INTO samples (series_id, t_ns, value) VALUES (1, 10, 1.5), (1, 20, NULL), (1, 35, 3);`)
    db.close()
    expect(checkSubset(sub, 'data/p4lab.sqlite')).toEqual({ runs: 1 })
    writeCsvTables(sub, dir)
    expect(readFileSync(join(dir, 'samples.csv'), 'utf8')).toBe(['series,t_ns,value', '1,10,1.5', '1,20,', '1,35,3', ''].join('\r\n'))
    const b = join(dir, 'b.db')
    openStore(b).close()
    const ids = importSubset(b, sub, () => null)
    const s = openStore(b)
    try {
      expect(s.readSamples(ids.runs.get(1)!)).toMatchObject({ t: [10, 20, 35], values: [[1.5, NaN, 3]] })
    } finally {
      s.close()
    }
  })
})

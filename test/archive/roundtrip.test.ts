// Export an experiment with several runs, import it into a fresh database, and compare:
// the same bytes, text and JSON. All through the built CLI, real files, real SQLite.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { SWEEP_YAML, p4lab } from './cli'

describe('archive round trip (p4lab export / import / compare)', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-rt-'))
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP_YAML)
    const r = p4lab(['run', 'sweep.yaml', '--db', 'a.db'], dir)
    expect(r.code, r.stderr).toBe(0)
  })

  it('gives the same compare output, byte for byte, after export and import into a fresh database', () => {
    const exp = p4lab(['export', 'rt-sweep', '--db', 'a.db', '-o', 'out/rt.tar.gz'], dir)
    expect(exp.code, exp.stderr).toBe(0)
    expect(exp.stdout).toMatch(/8 runs/)

    // A different user data directory and database: nothing shared but the archive.
    const other = join(dir, 'elsewhere')
    const imp = p4lab(['import', join(dir, 'out', 'rt.tar.gz'), '--db', join(other, 'b.db'), '--json'], dir, join(other, 'home'))
    expect(imp.code, imp.stderr).toBe(0)
    const result = JSON.parse(imp.stdout)
    expect(result.name).toBe('rt-sweep')
    expect(Object.keys(result.runIds)).toHaveLength(8)
    expect(result.compareMatches).toBe(true)

    const variants: string[][] = [[], ['--json'], ['--metric', 'p99', '--baseline', 'ecmp', '--band', 'minmax'], ['--metric', 'small.p99', '--where', 'load >= 0.5', '--json'], ['--cdf', 'fct', '--json']]
    for (const extra of variants) {
      const a = p4lab(['compare', 'rt-sweep', '--db', 'a.db', ...extra], dir)
      const b = p4lab(['compare', 'rt-sweep', '--db', join(other, 'b.db'), ...extra], dir, join(other, 'home'))
      expect(a.code, a.stderr).toBe(0)
      expect(b.code, b.stderr).toBe(0)
      expect(b.stdout, extra.join(' ')).toBe(a.stdout)
    }
    const text = p4lab(['compare', 'rt-sweep', '--db', 'a.db'], dir).stdout
    expect(text).toMatch(/^scheme\s+load\s+seeds\s+mean\s+lo\s+hi$/m)
    expect(text.split('\n').filter((l) => /^(ecmp|rps)\s/.test(l))).toHaveLength(4)

    // New ids, and the rows really are in the other database.
    const db = new Database(join(other, 'b.db'), { readonly: true })
    try {
      expect((db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n).toBe(8)
      expect((db.prepare('SELECT COUNT(*) AS n FROM flows').get() as { n: number }).n).toBe(8 * 30)
      expect((db.prepare('SELECT COUNT(*) AS n FROM samples').get() as { n: number }).n).toBeGreaterThan(0)
    } finally {
      db.close()
    }
  })

  it('holds the manifest, YAML, SQLite subset, CSV with tags, start times and durations, and a README', () => {
    const file = join(dir, 'out', 'rt2.tar.gz')
    expect(p4lab(['export', 'rt-sweep', '--db', 'a.db', '-o', file], dir).code).toBe(0)
    const tar = gunzipSync(readFileSync(file)).toString('latin1')
    for (const name of ['manifest.json', 'README.md', 'experiment/experiment.yaml', 'experiment/spec.json', 'data/p4lab.sqlite', 'data/runs.csv', 'data/flows.csv', 'data/series.csv', 'data/samples.csv', 'data/events.csv', 'testbed/sim.json', 'compare/mean-by-load.txt']) {
      expect(tar, name).toContain(name)
    }
    const extract = join(dir, 'x')
    expect(p4lab(['import', file, '--db', join(extract, 'c.db')], dir, join(extract, 'home')).code).toBe(0)
    const home = join(extract, 'imports', '1')
    expect(existsSync(join(home, 'experiment.yaml'))).toBe(true)
    const manifest = JSON.parse(readFileSync(join(home, 'manifest.json'), 'utf8'))
    expect(manifest.format).toBe('p4lab-archive')
    expect(manifest.formatVersion).toBe(1)
    expect(manifest.experiment).toMatchObject({ name: 'rt-sweep', runs: 8, schemes: ['ecmp', 'rps'], seeds: [1, 2] })
    expect(manifest.targets.sim.engine).toBe('p4lab-sim v0')
    expect(manifest.files.every((f: { sha256: string }) => /^[0-9a-f]{64}$/.test(f.sha256))).toBe(true)
    const readme = readFileSync(join(home, 'README.md'), 'utf8')
    expect(readme).toMatch(/# rt-sweep/)
    expect(readme).toMatch(/Seeds: 1, 2/)
    // The CSV: pull it out of the SQLite-free tar text.
    const runsCsv = tar.slice(tar.indexOf('run,experiment,tags'))
    const [header, first] = runsCsv.split('\r\n')
    const cols = header.split(',')
    expect(cols).toEqual(expect.arrayContaining(['tags', 'started_at', 'finished_at', 'duration_s']))
    const row = first.match(/("[^"]*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ''))
    expect(row[cols.indexOf('tags')]).toBe('paper;rt')
    expect(row[cols.indexOf('started_at')]).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(Number(row[cols.indexOf('duration_s')])).toBeGreaterThan(0)
  })
})

describe('archive round trip keeps the telemetry roll-ups', () => {
  it('imports the roll-up rows of every series with the new series ids', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-rt-rollups-'))
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP_YAML.replace('seeds: [1, 2]', 'seeds: [1]').replace('schemes: [ecmp, rps]', 'schemes: [ecmp]'))
    expect(p4lab(['run', 'sweep.yaml', '--db', 'a.db'], dir).code).toBe(0)
    expect(p4lab(['export', 'rt-sweep', '--db', 'a.db', '-o', 'r.tar.gz'], dir).code).toBe(0)
    expect(p4lab(['import', 'r.tar.gz', '--db', join(dir, 'b', 'b.db')], dir, join(dir, 'b', 'home')).code).toBe(0)
    const count = (file: string) => {
      const db = new Database(file, { readonly: true })
      try {
        const hasRollups = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'rollups'").get()
        if (!hasRollups) return null
        return db.prepare('SELECT s.kind, COUNT(*) AS n, SUM(r.sum) AS total FROM rollups r JOIN series s ON s.id = r.series_id GROUP BY s.kind ORDER BY s.kind').all()
      } finally {
        db.close()
      }
    }
    const a = count(join(dir, 'a.db'))
    if (a === null) return // a schema without roll-ups
    expect(a.length).toBeGreaterThan(0)
    expect(count(join(dir, 'b', 'b.db'))).toEqual(a)
  })
})

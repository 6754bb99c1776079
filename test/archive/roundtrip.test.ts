// Export an experiment with several runs, import it into a fresh database, and compare:
// the same bytes, text and JSON. All through the built CLI, real files, real SQLite.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { x as extractTar } from 'tar'
import { beforeAll, describe, expect, it } from 'vitest'
import { SWEEP_YAML, p4lab } from '../helpers/cli'

describe('archive round trip (p4lab export / import / compare)', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-rt-'))
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP_YAML)
    mkdirSync(join(dir, 'out')) // export creates no folders
    const r = p4lab(['run', 'sweep.yaml', '--db', 'a.db'], dir)
    expect(r.code, r.stderr).toBe(0)
  })

  it('gives the same compare output, byte for byte, after export and import into a fresh database', () => {
    const exp = p4lab(['export', 'rt-sweep', '--db', 'a.db', '-o', 'out/rt.tar.gz'], dir)
    expect(exp.code, exp.stderr).toBe(0)
    expect(exp.stdout).toMatch(/8 runs/)

    // A different user data directory and database: nothing shared but the archive.
    const other = join(dir, 'elsewhere')
    const imp = p4lab(['import', join(dir, 'out', 'rt.tar.gz'), '--db', join(other, 'b.db'), '--json'], dir, { home: join(other, 'home') })
    expect(imp.code, imp.stderr).toBe(0)
    const result = JSON.parse(imp.stdout)
    expect(result.name).toBe('rt-sweep')
    expect(Object.keys(result.runIds)).toHaveLength(8)
    expect(result.compareMatches).toBe(true)

    const variants: string[][] = [[], ['--json'], ['--metric', 'p99', '--baseline', 'ecmp', '--band', 'minmax'], ['--metric', 'small.p99', '--where', 'load >= 0.5', '--json'], ['--cdf', 'fct', '--json']]
    for (const extra of variants) {
      const a = p4lab(['compare', 'rt-sweep', '--db', 'a.db', ...extra], dir)
      const b = p4lab(['compare', 'rt-sweep', '--db', join(other, 'b.db'), ...extra], dir, { home: join(other, 'home') })
      expect(a.code, a.stderr).toBe(0)
      expect(b.code, b.stderr).toBe(0)
      expect(b.stdout, extra.join(' ')).toBe(a.stdout)
    }
    const text = p4lab(['compare', 'rt-sweep', '--db', 'a.db'], dir).stdout
    expect(text).toMatch(/^scheme\s+load\s+seeds\s+mean\s+lo\s+hi\s+slowdown$/m)
    expect(text.split('\n').filter((l) => /^(ecmp|rps)\s/.test(l))).toHaveLength(4)

    // New ids, and the rows really are in the other database.
    const db = new Database(join(other, 'b.db'), { readonly: true })
    try {
      expect((db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n).toBe(8)
      expect((db.prepare('SELECT COUNT(*) AS n FROM flows').get() as { n: number }).n).toBe(8 * 30)
      expect((db.prepare('SELECT COALESCE(SUM(n), 0) AS n FROM sample_chunks').get() as { n: number }).n).toBeGreaterThan(0)
    } finally {
      db.close()
    }
  }, 240_000) // thirteen CLI processes: a hang guard, not a speed limit

  it('holds the manifest, YAML, SQLite subset, CSV with tags, start times and durations, and a README', () => {
    const file = join(dir, 'out', 'rt2.tar.gz')
    expect(p4lab(['export', 'rt-sweep', '--db', 'a.db', '-o', file], dir).code).toBe(0)
    const tar = gunzipSync(readFileSync(file)).toString('latin1')
    for (const name of ['manifest.json', 'README.md', 'experiment/experiment.yaml', 'experiment/spec.json', 'data/p4lab.sqlite', 'data/runs.csv', 'data/flows.csv', 'data/series.csv', 'data/samples.csv', 'data/events.csv', 'testbed/sim.json', 'compare/mean-by-load.txt', 'plots/mean-fct-by-load.svg', 'plots/p99-fct-by-load.svg', 'plots/mean-fct-normalised.svg']) {
      expect(tar, name).toContain(name)
    }
    const extract = join(dir, 'x')
    expect(p4lab(['import', file, '--db', join(extract, 'c.db')], dir, { home: join(extract, 'home') }).code).toBe(0)
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

/** A small well-formedness check: an SVG document, balanced <svg>, the number of data polylines and bands. */
function svgShape(svg: string) {
  const lines = svg.split('\n')
  const body = svg.replace(/^<\?xml[^>]*\?>\s*/, '')
  return {
    startsWithSvg: body.startsWith('<svg'),
    closed: body.trimEnd().endsWith('</svg>') && (body.match(/<svg\b/g) ?? []).length === 1,
    title: /<title>([^<]*)<\/title>/.exec(svg)?.[1] ?? null,
    polylines: lines.filter((l) => l.startsWith('<polyline')).length,
    bands: lines.filter((l) => l.startsWith('<polygon class="band"')).length,
    paths: lines.filter((l) => l.startsWith('<path')).length,
    // Every element line closes itself or is one of the group/document tags.
    unclosed: lines.filter((l) => l.startsWith('<') && !/\/>$|<\/\w+>$|^<\?xml|^<(svg|g)\b[^>]*>$|^<\/(svg|g)>$/.test(l)),
    legend: [...svg.matchAll(/<text x="[\d.]+" y="\d+">([^<]+)<\/text>/g)].map((m) => m[1]),
  }
}

describe('archive plots (issue 7: "logs, and the plots")', () => {
  const PLOTS = ['plots/mean-fct-by-load.svg', 'plots/p99-fct-by-load.svg', 'plots/mean-fct-normalised.svg']
  let dir: string
  let out: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-plots-'))
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP_YAML)
    expect(p4lab(['run', 'sweep.yaml', '--db', 'a.db'], dir).code).toBe(0)
    expect(p4lab(['export', 'rt-sweep', '--db', 'a.db', '-o', 'p.tar.gz'], dir).code).toBe(0)
    out = join(dir, 'x')
    mkdirSync(out)
    await extractTar({ file: join(dir, 'p.tar.gz'), cwd: out })
  })

  it('holds the three plots, each a well-formed SVG with one line and one band per scheme', () => {
    const titles: string[] = []
    for (const path of PLOTS) {
      const svg = readFileSync(join(out, path), 'utf8')
      const shape = svgShape(svg)
      expect(shape.startsWithSvg, path).toBe(true)
      expect(shape.closed, path).toBe(true)
      expect(shape.unclosed, path).toEqual([])
      // ecmp and rps at two loads each: one unbroken polyline and one band (2 seeds) per scheme.
      expect(shape.polylines, path).toBe(2)
      expect(shape.bands, path).toBe(2)
      expect(shape.paths, path).toBe(0)
      expect(shape.legend, path).toEqual(['ecmp', 'rps'])
      expect((svg.match(/<circle /g) ?? []).length, path).toBe(4)
      titles.push(shape.title!)
    }
    expect(titles).toEqual(['Mean FCT vs load', 'p99 FCT vs load', 'Mean FCT normalised to ecmp'])
    // Each scheme keeps its colour across the plots.
    const colours = PLOTS.map((p) => [...readFileSync(join(out, p), 'utf8').matchAll(/<polyline [^>]*stroke="([^"]+)"/g)].map((m) => m[1]))
    expect(colours[1]).toEqual(colours[0])
    expect(colours[2]).toEqual(colours[0])
  })

  it('draws the mean plot from the rows of compare/mean-by-load.json', () => {
    const result = JSON.parse(readFileSync(join(out, 'compare', 'mean-by-load.json'), 'utf8'))
    const rows = (result.rows ?? result) as Array<{ line: { scheme: string }; x: number; mean: number }>
    expect(rows).toHaveLength(4)
    const svg = readFileSync(join(out, 'plots/mean-fct-by-load.svg'), 'utf8')
    // The y positions of the markers follow the means: the larger mean sits higher (smaller y).
    const ys = [...svg.matchAll(/<circle cx="[\d.]+" cy="([\d.]+)"/g)].map((m) => Number(m[1]))
    expect(ys).toHaveLength(rows.length)
    const order = (v: number[]) => v.map((_, i) => i).sort((a, b) => v[a] - v[b])
    expect(order(ys)).toEqual(order(rows.map((r) => -r.mean)))
    // The normalised plot: the baseline scheme is 1 everywhere.
    const norm = readFileSync(join(out, 'plots/mean-fct-normalised.svg'), 'utf8')
    const ecmp = /<polyline class="line" data-line="0" points="([^"]+)"/.exec(norm)![1].split(' ').map((p) => p.split(',')[1])
    expect(new Set(ecmp).size).toBe(1)
  })

  it('lists every plot in manifest.json with its sha256 and size, and the README points to them', () => {
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { files: Array<{ path: string; sha256: string; bytes: number }> }
    for (const path of PLOTS) {
      const f = manifest.files.find((e) => e.path === path)
      expect(f, path).toBeDefined()
      const data = readFileSync(join(out, path))
      expect(f!.sha256).toBe(createHash('sha256').update(data).digest('hex'))
      expect(f!.bytes).toBe(data.length)
    }
    const readme = readFileSync(join(out, 'README.md'), 'utf8')
    for (const path of PLOTS) expect(readme, path).toContain(path)
    expect(readme).toMatch(/`plots\/\*\.svg`/)
  })

  it('imports (every file verified, the plots included) and the plots are the same after export from the imported copy', async () => {
    const other = join(dir, 'elsewhere')
    const imp = p4lab(['import', join(dir, 'p.tar.gz'), '--db', join(other, 'b.db'), '--json'], dir, { home: join(other, 'home') })
    expect(imp.code, imp.stderr).toBe(0)
    const { files, compareMatches } = JSON.parse(imp.stdout) as { files: number; compareMatches: boolean }
    expect(compareMatches).toBe(true)
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { files: unknown[] }
    expect(files).toBe(manifest.files.length + 1)
    const again = p4lab(['export', 'rt-sweep', '--db', join(other, 'b.db'), '-o', join(dir, 'again.tar.gz')], dir, { home: join(other, 'home') })
    expect(again.code, again.stderr).toBe(0)
    const out2 = join(dir, 'x2')
    mkdirSync(out2)
    await extractTar({ file: join(dir, 'again.tar.gz'), cwd: out2 })
    for (const path of PLOTS) expect(readFileSync(join(out2, path), 'utf8'), path).toBe(readFileSync(join(out, path), 'utf8'))
  })
})

describe('archive round trip keeps the telemetry roll-ups', () => {
  it('imports the roll-up rows of every series with the new series ids', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-rt-rollups-'))
    writeFileSync(join(dir, 'sweep.yaml'), SWEEP_YAML.replace('seeds: [1, 2]', 'seeds: [1]').replace('schemes: [ecmp, rps]', 'schemes: [ecmp]'))
    expect(p4lab(['run', 'sweep.yaml', '--db', 'a.db'], dir).code).toBe(0)
    expect(p4lab(['export', 'rt-sweep', '--db', 'a.db', '-o', 'r.tar.gz'], dir).code).toBe(0)
    expect(p4lab(['import', 'r.tar.gz', '--db', join(dir, 'b', 'b.db')], dir, { home: join(dir, 'b', 'home') }).code).toBe(0)
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

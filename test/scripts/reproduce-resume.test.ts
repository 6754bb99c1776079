// `npm run reproduce` resumes (reproduce-runner.ts, reproduce-ledger.ts), on tiny templates with
// the real simulator into real SQLite files: a second invocation reuses every done run; a changed
// template reruns only its own runs, and an edited comment or description reruns none (rows from
// before that rule are keyed from the records that vouch for them); another simulator
// fingerprint, or --fresh, reruns all; a
// cancelled (Ctrl-C) or incomplete run is rerun; --plan runs nothing. Also: the fingerprint
// changes with the simulator's sources.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Core } from '../../src-main/core'
import type { Claim } from '../../scripts/reproduce-claims'
import { Ledger, simulatorFingerprint } from '../../scripts/reproduce-ledger'
import { reproduce, type ReproduceOptions } from '../../scripts/reproduce-run'
import { Interrupted } from '../../scripts/reproduce-runner'
import { tempCore } from '../helpers/core'

const TOPO = 'topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }'
const yaml = (name: string, flows: number, more = '') =>
  `name: ${name}\ndescription: "tiny"\ntestbed: sim\n${TOPO}\nschemes: [ecmp, rps]\nworkload: { kind: web-search, load: 0.5, flows: ${flows} }\nseeds: [1]\n${more}`
// A claim that reads the runs (so it needs them done) and always holds, so no sweep runs.
const holds: Claim = { claim: 'ecmp ran', seed: 'better', measure: { unit: 'x', value: (r) => 1 + r.fct('ecmp', 0.5, 'meanNs') * 0, holds: () => true } }

const cores: Array<{ core: Core; ledger: Ledger }> = []
afterAll(() => {
  for (const { core, ledger } of cores) {
    core.orchestrator.cancelAll()
    ledger.close()
    core.opts.store.close()
  }
})

/** A database of its own, its templates in a temporary directory, and an invoker. */
function setup(parallelRuns: number, templates: Record<string, string>) {
  const { core, dbPath, dir } = tempCore(parallelRuns)
  core.start()
  const ledger = new Ledger(dbPath)
  cores.push({ core, ledger })
  const tdir = join(dir, 'templates')
  mkdirSync(tdir)
  const write = (name: string, text: string) => writeFileSync(join(tdir, `${name}.yaml`), text)
  for (const [n, t] of Object.entries(templates)) write(n, t)
  const claims = Object.fromEntries(Object.keys(templates).map((n) => [n, [holds]]))
  const lines: string[] = []
  const run = (more: Partial<ReproduceOptions> = {}) => {
    lines.length = 0
    return reproduce({ core, templatesDir: tdir, claims, settings: {}, quick: false, outFile: join(dir, 'docs', 'results.md'), parallelRuns, log: (l) => lines.push(l), ledger, fingerprint: 'sim-a', ...more })
  }
  const runIds = () => new Set(core.opts.store.listRuns({ shown: 'all' }).map((r) => r.id))
  return { core, run, write, lines, runIds, dbPath, ledger }
}

const progress = (lines: string[]) => lines.filter((l) => /^reproduce: \[\d+\/\d+\] /.test(l))

describe('npm run reproduce resumes', { timeout: 600_000 }, () => {
  const s = setup(2, { 'tiny-a': yaml('tiny-a', 30), 'tiny-b': yaml('tiny-b', 30) })

  it('runs every run once, with a progress line each, then reuses them all in a second invocation', async () => {
    const first = await s.run()
    expect(progress(s.lines)).toHaveLength(4)
    expect(progress(s.lines)[0]).toMatch(/^reproduce: \[1\/4\] tiny-(a|b) (ecmp|rps) load 0\.5 seed 1: done, \d+\.\d (s|min) wall, (\d+\.\d (s|min) CPU|CPU unknown); 3 left, ETA \d+\.\d (s|min|h)$/)
    // A tiny run's thread can end before its CPU time is read (on a busy machine); the page says so.
    expect(first.page).toMatch(/of CPU over 1 invocation \(4 runs: all run by this invocation; (the CPU time of [1-4] could not be read and counts as their wall time; )?wall time /)
    const before = s.runIds()
    const second = await s.run()
    expect(s.runIds()).toEqual(before)
    expect(progress(s.lines)).toHaveLength(0)
    expect(s.lines).toContain('reproduce: all 4 runs reused')
    expect(second.page).toMatch(/of CPU over 2 invocations \(4 runs: 0 run by this invocation, 4 reused from runs finished \d{4}-\d\d-\d\d \d\d:\d\d to \d{4}-\d\d-\d\d \d\d:\d\d UTC; (the CPU time of [1-4] could not be read and counts as their wall time; )?wall time \d+\.\d (s|min) \+ \d+\.\d (s|min) = /)
    expect(second.page).toContain('2 runs (0 not done, 2 reused from an earlier invocation)')
  })

  it('reruns only the runs of a template whose text changed', async () => {
    const before = s.runIds()
    s.write('tiny-b', yaml('tiny-b', 31))
    await s.run()
    const made = [...s.runIds()].filter((id) => !before.has(id)).map((id) => s.core.opts.store.getRun(id)!)
    expect(made.map((r) => r.experimentName).sort()).toEqual(['tiny-b', 'tiny-b'])
    expect(progress(s.lines).every((l) => l.includes(' tiny-b '))).toBe(true)
  })

  it('--plan lists what would run and what would be reused, and runs nothing', async () => {
    s.write('tiny-a', yaml('tiny-a', 32))
    const before = s.runIds()
    const r = await s.run({ planOnly: true })
    expect(s.runIds()).toEqual(before)
    expect(r.page).toMatch(/^tiny-a: 2 to run \(about \d+\.\d (s|min|h) of CPU\), 0 reused$/m)
    expect(r.page).toMatch(/^tiny-b: 0 to run, 2 reused \(made \d{4}-\d\d-\d\d\)$/m)
    // The estimate learns from the runs whose CPU time was read; a tiny run's thread can end
    // before it is (on a busy machine), and with none read it says it used the default rate.
    const from = s.ledger.cpuPerCost() !== undefined ? 'the CPU per byte of the runs timed in this database' : 'about 3 CPU-s per GB carried \\(HULA Fig. 5b on a 2-core machine\\)'
    expect(r.page).toMatch(new RegExp(`^total: 2 runs to run, 2 reused; about .* of CPU, .* of wall time on 2 cores \\(estimated from ${from}\\)`, 'm'))
  })

  it('reruns everything under another simulator fingerprint, or with --fresh', async () => {
    await s.run()
    const before = s.runIds()
    await s.run({ fingerprint: 'sim-b' })
    const afterB = s.runIds()
    expect(afterB.size - before.size).toBe(4)
    await s.run({ fingerprint: 'sim-b', fresh: true })
    expect(s.runIds().size - afterB.size).toBe(4)
    // Back on the first simulator, its runs are still there to reuse.
    const again = s.runIds()
    await s.run()
    expect(s.runIds()).toEqual(again)
  })

  it('keeps the runs of a template whose comments, layout and description changed, not of one whose value changed', async () => {
    const before = s.runIds()
    s.write('tiny-a', `# The same runs, written otherwise.\n${yaml('tiny-a', 32).replace('description: "tiny"', 'description: "tiny, described anew"').replace('seeds: [1]', 'seeds:\n  - 1 # one seed')}`)
    await s.run()
    expect(s.runIds()).toEqual(before)
    expect(s.lines).toContain('reproduce: all 4 runs reused')
    s.write('tiny-a', `# The same runs, written otherwise.\n${yaml('tiny-a', 32, 'transport: { minRto: 2ms }\n')}`)
    await s.run()
    expect(progress(s.lines)).toHaveLength(2)
    expect(progress(s.lines).every((l) => l.includes(' tiny-a '))).toBe(true)
  })

  it('gives rows from before the compute key their key from the record of the run, when that record hashes to the row', async () => {
    // As a ledger written before compute_key: every row without one. One row's spec hash is not
    // its record's, so its record cannot vouch for what it computed.
    const db = new Database(s.dbPath)
    db.prepare('UPDATE reproduce_run SET compute_key = NULL').run()
    const tinyB = s.core.opts.store.listRuns({ shown: 'all' }).filter((r) => r.experimentName === 'tiny-b' && r.status === 'done').map((r) => r.id)
    const rows = db.prepare(`SELECT run_id AS id, scheme FROM reproduce_run WHERE fingerprint = 'sim-a' AND run_id IN (${tinyB.join(',')}) ORDER BY run_id DESC`).all() as Array<{ id: number; scheme: string }>
    const unvouched = rows.find((r) => r.scheme === 'rps')!
    db.prepare(`UPDATE reproduce_run SET spec_hash = 'not-its-record' WHERE run_id = ?`).run(unvouched.id)
    db.close()
    const before = s.runIds()
    s.write('tiny-b', `# A comment only.\n${yaml('tiny-b', 31)}`)
    await s.run()
    const made = [...s.runIds()].filter((id) => !before.has(id)).map((id) => s.core.opts.store.getRun(id)!)
    expect(made.map((r) => `${r.experimentName} ${r.scheme}`)).toEqual(['tiny-b rps'])
  })
})

describe('an interrupted or incomplete run is rerun', { timeout: 600_000 }, () => {
  it('Ctrl-C cancels the runs under way and keeps the finished; the next invocation reruns only those', async () => {
    const s = setup(1, { 'tiny-c': yaml('tiny-c', 60, 'seeds: [1, 2]\n').replace('seeds: [1]\n', '') })
    const abort = new AbortController()
    const interrupted = s.run({ signal: abort.signal, log: (l) => (/^reproduce: \[1\//.test(l) ? abort.abort() : undefined) })
    await expect(interrupted).rejects.toBeInstanceOf(Interrupted)
    const runs = s.core.opts.store.listRuns({ shown: 'all' })
    const done = runs.filter((r) => r.status === 'done').map((r) => r.id)
    const cancelled = runs.filter((r) => r.status === 'cancelled')
    expect(done.length).toBeGreaterThanOrEqual(1)
    expect(cancelled.length).toBeGreaterThanOrEqual(1)
    expect(done.length + cancelled.length).toBe(4)
    await s.run()
    const made = s.core.opts.store.listRuns({ shown: 'all' }).filter((r) => !runs.some((o) => o.id === r.id))
    // One new run per cancelled cell, none for a finished one.
    expect(made.map((r) => `${r.scheme} ${r.seed}`).sort()).toEqual(cancelled.map((r) => `${r.scheme} ${r.seed}`).sort())
    expect(made.every((r) => r.status === 'done')).toBe(true)
  })

  it('a run that ended incomplete is rerun', async () => {
    // Stopped long before its flows can finish: incomplete, never done.
    const s = setup(2, { 'tiny-d': yaml('tiny-d', 30, 'stopAfter: 20us\n') })
    await s.run().catch(() => {})
    const first = s.core.opts.store.listRuns({ shown: 'all' })
    expect(first.map((r) => r.status)).toEqual(['incomplete', 'incomplete'])
    await s.run().catch(() => {})
    expect(s.runIds().size).toBe(4)
  })
})

describe('the order of runs', { timeout: 600_000 }, () => {
  it('starts the runs expected to take longest first, across templates', async () => {
    // Listed small first; the big template carries three times the bytes.
    const s = setup(1, { 'tiny-small': yaml('tiny-small', 30), 'tiny-big': yaml('tiny-big', 90) })
    await s.run()
    const started = s.core.opts.store
      .listRuns({ shown: 'all' })
      .sort((a, b) => a.id - b.id)
      .map((r) => r.experimentName)
    expect(started).toEqual(['tiny-big', 'tiny-big', 'tiny-small', 'tiny-small'])
  })
})

describe('the simulator fingerprint', () => {
  it('changes when a source the runs depend on changes, and only then', () => {
    const root = mkdtempSync(join(tmpdir(), 'p4lab-fingerprint-'))
    mkdirSync(join(root, 'src-main', 'sim', 'net'), { recursive: true })
    mkdirSync(join(root, 'src-main', 'renderer'), { recursive: true })
    mkdirSync(join(root, 'out', 'main'), { recursive: true })
    writeFileSync(join(root, 'src-main', 'sim', 'net', 'queue.ts'), 'export const x = 1\n')
    writeFileSync(join(root, 'out', 'main', 'sim-worker.js'), 'bundle 1\n')
    writeFileSync(join(root, 'src-main', 'renderer', 'app.ts'), 'ui 1\n')
    const a = simulatorFingerprint(root)
    expect(simulatorFingerprint(root)).toBe(a)
    writeFileSync(join(root, 'src-main', 'renderer', 'app.ts'), 'ui 2\n')
    expect(simulatorFingerprint(root)).toBe(a)
    writeFileSync(join(root, 'src-main', 'sim', 'net', 'queue.ts'), 'export const x = 2\n')
    const b = simulatorFingerprint(root)
    expect(b).not.toBe(a)
    writeFileSync(join(root, 'out', 'main', 'sim-worker.js'), 'bundle 2\n')
    expect(simulatorFingerprint(root)).not.toBe(b)
  })
})

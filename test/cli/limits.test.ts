// Limits that speak up, through the built CLI as a user meets them: each budget of an
// experiment file is refused with exit 2, naming the field and the budget, with nothing
// added to the store; at run time the memory ceiling fails the run saying why, and the
// telemetry cap is reported on the run; stored names with control characters print escaped.
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { TINY_YAML, p4lab } from '../helpers/cli'



const TINY = TINY_YAML

/** C0 and C1 controls and the bidi overrides: none may reach the terminal raw. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

function counts(db: string): { experiments: number; runs: number } {
  const d = new Database(db, { readonly: true })
  try {
    const experiments = (d.prepare('SELECT count(*) AS n FROM experiments').get() as { n: number }).n
    const runs = (d.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n
    return { experiments, runs }
  } finally {
    d.close()
  }
}

describe('p4lab run: the budgets of an experiment file', { timeout: 600_000 }, () => {
  let dir: string
  let db: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-limits-'))
    db = join(dir, 'store.db')
    writeFileSync(join(dir, 'tiny.yaml'), TINY)
    const r = p4lab(['run', 'tiny.yaml', '--db', db], dir)
    expect(r.code, r.stderr).toBe(0)
  }, 300_000)

  const cases: Array<[string, string, RegExp]> = [
    ['flows: 1e12', TINY.replace('flows: 40', 'flows: 1e12'), /bad\.yaml:8:\d+: workload\.flows: .*1,000,000,000,000 flows in one run; the budget is 1,000,000 flows per run/],
    [
      'incast events × fan-in over the flows budget',
      TINY.replace('  kind: web-search', '  kind: incast\n  background: web-search').replace('flows: 40', 'flows: 40\n  incast: { events: 400000, rate: 2000/s, flowSize: 20KB, fanIn: 3 }'),
      /workload\.incast\.events: 40 background flows \+ 400,000 incast events × fan-in up to 3: 1,200,040 flows in one run; the budget is 1,000,000 flows per run/,
    ],
    [
      'a 1 ns telemetry interval',
      `${TINY}telemetry: { interval: 1ns }\n`,
      /bad\.yaml:10:\d+: telemetry\.interval: .*samples in one run; the budget is 100,000,000 samples per run \(stopAfter ÷ interval × series\)\. Use an interval of at least/,
    ],
    ['leaves: 100000', TINY.replace('leaves: 2,', 'leaves: 100000,'), /bad\.yaml:3:\d+: topology\.leaves: 100,000 ToRs in one pod do not fit the address plan.*at most 256 ToRs \(the topology budget\)/],
    ['300 hosts on a leaf', TINY.replace('hostsPerLeaf: 2', 'hostsPerLeaf: 300'), /topology\.hostsPerLeaf: 300 hosts on one ToR .*at most 254 hosts per ToR \(the topology budget\)/],
    ['a 2 MB file', TINY + `# ${'x'.repeat(1000)}\n`.repeat(2000), /bad\.yaml:1:1: document: the file is 2,\d{3},\d{3} bytes; an experiment file may be at most 1,048,576 bytes \(1 MiB, the YAML size budget\)/],
    ['ESC in the name', TINY.replace('name: tiny', 'name: "tiny\\e[2J\\e[H"'), /bad\.yaml:1:\d+: name: the experiment name holds the control character ESC \(U\+001B\) at position 5 \('tiny\\u001b\[2J\\u001b\[H'\)/],
    ['CR and LF in a tag', TINY.replace('seeds: [1]', 'seeds: [1]\ntags: ["ok", "a\\rrun 9 done\\n"]'), /tags\[1\]: this value holds the control character CR \(U\+000D\) at position 2/],
    ['a bidi override in a link name', `${TINY}failures: [{ link: "spine0-leaf0\\u202e", at: 1ms }]\n`, /failures\[0\]\.link: this value holds the control character U\+202E/],
    ['ESC in a description', TINY.replace('seeds: [1]', 'seeds: [1]\ndescription: "two\\nlines \\e[31m"'), /description: this value holds the control character ESC \(U\+001B\) at position 11 .*a description may hold line feeds and tabs only/],
  ]
  for (const [what, yaml, expected] of cases) {
    it(`refuses ${what}: exit 2, the field and the budget named, nothing stored`, () => {
      const before = counts(db)
      writeFileSync(join(dir, 'bad.yaml'), yaml)
      const r = p4lab(['run', 'bad.yaml', '--db', db], dir)
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(expected)
      expect(r.stderr).not.toMatch(RAW_CONTROL)
      expect(counts(db)).toEqual(before)
    })
  }

  it('refuses a --where of 20,000 nots with exit 2 and the nesting budget, not a stack overflow', () => {
    const r = p4lab(['compare', 'tiny', '--db', db, '--where', `${'not '.repeat(20_000)}scheme = ecmp`], dir)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/--where: column 401: this 'not' nests the query more than 100 deep \('not's and parentheses\); the budget is 100 levels/)
    // A query a person writes still works.
    const ok = p4lab(['compare', 'tiny', '--db', db, '--where', 'not (not scheme = ecmp)'], dir)
    expect(ok.code, ok.stderr).toBe(0)
  })

  it('prints stored names and errors with control characters escaped (list, show, --json)', () => {
    const legacy = join(dir, 'legacy.db')
    copyFileSync(db, legacy)
    const name = 'tiny\u001b[2J\rrun 1 done\u009b\u202e'
    const d = new Database(legacy)
    d.prepare('UPDATE experiments SET name = ?').run(name)
    d.prepare("UPDATE runs SET error = ?").run('host said \u001b]0;pwned\u0007')
    d.close()
    const list = p4lab(['list', '--db', legacy], dir)
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).not.toMatch(RAW_CONTROL)
    expect(list.stdout).toContain('tiny\\u001b[2J\\rrun 1 done\\u009b\\u202e')
    const show = p4lab(['show', '1', '--db', legacy], dir)
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).not.toMatch(RAW_CONTROL)
    expect(show.stdout).toContain('host said \\u001b]0;pwned\\u0007')
    // JSON stays valid and means the same: the escapes are JSON's.
    const json = p4lab(['list', '--db', legacy, '--json'], dir)
    expect(json.stdout).not.toMatch(RAW_CONTROL)
    expect((JSON.parse(json.stdout) as Array<{ name: string }>)[0].name).toBe(name)
  })
})

describe('p4lab run: caps at run time', { timeout: 600_000 }, () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'p4lab-limits-run-'))
  })

  it('a run over the memory ceiling ends failed with the reason, and the process goes on', () => {
    // 500,000 flows (within the flows budget) need about 120 MB; the ceiling is set to 32 MB.
    writeFileSync(join(dir, 'big.yaml'), `${TINY.replace('flows: 40', 'flows: 500000').replace('seeds: [1]', 'seeds: [1, 2]')}stopAfter: 10ms\n`)
    const db = join(dir, 'big.db')
    const r = p4lab(['run', 'big.yaml', '--db', db, '--json'], dir, { env: { P4LAB_RUN_MEMORY_MB: '32' } })
    expect(r.code, r.stderr).toBe(1)
    // Both runs ended (the process lived to print them), each failed with the reason.
    const runs = (JSON.parse(r.stdout) as { runs: Array<{ status: string; error: string }> }).runs
    expect(runs).toHaveLength(2)
    for (const run of runs) {
      expect(run.status).toBe('failed')
      expect(run.error).toMatch(/^the run went over the memory ceiling per run of 32 MB \(it used \d+ MB\) and was stopped; .*P4LAB_RUN_MEMORY_MB/)
    }
    const d = new Database(db, { readonly: true })
    const limits = d.prepare("SELECT detail FROM events WHERE kind = 'warning'").all() as Array<{ detail: string }>
    d.close()
    expect(limits.map((l) => JSON.parse(l.detail).code)).toEqual(['limit.memory', 'limit.memory'])
  })

  it('refuses a ceiling that is not a number of megabytes as bad input, naming the variable and not the database', () => {
    writeFileSync(join(dir, 'tiny.yaml'), TINY)
    const r = p4lab(['run', 'tiny.yaml', '--db', join(dir, 'x.db')], dir, { env: { P4LAB_RUN_MEMORY_MB: 'lots' } })
    expect([r.code, r.stderr]).toEqual([2, "p4lab: P4LAB_RUN_MEMORY_MB must be a whole number of megabytes of at least 16, got 'lots'\n"])
    expect(existsSync(join(dir, 'x.db'))).toBe(false)
  })

  it('telemetry faster than the cap per source is thinned to the cap and reported on the run', () => {
    // One sample every 100 ns is 10,000 per ms of simulated time; the cap keeps 1,000 per ms.
    writeFileSync(join(dir, 'fast.yaml'), `${TINY}telemetry: { interval: 100ns }\nstopAfter: 3ms\n`)
    const db = join(dir, 'fast.db')
    const r = p4lab(['run', 'fast.yaml', '--db', db], dir)
    expect([0, 1]).toContain(r.code)
    const d = new Database(db, { readonly: true })
    const limits = d.prepare("SELECT detail FROM events WHERE kind = 'warning'").all() as Array<{ detail: string }>
    const logs = (d.prepare('SELECT line FROM logs').all() as Array<{ line: string }>).map((l) => l.line)
    d.close()
    expect(limits.map((l) => JSON.parse(l.detail))).toEqual([
      expect.objectContaining({ code: 'limit.telemetry-rate', limit: 'telemetry rate', source: 'sampler', cap: 1000, message: expect.stringMatching(/more than 1,000 samples in one millisecond of its time, the cap on telemetry rate per source/) }),
    ])
    expect(logs.some((l) => /^telemetry: \d+ samples of 'sampler' over the cap on telemetry rate per source were not stored$/.test(l))).toBe(true)
    const show = p4lab(['show', '1', '--db', db], dir)
    expect(show.stdout).toMatch(/warning +source=sampler code=limit.telemetry-rate limit=telemetry rate cap=1000 /)
  })
})

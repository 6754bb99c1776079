// An archive says what each run ran with, not what the app holds at export: the P4 sources its
// build compiled (kept with the artifact) and the testbed as the run found it when it started.
// Runs go through the real orchestrator to a BMv2-kind driver that builds with the real
// artifact cache (a fake p4c-bm2-ss on PATH, test/p4build/fake-compiler.ts), on a real SQLite
// store; then the variant and the testbed are edited, and the archive is read back.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { x as extractTar } from 'tar'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { exportExperiment, importArchive } from '../../src-main/core/archive'
import { EventBus } from '../../src-main/core/bus'
import { Orchestrator } from '../../src-main/core/orchestrator'
import { LocalRunner, P4Builder, createVariant, programPath, readVariant, saveVariantFile } from '../../src-main/core/p4build'
import { openStore, type Store } from '../../src-main/core/store'
import type { TargetDriver, TargetFacts } from '../../src-main/core/targets/driver'
import { p4lab } from '../helpers/cli'
import { specOf } from '../helpers/core'
import { P4_DIR } from '../helpers/p4'
import { fakeCompiler, type FakeCompiler } from '../p4build/fake-compiler'

const YAML = `name: ran-with
testbed: lab
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 1Gbps, fabricLink: 1Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 4 }
seeds: [1, 2]
`
const MAIN = 'ecmp/v1model/ecmp.p4'
const REF = { scheme: 'ecmp', target: 'bmv2' } as const

let dir: string
let home: string
let store: Store
let fake: FakeCompiler

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-ran-with-'))
  home = join(dir, 'home')
  store = openStore(join(home, 'p4lab.db'))
  fake = fakeCompiler(dir)
})
afterEach(() => store.close())

/** Builds the experiment's variant (else the shipped program) as the BMv2 driver does, and records what it built. */
function bmv2(): TargetDriver {
  return {
    kind: 'bmv2',
    maxParallelRuns: 1,
    check: async () => ({}),
    open: (ctx) => {
      const facts: TargetFacts = { target: 'bmv2' }
      return {
        build: async () => {
          const variant = readVariant(home, ctx.plan.experimentId!, REF)
          const builder = new P4Builder({ store, artifactsDir: join(home, 'artifacts'), runner: new LocalRunner(fake.env()) })
          const b = await builder.build({ file: variant?.file ?? programPath(P4_DIR, REF), target: 'bmv2', program: variant ? 'variant:ecmp' : `p4/${MAIN}` })
          Object.assign(facts, { program: MAIN, artifact: b.key, compiler: b.artifact.compiler })
        },
        deploy: async () => {},
        startTraffic: async () => {},
        telemetry: async function* () {},
        collect: async () => ({
          flows: { src: Int32Array.from([0, 1]), dst: Int32Array.from([2, 3]), sizeBytes: Float64Array.from([1000, 2000]), startNs: Float64Array.from([0, 10]), finishNs: Float64Array.from([5000, 9000]), deliveredBytes: Float64Array.from([1000, 2000]), group: Int32Array.from([-1, -1]) },
          counters: {},
          facts,
        }),
        teardown: async () => {},
      }
    },
  }
}

const HOST = { name: 'sw1', address: '192.0.2.10', port: 22, user: 'p4', auth: 'key' as const, keyFile: '/home/alice/.ssh/lab_ed25519', role: 'switch-host' }

function setup() {
  const tb = store.createTestbed({ name: 'lab', kind: 'bmv2', settings: { bringUp: 'netns', rateCeilingBps: 1e9 }, hosts: [HOST] })
  const spec = specOf(YAML, { baseDir: dir, testbeds: ['sim', 'lab'] })
  const exp = store.createExperiment({ name: 'ran-with', yaml: YAML, spec, file: null, tags: [] })
  const orchestrator = new Orchestrator({ store, bus: new EventBus(), drivers: { bmv2: bmv2() } })
  const run = async (seed: number) => {
    const [r] = orchestrator.enqueue(exp.id, spec, [{ scheme: 'ecmp', load: 0.3, seed }])
    await orchestrator.wait([r.id])
    expect(store.getRun(r.id)).toMatchObject({ status: 'done' })
    return r.id
  }
  return { tb, exp, run }
}

function editVariant(experimentId: number, marker: string): string {
  const v = readVariant(home, experimentId, REF)!
  const text = `// ${marker}\n${readFileSync(v.file, 'utf8').replace(/^\/\/ (compiled by|edited after) [^\n]*\n/, '')}`
  saveVariantFile(home, experimentId, REF, MAIN, text)
  return text
}

async function exported(experimentId: number, name: string): Promise<{ x: string; file: string; read: (p: string) => string; notes: string[] }> {
  const file = join(dir, `${name}.tar.gz`)
  await exportExperiment({ store, experimentId, out: file, dataDir: home, p4Dir: P4_DIR })
  const x = mkdtempSync(join(dir, `${name}-`))
  await extractTar({ file, cwd: x })
  const read = (p: string) => readFileSync(join(x, p), 'utf8')
  return { x, file, read, notes: (JSON.parse(read('manifest.json')) as { notes: string[] }).notes }
}

it('writes the sources each build compiled and the testbed each run saw, whatever was edited since', async () => {
  const { tb, exp, run } = setup()
  createVariant(P4_DIR, home, exp.id, REF)
  const ran1 = editVariant(exp.id, 'compiled by run 1')
  const first = await run(1)
  const key1 = store.getRun(first)!.facts!.artifact as string
  // What a run saw is its record: once ended, it is not rewritten.
  expect(() => store.setRunTestbed(first, { name: 'lab', kind: 'bmv2', settings: {}, hosts: [] })).toThrow(`run ${first} has ended (done): the testbed it ran on stays as it was recorded`)
  // Both edited after the run: the variant's program, and the testbed's settings and host.
  const edited = editVariant(exp.id, 'edited after run 1')
  store.updateTestbed(tb.id, { name: 'lab', kind: 'bmv2', settings: { bringUp: 'netns', rateCeilingBps: 2e9 }, hosts: [{ ...HOST, id: tb.hosts[0].id, address: '192.0.2.99' }] })

  const a = await exported(exp.id, 'one')
  // The sources run 1 compiled, with the program, in the variant import restores, and with the build.
  for (const p of [`p4/bmv2-ecmp/${MAIN}`, `p4/variants/bmv2-ecmp/${MAIN}`, `artifacts/${key1}/sources/${MAIN}`]) expect(a.read(p), p).toBe(ran1)
  expect(a.read('p4/bmv2-ecmp/include/headers.p4')).toBe(readFileSync(join(P4_DIR, 'include', 'headers.p4'), 'utf8'))
  expect(JSON.parse(a.read('p4/variants/bmv2-ecmp/variant.json'))).toMatchObject({ main: MAIN, scheme: 'ecmp', target: 'bmv2' })
  expect(a.notes.join('\n')).toContain(`the bmv2 variant of ecmp was edited after run ${first}: p4/variants/bmv2-ecmp/ holds what that run compiled (import restores it), not the edit`)
  // The testbed as run 1 found it, nothing secret or local.
  expect(JSON.parse(a.read('testbed/lab.json'))).toEqual({
    name: 'lab', kind: 'bmv2', settings: { bringUp: 'netns', rateCeilingBps: 1e9 },
    hosts: [{ name: 'sw1', address: '192.0.2.10', port: 22, user: 'p4', auth: 'key', role: 'switch-host', hostKey: null }],
    runs: [first],
  })
  expect(a.notes).toContain(`testbed lab was changed after run ${first} started on it (settings.rateCeilingBps; host sw1: address): testbed/lab.json is the testbed as it saw it, not as it is stored now`)
  // Nothing local: the key file's path is nowhere in the archive, tables included (gunzipped: the
  // compressed bytes would hide any string).
  expect(gunzipSync(readFileSync(a.file)).includes('192.0.2.10')).toBe(true)
  expect(gunzipSync(readFileSync(a.file)).includes('lab_ed25519')).toBe(false)
  // The run's own record says the same, in the archive and in \`p4lab show\`: where it ran, as it found it.
  const seen = { name: 'lab', kind: 'bmv2', settings: { bringUp: 'netns', rateCeilingBps: 1e9 }, hosts: [{ name: 'sw1', address: '192.0.2.10', port: 22, user: 'p4', auth: 'key', role: 'switch-host', hostKey: null }] }
  expect(JSON.parse(a.read(`runs/run-${first}.json`)).testbed).toEqual(seen)
  const shown = p4lab(['show', String(first), '--db', join(home, 'p4lab.db')], dir, { home })
  expect(shown.code, shown.stderr).toBe(0)
  expect(shown.stdout).toContain('\n  testbed   lab (bmv2) as the run found it: bringUp netns, rateCeilingBps 1000000000\n    sw1  p4@192.0.2.10:22 (switch-host, key)\n')
  expect(a.read('README.md')).toContain(`## Notes\n\n`)
  expect(a.read('README.md')).toContain(`- testbed lab was changed after run ${first} started on it`)

  // A second run on the edited variant and testbed: each build and each description, said which is whose.
  const second = await run(2)
  const key2 = store.getRun(second)!.facts!.artifact as string
  expect(key2).not.toBe(key1)
  const b = await exported(exp.id, 'two')
  expect(b.read(`p4/bmv2-ecmp/build-${key1.slice(0, 12)}/${MAIN}`)).toBe(ran1)
  expect(b.read(`p4/bmv2-ecmp/build-${key2.slice(0, 12)}/${MAIN}`)).toBe(edited)
  expect(b.read(`p4/variants/bmv2-ecmp/${MAIN}`)).toBe(edited)
  expect(b.notes).toContain(`the bmv2 program ecmp ran as 2 builds: build ${key1.slice(0, 12)} for run ${first} (its sources: p4/bmv2-ecmp/build-${key1.slice(0, 12)}/); build ${key2.slice(0, 12)} for run ${second} (its sources: p4/bmv2-ecmp/build-${key2.slice(0, 12)}/)`)
  expect(JSON.parse(b.read('testbed/lab/seen-1.json'))).toMatchObject({ settings: { rateCeilingBps: 1e9 }, hosts: [{ address: '192.0.2.10' }], runs: [first] })
  expect(JSON.parse(b.read('testbed/lab/seen-2.json'))).toMatchObject({ settings: { rateCeilingBps: 2e9 }, hosts: [{ address: '192.0.2.99' }], runs: [second] })
  expect(b.notes).toContain(`testbed lab was not the same for every run: run ${first} saw testbed/lab/seen-1.json; run ${second} saw testbed/lab/seen-2.json`)

  // Imported elsewhere: the runs keep the testbed they saw, the variant is what the latest run compiled,
  // and exported again from there the archive says the same.
  const other = openStore(join(dir, 'other', 'p4lab.db'))
  try {
    const r = await importArchive({ file: b.file, store: other, dataDir: join(dir, 'other') })
    expect(other.getRunTestbed(r.runIds[first])).toMatchObject({ settings: { rateCeilingBps: 1e9 } })
    expect(other.getRunTestbed(r.runIds[second])).toMatchObject({ settings: { rateCeilingBps: 2e9 } })
    expect(readFileSync(join(dir, 'other', 'variants', String(r.experimentId), 'bmv2-ecmp', ...MAIN.split('/')), 'utf8')).toBe(edited)
    const again = join(dir, 'again.tar.gz')
    await exportExperiment({ store: other, experimentId: r.experimentId, out: again, dataDir: join(dir, 'other'), p4Dir: P4_DIR })
    const y = mkdtempSync(join(dir, 'again-'))
    await extractTar({ file: again, cwd: y })
    expect(readFileSync(join(y, `p4/bmv2-ecmp/build-${key1.slice(0, 12)}/${MAIN}`), 'utf8')).toBe(ran1)
    expect(JSON.parse(readFileSync(join(y, 'testbed/lab/seen-1.json'), 'utf8'))).toMatchObject({ runs: [r.runIds[first]] })
  } finally {
    other.close()
  }
})

it("falls back to the current sources for a build that kept none, and says whether they are still what it compiled", async () => {
  const { exp, run } = setup()
  const shipped = await run(1)
  const key1 = store.getRun(shipped)!.facts!.artifact as string
  // A build made before the sources were kept with it, and runs from before the testbed was kept.
  rmSync(join(home, 'artifacts', key1, 'sources'), { recursive: true })
  const db = new Database(store.file)
  try {
    db.prepare('UPDATE runs SET testbed = NULL').run()
  } finally {
    db.close()
  }

  const a = await exported(exp.id, 'old')
  expect(a.read(`p4/${MAIN}`)).toBe(readFileSync(join(P4_DIR, ...MAIN.split('/')), 'utf8'))
  expect(a.notes).toContain(`the bmv2 program ecmp, build ${key1.slice(0, 12)} of run ${shipped}: it kept no sources (compiled before p4lab kept them with the build); p4/ holds the current shipped program instead, and their sha256s match what the build recorded: they are exactly what it compiled`)
  expect(a.notes).toContain(`run ${shipped} on testbed lab started before p4lab kept the testbed each run saw: testbed/lab.json is the testbed as stored at export, which may differ from what it ran on`)

  // A variant compiled by an older build, edited since: the archive says its sources are not what it compiled.
  createVariant(P4_DIR, home, exp.id, REF)
  editVariant(exp.id, 'compiled by run 2')
  const second = await run(2)
  const key2 = store.getRun(second)!.facts!.artifact as string
  rmSync(join(home, 'artifacts', key2, 'sources'), { recursive: true })
  const now = editVariant(exp.id, 'edited after run 2')
  // A record of the testbed that is not one (as a crafted archive could bring): said, and not trusted.
  const db2 = new Database(store.file)
  try {
    db2.prepare('UPDATE runs SET testbed = ? WHERE id = ?').run('{"name": "lab", "kind": "bmv2"}', second)
  } finally {
    db2.close()
  }
  const b = await exported(exp.id, 'edited')
  // Nor shown as one: the run's record in the archive and \`p4lab show\` have no testbed for it.
  expect(JSON.parse(b.read(`runs/run-${second}.json`)).testbed).toBeNull()
  const shown = p4lab(['show', String(second), '--db', join(home, 'p4lab.db')], dir, { home })
  expect(shown.code, shown.stderr).toBe(0)
  expect(shown.stdout).not.toContain('  testbed ')
  expect(b.read(`p4/variants/bmv2-ecmp/${MAIN}`)).toBe(now)
  expect(b.notes).toContain(`run ${second}'s record of the testbed it started on is malformed (it came with an imported archive?): it counts as a run that recorded none`)
  expect(b.notes).toContain(`runs ${shipped}, ${second} on testbed lab started before p4lab kept the testbed each run saw: testbed/lab.json is the testbed as stored at export, which may differ from what they ran on`)
  expect(b.notes).toContain(`the bmv2 program ecmp, build ${key2.slice(0, 12)} of run ${second}: it kept no sources (compiled before p4lab kept them with the build); p4/variants/bmv2-ecmp/ holds the current variant instead, and their sha256s differ from what the build recorded (changed: ${MAIN}): they are not what it compiled`)
})

it("keeps a run's second build, as Tofino's cabling check records it (facts.checkArtifact), with its outputs and sources", async () => {
  const { exp, run } = setup()
  const id = await run(1)
  // The check program a Tofino run compiles beside the scheme's: here the shipped RPS program stands in for it.
  const builder = new P4Builder({ store, artifactsDir: join(home, 'artifacts'), runner: new LocalRunner(fake.env()) })
  const check = await builder.build({ file: programPath(P4_DIR, { scheme: 'rps', target: 'bmv2' }), target: 'bmv2', program: 'p4lab:check' })
  const db = new Database(store.file)
  try {
    db.prepare('UPDATE runs SET facts = json_set(facts, \'$.checkArtifact\', ?) WHERE id = ?').run(check.key, id)
  } finally {
    db.close()
  }
  const a = await exported(exp.id, 'check')
  expect(a.read(`artifacts/${check.key}/sources/rps/v1model/rps.p4`)).toBe(readFileSync(join(P4_DIR, 'rps', 'v1model', 'rps.p4'), 'utf8'))
  for (const f of Object.values(check.artifact.outputs.files)) expect(a.read(`artifacts/${check.key}/${f}`)).toBe(readFileSync(join(home, 'artifacts', check.key, ...f.split('/')), 'utf8'))
  const sub = new Database(join(a.x, 'data', 'p4lab.sqlite'), { readonly: true })
  try {
    expect(sub.prepare('SELECT program FROM artifacts WHERE hash = ?').pluck().get(check.key)).toBe('p4lab:check')
  } finally {
    sub.close()
  }
  expect(a.notes.filter((n) => n.includes(check.key))).toEqual([])
})

it('leaves a run that never started (held) out of what the runs saw, and writes the testbed once', async () => {
  const { exp, run } = setup()
  const id = await run(1)
  const spec = specOf(YAML, { baseDir: dir, testbeds: ['sim', 'lab'] })
  const [held] = store.createRuns(exp.id, 'lab', 'o', [{ scheme: 'ecmp', load: 0.3, seed: 2, params: {} }], { spec })
  store.setRunStatus(held.id, 'held', { error: "not started: testbed 'lab' could not be reached" })
  const a = await exported(exp.id, 'held')
  expect(JSON.parse(a.read('testbed/lab.json'))).toMatchObject({ name: 'lab', runs: [id] })
  expect(a.notes.filter((n) => n.includes('testbed lab'))).toEqual([])

  // Only runs that never started: the testbed as stored, and nothing said of what they saw.
  const other = store.createExperiment({ name: 'held-only', yaml: YAML.replace('name: ran-with', 'name: held-only'), spec: { ...spec, name: 'held-only' }, file: null, tags: [] })
  const [h2] = store.createRuns(other.id, 'lab', 'o', [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }], { spec })
  store.setRunStatus(h2.id, 'held', { error: "not started: testbed 'lab' could not be reached" })
  const b = await exported(other.id, 'held-only')
  expect(JSON.parse(b.read('testbed/lab.json'))).toMatchObject({ name: 'lab', kind: 'bmv2', settings: { rateCeilingBps: 1e9 } })
  expect(b.notes.filter((n) => n.includes('testbed lab'))).toEqual([])
})

it("exports a build whose record of its sources is malformed (an imported archive's), saying so", async () => {
  const { exp, run } = setup()
  const id = await run(1)
  const key = store.getRun(id)!.facts!.artifact as string
  rmSync(join(home, 'artifacts', key, 'sources'), { recursive: true })
  const db = new Database(store.file)
  try {
    db.prepare("UPDATE artifacts SET outputs = json_set(outputs, '$.sources', 'xx') WHERE hash = ?").run(key)
  } finally {
    db.close()
  }
  const a = await exported(exp.id, 'malformed-sources')
  expect(a.read(`p4/${MAIN}`)).toBe(readFileSync(join(P4_DIR, ...MAIN.split('/')), 'utf8'))
  expect(a.notes.join('\n')).toMatch(/the bmv2 program ecmp, build [0-9a-f]{12} of run \d+: it kept no sources \(compiled before p4lab kept them with the build\); p4\/ holds the current shipped program instead, which cannot be checked against what it compiled \(its record of its sources is malformed\)/)
})

it('imports an archive written before runs kept their testbed (schema 4): its runs have no testbed record, and export again says what it can', async () => {
  const r = await importArchive({ file: join(import.meta.dirname, '..', 'fixtures', 'archive', 'tiny.tar.gz'), store, dataDir: home })
  const [runId] = Object.values(r.runIds)
  expect(store.getRun(runId)).toMatchObject({ status: 'done', target: 'sim' })
  expect(store.getRunTestbed(runId)).toBeNull()
  const a = await exported(r.experimentId, 'tiny-again')
  expect(JSON.parse(a.read('testbed/sim.json'))).toMatchObject({ name: 'sim', kind: 'sim' })
  // A simulator run has no testbed to have edited: no note about it.
  expect(a.notes.filter((n) => n.includes('testbed'))).toEqual([])
})

it('decides what a well-formed testbed record is in one place: the archive and `p4lab show` take and refuse the same records', async () => {
  const { exp, run } = setup()
  const hostless = await run(1)
  const unknownKind = await run(2)
  const good = await run(3)
  const unstarted = await run(4)
  const recorded = JSON.parse(JSON.stringify(store.getRunTestbed(good))) as { hosts: Array<Record<string, unknown>>; kind: string }
  const db = new Database(store.file)
  try {
    // A host with a name and nothing else, as a crafted archive could bring; and a kind no p4lab has.
    db.prepare('UPDATE runs SET testbed = ? WHERE id = ?').run(JSON.stringify({ ...recorded, hosts: [{ name: 'sw1' }] }), hostless)
    db.prepare('UPDATE runs SET testbed = ? WHERE id = ?').run(JSON.stringify({ ...recorded, kind: 'p4runtime' }), unknownKind)
    // A run with a record but no start time, as an imported database could bring.
    db.prepare('UPDATE runs SET started_at = NULL WHERE id = ?').run(unstarted)
  } finally {
    db.close()
  }
  const a = await exported(exp.id, 'one-definition')
  for (const id of [hostless, unknownKind]) {
    expect(a.notes).toContain(`run ${id}'s record of the testbed it started on is malformed (it came with an imported archive?): it counts as a run that recorded none`)
    expect(JSON.parse(a.read(`runs/run-${id}.json`)).testbed).toBeNull()
    const shown = p4lab(['show', String(id), '--db', join(home, 'p4lab.db')], dir, { home })
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).not.toContain('  testbed ')
  }
  // The well-formed one is kept, in the run's record and as the testbed its run saw.
  expect(JSON.parse(a.read(`runs/run-${good}.json`)).testbed).toEqual(recorded)
  // The run that never started: its record in the archive is what \`p4lab show\` shows.
  expect(JSON.parse(a.read(`runs/run-${unstarted}.json`)).testbed).toEqual(store.getRunTestbed(unstarted))
  const shown = p4lab(['show', String(unstarted), '--db', join(home, 'p4lab.db')], dir, { home })
  expect(shown.stdout, shown.stderr).toContain('  testbed   lab (bmv2) as the run found it')
  expect(JSON.parse(a.read('testbed/lab/seen-1.json'))).toEqual({ ...recorded, runs: [good] })
  expect(a.notes).toContain(`testbed lab was not the same for every run: run ${good} saw testbed/lab/seen-1.json; runs ${hostless}, ${unknownKind} recorded none (testbed/lab/stored.json is the testbed as stored at export)`)
})

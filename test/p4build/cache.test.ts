// The build step's artifact cache with real files, a real SQLite store and a real executable
// standing in for p4c-bm2-ss (test/p4build/fake-compiler.ts): a second build of unchanged
// sources runs no compiler, and each thing the key covers (an included header, the options,
// the compiler version) makes it build again. Failed compiles replay real p4c transcripts.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseDiagnostics } from '../../src-main/core/p4/diagnostics'
import { BuildFailedError, CompilerMissingError, LocalRunner, P4Builder, collectSources } from '../../src-main/core/p4build'
import { readKeptSources } from '../../src-main/core/p4build/kept'
import { openStore, type Store } from '../../src-main/core/store'
import { fakeCompiler, type FakeCompiler } from './fake-compiler'

const ROOT = resolve(import.meta.dirname, '../..')
const FIXTURES = join(ROOT, 'test', 'fixtures', 'bmv2')

const MAIN = `// a small program with project includes
#include <core.p4>
#include <v1model.p4>
#include "../include/headers.p4"
#include "local.p4"
/* #include "commented-out.p4" */
control Ingress() { apply { } }
`

let dir: string
let store: Store
let fake: FakeCompiler

function project(): string {
  mkdirSync(join(dir, 'p4', 'v1model'), { recursive: true })
  mkdirSync(join(dir, 'p4', 'include'), { recursive: true })
  writeFileSync(join(dir, 'p4', 'v1model', 'prog.p4'), MAIN)
  writeFileSync(join(dir, 'p4', 'v1model', 'local.p4'), 'const bit<8> LOCAL = 1;\n')
  writeFileSync(join(dir, 'p4', 'include', 'headers.p4'), 'header eth_t { bit<48> dst; }\n')
  return join(dir, 'p4', 'v1model', 'prog.p4')
}

function builder(extra: Record<string, string> = {}): P4Builder {
  return new P4Builder({ store, artifactsDir: join(dir, 'home', 'artifacts'), runner: new LocalRunner(fake.env(extra)) })
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-p4build-'))
  store = openStore(join(dir, 'home', 'p4lab.db'))
  fake = fakeCompiler(dir)
})
afterEach(() => store.close())

describe('sources', () => {
  it('follows quoted project includes (not <system> ones, not commented out), main first, then by path', () => {
    const s = collectSources(project())
    expect(s.root).toBe(join(dir, 'p4'))
    expect(s.main).toBe('v1model/prog.p4')
    expect(s.files.map((f) => f.path)).toEqual(['v1model/prog.p4', 'include/headers.p4', 'v1model/local.p4'])
    expect(s.missing).toEqual([])
  })

  it('reads the shipped programs with their shared includes', () => {
    const s = collectSources(join(ROOT, 'p4', 'hula', 'tna', 'hula.p4'))
    expect(s.root).toBe(join(ROOT, 'p4'))
    expect(s.main).toBe('hula/tna/hula.p4')
    expect(s.files.map((f) => f.path)).toEqual([
      'hula/tna/hula.p4',
      'include/headers.p4',
      'include/tna_common.p4',
      'include/tna_probe_deparsers.p4',
      'include/tna_probe_parser.p4',
      'include/tna_probe_state.p4',
    ])
  })
})

describe('the artifact cache', () => {
  it('a shipped program builds from its folder: staged under p4/ as hula/v1model/hula.p4, outputs named after the file', async () => {
    const file = join(ROOT, 'p4', 'hula', 'v1model', 'hula.p4')
    const r = await builder().build({ file, target: 'bmv2' })
    expect(fake.compiles()).toEqual(['--p4v 16 --p4runtime-files ../out/hula.p4info.txtpb -o ../out/hula.json hula/v1model/hula.p4'])
    expect(r.artifact.outputs.files).toEqual({ json: 'hula.json', p4info: 'hula.p4info.txtpb' })
    expect(r.artifact.outputs.main).toBe('hula/v1model/hula.p4')
    expect(r.artifact.outputs.sources.map((s) => s.path)).toEqual(['hula/v1model/hula.p4', 'include/headers.p4', 'include/int.p4', 'include/int_egress.p4'])
  })

  it('builds once; the second build of unchanged sources calls no compiler and returns the stored outputs', async () => {
    const file = project()
    const first = await builder().build({ file, target: 'bmv2' })
    expect(first.hit).toBe(false)
    expect(fake.compiles()).toHaveLength(1)
    expect(fake.compiles()[0]).toBe('--p4v 16 --p4runtime-files ../out/prog.p4info.txtpb -o ../out/prog.json v1model/prog.p4')
    expect(first.dir).toBe(join(dir, 'home', 'artifacts', first.key))
    expect(JSON.parse(readFileSync(first.files.json, 'utf8'))).toEqual({ program: 'v1model/prog.p4', fake: true })
    expect(readFileSync(first.files.p4info, 'utf8')).toMatch(/pkg_info/)
    const callsAfterFirst = fake.calls().length

    const second = await builder().build({ file, target: 'bmv2' })
    expect(second.hit).toBe(true)
    expect(second.key).toBe(first.key)
    expect(second.files).toEqual(first.files)
    // Not even --version: the compiler's identity is remembered per binary.
    expect(fake.calls()).toHaveLength(callsAfterFirst)
    expect(fake.compiles()).toHaveLength(1)

    const row = store.getArtifact(first.key)!
    expect(row).toMatchObject({ target: 'bmv2', program: file, options: { target: 'bmv2', arch: 'v1model', flags: [] } })
    expect(row.compiler).toBe('p4c-bm2-ss Version 1.2.5.16 (SHA: fake BUILD: Release)')
    expect(row.outputs.status).toBe('ok')
    expect(row.outputs.files).toEqual({ json: 'prog.json', p4info: 'prog.p4info.txtpb' })
    expect(row.outputs.sources.map((s) => s.path)).toEqual(['v1model/prog.p4', 'include/headers.p4', 'v1model/local.p4'])
    expect(store.listArtifacts()).toHaveLength(1)
  })

  it('keeps the sources it compiled with the outputs, checked by the sha256s it recorded; a hit on an older build adds them', async () => {
    const file = project()
    const first = await builder().build({ file, target: 'bmv2' })
    const kept = readKeptSources(first.dir, first.artifact)
    expect('files' in kept && kept.files.map((f) => [f.path, f.text])).toEqual([
      ['v1model/prog.p4', MAIN],
      ['include/headers.p4', 'header eth_t { bit<48> dst; }\n'],
      ['v1model/local.p4', 'const bit<8> LOCAL = 1;\n'],
    ])
    // Changed by hand since: not taken for what was compiled.
    writeFileSync(join(first.dir, 'sources', 'include', 'headers.p4'), 'header eth_t { bit<8> x; }\n')
    expect(readKeptSources(first.dir, first.artifact)).toMatchObject({ reason: expect.stringMatching(/^its kept source include\/headers.p4 changed since the build/) })
    // A build from before sources were kept: the next hit adds them, as they were compiled.
    rmSync(join(first.dir, 'sources'), { recursive: true })
    expect(readKeptSources(first.dir, first.artifact)).toMatchObject({ reason: 'it kept no sources (compiled before p4lab kept them with the build)' })
    const hit = await builder().build({ file, target: 'bmv2' })
    expect(hit.hit).toBe(true)
    expect(readKeptSources(hit.dir, hit.artifact)).toEqual(kept)
  })

  it('a changed included header changes the key and builds again', async () => {
    const file = project()
    const a = await builder().build({ file, target: 'bmv2' })
    writeFileSync(join(dir, 'p4', 'include', 'headers.p4'), 'header eth_t { bit<48> dst; bit<48> src; }\n')
    const b = await builder().build({ file, target: 'bmv2' })
    expect(b.hit).toBe(false)
    expect(b.key).not.toBe(a.key)
    expect(fake.compiles()).toHaveLength(2)
    // Back to the old header: the old artifact is a hit again.
    writeFileSync(join(dir, 'p4', 'include', 'headers.p4'), 'header eth_t { bit<48> dst; }\n')
    const c = await builder().build({ file, target: 'bmv2' })
    expect(c).toMatchObject({ hit: true, key: a.key })
    expect(fake.compiles()).toHaveLength(2)
  })

  it('changed options (flags) build again', async () => {
    const file = project()
    const a = await builder().build({ file, target: 'bmv2' })
    const b = await builder().build({ file, target: 'bmv2', flags: ['-DFAST=1'] })
    expect(b.hit).toBe(false)
    expect(b.key).not.toBe(a.key)
    expect(fake.compiles()[1]).toBe('--p4v 16 -DFAST=1 --p4runtime-files ../out/prog.p4info.txtpb -o ../out/prog.json v1model/prog.p4')
    expect((await builder().build({ file, target: 'bmv2', flags: ['-DFAST=1'] })).hit).toBe(true)
    expect(fake.compiles()).toHaveLength(2)
  })

  it('another compiler version builds again', async () => {
    const file = project()
    const a = await builder().build({ file, target: 'bmv2' })
    fake.upgrade('1.2.5.17')
    const b = await builder().build({ file, target: 'bmv2' })
    expect(b.hit).toBe(false)
    expect(b.key).not.toBe(a.key)
    expect(store.getArtifact(b.key)!.compiler).toMatch(/1\.2\.5\.17/)
  })

  it('rebuilds when the stored outputs were deleted', async () => {
    const file = project()
    const a = await builder().build({ file, target: 'bmv2' })
    rmSync(a.dir, { recursive: true })
    const b = await builder().build({ file, target: 'bmv2' })
    expect(b).toMatchObject({ hit: false, key: a.key })
    expect(existsSync(b.files.json)).toBe(true)
  })

  it('a missing compiler is named, with where builds go instead', async () => {
    const b = new P4Builder({ store, artifactsDir: join(dir, 'artifacts'), runner: new LocalRunner({ PATH: join(dir, 'empty') }) })
    const err = await b.build({ file: project(), target: 'bmv2' }).catch((e) => e)
    expect(err).toBeInstanceOf(CompilerMissingError)
    expect(err.message).toMatch(/p4c-bm2-ss is not on PATH.*p4lab run/)
    const tofino = await b.build({ file: project(), target: 'tofino' }).catch((e) => e)
    expect(tofino.message).toMatch(/bf-p4c is not on PATH/)
  })
})

describe('failed compiles: real p4c transcripts', () => {
  const cases = [
    { p4: 'broken.p4', transcript: 'p4c-errors.txt', first: /broken\.p4:14:26: error: undeclaredPort: declaration not found/ },
    { p4: 'broken-type.p4', transcript: 'p4c-type-error.txt', first: /broken-type\.p4:15:16: error: 'x'/ },
  ]
  for (const c of cases) {
    it(`${c.transcript}: the log and the diagnostics are stored, and the error names the first error's file:line`, async () => {
      const file = join(dir, c.p4)
      copyFileSync(join(FIXTURES, c.p4), file)
      const err = await builder({ FAKE_P4C_STDERR: join(FIXTURES, c.transcript), FAKE_P4C_EXIT: '1' })
        .build({ file, target: 'bmv2' })
        .catch((e) => e)
      expect(err).toBeInstanceOf(BuildFailedError)
      expect(err.message).toMatch(c.first)
      // The fixtures end with the capture's `exit=N` line, which is not compiler output.
      const transcript = readFileSync(join(FIXTURES, c.transcript), 'utf8').replace(/^exit=\d+\n/m, '')
      const expected = parseDiagnostics(transcript)
      expect(expected.length).toBeGreaterThan(0)
      const row = store.listArtifacts()[0]
      expect(row.outputs.status).toBe('failed')
      expect(row.outputs.exitCode).toBe(1)
      expect(row.outputs.files).toEqual({})
      expect(row.outputs.diagnostics).toEqual(expected)
      expect(row.log).toBe(transcript)
      expect(err.diagnostics).toEqual(expected)
      // A failed build is recorded but never a cache hit: the next build compiles again.
      await builder({ FAKE_P4C_STDERR: join(FIXTURES, c.transcript) }).build({ file, target: 'bmv2' }).catch(() => undefined)
      expect(fake.compiles()).toHaveLength(2)
      expect(store.listArtifacts()).toHaveLength(1)
    })
  }

  it('warnings with exit 0 (p4c-warnings.txt): a good build that keeps its warnings', async () => {
    const file = join(dir, 'warn.p4')
    copyFileSync(join(FIXTURES, 'warn.p4'), file)
    const r = await builder({ FAKE_P4C_STDERR: join(FIXTURES, 'p4c-warnings.txt'), FAKE_P4C_EXIT: '0' }).build({ file, target: 'bmv2' })
    expect(r.hit).toBe(false)
    expect(r.diagnostics.map((d) => [d.file, d.line, d.severity, d.kind])).toEqual([
      ['warn.p4', 15, 'warning', 'unused'],
      ['warn.p4', 17, 'warning', 'overflow'],
    ])
    expect(store.getArtifact(r.key)!.outputs).toMatchObject({ status: 'ok', exitCode: 0 })
    expect((await builder().build({ file, target: 'bmv2' })).hit).toBe(true)
  })
})

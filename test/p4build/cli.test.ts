// `p4lab p4 render` and `p4lab p4 build` as a user runs them: the built bin (npx electron-vite
// build first), real files, a temporary P4LAB_HOME, and a real fake-compiler executable on PATH.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkBfrt, checkCli } from '../../src-main/core/controlplane/check'
import { readDeclarations } from '../../src-main/core/p4/declarations'
import { ROOT } from '../helpers/start'
import { fakeCompiler } from './fake-compiler'

const BIN = join(ROOT, 'bin', 'p4lab.cjs')

function p4lab(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...env, P4LAB_HOME: join(cwd, 'home') }, timeout: 60_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

function declarations(rel: string) {
  return readDeclarations(readFileSync(join(ROOT, 'p4', rel), 'utf8'), (p, from) => readFileSync(join(ROOT, 'p4', dirname(from), p), 'utf8'), rel)
}

const HULA3 = 'topology: { kind: three-tier, pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps }\n'
const SWITCHES = ['tor0', 'tor1', 'tor2', 'tor3', 'agg0', 'agg1', 'agg2', 'agg3', 'spine0', 'spine1']

describe('p4lab p4 render', () => {
  it("HULA's 3-tier on BMv2: one command file per switch that the checker accepts against hula/v1model/hula.p4", () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-p4cli-'))
    writeFileSync(join(dir, 'hula3.yaml'), HULA3)
    const r = p4lab(['p4', 'render', '--topology', 'hula3.yaml', '--scheme', 'hula', '--target', 'bmv2', '--out', 'out'], dir)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^hula on bmv2 \(p4\/hula\/v1model\/hula\.p4\): 10 switches$/m)
    const files = readdirSync(join(dir, 'out')).sort()
    expect(files).toEqual([...SWITCHES.map((s) => `${s}.cli`), 'queues.json', 'state.json'].sort())
    const d = declarations('hula/v1model/hula.p4')
    for (const s of SWITCHES) {
      const text = readFileSync(join(dir, 'out', `${s}.cli`), 'utf8')
      expect(text).not.toMatch(/^\s*#/m)
      expect(text).toMatch(/^mc_mgrp_create /m)
      expect(checkCli(text, d), s).toEqual([])
    }
    const queues = JSON.parse(readFileSync(join(dir, 'out', 'queues.json'), 'utf8'))
    expect(queues.scale).toBeCloseTo(1e9 / 40e9)
    const state = JSON.parse(readFileSync(join(dir, 'out', 'state.json'), 'utf8'))
    expect(state.scheme).toBe('hula')
    expect(state.switches.map((s: { name: string }) => s.name)).toEqual(SWITCHES)
  })

  it('an experiment file works too; on Tofino, one bfrt script per switch that the checker accepts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-p4cli-'))
    writeFileSync(
      join(dir, 'exp.yaml'),
      `name: hula3\ntestbed: sim\n${HULA3}schemes: [ecmp]\nworkload: { kind: web-search, load: [0.3], flows: 10 }\nparams: { probePeriod: 100us, utilTau: 400us }\n`,
    )
    const r = p4lab(['p4', 'render', '--topology', 'exp.yaml', '--scheme', 'hula', '--target', 'tofino', '--out', 'bf'], dir)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(readdirSync(join(dir, 'bf')).sort()).toEqual([...SWITCHES.map((s) => `${s}.py`), 'state.json'].sort())
    const d = declarations('hula/tna/hula.p4')
    for (const s of SWITCHES) expect(checkBfrt(readFileSync(join(dir, 'bf', `${s}.py`), 'utf8'), d, 'hula'), s).toEqual([])
    // The experiment's probe period reaches the pktgen timer.
    expect(readFileSync(join(dir, 'bf', 'tor0.py'), 'utf8')).toMatch(/timer_nanosec=100000\b/)
  })

  it('errors name the file, the line and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-p4cli-'))
    writeFileSync(join(dir, 'bad.yaml'), 'topology:\n  kind: three-tier\n  pods: 2\n  torsPerPod: two\n')
    const bad = p4lab(['p4', 'render', '--topology', 'bad.yaml', '--scheme', 'hula', '--target', 'bmv2', '--out', 'o'], dir)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/bad\.yaml:4:\d+: topology\.torsPerPod: /)
    writeFileSync(join(dir, 'ok.yaml'), HULA3)
    const conga = p4lab(['p4', 'render', '--topology', 'ok.yaml', '--scheme', 'conga', '--target', 'bmv2', '--out', 'o'], dir)
    expect(conga.code).toBe(2)
    expect(conga.stderr).toMatch(/conga P4 program supports leaf-spine fabrics, not three-tier/)
    const missing = p4lab(['p4', 'render', '--topology', 'nope.yaml', '--scheme', 'hula', '--target', 'bmv2', '--out', 'o'], dir)
    expect(missing.stderr).toMatch(/cannot read topology file nope\.yaml: no such file/)
    const target = p4lab(['p4', 'render', '--topology', 'ok.yaml', '--scheme', 'hula', '--target', 'p4', '--out', 'o'], dir)
    expect(target.code).toBe(2)
    expect(target.stderr).toMatch(/--target must be bmv2 or tofino/)
  })
})

describe('p4lab p4 build', () => {
  it('uses the compiler on PATH; the second build is a cache hit that runs no compiler', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-p4cli-'))
    const fake = fakeCompiler(dir)
    copyFileSync(join(ROOT, 'test', 'fixtures', 'bmv2', 'fixture.p4'), join(dir, 'fixture.p4'))
    const first = p4lab(['p4', 'build', 'fixture.p4', '--target', 'bmv2', '--out', 'build'], dir, fake.env())
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/^built: fixture\.p4 for bmv2 \(key [0-9a-f]{12}\)/)
    expect(readFileSync(join(dir, 'build', 'fixture.json'), 'utf8')).toMatch(/"program": "fixture.p4"/)
    expect(fake.compiles()).toHaveLength(1)
    const calls = fake.calls().length

    const second = p4lab(['p4', 'build', 'fixture.p4', '--target', 'bmv2', '--json'], dir, fake.env())
    expect(second.code).toBe(0)
    const json = JSON.parse(second.stdout)
    expect(json).toMatchObject({ cacheHit: true, status: 'ok' })
    expect(json.files.json).toBe(join(dir, 'home', 'artifacts', json.key, 'fixture.json'))
    expect(fake.calls()).toHaveLength(calls)
    expect(fake.compiles()).toHaveLength(1)
  })

  it('prints diagnostics as file:line:col: severity: message and fails on errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-p4cli-'))
    const fake = fakeCompiler(dir)
    copyFileSync(join(ROOT, 'test', 'fixtures', 'bmv2', 'broken-type.p4'), join(dir, 'broken-type.p4'))
    const r = p4lab(['p4', 'build', 'broken-type.p4', '--target', 'bmv2'], dir, fake.env({ FAKE_P4C_STDERR: join(ROOT, 'test', 'fixtures', 'bmv2', 'p4c-type-error.txt') }))
    expect(r.code).toBe(1)
    // p4c's own error is "'x'"; what is wrong is its "Actual error", and where it comes from follows.
    expect(r.stderr.split('\n').slice(0, 6)).toEqual([
      "broken-type.p4:12:26: warning: 'unusedReg' is unused",
      "broken-type.p4:15:16: warning: 'x' is unused",
      "broken-type.p4:15:16: error: 'x': Cannot cast implicitly type 'bit<48>' to type 'bit<8>'",
      '    originating from:',
      "    broken-type.p4(15): Source expression 'h.eth.dst' produces a result of type 'bit<48>' which cannot be assigned to a left-value with type 'bit<8>'",
      '            bit<8> x = h.eth.dst;',
    ])
    expect(r.stderr).toContain("p4lab: p4c-bm2-ss failed to compile broken-type.p4: broken-type.p4:15:16: error: 'x': Cannot cast implicitly type 'bit<48>' to type 'bit<8>'\n")
  })

  it('without a compiler: which tool is missing, and that testbed builds go through p4lab run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-p4cli-'))
    copyFileSync(join(ROOT, 'test', 'fixtures', 'bmv2', 'fixture.p4'), join(dir, 'fixture.p4'))
    const r = p4lab(['p4', 'build', 'fixture.p4', '--target', 'tofino'], dir, { ...process.env, PATH: join(dir, 'nothing') })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/bf-p4c is not on PATH.*`p4lab run`/)
  })
})

// p4lab validate and p4lab topology import/export through the built CLI: errors as
// file:line:col, the field and the node or link; exit 1 on errors, 0 with a one-line summary.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/start'

const BIN = join(ROOT, 'bin', 'p4lab.cjs')
const FIX = join(ROOT, 'test/fixtures/topology-io')

function p4lab(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, P4LAB_HOME: join(cwd, 'home') }, timeout: 120_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const CUSTOM = `name: two-pods
topology:
  kind: custom
  hostLink: 10Gbps
  fabricLink: 10Gbps
  nodes:
    - { name: spine0, tier: spine }
    - { name: agg0, tier: agg, pod: 0 }
    - { name: agg1, tier: agg, pod: 1 }
    - { name: tor0, tier: tor, pod: 0 }
    - { name: tor1, tier: tor, pod: 1 }
    - { name: h0, tier: host }
    - { name: h1, tier: host }
  links:
    - { a: tor0, b: h0 }
    - { a: tor1, b: h1 }
    - { a: agg0, b: tor0 }
    - { a: agg1, b: tor1 }
    - { a: spine0, b: agg0 }
    - { a: spine0, b: agg1 }
schemes: [ecmp, hula]
workload: { kind: web-search, load: [0.3, 0.5], flows: 20 }
`

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-validate-'))
})

describe('p4lab validate', { timeout: 120_000 }, () => {
  it('prints a one-line summary and exits 0 for a valid file', () => {
    writeFileSync(join(dir, 'ok.yaml'), CUSTOM)
    const r = p4lab(['validate', 'ok.yaml'], dir)
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'ok.yaml: valid: 4 runs, 7 nodes (5 switches, 2 hosts), 6 links\n', ''])
  })

  it('prints each problem as file:line:col, the field and the node or link, and exits 1', () => {
    const bad = CUSTOM.replace('    - { a: spine0, b: agg1 }\n', '    - { a: spine0, b: agg1 }\n    - { a: agg0, b: spine0 }\n    - { a: tor1, b: h0 }\n')
    writeFileSync(join(dir, 'bad.yaml'), bad)
    const r = p4lab(['validate', 'bad.yaml'], dir)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('bad.yaml:12:7: topology.nodes[5]: host h0 has 2 links (tor0-h0, tor1-h0); a host has exactly one link, to its ToR (node h0)\n')
    const parallel = CUSTOM.replace('    - { a: spine0, b: agg1 }\n', '    - { a: spine0, b: agg1 }\n    - { a: agg0, b: spine0 }\n')
    writeFileSync(join(dir, 'parallel.yaml'), parallel)
    const p = p4lab(['validate', 'parallel.yaml'], dir)
    expect(p.code).toBe(1)
    expect(p.stderr).toMatch(/^parallel\.yaml:21:7: topology\.links\[6\]: spine0-agg0\/2 is a parallel link beside spine0-agg0; HULA cannot use parallel links .* \(link spine0-agg0\/2\)\n$/)
  })
})

describe('p4lab topology import and export', { timeout: 120_000 }, () => {
  it('imports a topology.json to an experiment file that validates, and refuses a bad one naming the entry', () => {
    const r = p4lab(['topology', 'import', join(FIX, 'topology.json'), '--out', 'imported.yaml'], dir)
    expect(r.code).toBe(0)
    const imported = readFileSync(join(dir, 'imported.yaml'), 'utf8')
    expect(imported).toMatch(/^# Imported by p4lab from topology.json/)
    // What Mininet does without them: no rate limit, no delay (a delay is not "unlimited").
    expect(imported).toContain('\n# - 7 links without a speed in the file (Mininet leaves it unlimited) take 10Gbps\n# - 7 links without a delay in the file (Mininet adds none) take 1us\n')
    expect(p4lab(['validate', 'imported.yaml'], dir).stdout).toBe('imported.yaml: valid: 1 run, 8 nodes (4 switches, 4 hosts), 8 links\n')
    const again = p4lab(['topology', 'import', join(FIX, 'topology.json'), '--out', 'imported.yaml'], dir)
    expect([again.code, again.stderr]).toEqual([1, 'p4lab: imported.yaml exists; p4lab does not overwrite it (choose another --out or remove it)\n'])
    const bad = p4lab(['topology', 'import', join(FIX, 'bad-bridge.clab.yml')], dir)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/bad-bridge\.clab\.yml: topology\.nodes\.br1: kind bridge is not a switch or host/)
  })

  it('names an --out that cannot be written: a missing folder, a folder given for a file, a file given for a folder', () => {
    writeFileSync(join(dir, 'out.yaml'), CUSTOM)
    const missing = p4lab(['topology', 'export', 'out.yaml', '--format', 'clab', '--out', 'nowhere/x.clab.yml'], dir)
    expect([missing.code, missing.stderr]).toEqual([1, `p4lab: --out nowhere/x.clab.yml: the folder ${join(dir, 'nowhere')} does not exist; create it first\n`])
    const render = (out: string) => p4lab(['p4', 'render', '--topology', 'out.yaml', '--scheme', 'ecmp', '--target', 'bmv2', '--out', out], dir)
    expect(render('out.yaml').stderr).toBe('p4lab: --out out.yaml: that is a file; --out takes a folder\n')
    expect(render('out.yaml/sub').stderr).toBe('p4lab: --out out.yaml/sub: a part of that path is a file; --out takes a folder\n')
    expect(render('out.yaml').code).toBe(1)
    expect(readFileSync(join(dir, 'out.yaml'), 'utf8')).toBe(CUSTOM)
  })

  it('exports an experiment as a .clab.yml that imports back to the same fabric', () => {
    writeFileSync(join(dir, 'two.yaml'), CUSTOM)
    const r = p4lab(['topology', 'export', 'two.yaml', '--format', 'clab'], dir)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('endpoints: [ spine0:eth2, agg1:eth2 ]')
    writeFileSync(join(dir, 'two.clab.yml'), r.stdout)
    const back = p4lab(['topology', 'import', 'two.clab.yml'], dir)
    expect(back.stdout).toContain('- { name: agg1, tier: agg, pod: 1 }')
    expect(back.stdout).toContain('- { a: spine0:1, b: agg1:1 }')
  })
})

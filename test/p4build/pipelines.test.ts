// The pipelines.* contract methods on a real core (temporary SQLite file and user data dir).
import { SCHEMES } from '../../src-main/schemes'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatch, type Core } from '../../src-main/core'
import { LocalRunner, P4Builder, collectSources, readVariant } from '../../src-main/core/p4build'
import { readDeclarations } from '../../src-main/core/p4/declarations'
import { checkCli } from '../../src-main/core/controlplane/check'
import { tempCore } from '../helpers/core'
import { ROOT } from '../helpers/p4'
import { fakeCompiler } from './fake-compiler'

export const THREE_TIER_YAML = `name: three-tier
testbed: sim
topology: { kind: three-tier, pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 50 }
params: { flowletGap: 100us, probePeriod: 200us }
`

describe('pipelines.*', () => {
  let core: Core
  let dir: string
  let expId: number

  beforeAll(async () => {
    ;({ core, dir } = tempCore())
    expId = (await core.handlers['experiments.create']({ yaml: THREE_TIER_YAML })).id
  })
  afterAll(() => core.opts.store.close())

  it("lists every scheme's programs with what they declare", async () => {
    const list = await core.handlers['pipelines.list']({})
    const programs = [...new Set(SCHEMES.flatMap((d) => (d.p4Program ? [d.p4Program] : [])))].sort()
    expect(programs).toEqual(expect.arrayContaining(['conga', 'dhlb', 'ecmp', 'floodgate', 'hula', 'rps']))
    expect(list.map((p) => `${p.target}/${p.scheme}`)).toEqual([...programs.map((p) => `bmv2/${p}`), ...programs.map((p) => `tofino/${p}`)])
    for (const p of list) expect(p.error).toBeNull()
    const hula = list.find((p) => p.target === 'bmv2' && p.scheme === 'hula')!
    expect(hula.path).toBe('p4/hula/v1model/hula.p4')
    expect(hula.tables.map((t) => t.name)).toContain('MyIngress.probeGroup')
    expect(hula.registers.find((r) => r.name === 'MyIngress.bestHop')).toMatchObject({ size: 1024 })
    expect(hula.usesMulticast).toBe(true)
  })

  it('source: the program and its includes', async () => {
    const s = await core.handlers['pipelines.source']({ scheme: 'hula', target: 'tofino' })
    expect(s.main).toBe('hula/tna/hula.p4')
    expect(s.program).toBe('p4/hula/tna/hula.p4')
    expect(s.files[0].path).toBe('hula/tna/hula.p4')
    expect(s.files.map((f) => f.path)).toContain('include/tna_probe_state.p4')
    expect(s.variant).toBeNull()
  })

  it("render: per-switch CLI files of an experiment's topology that pass the checker", async () => {
    const r = await core.handlers['pipelines.render']({ scheme: 'hula', target: 'bmv2', experimentId: expId })
    expect(r.topology).toMatch(/^three-tier: 2 pods/)
    expect(r.switches.map((s) => s.name)).toEqual(['tor0', 'tor1', 'tor2', 'tor3', 'agg0', 'agg1', 'agg2', 'agg3', 'spine0', 'spine1'])
    expect(r.switches[0].fileName).toBe('tor0.cli')
    expect(r.switches[0].deployText).not.toMatch(/^#/m)
    expect(r.queues!.scale).toBeCloseTo(1e9 / 40e9)
    const root = join(import.meta.dirname, '../..')
    const d = readDeclarations(readFileSync(join(root, 'p4/hula/v1model/hula.p4'), 'utf8'), (p, from) => readFileSync(join(root, 'p4', dirname(from), p), 'utf8'), 'hula/v1model/hula.p4')
    for (const s of r.switches) expect(checkCli(s.text, d), s.name).toEqual([])
    const bf = await core.handlers['pipelines.render']({ scheme: 'hula', target: 'tofino', topology: { kind: 'fat-tree', k: 4, hostLink: '10Gbps', fabricLink: '40Gbps' } })
    expect(bf.switches).toHaveLength(20)
    expect(bf.switches[0].fileName).toBe('edge0.py')
    expect(bf.queues).toBeNull()
  })

  it('render: a bad topology or scheme is refused with the field named', async () => {
    const dispatch = createDispatch(core.handlers)
    const bad = await dispatch('pipelines.render', { scheme: 'hula', target: 'bmv2', topology: { kind: 'three-tier', pods: 2 } })
    expect(bad.ok).toBe(false)
    if (!bad.ok) {
      expect(bad.error.code).toBe('invalid-spec')
      expect(bad.error.message).toMatch(/topology\.(torsPerPod|aggsPerPod|spines|hostsPerTor|hostLink|fabricLink)/)
    }
    const both = await dispatch('pipelines.render', { scheme: 'hula', target: 'bmv2' })
    expect(both.ok).toBe(false)
    const scheme = await dispatch('pipelines.render', { scheme: 'hulla', target: 'bmv2', experimentId: expId })
    expect(scheme.ok ? '' : scheme.error.message).toMatch(/unknown scheme 'hulla'/)
  })

  it('variant: copied once, then editable; source and builds use it', async () => {
    const v = await core.handlers['pipelines.variant']({ experimentId: expId, scheme: 'hula', target: 'bmv2' })
    expect(v.variant).toMatchObject({ experimentId: expId, scheme: 'hula', target: 'bmv2', main: 'hula/v1model/hula.p4' })
    expect(v.program).toBe(`variants/${expId}/bmv2-hula/hula/v1model/hula.p4`)
    expect(existsSync(join(dir, 'variants', String(expId), 'bmv2-hula', 'include', 'headers.p4'))).toBe(true)
    const edited = v.files[0].text.replace(/^/, '// my change\n')
    const saved = await core.handlers['pipelines.saveVariant']({ experimentId: expId, scheme: 'hula', target: 'bmv2', path: 'hula/v1model/hula.p4', text: edited })
    expect(saved.files[0].text).toBe(edited)
    // Copying again keeps the edit.
    const again = await core.handlers['pipelines.variant']({ experimentId: expId, scheme: 'hula', target: 'bmv2' })
    expect(again.files[0].text).toBe(edited)
    const src = await core.handlers['pipelines.source']({ scheme: 'hula', target: 'bmv2', experimentId: expId })
    expect(src.variant).not.toBeNull()
    const dispatch = createDispatch(core.handlers)
    const outside = await dispatch('pipelines.saveVariant', { experimentId: expId, scheme: 'hula', target: 'bmv2', path: '../../../p4lab.db', text: 'x' })
    expect(outside.ok).toBe(false)
    if (!outside.ok) expect(outside.error.message).toMatch(/not a file of this variant/)
    const noExp = await dispatch('pipelines.variant', { experimentId: 999, scheme: 'hula', target: 'bmv2' })
    expect(noExp.ok ? '' : noExp.error.code).toBe('not-found')
  })

  it('a variant copied before p4/ had a folder per program (v1model/conga.p4, ../include) reads, saves and builds as it is', async () => {
    // What createVariant wrote then: the program with its includes one level up, and variant.json naming it.
    const shipped = join(ROOT, 'p4')
    const vdir = join(dir, 'variants', String(expId), 'bmv2-conga')
    const main = readFileSync(join(shipped, 'conga', 'v1model', 'conga.p4'), 'utf8').replaceAll('#include "../../include/', '#include "../include/')
    expect(main).toMatch(/^#include "\.\.\/include\/headers\.p4"$/m)
    mkdirSync(join(vdir, 'v1model'), { recursive: true })
    mkdirSync(join(vdir, 'include'), { recursive: true })
    writeFileSync(join(vdir, 'v1model', 'conga.p4'), main)
    for (const f of ['headers.p4', 'int.p4', 'int_egress.p4']) copyFileSync(join(shipped, 'include', f), join(vdir, 'include', f))
    const at = '2025-01-01T00:00:00.000Z'
    writeFileSync(join(vdir, 'variant.json'), JSON.stringify({ experimentId: expId, scheme: 'conga', target: 'bmv2', main: 'v1model/conga.p4', copiedFrom: 'x', createdAt: at, updatedAt: at }))

    // Copying again keeps it in its layout; the source is its files, includes found.
    const v = await core.handlers['pipelines.variant']({ experimentId: expId, scheme: 'conga', target: 'bmv2' })
    expect(v.main).toBe('v1model/conga.p4')
    expect(v.program).toBe(`variants/${expId}/bmv2-conga/v1model/conga.p4`)
    expect(v.files.map((f) => f.path)).toEqual(['v1model/conga.p4', 'include/headers.p4', 'include/int.p4', 'include/int_egress.p4'])
    expect(existsSync(join(vdir, 'conga'))).toBe(false)
    const header = v.files[1].text + '// edited header\n'
    const saved = await core.handlers['pipelines.saveVariant']({ experimentId: expId, scheme: 'conga', target: 'bmv2', path: 'include/headers.p4', text: header })
    expect(saved.files[1].text).toBe(header)

    // A build stages it as it is (the fake compiler refuses a main file that is not there).
    const fake = fakeCompiler(dir)
    const builder = new P4Builder({ store: core.opts.store, artifactsDir: join(dir, 'artifacts'), runner: new LocalRunner(fake.env()) })
    const r = await builder.build({ file: readVariant(dir, expId, { scheme: 'conga', target: 'bmv2' })!.file, target: 'bmv2' })
    expect(fake.compiles()).toEqual(['--p4v 16 --p4runtime-files ../out/conga.p4info.txtpb -o ../out/conga.json v1model/conga.p4'])
    expect(r.artifact.outputs.sources.map((s) => s.path)).toEqual(['v1model/conga.p4', 'include/headers.p4', 'include/int.p4', 'include/int_egress.p4'])
    expect(collectSources(join(vdir, 'v1model', 'conga.p4')).missing).toEqual([])
  })
})

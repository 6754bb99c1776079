// The topology editor's core side: experiments.fabric (the fabric a text builds before any run,
// with its failing and slow links marked) and the layout kept beside an experiment, through the
// real dispatch on a real SQLite file, reopened to show the positions survive.
import { describe, expect, it } from 'vitest'
import { methods, type Res } from '../../src-main/contract'
import { createNodeCore } from '../../src-main/core'
import { createDispatch } from '../../src-main/core/dispatch'
import { tempCore, TINY_YAML } from '../helpers/core'

async function call<M extends keyof typeof methods>(handlers: Parameters<typeof createDispatch>[0], method: M, req: unknown): Promise<Res<M>> {
  const res = await createDispatch(handlers)(method, req)
  if (!res.ok) throw new Error(res.error.message)
  return methods[method].res.parse(JSON.parse(JSON.stringify(res.result))) as Res<M>
}

const FAILING = `${TINY_YAML.replace('hostLink: 10Gbps, fabricLink: 10Gbps', 'hostLink: 10Gbps, fabricLink: 40Gbps, slow: { spine1-leaf0: 10Gbps }')}failures:
  - { link: spine0-leaf1, at: 5ms, recover: 8ms }
`

describe('experiments.fabric', () => {
  it('draws the fabric of an unsaved text, with its failing and slow links marked', async () => {
    const { core } = tempCore(1)
    try {
      const res = await call(core.handlers, 'experiments.fabric', { yaml: FAILING })
      expect(res.errors).toEqual([])
      expect(res.graph!.links.map((l) => l.name)).toContain('spine0-leaf1')
      const mark = (n: string) => res.marks.find((m) => m.link === n)!
      expect(mark('spine0-leaf1')).toMatchObject({ failAtNs: 5_000_000, recoverAtNs: 8_000_000, slow: false })
      expect(mark('spine1-leaf0')).toMatchObject({ slow: true, failAtNs: null })
      expect(mark('leaf0-h0')).toMatchObject({ slow: false, failAtNs: null })
    } finally {
      core.opts.store.close()
    }
  })

  it('still draws the topology when another part of the text is wrong, and gives that error', async () => {
    const { core } = tempCore(1)
    try {
      const res = await call(core.handlers, 'experiments.fabric', { yaml: TINY_YAML.replace('schemes: [ecmp, rps]', 'schemes: [nosuch]') })
      expect(res.graph?.nodes.length).toBeGreaterThan(0)
      expect(res.errors.map((e) => e.path)).toContain('schemes[0]')
    } finally {
      core.opts.store.close()
    }
  })

  it('has no graph for a topology that does not parse', async () => {
    const { core } = tempCore(1)
    try {
      const res = await call(core.handlers, 'experiments.fabric', { yaml: TINY_YAML.replace('leaves: 2', 'leaves: two') })
      expect(res.graph).toBeNull()
      expect(res.errors.length).toBeGreaterThan(0)
    } finally {
      core.opts.store.close()
    }
  })
})

describe('experiments.layout', () => {
  it('keeps positions beside the experiment across a reopen of the database, and forgets them on an empty save', async () => {
    const { core, dir, dbPath } = tempCore(1)
    const exp = await call(core.handlers, 'experiments.create', { yaml: TINY_YAML })
    expect(await call(core.handlers, 'experiments.layout', { id: exp.id })).toEqual({ positions: {}, updatedAt: null })
    await call(core.handlers, 'experiments.saveLayout', { id: exp.id, positions: { leaf0: { x: 10, y: 20.5 }, spine1: { x: -3, y: 0 } } })
    core.opts.store.close()
    const again = createNodeCore({ dbPath, baseDir: dir, parallelRuns: 1 })
    try {
      const layout = await call(again.handlers, 'experiments.layout', { id: exp.id })
      expect(layout.positions).toEqual({ leaf0: { x: 10, y: 20.5 }, spine1: { x: -3, y: 0 } })
      expect(layout.updatedAt).not.toBeNull()
      // The YAML did not change: positions are no revision.
      expect((await call(again.handlers, 'experiments.get', { id: exp.id })).revision).toBe(1)
      await call(again.handlers, 'experiments.saveLayout', { id: exp.id, positions: {} })
      expect(await call(again.handlers, 'experiments.layout', { id: exp.id })).toEqual({ positions: {}, updatedAt: null })
      await expect(call(again.handlers, 'experiments.layout', { id: 999 })).rejects.toThrow(/999/)
    } finally {
      again.opts.store.close()
    }
  })
})

describe('the editor’s YAML against the spec', () => {
  it('converts a k=4 fat-tree to explicit nodes and links that validate, build the same fabric and name links as the builder does', async () => {
    const { convertToCustom, addLink, readTopology, setFailure } = await import('../../src-renderer/src/lib/topoYaml')
    const { core } = tempCore(1)
    try {
      const base = TINY_YAML.replace(/topology: .*\n/, 'topology: { kind: fat-tree, k: 4, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100, slow: { core0-agg0: 1Gbps } }\n')
      const before = await call(core.handlers, 'experiments.fabric', { yaml: base })
      expect(before.errors).toEqual([])
      const slow = new Set(before.marks.filter((m) => m.slow).map((m) => m.link))
      let text = convertToCustom(base, before.graph!, slow)
      text = setFailure(addLink(text, 'core0', 'agg0'), 'core0-agg0/2', { at: '5ms' })
      const after = await call(core.handlers, 'experiments.fabric', { yaml: text })
      expect(after.errors).toEqual([])
      expect(after.graph!.kind).toBe('custom')
      const names = after.graph!.links.map((l) => l.name)
      expect(names).toEqual(readTopology(text, null)!.links.map((l) => l.name))
      expect(names).toEqual([...before.graph!.links.map((l) => l.name), 'core0-agg0/2'])
      expect(after.marks.find((m) => m.link === 'core0-agg0')).toMatchObject({ slow: true })
      expect(after.marks.find((m) => m.link === 'core0-agg0/2')).toMatchObject({ failAtNs: 5_000_000, slow: false })
    } finally {
      core.opts.store.close()
    }
  })

  it('puts a graph problem of an edited text on the link at fault', async () => {
    const { core } = tempCore(1)
    try {
      const text = TINY_YAML.replace(
        /topology: .*\n/,
        `topology:
  kind: custom
  hostLink: 10Gbps
  fabricLink: 10Gbps
  nodes:
    - { name: spine0, tier: spine }
    - { name: leaf0, tier: tor }
    - { name: leaf1, tier: tor }
    - { name: h0, tier: host }
    - { name: h1, tier: host }
  links:
    - { a: spine0:0, b: leaf0 }
    - { a: spine0:0, b: leaf1 }
    - { a: leaf0, b: h0 }
    - { a: leaf1, b: h1 }
`,
      ).replace('hostsPerLeaf: 2', '')
      const res = await call(core.handlers, 'experiments.fabric', { yaml: text })
      const clash = res.errors.find((e) => /port/.test(e.message))
      expect(clash, JSON.stringify(res.errors)).toBeDefined()
      expect(clash!.link ?? clash!.node).toBeDefined()
    } finally {
      core.opts.store.close()
    }
  })
})

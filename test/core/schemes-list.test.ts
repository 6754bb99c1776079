// The contract's schemes.list: the registry's schemes as the UI receives them (over the real
// dispatch, checked against the contract's response schema), and each scheme's switch tables
// held to the series its simulator stage really emits, so the UI's generic table builders find
// what the descriptor promises.
import { describe, expect, it } from 'vitest'
import { methods, type Scheme } from '../../src-main/contract'
import { createDispatch } from '../../src-main/core/dispatch'
import { KNOWN_PARAMS, runSim, SCHEME_NAMES, SCHEMES, type SchemeDescriptor } from '../../src-main/schemes'
import { loadDegree } from '../../src-main/schemes/dhlb/stage'
import type { SimSeriesDef } from '../../src-main/sim'
import { tempCore } from '../helpers/core'
import { config, webSearch } from '../sim/helpers'

async function listing(): Promise<Scheme[]> {
  const { core } = tempCore(1)
  try {
    const res = await createDispatch(core.handlers)('schemes.list', {})
    if (!res.ok) throw new Error(res.error.message)
    // Plain data: it survives JSON (the WebSocket) and the contract's own schema.
    return methods['schemes.list'].res.parse(JSON.parse(JSON.stringify(res.result)))
  } finally {
    core.opts.store.close()
  }
}

describe('schemes.list', () => {
  it('gives every registered scheme, in the registry order, with its label, paper, params and tables', async () => {
    const schemes = await listing()
    expect(schemes.map((s) => s.name)).toEqual([...SCHEME_NAMES])
    const hula = schemes.find((s) => s.name === 'hula')!
    expect(hula.label).toBe('HULA')
    expect(hula.paper).toEqual({ title: 'HULA: Scalable Load Balancing Using Programmable Data Planes', venue: 'ACM SOSR 2016' })
    expect(hula.p4Program).toBe('hula')
    const gap = hula.params.find((p) => p.key === 'flowletGap')!
    expect(gap).toMatchObject({ name: 'flowletGapNs', unit: 'duration', default: 100_000 })
    expect(gap.schemes).toEqual(KNOWN_PARAMS.flowletGap.schemes)
    expect(gap.schemes).toEqual(expect.arrayContaining(['hula', 'conga', 'dhlb']))
    expect(hula.series.map((k) => k.kind)).toContain('hula.bestHop')
    expect(hula.series.find((k) => k.kind === 'hula.bestHop')).toMatchObject({ entity: ['switch', 'dstTor'], categorical: true })
    expect(schemes.find((s) => s.name === 'conga-prime')!.label).toBe('CONGA′')
    expect(schemes.find((s) => s.name === 'ecmp')).toMatchObject({ paper: null, params: [], tables: [] })
    // The request takes nothing.
    const { core } = tempCore(1)
    const bad = await createDispatch(core.handlers)('schemes.list', { scheme: 'hula' })
    core.opts.store.close()
    expect(bad.ok).toBe(false)
  })

  it("marks DHLB's highest load degree best: a degree is spare capacity, not load", async () => {
    const dhlb = (await listing()).find((s) => s.name === 'dhlb')!
    expect(loadDegree(0.1)).toBeGreaterThan(loadDegree(0.95))
    expect(dhlb.tables).toMatchObject([{ layout: 'matrix', kind: 'dhlb.loadDegree', lowIsBest: false }])
    const conga = (await listing()).find((s) => s.name === 'conga')!
    expect(conga.tables).toMatchObject([{ layout: 'matrix', kind: 'conga.metric', lowIsBest: true }])
  })

  it("builds every scheme's tables from series its simulator stage emits, keyed as the table says", async () => {
    const withTables = (await listing()).filter((s) => s.tables.length > 0)
    expect(withTables.map((s) => s.name).sort()).toEqual((SCHEMES as readonly SchemeDescriptor[]).filter((d) => (d.tables ?? []).length > 0).map((d) => d.name).sort())
    expect(withTables.map((s) => s.name)).toEqual(expect.arrayContaining(['conga', 'conga-prime', 'dhlb', 'floodgate', 'hula']))
    for (const s of withTables) {
      let defs: SimSeriesDef[] = []
      runSim(config({ kind: 'poisson', cdf: webSearch, load: 0.3, flows: 20 }, { scheme: s.name as never, maxSimTimeNs: 2e6, telemetryIntervalNs: 500_000 }), {
        onSeries: (d) => (defs = d),
      })
      for (const t of s.tables) {
        const kinds = t.layout === 'matrix' ? [t.kind] : t.columns.map((c) => c.kind)
        const keys = t.layout === 'matrix' ? [t.switchKey, t.rowKey, t.colKey] : [t.switchKey, t.rowKey]
        for (const kind of kinds) {
          expect(s.series.map((k) => k.kind), `${s.name}: ${kind} is its own series`).toContain(kind)
          const emitted = defs.filter((d) => d.kind === kind)
          expect(emitted.length, `${s.name} emits ${kind}`).toBeGreaterThan(0)
          for (const d of emitted) expect(Object.keys(d.entity), `${s.name}: ${kind}'s entity`).toEqual(expect.arrayContaining(keys))
        }
      }
    }
  }, 60_000)
})

// Everything that emits series speaks the one vocabulary (src-main/core/telemetry/vocabulary.ts):
// every scheme of the simulator, the BMv2 and Tofino pollers, and the INT collector.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type SchemeName, type SimSeriesDef } from '../../src-main/sim'
import { runSim } from '../../src-main/schemes'
import { seriesName } from '../../src-main/model/series'
import { SCHEME_NAMES, SERIES_KINDS, series, seriesProblem } from '../../src-main/schemes'
import { config, webSearch } from '../sim/helpers'

const ROOT = join(__dirname, '..', '..')
const SCHEMES: readonly SchemeName[] = SCHEME_NAMES

describe('the series vocabulary', () => {
  for (const scheme of SCHEMES) {
    it(`the simulator's ${scheme} run emits only vocabulary series`, () => {
      let defs: SimSeriesDef[] = []
      runSim(
        config({ kind: 'poisson', cdf: webSearch, load: 0.3, flows: 20 }, { scheme, maxSimTimeNs: 2e6, telemetryIntervalNs: 500_000 }),
        { onSeries: (d) => (defs = d) },
      )
      expect(defs.length).toBeGreaterThan(0)
      expect(defs.map((d) => seriesProblem(d)).filter(Boolean)).toEqual([])
    })
  }

  it('the BMv2 and Tofino pollers define only vocabulary series (read from their source)', () => {
    for (const file of ['src-main/core/targets/bmv2/telemetry.ts', 'src-main/core/targets/bmv2/hostload.ts', 'src-main/core/targets/tofino/telemetry.ts']) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      const found = [...text.matchAll(/kind: '([a-z]+\.[A-Za-z.]+)', entity: ([^,]*?\{[^}]*\}|\w+), unit: '(\w+)'/g)]
      expect(found.length, file).toBeGreaterThan(0)
      for (const [, kind, , unit] of found) {
        const def = (SERIES_KINDS as Record<string, { units: readonly string[] }>)[kind]
        expect(def, `${file}: ${kind}`).toBeDefined()
        expect(def.units, `${file}: ${kind} unit`).toContain(unit)
      }
    }
  })

  it('names wrong kinds, entity keys and units', () => {
    expect(seriesProblem({ kind: 'link.util', entity: { switch: 's1', port: 1 }, unit: 'ratio' })).toBeNull()
    expect(seriesProblem({ kind: 'probe.bytes', entity: {}, unit: 'bytes' })).toBeNull()
    expect(seriesProblem({ kind: 'probe.bytes', entity: { link: 'spine1-leaf1' }, unit: 'bytes' })).toBeNull()
    expect(seriesProblem({ kind: 'link.utl', entity: {}, unit: 'ratio' })).toMatch(/unknown series kind/)
    expect(seriesProblem({ kind: 'int.queue', entity: { switch: 's1' }, unit: 'packets' })).toMatch(/entity keys \{switch\} \(expected \{switch,queue\}\)/)
    expect(seriesProblem({ kind: 'int.hopLatency', entity: { switch: 's1' }, unit: 'us' })).toMatch(/unit 'us'/)
    const d = series('int.queue', { switch: '7', queue: 0 }, 'packets')
    expect(seriesName(d)).toBe('int.queue{switch=7,queue=0}')
  })
})

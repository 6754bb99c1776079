// compare.runs, the contract method behind the runs table: every field, hash and metric of
// the runs, the core's query language with its column in errors, flow-class metrics only
// when asked, and "diff only" over the runs it returns (in their order).
import { afterEach, describe, expect, it } from 'vitest'
import type { Core } from '../../src-main/core'
import { tempCore } from '../helpers/core'

const YAML = `name: runs-table
tags: [paper]
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps }
schemes: [hula, ecmp]
workload: { kind: web-search, load: [0.3, 0.6], flows: 4 }
params: { flowletGap: 100us }
seeds: [1]
`

const cores: Core[] = []
afterEach(() => {
  for (const c of cores.splice(0)) c.opts.store.close()
})

function setup() {
  const { core } = tempCore(1)
  cores.push(core)
  const s = core.opts.store
  const exp = core.findOrCreateExperiment(YAML, null)
  const runs = s.createRuns(exp.id, 'sim', 'test:1', [
    { scheme: 'hula', load: 0.3, seed: 1, params: {} },
    { scheme: 'ecmp', load: 0.3, seed: 1, params: {} },
    { scheme: 'ecmp', load: 0.6, seed: 1, params: {} },
  ])
  runs.forEach((run, i) => {
    s.setRunStatus(run.id, 'running')
    if (i === 2) {
      s.setRunStatus(run.id, 'failed', { error: 'boom' })
      return
    }
    const m = 1000 * (i + 1)
    s.insertFlows(run.id, { src: [0, 1], dst: [2, 3], sizeBytes: [50_000, 20_000_000], startNs: [0, 0], finishNs: [m - 100, m + 100] })
    s.setRunResults(run.id, {
      stats: { flows: 2, finished: 2, meanNs: m, p50Ns: m - 100, p99Ns: m + 100, smallMeanNs: m - 100, largeMeanNs: m + 100 },
      counters: { controlBytes: 10, payloadBytesSent: 1000, drops: 3 },
      facts: { engine: 'p4lab-sim v0' },
    })
    s.setRunStatus(run.id, 'done')
  })
  return { h: core.handlers, exp, runs }
}

describe('compare.runs', () => {
  it('gives every field of every run, grouped, with hashes and the stored metrics', async () => {
    const { h, exp, runs } = setup()
    const res = await h['compare.runs']({ experimentIds: [exp.id] })
    expect(res.runs.map((r) => r.id)).toEqual(runs.map((r) => r.id))
    const group = Object.fromEntries(res.fields.map((f) => [f.name, f.group]))
    expect(group).toMatchObject({ scheme: 'run', load: 'run', topology: 'spec', flowletGapNs: 'param', 'hash.program': 'hash', 'hash.config': 'hash', mean: 'metric', 'small.p99': 'metric' })
    const [hula, ecmp, failed] = res.runs
    expect(hula.fields).toMatchObject({ scheme: 'hula', load: 0.3, status: 'done', flowletGapNs: 100_000, mean: 1000, p99: 1100, probeOverhead: 0.01, drops: 3 })
    expect(hula.tags).toEqual(['paper'])
    expect(String(hula.fields['hash.program'])).toMatch(/^[0-9a-f]{64}$/)
    expect(hula.fields['hash.topology']).toBe(ecmp.fields['hash.topology'])
    // Flow-class percentiles read flows: only when asked.
    expect('small.p99' in hula.fields).toBe(false)
    expect(failed.fields.mean).toBeNull()
    const asked = await h['compare.runs']({ experimentIds: [exp.id], metrics: ['small.p99', 'large.p50'] })
    expect(asked.runs[1].fields).toMatchObject({ 'small.p99': 1900, 'large.p50': 2100 })
    // Diff only, in the runs' order: scheme, load, status is a result, the program hash differs by scheme.
    expect(res.differences.map((d) => d.field)).toEqual(['scheme', 'load', 'hash.program'])
    expect(res.differences[0].values).toEqual(['hula', 'ecmp', 'ecmp'])
  })

  it('filters with the query language and names the column of a bad query', async () => {
    const { h, exp, runs } = setup()
    const res = await h['compare.runs']({ experimentIds: [exp.id], query: 'scheme = ecmp and status = done' })
    expect(res.runs.map((r) => r.id)).toEqual([runs[1].id])
    expect(res.differences).toEqual([])
    // Fields of every run are still offered (the table's columns do not depend on the filter).
    expect(res.fields.some((f) => f.name === 'flowletGapNs')).toBe(true)
    const pinned = await h['compare.runs']({ experimentIds: [exp.id], runIds: [runs[0].id, runs[2].id], query: 'load < 1' })
    expect(pinned.runs.map((r) => r.id)).toEqual([runs[0].id, runs[2].id])
    await expect(h['compare.runs']({ experimentIds: [exp.id], query: 'scheme = = ecmp' })).rejects.toThrow(/query: column 10: expected a value after '='/)
    await expect(h['compare.runs']({ experimentIds: [exp.id], query: 'nosuch > 1' })).rejects.toThrow(/query: column 1: .*nosuch/)
    await expect(h['compare.runs']({ experimentIds: [9999] })).rejects.toThrow(/experiment 9999 does not exist/)
  })
})

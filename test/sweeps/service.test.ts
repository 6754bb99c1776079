// Sweeps through the contract: the run matrix, re-run failed cells, resume, and running an
// imported experiment again with the same seeds (the sim is deterministic, so the numbers match).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Core } from '../../src-main/core'
import { compareRuns } from '../../src-main/core/compare'
import { TINY_YAML, tempCore } from '../helpers/core'

const cores: Core[] = []
afterEach(() => {
  for (const c of cores.splice(0)) {
    c.orchestrator.cancelAll()
    c.opts.store.close()
  }
})

/** A core whose save/open dialogs (the desktop shell's) answer with this file. */
function fresh(picked?: string) {
  const t = tempCore(2, picked ? { archiveDialogs: { saveArchive: async () => picked, openArchive: async () => picked } } : {})
  cores.push(t.core)
  return t
}

describe('sweeps', () => {
  it('shows every cell with its latest status, and re-runs only failed, cancelled and interrupted cells', async () => {
    const { core } = fresh()
    const store = core.opts.store
    const h = core.handlers
    const yaml = TINY_YAML.replace('seeds: [1]', 'seeds: [1, 2]')
    const exp = core.findOrCreateExperiment(yaml, null)
    let m = await h['sweeps.matrix']({ experimentId: exp.id })
    expect(m.cells).toHaveLength(8)
    expect(m.cells.every((c) => c.status === 'pending' && c.runs === 0)).toBe(true)
    expect(m.axes).toEqual({ schemes: ['ecmp', 'rps'], loads: [0.3, 0.5], seeds: [1, 2] })

    // Three cells by hand: one failed, one cancelled, one interrupted (a dead owner); the rest pending.
    const [failed, cancelled, cut] = store.createRuns(exp.id, 'sim', 'nowhere:1', [
      { scheme: 'ecmp', load: 0.3, seed: 1, params: {} },
      { scheme: 'ecmp', load: 0.3, seed: 2, params: {} },
      { scheme: 'rps', load: 0.5, seed: 2, params: {} },
    ])
    store.setRunStatus(failed.id, 'running')
    store.setRunStatus(failed.id, 'failed', { error: 'boom' })
    store.setRunStatus(cancelled.id, 'cancelled')
    store.setRunStatus(cut.id, 'interrupted')
    m = await h['sweeps.matrix']({ experimentId: exp.id })
    expect(m.counts).toMatchObject({ pending: 5, failed: 1, cancelled: 1, interrupted: 1 })

    const rerun = await h['sweeps.rerunFailed']({ experimentId: exp.id })
    expect(rerun.runIds).toHaveLength(3)
    await core.orchestrator.wait(rerun.runIds)
    m = await h['sweeps.matrix']({ experimentId: exp.id })
    expect(m.counts).toMatchObject({ pending: 5, done: 3 })
    expect(m.cells.filter((c) => c.status === 'done').every((c) => c.runs === 2)).toBe(true)

    // Resume: the five cells never run; a second resume runs nothing.
    const resumed = await h['sweeps.resume']({ experimentId: exp.id })
    expect(resumed).toMatchObject({ done: 3, cells: 8 })
    expect(resumed.runIds).toHaveLength(5)
    await core.orchestrator.wait(resumed.runIds)
    expect((await h['sweeps.resume']({ experimentId: exp.id })).runIds).toEqual([])
    expect((await h['sweeps.rerunFailed']({ experimentId: exp.id })).runIds).toEqual([])
    m = await h['sweeps.matrix']({ experimentId: exp.id })
    expect(m.counts.done).toBe(8)
    expect(store.listRuns({ experimentId: exp.id })).toHaveLength(11)
  })

  it('runs an imported experiment again with the same seeds and pipeline, and gets the same numbers', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'p4lab-sweep-archive-')), 'tiny.tar.gz')
    const a = fresh(file)
    const exp = a.core.findOrCreateExperiment(TINY_YAML, null)
    await a.core.orchestrator.wait(a.core.runExperiment(exp.id).map((r) => r.id))
    expect(await a.core.handlers['archive.export']({ experimentId: exp.id })).toMatchObject({ file, runs: 4 })

    const b = fresh(file)
    const imported = (await b.core.handlers['archive.import']({}))!
    expect(imported.compareMatches).toBe(true)
    const before = compareRuns(b.core.opts.store, { experimentIds: [imported.experimentId] })

    const again = await b.core.handlers['experiments.runAgain']({ id: imported.experimentId, testbed: 'sim' })
    expect(again.experimentId).toBe(imported.experimentId)
    expect(again.runIds).toHaveLength(4)
    await b.core.orchestrator.wait(again.runIds)
    const runs = b.core.opts.store.listRuns({ experimentId: imported.experimentId })
    expect(runs).toHaveLength(8)
    expect(runs.slice(4).every((r) => r.status === 'done')).toBe(true)
    // Same seeds, same pipeline: the new runs' FCTs are the old ones.
    expect(runs.slice(4).map((r) => [r.scheme, r.load, r.seed, r.stats])).toEqual(runs.slice(0, 4).map((r) => [r.scheme, r.load, r.seed, r.stats]))
    // Compare takes each cell's latest run: the same rows, the first runs counted as superseded.
    const after = compareRuns(b.core.opts.store, { experimentIds: [imported.experimentId] })
    expect(after.rows).toEqual(before.rows)
    expect(after).toMatchObject({ matched: 8, excluded: 4 })

    await expect(b.core.handlers['experiments.runAgain']({ id: imported.experimentId, testbed: 'nolab' })).rejects.toThrow()
  })

  it('reports a bad query with its column through compare.query', async () => {
    const { core } = fresh()
    const exp = core.findOrCreateExperiment(TINY_YAML, null)
    await expect(core.handlers['compare.query']({ experimentIds: [exp.id], query: 'scheme = = ecmp' })).rejects.toThrow(/query: column 10: expected a value after '='/)
    await expect(core.handlers['compare.query']({ experimentIds: [999] })).rejects.toThrow(/experiment 999 does not exist/)
  })
})

// Managing runs, MLflow-style, through the real dispatch (as the renderer calls it): tags and
// notes on experiments and runs, archive and delete (kept, hidden, restorable; a run in flight
// refused), search across experiments in the --where language, and an archive imported again
// recognised by its content hash (skip, or a copy).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatch } from '../../src-main/core/dispatch'
import type { Core } from '../../src-main/core'
import { tempCore } from '../helpers/core'

const YAML = `name: mng-a
tags: [paper]
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.5], flows: 20 }
seeds: [1]
`
const OTHER = YAML.replace('name: mng-a', 'name: mng-b').replace('tags: [paper]\n', '').replace('schemes: [ecmp, rps]', 'schemes: [hula]').replace('load: [0.3, 0.5]', 'load: [0.3]')
// Long enough that it is still in flight when asked to go.
const SLOW = OTHER.replace('name: mng-b', 'name: mng-slow').replace('flows: 20', 'flows: 20000')

describe('managing runs and experiments through the contract', () => {
  let core: Core
  let dispatch: ReturnType<typeof createDispatch>
  let picked: string | null = null
  const call = async (method: string, params: unknown): Promise<any> => {
    const env = await dispatch(method, params)
    if (!env.ok) throw Object.assign(new Error(`${method}: ${env.error.message}`), { code: env.error.code })
    return env.result
  }
  const refused = async (method: string, params: unknown) => {
    const env = await dispatch(method, params)
    expect(env.ok, `${method} should be refused`).toBe(false)
    return (env as { error: { code: string; message: string } }).error
  }
  const waitDone = async (ids: number[]) => {
    for (;;) {
      const runs = await Promise.all(ids.map((id) => call('runs.get', { id })))
      if (runs.every((r) => r.status === 'done')) return
      const bad = runs.find((r) => !['queued', 'deploying', 'running', 'collecting', 'done'].includes(r.status))
      if (bad) throw new Error(`run ${bad.id} ended ${bad.status}: ${bad.error}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  let a: number
  let b: number
  let runsA: number[]
  let runsB: number[]

  beforeAll(async () => {
    const t = tempCore(2, { archiveDialogs: { saveArchive: async () => picked, openArchive: async () => picked } })
    core = t.core
    dispatch = createDispatch(core.handlers)
    a = (await call('experiments.create', { yaml: YAML })).id
    b = (await call('experiments.create', { yaml: OTHER })).id
    runsA = (await call('experiments.run', { id: a })).runIds
    runsB = (await call('experiments.run', { id: b })).runIds
    await waitDone([...runsA, ...runsB])
  }, 180_000)
  afterAll(() => core.opts.store.close())

  it('keeps tags and notes on experiments (beside the YAML tags) and on runs', async () => {
    const e = await call('experiments.setTags', { id: a, tags: ['mine', ' fig3 ', 'mine'] })
    expect(e).toMatchObject({ tags: ['paper', 'mine', 'fig3'], storeTags: ['mine', 'fig3'] })
    // The YAML's tags stay the text's: a store tag is no new revision.
    expect(e.revision).toBe(1)
    expect((await call('experiments.setNotes', { id: a, notes: 'the baseline sweep' })).notes).toBe('the baseline sweep')
    const r = await call('runs.setTags', { id: runsA[1], tags: ['outlier'] })
    expect(r).toMatchObject({ id: runsA[1], tags: ['outlier'] })
    expect((await call('runs.setNotes', { id: runsA[1], notes: 'queue spikes at 2 ms' })).notes).toBe('queue spikes at 2 ms')
    expect(await call('runs.get', { id: runsA[1] })).toMatchObject({ tags: ['outlier'], notes: 'queue spikes at 2 ms' })
    const list = await call('experiments.list', {})
    expect(list.find((x: { id: number }) => x.id === a)).toMatchObject({ tags: ['paper', 'mine', 'fig3'], setAside: null })

    const bad = await refused('runs.setTags', { id: runsA[0], tags: ['two words'] })
    expect(bad.code).toBe('invalid-request')
    expect(bad.message).toMatch(/one word/)
    expect((await refused('runs.setNotes', { id: 99_999, notes: 'x' })).code).toBe('not-found')
  })

  it('refuses control characters in names, tags and notes, naming the character; notes keep line feeds and tabs', async () => {
    // They reach terminals (p4lab list, show) and the YAML a rename rewrites, which refuses them.
    const esc = await refused('experiments.rename', { id: a, name: 'red\u001b[31mname' })
    expect(esc.code).toBe('invalid-request')
    expect(esc.message).toContain('ESC (U+001B) at position 4')
    expect(esc.message).not.toContain('\u001b')
    const bidi = await refused('runs.setTags', { id: runsA[0], tags: ['ok', 'evil\u202e'] })
    expect(bidi).toMatchObject({ code: 'invalid-request' })
    expect(bidi.message).toContain('U+202E')
    expect((await refused('experiments.setTags', { id: a, tags: ['bell\u0007'] })).message).toContain('U+0007')
    expect((await refused('experiments.setNotes', { id: a, notes: 'a\rforged line' })).message).toContain('CR (U+000D)')
    expect((await call('runs.setNotes', { id: runsA[0], notes: 'line one\n\tindented' })).notes).toBe('line one\n\tindented')
    // Nothing refused was stored.
    expect(await call('experiments.get', { id: a })).toMatchObject({ name: 'mng-a', notes: 'the baseline sweep' })
    expect((await call('runs.get', { id: runsA[0] })).tags).toEqual([])
  })

  it('searches across experiments by name, tag, scheme, parameter and metric, in the --where language', async () => {
    const ids = async (query: string) => (await call('search.runs', { query })).experiments.map((e: { id: number; runIds: number[] }) => [e.id, e.runIds])
    expect(await ids('experiment ~ mng-b')).toEqual([[b, runsB]])
    expect(await ids('tag:fig3')).toEqual([[a, runsA]])
    expect(await ids('tag:outlier')).toEqual([[a, [runsA[1]]]])
    expect(await ids('scheme = hula')).toEqual([[b, runsB]])
    expect(await ids('scheme = rps and load >= 0.5')).toEqual([[a, runsA.filter((_, i) => i === 3)]])
    expect((await call('search.runs', { query: 'mean > 0' })).runs).toBe(runsA.length + runsB.length)
    const none = await call('search.runs', { query: 'scheme = rsp' })
    expect(none).toMatchObject({ experiments: [], runs: 0 })
    expect(none.hints).toEqual(["no scheme 'rsp'; schemes in the runs searched: ecmp, hula, rps"])
    const err = await refused('search.runs', { query: 'schme = ecmp' })
    expect(err.code).toBe('invalid-request')
    expect(err.message).toMatch(/^query: column 1: unknown field 'schme'; known fields: .*scheme/)
  })

  it('deletes and archives runs and experiments: hidden, kept, restorable', async () => {
    const gone = runsA[0]
    expect(await call('runs.setAside', { ids: [gone], how: 'deleted' })).toEqual({ ids: [gone] })
    expect((await call('runs.list', { experimentId: a })).map((r: { id: number }) => r.id)).toEqual(runsA.slice(1))
    expect(await call('runs.list', { shown: 'deleted' })).toMatchObject([{ id: gone, setAside: 'deleted' }])
    expect((await call('experiments.list', {})).find((x: { id: number }) => x.id === a).runCounts.done).toBe(runsA.length - 1)
    expect((await call('search.runs', { query: 'experiment = mng-a' })).runs).toBe(runsA.length - 1)
    // The run matrix no longer counts its cell as done: resume would run it again.
    const matrix = await call('sweeps.matrix', { experimentId: a })
    expect(matrix.cells.filter((c: { status: string }) => c.status === 'pending')).toMatchObject([{ runId: null, runs: 0 }])
    expect(matrix.cells.some((c: { runId: number | null }) => c.runId === gone)).toBe(false)
    // Kept in the store, whole.
    const db = new Database(core.opts.store.file, { readonly: true })
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM flows WHERE run_id = ?').get(gone)).toEqual({ n: 20 })
    } finally {
      db.close()
    }
    expect(await call('runs.restore', { ids: [gone] })).toEqual({ ids: [gone] })
    expect((await call('runs.list', { experimentId: a })).map((r: { id: number }) => r.id)).toEqual(runsA)
    expect(await call('runs.restore', { ids: [gone] })).toEqual({ ids: [] })

    expect(await call('experiments.setAside', { ids: [b], how: 'archived' })).toEqual({ ids: [b] })
    expect((await call('experiments.list', {})).map((x: { id: number }) => x.id)).toEqual([a])
    expect(await call('experiments.list', { shown: 'archived' })).toMatchObject([{ id: b, setAside: 'archived' }])
    expect((await call('search.runs', { query: 'scheme = hula' })).runs).toBe(0)
    // Its name stays taken, and the refusal says where it is.
    expect((await refused('experiments.create', { yaml: OTHER })).message).toMatch(/experiment named 'mng-b' already exists \(experiment \d+, archived\).*restore it/)
    await call('experiments.restore', { ids: [b] })
    expect((await call('experiments.list', {})).map((x: { id: number }) => x.id).sort()).toEqual([a, b].sort())
  })

  it('refuses to delete or archive a run, or an experiment, that has not ended', async () => {
    const slow = (await call('experiments.create', { yaml: SLOW })).id
    const [run] = (await call('experiments.run', { id: slow })).runIds
    const err = await refused('runs.setAside', { ids: [run], how: 'deleted' })
    expect(err.code).toBe('conflict')
    expect(err.message).toMatch(new RegExp(`cannot delete a run that has not ended: run ${run} is (queued|deploying|running|collecting); cancel it first`))
    expect((await refused('experiments.setAside', { ids: [slow], how: 'archived' })).message).toMatch(/cannot archive experiment \d+ while it has runs that have not ended/)
    expect((await call('runs.get', { id: run })).setAside).toBeNull()
    await call('runs.cancel', { id: run })
    await expect.poll(async () => (await call('runs.get', { id: run })).status, { timeout: 60_000 }).toBe('cancelled')
    expect(await call('runs.setAside', { ids: [run], how: 'deleted' })).toEqual({ ids: [run] })
  }, 90_000)

  it('recognises an archive already in the store by its content hash: skipped, or imported as a copy', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'p4lab-mng-')), 'a.tar.gz')
    picked = out
    expect(await call('archive.export', { experimentId: a })).toMatchObject({ file: out })
    const skipped = await call('archive.import', {})
    expect(skipped).toMatchObject({ skipped: true, experimentId: a, name: 'mng-a', runIds: {}, duplicateOf: { experimentId: a, name: 'mng-a', archived: false } })
    expect(skipped.contentHash).toMatch(/^[0-9a-f]{64}$/)
    expect((await call('experiments.list', {})).length).toBe(3)
    const copy = await call('archive.import', { onDuplicate: 'copy' })
    expect(copy).toMatchObject({ skipped: false, name: 'mng-a (2)', duplicateOf: { experimentId: a }, compareMatches: true, contentHash: skipped.contentHash })
    expect(Object.keys(copy.runIds)).toHaveLength(runsA.length)
    // The copy's store tags and run tags came with it; nothing set aside did.
    expect(await call('experiments.get', { id: copy.experimentId })).toMatchObject({ tags: ['paper', 'mine', 'fig3'] })
    // Deleted, the original no longer holds it; the copy still does.
    await call('experiments.setAside', { ids: [a], how: 'deleted' })
    expect(await call('archive.import', {})).toMatchObject({ skipped: true, experimentId: copy.experimentId })
    await call('experiments.restore', { ids: [a] })
  }, 120_000)

  it('refuses to cancel a run that has ended, or one another process runs, saying why; the run is left as it was', async () => {
    const before = await call('runs.get', { id: runsA[0] })
    const ended = await refused('runs.cancel', { id: runsA[0] })
    expect(ended).toEqual({ code: 'conflict', message: `run ${runsA[0]} has already ended (done): there is nothing to cancel` })
    expect(await call('runs.get', { id: runsA[0] })).toEqual(before)

    const store = core.opts.store
    const owner = 'elsewhere:4242:boot:1'
    const [run] = store.createRuns(b, 'sim', owner, [{ scheme: 'hula', load: 0.3, seed: 7, params: {} }])
    store.setRunStatus(run.id, 'running')
    try {
      const other = await refused('runs.cancel', { id: run.id })
      expect(other).toEqual({ code: 'conflict', message: `run ${run.id} is running in another p4lab process (${owner}), not this one: stop it where it runs (Ctrl-C on its p4lab run)` })
      expect((await call('runs.get', { id: run.id })).status).toBe('running')
    } finally {
      store.setRunStatus(run.id, 'cancelled')
    }
  })
})

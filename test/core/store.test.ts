import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore, SCHEMA_VERSION, type Store } from '../../src-main/core/store'

let dir: string
let store: Store | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-store-'))
})
afterEach(() => {
  store?.close()
  store = undefined
  rmSync(dir, { recursive: true, force: true })
})

function open(name = 'lab.db'): Store {
  store = openStore(join(dir, name))
  return store
}

const stats = { flows: 2, finished: 1, meanNs: 10, p50Ns: 10, p99Ns: 10, smallMeanNs: 10, largeMeanNs: null }

function experimentWithRuns(s: Store, owner = 'pid:1', name = 'quickstart') {
  const e = s.createExperiment({ name, yaml: `name: ${name}\n`, spec: { a: 1 }, file: null, tags: ['t'] })
  const runs = s.createRuns(e.id, 'sim', owner, [
    { scheme: 'ecmp', load: 0.3, seed: 1, params: {} },
    { scheme: 'rps', load: 0.3, seed: 1, params: { x: 2 } },
  ])
  return { e, runs }
}

describe('schema and migrations', () => {
  it('creates the schema in a nested directory, in WAL mode, with foreign keys on', () => {
    const file = join(dir, 'a', 'b', 'lab.db')
    store = openStore(file)
    expect(store.file).toBe(file)
    store.close()
    store = undefined
    const db = new Database(file)
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map(
      (r) => r.name,
    )
    expect(tables).toEqual(['archive_hashes', 'artifacts', 'events', 'experiment_revisions', 'experiments', 'flows', 'hosts', 'logs', 'rollups', 'runs', 'sample_chunks', 'series', 'slurm_clusters', 'slurm_jobs', 'slurm_submissions', 'slurm_tasks', 'testbed_mappings', 'testbeds', 'topology_layouts'])
    expect(db.prepare('SELECT name, kind FROM testbeds').all()).toEqual([{ name: 'sim', kind: 'sim' }])
    const hostColumns = (db.prepare('PRAGMA table_info(hosts)').all() as Array<{ name: string }>).map((c) => c.name)
    expect(hostColumns.some((c) => /pass|secret/.test(c))).toBe(false)
    db.close()
  })

  it('reopens idempotently and keeps data', () => {
    open().createExperiment({ name: 'x', yaml: 'y', spec: {}, file: null, tags: [] })
    store!.close()
    const s = open()
    expect(s.listExperiments()).toHaveLength(1)
    s.close()
    const db = new Database(join(dir, 'lab.db'))
    expect(db.prepare("SELECT COUNT(*) AS n FROM testbeds WHERE name = 'sim'").get()).toEqual({ n: 1 })
    db.close()
    store = openStore(join(dir, 'lab.db'))
  })

  it('refuses a database from a newer version', () => {
    const file = join(dir, 'future.db')
    const db = new Database(file)
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`)
    db.close()
    expect(() => openStore(file)).toThrow(new RegExp(`schema version ${SCHEMA_VERSION + 1} is newer than this p4lab supports \\(${SCHEMA_VERSION}\\)`))
  })

  it('enforces foreign keys', () => {
    expect(() => open().createRuns(42, 'sim', 'pid:1', [{ scheme: 'ecmp', load: 0.5, seed: 1, params: {} }])).toThrow(
      /experiment 42 does not exist/,
    )
    expect(() => store!.addLog(42, 'h1', 'x')).toThrow(/FOREIGN KEY/)
  })
})

describe('experiments', () => {
  it('creates, updates, finds and lists with run counts', () => {
    const s = open()
    const a = s.createExperiment({ name: 'a', yaml: 'name: a\n', spec: { n: 1 }, file: '/x/a.yaml', tags: ['x', 'y'] })
    expect(a).toMatchObject({ name: 'a', yaml: 'name: a\n', spec: { n: 1 }, file: '/x/a.yaml', tags: ['x', 'y'], notes: '' })
    expect(a.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/)
    const b = s.createExperiment({ name: 'b', yaml: 'name: b\n', spec: {}, file: null, tags: [] })
    s.createRuns(b.id, 'sim', 'o', [{ scheme: 'ecmp', load: 0.5, seed: 1, params: {} }])

    expect(s.findExperiment('a', 'name: a\n')?.id).toBe(a.id)
    expect(s.findExperiment('a', 'name: a \n')).toBeUndefined()

    const list = s.listExperiments()
    expect(list.map((e) => e.name)).toEqual(['b', 'a'])
    expect(list[0].runCounts).toMatchObject({ queued: 1, done: 0, failed: 0 })
    expect(list[1].runCounts.queued).toBe(0)

    // A changed text is a new revision; a text naming the experiment otherwise is refused (renaming is its own action).
    expect(() => s.updateExperiment(a.id, { name: 'a2', yaml: 'name: a2\n', spec: { n: 2 }, tags: [] })).toThrow(/names the experiment 'a2', but it is 'a'/)
    const a2 = s.updateExperiment(a.id, { name: 'a', yaml: 'name: a\nx: 2\n', spec: { n: 2 }, tags: [] })
    expect(a2).toMatchObject({ id: a.id, name: 'a', spec: { n: 2 }, tags: [], file: '/x/a.yaml', revision: 2 })
    expect(s.updateExperiment(a.id, { name: 'a', yaml: 'name: a\nx: 2\n', spec: { n: 2 }, tags: [] }).revision).toBe(2)
    expect(() => s.createExperiment({ name: 'b', yaml: 'name: b\n', spec: {}, file: null, tags: [] })).toThrow(/an experiment named 'b' already exists \(experiment \d+\)/)
    expect(() => s.renameExperiment(a.id, 'b')).toThrow(/named 'b' already exists/)
    const renamed = s.renameExperiment(a.id, 'a3')
    expect(renamed).toMatchObject({ name: 'a3', yaml: 'name: "a3"\nx: 2\n', revision: 3 })
    expect(s.listRevisions(a.id).map((r) => [r.rev, r.name, r.note])).toEqual([[1, 'a', 'created'], [2, 'a', 'edited'], [3, 'a3', 'renamed a -> a3']])
    expect(() => s.updateExperiment(999, { name: 'z', yaml: '', spec: {}, tags: [] })).toThrow(/experiment 999 does not exist/)
  })
})

describe('runs', () => {
  it('creates queued runs with a status event each', () => {
    const s = open()
    const { e, runs } = experimentWithRuns(s)
    expect(runs.map((r) => [r.scheme, r.status, r.experimentName, r.target, r.owner])).toEqual([
      ['ecmp', 'queued', 'quickstart', 'sim', 'pid:1'],
      ['rps', 'queued', 'quickstart', 'sim', 'pid:1'],
    ])
    expect(runs[1]).toMatchObject({ experimentId: e.id, load: 0.3, seed: 1, params: { x: 2 }, startedAt: null, finishedAt: null })
    expect(runs[1]).toMatchObject({ error: null, stats: null, counters: null, facts: null })
    expect(s.listEvents(runs[0].id)).toMatchObject([{ kind: 'status', tNs: null, detail: { from: null, to: 'queued' } }])
    expect(s.listRuns({ experimentId: e.id }).map((r) => r.id)).toEqual(runs.map((r) => r.id))
    expect(s.listRuns({ experimentId: e.id + 1 })).toEqual([])
    expect(s.listRuns()).toHaveLength(2)
  })

  it('moves through statuses, stamping times and writing events', () => {
    let now = Date.parse('2025-01-01T00:00:00Z')
    store = openStore(join(dir, 'lab.db'), { now: () => new Date(now) })
    const s = store
    const { runs } = experimentWithRuns(s)
    const id = runs[0].id
    now += 1000
    const deploying = s.setRunStatus(id, 'deploying')
    expect(deploying.startedAt).toBe('2025-01-01T00:00:01.000Z')
    expect(deploying.finishedAt).toBeNull()
    now += 1000
    const running = s.setRunStatus(id, 'running')
    expect(running.startedAt).toBe(deploying.startedAt)
    expect(s.setRunStatus(id, 'running')).toEqual(running) // same status: no-op
    now += 1000
    const done = s.setRunStatus(id, 'done')
    expect(done.finishedAt).toBe('2025-01-01T00:00:03.000Z')
    expect(s.listEvents(id).at(-1)?.at).toBe('2025-01-01T00:00:03.000Z')
    expect(s.listEvents(id).map((ev) => ev.detail)).toEqual([
      { from: null, to: 'queued', error: null },
      { from: 'queued', to: 'deploying', error: null },
      { from: 'deploying', to: 'running', error: null },
      { from: 'running', to: 'done', error: null },
    ])

    const failed = s.setRunStatus(runs[1].id, 'failed', { error: 'p4c: syntax error' })
    expect(failed).toMatchObject({ status: 'failed', error: 'p4c: syntax error' })
    // It never reached an active status, so it never started.
    expect(failed.startedAt).toBeNull()
    expect(failed.finishedAt).not.toBeNull()
    expect(s.listEvents(runs[1].id).at(-1)?.detail).toEqual({ from: 'queued', to: 'failed', error: 'p4c: syntax error' })
  })

  it('refuses to move a terminal or unknown run, or back to queued', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    s.setRunStatus(runs[0].id, 'cancelled')
    expect(() => s.setRunStatus(runs[0].id, 'running')).toThrow(`run ${runs[0].id} is already cancelled; it cannot move to running`)
    expect(() => s.setRunStatus(runs[0].id, 'cancelled')).toThrow(/already cancelled/)
    expect(() => s.setRunStatus(999, 'running')).toThrow('run 999 does not exist')
    s.setRunStatus(runs[1].id, 'running')
    expect(() => s.setRunStatus(runs[1].id, 'queued')).toThrow(/cannot move back to queued/)
    expect(s.listEvents(runs[0].id)).toHaveLength(2)
  })

  it('stores results and merges facts', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    s.setRunResults(runs[0].id, { stats, counters: { drops: 3 }, facts: { p4c: '1.2.4' } })
    s.setRunResults(runs[0].id, { stats, counters: { drops: 4 }, facts: { hash: 'abc' } })
    expect(s.getRun(runs[0].id)).toMatchObject({ stats, counters: { drops: 4 }, facts: { p4c: '1.2.4', hash: 'abc' } })
    expect(() => s.setRunResults(999, { stats, counters: {} })).toThrow('run 999 does not exist')
  })

  it('refuses to change the results or the flows of a run that has ended, naming it; nothing changes', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    const id = runs[0].id
    s.setRunStatus(id, 'running')
    s.insertFlows(id, { src: [0], dst: [1], sizeBytes: [10], startNs: [0], finishNs: [5] })
    s.setRunResults(id, { stats, counters: { drops: 3 } })
    s.setRunStatus(id, 'done')
    expect(() => s.setRunResults(id, { stats, counters: { drops: 9 } })).toThrow(`run ${id} has ended (done): its results stay as they were stored`)
    expect(() => s.insertFlows(id, { src: [2], dst: [3], sizeBytes: [10], startNs: [0], finishNs: [5] })).toThrow(`run ${id} has ended (done): its flows stay as they were stored`)
    expect(s.getRun(id)).toMatchObject({ status: 'done', counters: { drops: 3 } })
    expect(s.listFlows(id)).toHaveLength(1)
    expect(() => s.insertFlows(999, { src: [2], dst: [3], sizeBytes: [10], startNs: [0], finishNs: [5] })).toThrow('run 999 does not exist')
  })

  it('marks runs of dead owners interrupted', () => {
    const s = open()
    const a = experimentWithRuns(s, 'pid:1').runs
    const b = experimentWithRuns(s, 'pid:2', 'quickstart-2').runs
    s.setRunStatus(a[0].id, 'running')
    s.setRunStatus(a[1].id, 'done')
    s.setRunStatus(b[0].id, 'running')
    const asked: string[] = []
    const ids = s.markInterruptedRuns((owner) => {
      asked.push(owner)
      return owner === 'pid:2'
    })
    expect(ids).toEqual([a[0].id])
    expect(asked).toEqual(['pid:1', 'pid:2'])
    const r = s.getRun(a[0].id)!
    expect(r.status).toBe('interrupted')
    expect(r.error).toMatch(/pid:1/)
    expect(r.finishedAt).not.toBeNull()
    expect(s.listEvents(a[0].id).at(-1)?.detail).toMatchObject({ from: 'running', to: 'interrupted' })
    expect(s.getRun(b[0].id)?.status).toBe('running')
    expect(s.getRun(b[1].id)?.status).toBe('queued')
  })
})

describe('flows and telemetry', () => {
  it('round-trips flows, with NULL FCT for unfinished ones', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    s.insertFlows(runs[0].id, {
      src: Int32Array.from([0, 1]),
      dst: Int32Array.from([5, 6]),
      sizeBytes: Float64Array.from([1000, 2e9]),
      startNs: Float64Array.from([100, 200]),
      finishNs: Float64Array.from([1100, -1]),
    })
    s.insertFlows(runs[0].id, { src: [2], dst: [7], sizeBytes: [64], startNs: [300], finishNs: [400] })
    expect(s.listFlows(runs[0].id)).toEqual([
      { id: 0, src: 0, dst: 5, sizeBytes: 1000, startNs: 100, finishNs: 1100, fctNs: 1000 },
      { id: 1, src: 1, dst: 6, sizeBytes: 2e9, startNs: 200, finishNs: null, fctNs: null },
      { id: 2, src: 2, dst: 7, sizeBytes: 64, startNs: 300, finishNs: 400, fctNs: 100 },
    ])
    expect(s.listFlows(runs[1].id)).toEqual([])
    expect(() => s.insertFlows(runs[0].id, { src: [1], dst: [], sizeBytes: [1], startNs: [1], finishNs: [1] })).toThrow(
      /column dst has 0 values/,
    )
  })

  it('round-trips series and samples, aligned on shared instants', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    const ids = s.defineSeries(runs[0].id, [
      { kind: 'link.util', entity: { switch: 'leaf0', port: 1 }, unit: 'ratio' },
      { kind: 'queue.depth', entity: { switch: 'leaf0', port: 1 }, unit: 'packets' },
    ])
    s.insertSamples(ids, Float64Array.from([100, 200]), Float64Array.from([0.1, 0.2, 5, 6]))
    s.insertSamples(ids, [300], [NaN, 7])
    expect(s.listSeries(runs[0].id)).toEqual([
      { id: ids[0], kind: 'link.util', entity: { switch: 'leaf0', port: 1 }, unit: 'ratio' },
      { id: ids[1], kind: 'queue.depth', entity: { switch: 'leaf0', port: 1 }, unit: 'packets' },
    ])
    const all = s.readSamples(runs[0].id)
    expect(all.t).toEqual([100, 200, 300])
    expect(all.values).toEqual([
      [0.1, 0.2, NaN],
      [5, 6, 7],
    ])
    const q = s.readSamples(runs[0].id, ['queue.depth'])
    expect(q.defs.map((d) => d.kind)).toEqual(['queue.depth'])
    expect(q.values).toEqual([[5, 6, 7]])
    expect(() => s.insertSamples(ids, [1], [1])).toThrow(/expected 2 series × 1 instants = 2 values, got 1/)
  })

  it('aligns series sampled at different instants on their union', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    const [a, b] = s.defineSeries(runs[0].id, [
      { kind: 'k', entity: { n: 'a' }, unit: 'u' },
      { kind: 'k', entity: { n: 'b' }, unit: 'u' },
    ])
    s.insertSamples([a], [10, 30], [1, 3])
    s.insertSamples([b], [20, 30], [2, 4])
    expect(s.readSamples(runs[0].id)).toMatchObject({ t: [10, 20, 30], values: [[1, NaN, 3], [NaN, 2, 4]] })
  })

  it('inserts 100k samples quickly', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    const defs = Array.from({ length: 100 }, (_, i) => ({ kind: 'link.util', entity: { switch: 's', port: i }, unit: 'ratio' }))
    const ids = s.defineSeries(runs[0].id, defs)
    const n = 1000
    const t = Float64Array.from({ length: n }, (_, j) => (j + 1) * 100_000)
    const values = Float64Array.from({ length: ids.length * n }, (_, k) => (k % 97) / 97)
    const start = performance.now()
    s.insertSamples(ids, t, values)
    const ms = performance.now() - start
    expect(ms).toBeLessThan(1000)
    const back = s.readSamples(runs[0].id)
    expect(back.t).toHaveLength(n)
    expect(back.values[3][5]).toBeCloseTo(values[3 * n + 5], 12)
  })

  it('records events and logs', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    s.addEvent(runs[0].id, 1500, 'link-down', { switch: 'spine0', port: 2 })
    s.addLog(runs[0].id, 'h1', 'iperf started')
    expect(s.listEvents(runs[0].id).at(-1)).toMatchObject({ tNs: 1500, kind: 'link-down', detail: { switch: 'spine0', port: 2 } })
  })
})

describe('transactions', () => {
  it('a failing transaction writes nothing', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    expect(() =>
      s.transaction(() => {
        s.createExperiment({ name: 'ghost', yaml: '', spec: {}, file: null, tags: [] })
        s.setRunStatus(runs[0].id, 'running')
        s.insertFlows(runs[0].id, { src: [1], dst: [2], sizeBytes: [3], startNs: [4], finishNs: [5] })
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(s.listExperiments().map((e) => e.name)).toEqual(['quickstart'])
    expect(s.getRun(runs[0].id)?.status).toBe('queued')
    expect(s.listFlows(runs[0].id)).toEqual([])
    expect(s.listEvents(runs[0].id)).toHaveLength(1)
  })

  it('a failing batch insert writes nothing', () => {
    const s = open()
    const { runs } = experimentWithRuns(s)
    expect(() =>
      s.createRuns(runs[0].experimentId, 'sim', 'o', [
        { scheme: 'ecmp', load: 0.1, seed: 1, params: {} },
        { scheme: 'ecmp', load: 0.1, seed: 1, params: undefined as unknown as Record<string, unknown> },
        { scheme: null as unknown as string, load: 0.1, seed: 1, params: {} },
      ]),
    ).toThrow(/NOT NULL/)
    expect(s.listRuns()).toHaveLength(2)
  })
})

// A run's log as the GUI reads it: store.listLogs and the contract's runs.logs.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { methods } from '../../src-main/contract'
import { fabricHandlers } from '../../src-main/core/handlers/fabric'
import { openStore, type Store } from '../../src-main/core/store'

let dir: string
let store: Store

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'p4lab-runlog-'))
  store = openStore(join(dir, 'lab.db'))
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

function twoRuns() {
  const e = store.createExperiment({ name: 'x', yaml: 'name: x\n', spec: {}, file: null, tags: [] })
  return store.createRuns(e.id, 'sim', 'pid:1', [
    { scheme: 'ecmp', load: 0.3, seed: 1, params: {} },
    { scheme: 'rps', load: 0.3, seed: 1, params: {} },
  ])
}

describe('store.listLogs', () => {
  it('reads a run’s lines oldest first, with source and wall clock, and no other run’s', () => {
    const [a, b] = twoRuns()
    store.addLog(a.id, 'orchestrator', 'step check: started')
    store.addLog(b.id, 'orchestrator', 'other run')
    store.addLog(a.id, 'tor0', 'simple_switch up')
    store.addLog(a.id, 'orchestrator', 'step check: failed: connect ECONNREFUSED')
    const rows = store.listLogs(a.id)
    expect(rows.map((r) => [r.source, r.line])).toEqual([
      ['orchestrator', 'step check: started'],
      ['tor0', 'simple_switch up'],
      ['orchestrator', 'step check: failed: connect ECONNREFUSED'],
    ])
    for (const r of rows) expect(new Date(r.at).toISOString()).toBe(r.at)
    expect(store.listLogs(b.id).map((r) => r.line)).toEqual(['other run'])
    expect(store.listLogs(9999)).toEqual([])
  })

  it('keeps the newest lines with a limit, still oldest first', () => {
    const [a] = twoRuns()
    for (let i = 0; i < 10; i++) store.addLog(a.id, i % 2 ? 'h1' : 'h0', `line ${i}`)
    expect(store.listLogs(a.id, { limit: 3 }).map((r) => r.line)).toEqual(['line 7', 'line 8', 'line 9'])
    expect(store.listLogs(a.id, { limit: 50 })).toHaveLength(10)
  })
})

describe('runs.logs', () => {
  it('returns {t, source, line} as the contract says, and not-found for an unknown run', async () => {
    const [a] = twoRuns()
    store.addLog(a.id, 'orchestrator', 'step build: started')
    store.addLog(a.id, 'p4c', 'warning: x')
    const h = fabricHandlers(store)
    const res = await h['runs.logs']({ id: a.id, limit: 1 })
    expect(methods['runs.logs'].res.parse(res)).toEqual(res)
    expect(res).toEqual([{ t: expect.any(String), source: 'p4c', line: 'warning: x' }])
    expect((await h['runs.logs']({ id: a.id })).map((l) => l.source)).toEqual(['orchestrator', 'p4c'])
    await expect(h['runs.logs']({ id: 9999 })).rejects.toThrow(/run/)
    expect(() => methods['runs.logs'].req.parse({ id: a.id, limit: 0 })).toThrow()
    expect(() => methods['runs.logs'].req.parse({ id: a.id, extra: 1 })).toThrow()
  })
})

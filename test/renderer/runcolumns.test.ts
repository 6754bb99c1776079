// The runs table's column model: available and shown columns, add/hide/reorder kept per
// experiment, sort with pins on top, group with mean and band, and "diff only".
import { describe, expect, it } from 'vitest'
import type { Run } from '@contract/index'
import {
  DEFAULT_COLUMNS,
  addColumn,
  availableColumns,
  defaultState,
  diffOnlyColumns,
  differingColumns,
  fieldsOfRun,
  groupRows,
  hiddenColumns,
  hideColumn,
  loadColumnState,
  loadPins,
  meanBand,
  moveColumn,
  placeColumn,
  saveColumnState,
  savePins,
  sortRows,
  visibleColumns,
  type RunRowData,
} from '../../src-renderer/src/lib/runcolumns'

const FIELDS = [
  { name: 'id', group: 'run' as const },
  { name: 'scheme', group: 'run' as const },
  { name: 'load', group: 'run' as const },
  { name: 'seed', group: 'run' as const },
  { name: 'status', group: 'run' as const },
  { name: 'topology', group: 'spec' as const },
  { name: 'flows', group: 'spec' as const },
  { name: 'flowletGapNs', group: 'param' as const },
  { name: 'hash.program', group: 'hash' as const },
  { name: 'hash.topology', group: 'hash' as const },
  { name: 'hash.config', group: 'hash' as const },
  { name: 'mean', group: 'metric' as const },
  { name: 'p99', group: 'metric' as const },
  { name: 'small.p99', group: 'metric' as const },
]

const row = (id: number, f: Record<string, string | number | null>): RunRowData => ({ id, fields: { id, ...f } })

class MemoryStorage {
  data = new Map<string, string>()
  getItem(k: string) {
    return this.data.get(k) ?? null
  }
  setItem(k: string, v: string) {
    this.data.set(k, v)
  }
}

describe('columns', () => {
  it('offers every field plus the live columns, grouped, with the data-col names the tests know', () => {
    const all = availableColumns(FIELDS)
    const keys = all.map((c) => c.key)
    for (const k of ['flowletGapNs', 'hash.program', 'small.p99', 'progress', 'wall']) expect(keys).toContain(k)
    expect(all.find((c) => c.key === 'mean')!.col).toBe('meanFct')
    expect(all.find((c) => c.key === 'flowletGapNs')!.format).toBe('ns')
    expect(all.find((c) => c.key === 'hash.config')!.format).toBe('hash')
    // Groups in order: run, live, spec, param, hash, metric.
    expect(keys.indexOf('progress')).toBeLessThan(keys.indexOf('topology'))
    expect(keys.indexOf('hash.config')).toBeLessThan(keys.indexOf('mean'))
  })

  it('adds, hides and reorders, keeping id first, and skips shown keys that are not available', () => {
    const all = availableColumns(FIELDS)
    let s = defaultState()
    expect(visibleColumns(all, s).map((c) => c.key)).toEqual(DEFAULT_COLUMNS)
    s = addColumn(s, 'hash.program')
    s = addColumn(s, 'hash.program')
    expect(s.shown.filter((k) => k === 'hash.program').length).toBe(1)
    s = hideColumn(s, 'progress')
    s = hideColumn(s, 'id')
    expect(s.shown).toContain('id')
    s = moveColumn(s, 'hash.program', -100)
    expect(visibleColumns(all, s).map((c) => c.key).slice(0, 3)).toEqual(['id', 'hash.program', 'scheme'])
    s = moveColumn(s, 'scheme', 1)
    expect(visibleColumns(all, s).map((c) => c.key).slice(0, 4)).toEqual(['id', 'hash.program', 'load', 'scheme'])
    s = placeColumn(s, 'wall', 'load')
    expect(visibleColumns(all, s).map((c) => c.key).slice(0, 4)).toEqual(['id', 'hash.program', 'wall', 'load'])
    expect(hiddenColumns(all, s).map((c) => c.key)).toContain('progress')
    expect(visibleColumns(all, addColumn(s, 'noSuchParam')).map((c) => c.key)).not.toContain('noSuchParam')
  })

  it('persists columns and pins per experiment, and survives damaged entries', () => {
    const st = new MemoryStorage()
    saveColumnState(st, 7, { shown: ['id', 'mean'] })
    savePins(st, 7, [3, 5])
    expect(loadColumnState(st, 7)).toEqual({ shown: ['id', 'mean'] })
    expect(loadColumnState(st, 8)).toEqual(defaultState())
    expect(loadPins(st, 7)).toEqual([3, 5])
    st.setItem('p4lab.runs.columns.9', '{not json')
    st.setItem('p4lab.runs.pins.9', '"x"')
    expect(loadColumnState(st, 9)).toEqual(defaultState())
    expect(loadPins(st, 9)).toEqual([])
  })
})

describe('rows', () => {
  const rows = [row(1, { scheme: 'ecmp', mean: 30 }), row(2, { scheme: 'rps', mean: 10 }), row(3, { scheme: 'hula', mean: null }), row(4, { scheme: 'conga', mean: 20 })]

  it('sorts by a field, values before blanks either way, pinned runs on top', () => {
    expect(sortRows(rows, 'mean', 1).map((r) => r.id)).toEqual([2, 4, 1, 3])
    expect(sortRows(rows, 'mean', -1).map((r) => r.id)).toEqual([1, 4, 2, 3])
    expect(sortRows(rows, 'mean', 1, new Set([1, 3])).map((r) => r.id)).toEqual([1, 3, 2, 4])
    expect(sortRows(rows, 'scheme', 1).map((r) => r.fields.scheme)).toEqual(['conga', 'ecmp', 'hula', 'rps'])
  })

  it('groups by a field with the mean and min–max of each column', () => {
    const g = groupRows([row(1, { scheme: 'a', mean: 10 }), row(2, { scheme: 'b', mean: 5 }), row(3, { scheme: 'a', mean: 30 }), row(4, { scheme: 'a', mean: null })], 'scheme', ['mean'])
    expect(g.map((x) => x.value)).toEqual(['a', 'b'])
    expect(g[0].rows.map((r) => r.id)).toEqual([1, 3, 4])
    expect(g[0].bands.mean).toEqual({ n: 2, mean: 20, lo: 10, hi: 30 })
    expect(g[1].bands.mean).toEqual({ n: 1, mean: 5, lo: 5, hi: 5 })
    expect(meanBand([null, undefined, 'x'])).toBeNull()
  })

  it('"diff only" keeps the parameters (hashes included) that differ, never metrics, ids or statuses', () => {
    const all = availableColumns(FIELDS)
    const shown = [
      row(1, { scheme: 'ecmp', load: 0.3, seed: 1, status: 'done', topology: 'leaf-spine', 'hash.program': 'aa', 'hash.topology': 't', 'hash.config': 'c', mean: 1 }),
      row(2, { scheme: 'rps', load: 0.3, seed: 1, status: 'failed', topology: 'leaf-spine', 'hash.program': 'bb', 'hash.topology': 't', 'hash.config': 'c', mean: 2 }),
    ]
    expect(differingColumns(all, shown).map((c) => c.key)).toEqual(['scheme', 'hash.program'])
    // A parameter one run has and the other lacks differs.
    expect(differingColumns(all, [shown[0], row(3, { ...shown[0].fields, flowletGapNs: 5 })]).map((c) => c.key)).toEqual(['flowletGapNs'])
    const cols = diffOnlyColumns(all, defaultState(), shown).map((c) => c.key)
    expect(cols.slice(0, 3)).toEqual(['id', 'scheme', 'hash.program'])
    expect(cols).toContain('mean')
    expect(cols).toContain('status')
    expect(cols).not.toContain('load')
    expect(cols).not.toContain('topology')
  })

  it('derives a live run\'s fields until its record arrives', () => {
    const run: Run = {
      id: 9, experimentId: 1, experimentName: 'x', target: 'sim', scheme: 'hula', load: 0.5, seed: 2, params: { flowletGapNs: 100000, obj: { a: 1 } }, status: 'done',
      createdAt: '', startedAt: null, finishedAt: null, error: null,
      stats: { flows: 10, finished: 9, meanNs: 5, p50Ns: 4, p99Ns: 9, smallMeanNs: 3, largeMeanNs: null }, counters: { drops: 7 }, completion: null, revision: 1, stale: false, tags: [], notes: '', setAside: null,
    }
    expect(fieldsOfRun(run)).toMatchObject({ id: 9, scheme: 'hula', load: 0.5, seed: 2, status: 'done', mean: 5, p99: 9, 'large.mean': null, drops: 7, retransmits: null, finished: 9, flowletGapNs: 100000, obj: '{"a":1}' })
  })
})

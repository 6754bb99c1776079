// An experiment whose BMv2 runs' testbed was removed (or renamed) since still exports what
// those runs built from: the testbed's kind comes from the runs' own facts, not from a lookup
// that finds nothing and took the runs for simulator runs (no P4 sources, no control plane).
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { exportExperiment, importArchive } from '../../src-main/core/archive'
import { packageRoot } from '../../src-main/core/paths'
import { specOf } from '../helpers/core'
import { openStore } from '../../src-main/core/store'
import { t as listTar, x as extractTar } from 'tar'

const YAML = `name: gone
testbed: lab
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 1Gbps, fabricLink: 1Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 4 }
seeds: [1]
`

const dir = mkdtempSync(join(tmpdir(), 'p4lab-gone-'))
const store = openStore(join(dir, 'g.db'))
afterAll(() => store.close())

it('exports the P4 sources and control plane of runs on a testbed no longer stored, and says it is gone', async () => {
  const tb = store.createTestbed({ name: 'lab', kind: 'bmv2', settings: {}, hosts: [{ name: 'h1', address: '192.0.2.1', port: 22, user: 'root', auth: 'agent', keyFile: null, role: 'switch-host' }] })
  const exp = store.createExperiment({ name: 'gone', yaml: YAML, spec: specOf(YAML, { baseDir: dir, testbeds: ['lab'] }), file: null, tags: [] })
  const [run] = store.createRuns(exp.id, 'lab', 'test:1', [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
  store.setRunStatus(run.id, 'running')
  store.insertFlows(run.id, { src: [0], dst: [2], sizeBytes: [1000], startNs: [0], finishNs: [5000] })
  store.setRunResults(run.id, { stats: { flows: 1, finished: 1, meanNs: 5000, p50Ns: 5000, p99Ns: 5000, smallMeanNs: 5000, largeMeanNs: null }, counters: {}, facts: { target: 'bmv2', program: 'ecmp/v1model/ecmp.p4' } })
  store.setRunStatus(run.id, 'done')
  store.deleteTestbed(tb.id)

  const out = join(dir, 'gone.tar.gz')
  await exportExperiment({ store, experimentId: exp.id, out, dataDir: dir, p4Dir: join(packageRoot(), 'p4') })
  const entries: string[] = []
  await listTar({ file: out, onReadEntry: (e) => void entries.push(e.path) })
  expect(entries).toContain('p4/ecmp/v1model/ecmp.p4')
  expect(entries.filter((e) => e.startsWith('controlplane/bmv2-ecmp/'))).toHaveLength(4)
  const x = mkdtempSync(join(dir, 'x-'))
  await extractTar({ file: out, cwd: x })
  // And it imports elsewhere, its run as it was.
  const other = openStore(join(dir, 'other.db'))
  try {
    const r = await importArchive({ file: out, store: other, dataDir: dir })
    expect(other.getRun(r.runIds[run.id])).toMatchObject({ target: 'lab', status: 'done', facts: { target: 'bmv2' } })
  } finally {
    other.close()
  }
  expect(JSON.parse(readFileSync(join(x, 'testbed/lab.json'), 'utf8'))).toEqual({ name: 'lab', kind: 'bmv2', stored: false, note: 'no longer stored here (removed or renamed since its runs): its kind is from the runs\' facts, its hosts and settings are not known' })
})

// The control-plane files an archive holds for BMv2 runs are those of the fabric each run ran
// on (its own record), not of the experiment's text at export: an edit since (another leaf)
// had them describe a fabric the runs never deployed.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { t as listTar } from 'tar'
import { afterAll, expect, it } from 'vitest'
import { exportExperiment } from '../../src-main/core/archive'
import { packageRoot } from '../../src-main/core/paths'
import { specOf } from '../helpers/core'
import { openStore, type Store } from '../../src-main/core/store'

const YAML = `name: edited-fabric
testbed: lab
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 1Gbps, fabricLink: 1Gbps }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 4 }
seeds: [1]
`

const dir = mkdtempSync(join(tmpdir(), 'p4lab-cp-record-'))
const store = openStore(join(dir, 'c.db'))
afterAll(() => store.close())

function spec(yaml: string) {
  return specOf(yaml, { baseDir: dir, testbeds: ['lab'] })
}

function doneRun(s: Store, experimentId: number, seed: number): number {
  const [run] = s.createRuns(experimentId, 'lab', 'test:1', [{ scheme: 'ecmp', load: 0.3, seed, params: {} }])
  s.setRunStatus(run.id, 'running')
  s.insertFlows(run.id, { src: [0], dst: [2], sizeBytes: [1000], startNs: [0], finishNs: [5000] })
  s.setRunResults(run.id, { stats: { flows: 1, finished: 1, meanNs: 5000, p50Ns: 5000, p99Ns: 5000, smallMeanNs: 5000, largeMeanNs: null }, counters: {}, facts: { target: 'bmv2', program: 'ecmp/v1model/ecmp.p4' } })
  s.setRunStatus(run.id, 'done')
  return run.id
}

async function entries(file: string): Promise<string[]> {
  const out: string[] = []
  await listTar({ file, onReadEntry: (e) => void out.push(e.path) })
  return out.filter((p) => p.startsWith('controlplane/')).sort()
}

it('renders the fabric the runs ran on, one folder per revision when they ran on different ones', async () => {
  store.createTestbed({ name: 'lab', kind: 'bmv2', settings: {}, hosts: [{ name: 'h1', address: '192.0.2.1', port: 22, user: 'root', auth: 'agent', keyFile: null, role: 'switch-host' }] })
  const exp = store.createExperiment({ name: 'edited-fabric', yaml: YAML, spec: spec(YAML), file: null, tags: [] })
  doneRun(store, exp.id, 1)
  const three = YAML.replace('leaves: 2', 'leaves: 3')
  store.updateExperiment(exp.id, { name: 'edited-fabric', yaml: three, spec: spec(three), tags: [] })

  const only = join(dir, 'only.tar.gz')
  await exportExperiment({ store, experimentId: exp.id, out: only, dataDir: dir, p4Dir: join(packageRoot(), 'p4') })
  expect(await entries(only)).toEqual(['leaf0', 'leaf1', 'spine0', 'spine1'].map((s) => `controlplane/bmv2-ecmp/${s}.cli`))

  doneRun(store, exp.id, 2)
  const both = join(dir, 'both.tar.gz')
  await exportExperiment({ store, experimentId: exp.id, out: both, dataDir: dir, p4Dir: join(packageRoot(), 'p4') })
  expect(await entries(both)).toEqual([
    ...['leaf0', 'leaf1', 'spine0', 'spine1'].map((s) => `controlplane/bmv2-ecmp/rev-1/${s}.cli`),
    ...['leaf0', 'leaf1', 'leaf2', 'spine0', 'spine1'].map((s) => `controlplane/bmv2-ecmp/rev-2/${s}.cli`),
  ])
})

// store.adoptSlurmSubmission on a real SQLite file: the job of a submission cut off before its
// record is recorded against its runs, which are queued again and owned by the job, only while
// the submission is still there and each run is as the cut-off left it (queued, or interrupted by
// the next open) with no later run of its cell; else nothing changes and why is returned.
import { describe, expect, it } from 'vitest'
import { hostname } from 'node:os'
import { ownerIsAlive } from '../../src-main/core/owner'
import type { Store } from '../../src-main/core/store'
import { tempCore } from '../helpers/core'

const YAML = `name: adopt
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 30 }
seeds: [1, 2]
`
// A process of another boot: gone.
const GONE = `${hostname()}:1:another-boot:1`
const CELLS = [1, 2].map((seed) => ({ scheme: 'ecmp', load: 0.3, seed, params: {} }))

/** Runs and a submission as a p4lab killed while sbatch ran leaves them, then marked interrupted as the next open does. */
function cutOff(): { store: Store; runIds: number[]; experimentId: number } {
  const { core, dir } = tempCore(1)
  const store = core.opts.store
  const exp = core.findOrCreateExperiment(YAML, `${dir}/adopt.yaml`)
  const runIds = store.createRuns(exp.id, 'sim', GONE, CELLS).map((r) => r.id)
  store.addSlurmSubmission({ experimentId: exp.id, jobName: 'p4lab-adopt-0123abcd', cluster: { kind: 'local' }, sweepDir: `${dir}/sweep`, runIds, owner: GONE })
  expect(store.markInterruptedRuns(ownerIsAlive)).toEqual(runIds)
  return { store, runIds, experimentId: exp.id }
}

describe('adopting the job of a cut-off submission', () => {
  it('records the job against its runs, queues them again owned by the job, and says so in their events; a second adoption finds it taken', () => {
    const { store, runIds, experimentId } = cutOff()
    const [sub] = store.listSlurmSubmissions()
    const took = store.adoptSlurmSubmission(sub, '4242', 'slurm this machine')
    expect(took).toMatchObject({ job: { jobId: '4242', experimentId, sweepDir: sub.sweepDir, endedAt: null } })
    expect(store.listSlurmSubmissions()).toEqual([])
    for (const [i, id] of runIds.entries()) {
      const run = store.getRun(id)!
      expect([run.status, run.owner, run.error, run.finishedAt]).toEqual(['queued', 'slurm this machine', null, null])
      expect(store.slurmTaskOfRun(id)).toMatchObject({ jobId: '4242', arrayIndex: i, state: 'SUBMITTED', settled: false })
      expect(store.listEvents(id).filter((e) => e.kind === 'status').at(-1)!.detail).toEqual({ from: 'interrupted', to: 'queued', error: null, adoptedJob: '4242' })
    }
    // Owned by the job: a later open does not mark them interrupted again.
    expect(store.markInterruptedRuns(ownerIsAlive)).toEqual([])
    expect(store.adoptSlurmSubmission(sub, '4242', 'slurm this machine')).toEqual({ refused: 'another p4lab took it first' })
    expect(store.listSlurmJobs()).toHaveLength(1)
  })

  it.each([
    ['a run in the trash', (s: Store, ids: number[]) => s.setAside('runs', [ids[1]], 'deleted'), (ids: number[]) => `run ${ids[1]} is in the trash`],
    ['a cell run again since', (s: Store, ids: number[]) => s.createRuns(s.getRun(ids[0])!.experimentId, 'sim', GONE, [CELLS[0]]), (ids: number[]) => `its cell ecmp load=0.3 seed=1 ran again since (run ${ids[1] + 1})`],
  ])('is refused with %s, and nothing changes', (_what, change, why) => {
    const { store, runIds } = cutOff()
    change(store, runIds)
    const [sub] = store.listSlurmSubmissions()
    expect(store.adoptSlurmSubmission(sub, '4242', 'slurm this machine')).toEqual({ refused: why(runIds) })
    expect(store.listSlurmSubmissions()).toEqual([sub])
    expect(store.listSlurmJobs()).toEqual([])
    expect(runIds.map((id) => store.getRun(id)!.status)).toEqual(['interrupted', 'interrupted'])
  })
})

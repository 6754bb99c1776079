import { beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { createNodeCore, type Core } from '../../src-main/core'
import { KnownHosts, p4labKnownHosts } from '../../src-main/core/ssh'
import { FileSecretStore } from '../../src-main/core/secrets'
import { SshShell, SlurmSweeps, type SlurmProgress } from '../../src-main/core/slurm'
import type { ExperimentSpec } from '../../src-main/core/spec'
import type { Store } from '../../src-main/core/store'
import { sweepMatrix } from '../../src-main/core/sweeps'
import { useSlurmLogin } from '../helpers/slurm'

// A sweep submitted through the test sshd to a real one-node Slurm cluster, followed and merged;
// compared with the same sweep run locally, flow by flow. No mocks: sbatch, squeue, scontrol,
// scancel and the cell runner on the "node" are the real ones.
const YAML = `name: slurm-small
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.5], flows: 40 }
seeds: [1, 2]
`

const flowsKey = (store: Store, runId: number) => JSON.stringify(store.listFlows(runId).map((f) => [f.src, f.dst, f.sizeBytes, f.startNs, f.finishNs, f.fctNs]))
const cellOf = (r: { scheme: string; load: number; seed: number }) => `${r.scheme}/${r.load}/${r.seed}`

describe('a sweep on Slurm through SSH', { timeout: 240_000 }, () => {
  const lab = useSlurmLogin('slurm-test')
  let knownHosts: KnownHosts
  let secrets: FileSecretStore

  beforeAll(async () => {
    knownHosts = p4labKnownHosts(lab.dir)
    await knownHosts.trust(lab.sshd.host, lab.sshd.port, lab.sshd.hostKey())
    secrets = new FileSecretStore(join(lab.dir, 'secrets.json'))
  })

  const shell = () => new SshShell({ kind: 'ssh', host: lab.sshd.host, port: lab.sshd.port, user: lab.sshd.user, keyFile: lab.sshd.plainKey }, { knownHosts, secrets })
  const open = (name: string): { core: Core; store: Store } => {
    const core = createNodeCore({ dbPath: join(lab.dir, `${name}.db`), baseDir: lab.dir, dataDir: lab.dir })
    core.start()
    return { core, store: core.opts.store }
  }
  const experiment = (core: Core) => {
    const exp = core.findOrCreateExperiment(YAML, join(lab.dir, 'slurm-small.yaml'))
    return { exp, spec: exp.spec as ExperimentSpec }
  }
  const cells = (spec: ExperimentSpec) => spec.schemes.flatMap((scheme) => spec.workload.loads.flatMap((load) => spec.seeds.map((seed) => ({ scheme, load, seed }))))

  it('merges every cell, identical flow by flow to the same sweep run locally, and survives the store being reopened', async () => {
    const local = open('local')
    const { exp: lexp } = experiment(local.core)
    const localRuns = local.core.runExperiment(lexp.id)
    await local.core.orchestrator.wait(localRuns.map((r) => r.id))
    const reference = new Map(localRuns.map((r) => [cellOf(r), flowsKey(local.store, r.id)]))
    expect(localRuns.map((r) => local.store.getRun(r.id)!.status)).toEqual(Array(8).fill('done'))
    local.store.close()

    // Submit, then close everything as a quitting app would; a new process follows from the store.
    let remote = open('remote')
    const { exp, spec } = experiment(remote.core)
    let sh = shell()
    const sub = await new SlurmSweeps({ store: remote.store, shell: sh }).submit(exp, spec, cells(spec), { workDir: join(lab.cluster.work, 'p4lab'), partition: lab.cluster.partition, maxParallel: 2, time: '10' })
    expect(sub.runs).toHaveLength(8)
    expect(sub.runnerUploaded).toBe(true)
    sh.close()
    remote.store.close()

    remote = open('remote')
    expect(remote.store.listRuns({ experimentId: exp.id }).map((r) => r.status)).not.toContain('interrupted')
    const [job] = remote.store.listSlurmJobs({ open: true })
    expect(job.jobId).toBe(sub.job.jobId)
    sh = shell()
    const sweeps = new SlurmSweeps({ store: remote.store, shell: sh })
    const seen = new Set<string>()
    const end = await sweeps.follow(job.id, { intervalMs: 300, onProgress: (p) => Object.keys(p.states).forEach((s) => seen.add(s)) })
    expect(end.ended).toBe(true)
    expect(end.states).toEqual({ COMPLETED: 8 })
    expect(lab.cluster.queued()).toEqual([])
    const runs = remote.store.listRuns({ experimentId: exp.id })
    expect(runs.map((r) => r.status)).toEqual(Array(8).fill('done'))
    for (const r of runs) {
      expect(flowsKey(remote.store, r.id), cellOf(r)).toBe(reference.get(cellOf(r)))
      expect(r.facts?.runner).toBe('slurm')
      expect(remote.store.listSeries(r.id).length).toBeGreaterThan(0)
    }
    // Merging again changes nothing.
    const again = await sweeps.refresh(job.id)
    expect(again.ended).toBe(true)
    expect(remote.store.listFlows(runs[0].id)).toHaveLength(40)

    // A second sweep reuses the runner already on the cluster (same content hash).
    const second = await sweeps.submit(exp, spec, cells(spec).slice(0, 1), { workDir: join(lab.cluster.work, 'p4lab'), hold: true })
    expect(second.runnerUploaded).toBe(false)
    await sweeps.cancel(second.job.id)
    sh.close()
    remote.store.close()
  })

  it('merges a run with the text it ran, though the experiment was edited while its job waited', async () => {
    // The reference: the cell run here, with the text as submitted.
    const local = open('edited-local')
    const { exp: lexp } = experiment(local.core)
    const [cell] = cells(lexp.spec as ExperimentSpec)
    const [localRun] = local.core.orchestrator.enqueue(lexp.id, lexp.spec as ExperimentSpec, [{ ...cell, params: {} }])
    await local.core.orchestrator.wait([localRun.id])
    const reference = local.store.getRun(localRun.id)!
    expect(reference.status).toBe('done')
    local.store.close()

    const { core, store } = open('edited')
    const { exp, spec } = experiment(core)
    const sh = shell()
    const sweeps = new SlurmSweeps({ store, shell: sh })
    const { job, runs } = await sweeps.submit(exp, spec, [cell], { workDir: join(lab.cluster.work, 'p4lab'), hold: true })
    // Another fabric delay and flow count: another ideal FCT, so another slowdown, for runs of this text.
    core.findOrCreateExperiment(YAML.replace('linkDelay: 1us', 'linkDelay: 40us').replace('flows: 40', 'flows: 80'), join(lab.dir, 'slurm-small.yaml'))
    expect(store.getExperiment(exp.id)!.revision).toBe(2)
    lab.cluster.run(['/usr/bin/scontrol', 'release', job.jobId])
    const end = await sweeps.follow(job.id, { intervalMs: 300 })
    expect(end.ended).toBe(true)
    const merged = store.getRun(runs[0].id)!
    expect(merged).toMatchObject({ status: 'done', revision: 1, stale: true })
    expect(merged.stats).toEqual(reference.stats)
    expect(merged.completion).toEqual(reference.completion)
    sh.close()
    store.close()
  })

  it('cancels a sweep midway: nothing left in squeue, the cells not run show cancelled', async () => {
    const { core, store } = open('cancel')
    const { exp, spec } = experiment(core)
    const sh = shell()
    const sweeps = new SlurmSweeps({ store, shell: sh })
    const { job } = await sweeps.submit(exp, spec, cells(spec), { workDir: join(lab.cluster.work, 'p4lab'), hold: true })
    // Only task 0 may start: the sweep is then midway whatever the machine's speed.
    lab.cluster.run(['/usr/bin/scontrol', 'release', `${job.jobId}_0`])
    let p: SlurmProgress
    do {
      await new Promise((r) => setTimeout(r, 300))
      p = await sweeps.refresh(job.id)
    } while (!p.tasks[0].settled)
    expect(p.tasks[0].runStatus).toBe('done')
    expect(lab.cluster.queued().length).toBeGreaterThan(0)
    p = await sweeps.cancel(job.id)
    expect(lab.cluster.queued()).toEqual([])
    expect(p.ended).toBe(true)
    const runs = store.listRuns({ experimentId: exp.id })
    expect(runs.map((r) => r.status)).toEqual(['done', ...Array(7).fill('cancelled')])
    expect(p.tasks.slice(1).map((t) => t.state)).toEqual(Array(7).fill('CANCELLED'))
    // The run matrix says the same, cell by cell.
    const matrix = sweepMatrix(store, exp.id)
    expect(matrix.counts.cancelled).toBe(7)
    expect(matrix.cells.map((c) => c.slurm?.state).sort()).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED', 'COMPLETED'])
    sh.close()
    store.close()
  })

  it('marks a failing task and a tampered bundle failed with the reason, and merges the rest', async () => {
    const { core, store } = open('bad')
    const { exp, spec } = experiment(core)
    const sh = shell()
    const sweeps = new SlurmSweeps({ store, shell: sh })
    const { job, runs } = await sweeps.submit(exp, spec, cells(spec), { workDir: join(lab.cluster.work, 'p4lab'), hold: true })
    // A bad cell: its configuration names a scheme the simulator does not have.
    const jobFile = join(store.getSlurmJob(job.id)!.sweepDir, 'job.json')
    const content = JSON.parse(readFileSync(jobFile, 'utf8'))
    content.cells[1].config.scheme = 'no-such-scheme'
    writeFileSync(jobFile, JSON.stringify(content))
    lab.cluster.run(['/usr/bin/scontrol', 'release', job.jobId])
    let p: SlurmProgress
    do {
      await new Promise((r) => setTimeout(r, 300))
      p = await sweeps.refresh(job.id, { merge: false })
    } while (p.tasks.some((t) => !['COMPLETED', 'FAILED'].includes(t.state)))
    // One finished bundle changed after the task wrote it.
    const flows = join(store.getSlurmJob(job.id)!.sweepDir, 'results', '2', 'flows.json')
    writeFileSync(flows, readFileSync(flows, 'utf8').replace(/"finishNs":\[(\d)/, (_m, d: string) => `"finishNs":[${(Number(d) + 1) % 10}`))
    p = await sweeps.refresh(job.id)
    expect(p.ended).toBe(true)
    const status = runs.map((r) => store.getRun(r.id)!)
    expect(status.map((r) => r.status)).toEqual(['done', 'failed', 'failed', 'done', 'done', 'done', 'done', 'done'])
    expect(status[1].error).toMatch(/FAILED.*NonZeroExitCode.*exit 1:0.*no-such-scheme/)
    expect(status[2].error).toMatch(/result bundle refused: "flows.json": has sha256 [0-9a-f]{64}/)
    expect(store.listFlows(status[2].id)).toHaveLength(0)
    const failed = sweepMatrix(store, exp.id).cells.find((c) => c.runId === status[1].id)!
    expect(failed.slurm).toMatchObject({ job: job.jobId, task: 1, state: 'FAILED' })
    sh.close()
    store.close()
  })

  it('a task Slurm lists nowhere ends cancelled only when it left no log while Slurm lists others of its job; one of a job Slurm has forgotten ends failed', async () => {
    const { core, store } = open('lost')
    const { exp, spec } = experiment(core)
    const sh = shell()
    const sweeps = new SlurmSweeps({ store, shell: sh })
    const { job, runs } = await sweeps.submit(exp, spec, cells(spec).slice(0, 2), { workDir: join(lab.cluster.work, 'p4lab'), hold: true })
    const { sweepDir } = store.getSlurmJob(job.id)!
    // Task 1 cancelled while held (pending): Slurm then lists it nowhere, while it lists task 0.
    lab.cluster.run(['/usr/bin/scancel', `${job.jobId}_1`])
    expect(lab.cluster.run(['/usr/bin/scontrol', 'show', 'job', '-o', job.jobId])).not.toMatch(/ArrayTaskId=1\b/)
    // With a log it has started: nothing is concluded, it stays open.
    const log = join(sweepDir, 'logs', '1.out')
    writeFileSync(log, 'started\n')
    let p = await sweeps.refresh(job.id)
    expect(p.tasks.map((t) => [t.state, t.settled, t.runStatus])).toEqual([
      ['PENDING', false, 'queued'],
      ['UNKNOWN', false, 'queued'],
    ])
    // Without one, it never started: cancelled, saying why.
    rmSync(log)
    p = await sweeps.refresh(job.id)
    expect(p.tasks.map((t) => [t.state, t.settled, t.runStatus])).toEqual([
      ['PENDING', false, 'queued'],
      ['CANCELLED', true, 'cancelled'],
    ])
    expect(store.getRun(runs[1].id)!.error).toMatch(/removed from the queue before it started \(a pending task cancelled\): Slurm lists other tasks of the job but not this one, and it left no log and no result/)
    // A job Slurm knows nothing of (forgotten after MinJobAge, or its state lost): its task without
    // a log may have failed before its log was made, so it ends failed, not cancelled.
    const db = new Database(store.file)
    try {
      db.prepare('UPDATE slurm_jobs SET job_id = ? WHERE id = ?').run('999999', job.id)
    } finally {
      db.close()
    }
    p = await sweeps.refresh(job.id)
    expect(p.ended).toBe(true)
    expect(p.tasks.map((t) => [t.state, t.settled, t.runStatus])).toEqual([
      ['FAILED', true, 'failed'],
      ['CANCELLED', true, 'cancelled'],
    ])
    expect(store.getRun(runs[0].id)!.error).toMatch(/Slurm no longer lists the task and it left no result bundle/)
    lab.cluster.run(['/usr/bin/scancel', job.jobId])
    sh.close()
    store.close()
  })

  it("fails the runs with sbatch's reason when the cluster refuses the array", async () => {
    const { core, store } = open('refused')
    const { exp, spec } = experiment(core)
    const sh = shell()
    const sweeps = new SlurmSweeps({ store, shell: sh })
    await expect(sweeps.submit(exp, spec, cells(spec).slice(0, 2), { workDir: join(lab.cluster.work, 'p4lab'), partition: 'no-such-partition' })).rejects.toThrow(/could not submit the sweep.*sbatch exited 1.*invalid partition/is)
    const runs = store.listRuns({ experimentId: exp.id })
    expect(runs.map((r) => r.status)).toEqual(['failed', 'failed'])
    expect(runs[0].error).toMatch(/invalid partition/i)
    expect(store.listSlurmJobs()).toEqual([])
    // sbatch answered that it made nothing: no job for a later look to search for.
    expect(store.listSlurmSubmissions()).toEqual([])
    sh.close()
    store.close()
  })
})

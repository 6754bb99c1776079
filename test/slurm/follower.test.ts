import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { hostname } from 'node:os'
import { join } from 'node:path'
import type { SlurmJobView } from '../../src-main/contract'
import { createDispatch, createNodeCore, type Core } from '../../src-main/core'
import { LocalShell, SlurmSweeps } from '../../src-main/core/slurm'
import { useSlurmLogin } from '../helpers/slurm'

// The app's side of Slurm sweeps, through the real dispatch: a saved cluster reached through
// the test sshd with a passphrase-protected key (the passphrase in the secret store), checked
// (host key confirmed first), a sweep submitted and followed by the core's service, the app
// "closed" mid-sweep and a new core on the same database finishing it; then a cancel.
const YAML = `name: slurm-app
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.5], flows: 40 }
seeds: [1, 2]
`

describe('Slurm clusters and sweeps through the contract', { timeout: 300_000 }, () => {
  const lab = useSlurmLogin('slurm-app')

  const open = () => {
    const core = createNodeCore({ dbPath: join(lab.dir, 'app.db'), baseDir: lab.dir, dataDir: lab.dir, slurmIntervalMs: 500 })
    core.start()
    const dispatch = createDispatch(core.handlers)
    const call = async (method: string, params: unknown): Promise<any> => {
      const r = await dispatch(method, params)
      if (!r.ok) throw new Error(`${method}: ${r.error.code}: ${r.error.message}`)
      return r.result
    }
    const progress: SlurmJobView[] = []
    core.bus.subscribe((event, payload) => {
      if (event === 'slurm.progress') progress.push((payload as { job: SlurmJobView }).job)
    })
    return { core, call, dispatch, progress }
  }
  const close = async (core: Core) => {
    await core.slurm.stop()
    core.opts.store.close()
  }
  const runsOf = (core: Core, expId: number) => core.opts.store.listRuns({ experimentId: expId })

  it('saves, checks and trusts a cluster, follows a sweep across a reopened app, and cancels one', async () => {
    let app = open()
    // Bad input names the field; nothing is saved.
    const bad = await app.dispatch('clusters.save', { cluster: { name: 'lab', login: { kind: 'ssh', host: lab.sshd.host, port: 70000, user: lab.sshd.user, keyFile: lab.sshd.secretKey }, workDir: join(lab.cluster.work, 'app') } })
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.error.message).toMatch(/port.*1-65535/)
    expect(await app.call('clusters.list', {})).toEqual([])

    const saved = await app.call('clusters.save', {
      cluster: { name: 'lab', login: { kind: 'ssh', host: lab.sshd.host, port: lab.sshd.port, user: lab.sshd.user, keyFile: lab.sshd.secretKey }, workDir: join(lab.cluster.work, 'app'), partition: lab.cluster.partition, time: '10', passphrase: lab.sshd.keyPassphrase },
    })
    expect(saved).toMatchObject({ name: 'lab', label: `${lab.sshd.user}@${lab.sshd.host}:${lab.sshd.port}`, hasPassphrase: true, partition: lab.cluster.partition, time: '10' })

    // First contact: the key is shown, not trusted; a wrong fingerprint pins nothing.
    const first = await app.call('clusters.check', { name: 'lab' })
    expect(first.status).toBe('unknown-key')
    const fp = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(lab.sshd.dir, 'host_ed25519.pub')], { encoding: 'utf8' }).split(' ')[1]
    expect(first.hostKey.fingerprint).toBe(fp)
    const wrong = await app.dispatch('clusters.trust', { name: 'lab', fingerprint: `SHA256:${'A'.repeat(43)}` })
    expect(!wrong.ok && wrong.error.message).toMatch(/nothing was pinned/)
    expect((await app.call('clusters.check', { name: 'lab' })).status).toBe('unknown-key')
    await app.call('clusters.trust', { name: 'lab', fingerprint: fp })
    const checked = await app.call('clusters.check', { name: 'lab' })
    expect(checked.status).toBe('ok')
    expect(Object.fromEntries(checked.items.map((i: { name: string; ok: boolean }) => [i.name, i.ok]))).toEqual({ sbatch: true, squeue: true, sacct: true, scancel: true, 'node >= 20': true, 'shared work folder': true })
    expect(checked.ready).toBe(true)

    const exp = await app.call('experiments.create', { yaml: YAML })
    const sub = await app.call('slurm.submit', { experimentId: exp.id, cluster: 'lab', maxParallel: 2 })
    expect(sub.runIds).toHaveLength(8)
    expect(sub.job).toMatchObject({ tasks: 8, ended: false, cluster: `${lab.sshd.user}@${lab.sshd.host}:${lab.sshd.port}` })
    // The cluster's defaults went to sbatch.
    const info = lab.cluster.run(['scontrol', 'show', 'job', sub.job.jobId])
    expect(info).toMatch(new RegExp(`Partition=${lab.cluster.partition}\\b`))
    expect(info).toMatch(/TimeLimit=00:10:00/)
    expect(info).toMatch(/ArrayTaskThrottle=2/)

    // The app quits mid-sweep; the next one picks the job up from the store and merges it.
    await close(app.core)
    app = open()
    app.core.followSlurm()
    await expect.poll(() => runsOf(app.core, exp.id).map((r) => r.status).sort().join(','), { timeout: 240_000, interval: 500 }).toBe(Array(8).fill('done').join(','))
    const [job] = await app.call('slurm.jobs', { experimentId: exp.id })
    expect(job).toMatchObject({ ended: true, tasks: 8, settled: 8, states: { COMPLETED: 8 }, error: null })
    expect(app.progress.length).toBeGreaterThan(0)
    const matrix = await app.call('sweeps.matrix', { experimentId: exp.id })
    expect(matrix.cells.map((c: { slurm: { state: string } }) => c.slurm?.state)).toEqual(Array(8).fill('COMPLETED'))

    // Everything again, one task at a time, cancelled at once: nothing left in squeue, the cells not done are cancelled.
    const again = await app.call('slurm.submit', { experimentId: exp.id, cluster: 'lab', maxParallel: 1 })
    // Held at once, so the cancel meets tasks still pending however slow this machine is: without
    // it a busy machine's cancel arrived after all eight had run. A task already started is not
    // held (scontrol says so and exits non-zero); it may finish.
    try {
      lab.cluster.run(['/usr/bin/scontrol', 'hold', again.job.jobId])
    } catch {
      // the running task; the pending ones are held
    }
    const cancelled = await app.call('slurm.cancel', { experimentId: exp.id })
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0]).toMatchObject({ ended: true, settled: 8 })
    expect(lab.cluster.queued().filter((id) => id.startsWith(`${again.job.jobId}_`))).toEqual([])
    const statuses = again.runIds.map((id: number) => app.core.opts.store.getRun(id)!.status)
    expect(statuses.every((s: string) => s === 'done' || s === 'cancelled')).toBe(true)
    expect(statuses.filter((s: string) => s === 'cancelled').length).toBeGreaterThanOrEqual(7)
    await close(app.core)
  })

  it('cancels on starting the job of a submission whose p4lab was killed before recording it, its cell run again since (the cluster saved above)', async () => {
    const app = open()
    const store = app.core.opts.store
    // What such a p4lab leaves (core/slurm/sweep.ts): its runs and its submission in the store,
    // owned by a process that is gone (of another boot), and on the cluster a job of that name.
    const gone = `${hostname()}:1:another-boot:1`
    const exp = await app.call('experiments.create', { yaml: YAML.replace('name: slurm-app', 'name: slurm-cut') })
    const [run] = store.createRuns(exp.id, 'sim', gone, [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
    // The cell ran again since (a resume): the job is not adopted, or the cell would have a twin.
    const [again] = store.createRuns(exp.id, 'sim', gone, [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
    const jobName = 'p4lab-slurm-cut-0123abcd'
    const login = store.getCluster('lab')!.login
    store.addSlurmSubmission({ experimentId: exp.id, jobName, cluster: login, sweepDir: join(lab.cluster.work, 'app', 'cut'), runIds: [run.id], owner: gone })
    const jobId = lab.cluster.run(['sbatch', '--parsable', '--hold', `--job-name=${jobName}`, `--partition=${lab.cluster.partition}`, '--wrap', 'true']).trim().split(';')[0]
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=PENDING\b/)

    await app.core.slurm.followOpen()
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=CANCELLED\b/)
    expect(store.listSlurmSubmissions()).toEqual([])
    expect(store.listLogs(run.id).map((l) => [l.source, l.line])).toEqual([
      ['slurm', expect.stringMatching(new RegExp(`^Slurm job ${jobId} \\(${jobName}\\) on ${lab.sshd.user}@\\S+:${lab.sshd.port}, submitted for run\\(s\\) ${run.id} by a p4lab that ended before recording it: cancelled \\(scancel\\), not adopted: its cell ecmp load=0\\.3 seed=1 ran again since \\(run ${again.id}\\)$`))],
    ])
    await close(app.core)
  })
  it('two p4labs looking at a cut-off submission at once: one adopts its job, the other leaves it alone rather than cancelling the job just adopted', async () => {
    const app = open()
    const store = app.core.opts.store
    const gone = `${hostname()}:1:another-boot:1`
    const exp = await app.call('experiments.create', { yaml: YAML.replace('name: slurm-app', 'name: slurm-twice') })
    const runs = store.createRuns(exp.id, 'sim', gone, [{ scheme: 'ecmp', load: 0.3, seed: 1, params: {} }])
    const jobName = 'p4lab-slurm-twice-4567cdef'
    store.addSlurmSubmission({ experimentId: exp.id, jobName, cluster: { kind: 'local' }, sweepDir: join(lab.cluster.work, 'app', 'twice'), runIds: runs.map((r) => r.id), owner: gone })
    const jobId = lab.cluster.run(['sbatch', '--parsable', '--hold', `--job-name=${jobName}`, `--partition=${lab.cluster.partition}`, '--wrap', 'true']).trim().split(';')[0]
    // Both list the submission before either has adopted it, as the app and a command looking at once.
    const look = () => new SlurmSweeps({ store, shell: new LocalShell(lab.cluster.env) }).lookForCutOff({ adopt: true })
    const [a, b] = await Promise.all([look(), look()])
    expect([a.adopted, b.adopted].map((x) => x.map((j) => j.jobId)).sort()).toEqual([[], [jobId]])
    const other = (a.adopted.length ? b : a).lines
    expect(other).toEqual([expect.stringMatching(new RegExp(`^Slurm job ${jobId} \\(${jobName}\\) on this machine, submitted for run\\(s\\) ${runs[0].id} by a p4lab that ended before recording it: left to another p4lab, which looked at it at the same time$`))])
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=PENDING\b/)
    expect(store.listSlurmJobs({ experimentId: exp.id }).map((j) => j.jobId)).toEqual([jobId])
    expect(store.getRun(runs[0].id)!.status).toBe('queued')
    lab.cluster.run(['scancel', jobId])
    await close(app.core)
  })
})

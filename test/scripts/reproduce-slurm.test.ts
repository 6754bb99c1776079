// `npm run reproduce -- --on slurm` (reproduce-slurm.ts) on a real one-node Slurm cluster
// (test/helpers/slurm.ts) and tiny templates: the runs go out as one job array per template,
// merge into the reproduce database, are recorded in the ledger with their node's CPU time and
// reused by a later invocation that runs nothing, with or without Slurm; a task that fails on
// the cluster leaves its run not done, named on the page and never reused; Ctrl-C cancels the
// arrays. And the flags: `p4lab run --on slurm`'s, refused with a message naming the fault.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeCore, type Core } from '../../src-main/core'
import { LocalShell, type ClusterShell } from '../../src-main/core/slurm'
import type { Claim } from '../../scripts/reproduce-claims'
import { Ledger } from '../../scripts/reproduce-ledger'
import { reproduce, type ReproduceOptions } from '../../scripts/reproduce-run'
import { Interrupted } from '../../scripts/reproduce-runner'
import { SlurmPlace, reproduceSlurm } from '../../scripts/reproduce-slurm'
import { tempCore } from '../helpers/core'
import { startSlurm, type SlurmCluster } from '../helpers/slurm'
import { ROOT } from '../helpers/start'

const TOPO = 'topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }'
const yaml = (name: string, flows: number) => `name: ${name}\ndescription: "tiny"\ntestbed: sim\n${TOPO}\nschemes: [ecmp, rps]\nworkload: { kind: web-search, load: 0.5, flows: ${flows} }\nseeds: [1]\n`
// A claim that reads the runs (so it needs them done) and always holds, so no sweep runs.
const holds: Claim = { claim: 'ecmp ran', seed: 'better', measure: { unit: 'x', value: (r) => 1 + r.fct('ecmp', 0.5, 'meanNs') * 0, holds: () => true } }

const home = mkdtempSync(join(tmpdir(), 'p4lab-reproduce-slurm-home-'))
const savedEnv = { P4LAB_HOME: process.env.P4LAB_HOME, SLURM_CONF: process.env.SLURM_CONF }
process.env.P4LAB_HOME = home

const opened: Array<{ core: Core; ledger?: Ledger }> = []
afterAll(() => {
  for (const { core, ledger } of opened) {
    core.orchestrator.cancelAll()
    ledger?.close()
    core.opts.store.close()
  }
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
})

function setup(templates: Record<string, string>) {
  const { core, dbPath, dir } = tempCore(2)
  core.start()
  const ledger = new Ledger(dbPath)
  opened.push({ core, ledger })
  const tdir = join(dir, 'templates')
  mkdirSync(tdir)
  const write = (name: string, text: string) => writeFileSync(join(tdir, `${name}.yaml`), text)
  for (const [n, t] of Object.entries(templates)) write(n, t)
  const claims = Object.fromEntries(Object.keys(templates).map((n) => [n, [holds]]))
  const lines: string[] = []
  const run = (more: Partial<ReproduceOptions> = {}) => {
    lines.length = 0
    return reproduce({ core, templatesDir: tdir, claims, settings: {}, quick: false, outFile: join(dir, 'docs', 'results.md'), parallelRuns: 2, log: (l) => lines.push(l), ledger, fingerprint: 'sim-a', ...more })
  }
  const runs = () => core.opts.store.listRuns({ shown: 'all' })
  return { core, ledger, run, write, lines, runs }
}

describe('npm run reproduce -- --on slurm', { timeout: 300_000 }, () => {
  let cluster: SlurmCluster
  beforeAll(async () => {
    cluster = await startSlurm()
    // This machine is the login node: the Slurm commands read this cluster's slurm.conf.
    process.env.SLURM_CONF = cluster.conf
    // A saved cluster in the user's p4lab database, as `p4lab cluster add` leaves it.
    const user = createNodeCore({ dbPath: join(home, 'p4lab.db'), dataDir: home })
    opened.push({ core: user })
    await user.clusters.save({ name: 'lab', login: { kind: 'local' }, workDir: join(cluster.work, 'reproduce'), partition: cluster.partition })
  }, 90_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  it('submits the runs to a saved cluster, merges them into the ledger, and a second invocation without Slurm reuses them all', async () => {
    const s = setup({ 'tiny-a': yaml('tiny-a', 30), 'tiny-b': yaml('tiny-b', 30) })
    const place = reproduceSlurm(s.core, { on: 'slurm', cluster: 'lab' })!
    expect(place.name).toBe('lab')

    const plan = await s.run({ slurm: place, planOnly: true })
    expect(plan.page).toMatch(/^total: 4 runs to submit to Slurm on the cluster lab as 2 job arrays \(one per template\), 0 reused; about .* of CPU, the wall time is the cluster's/m)
    expect(s.runs()).toEqual([])

    const first = await s.run({ slurm: place })
    expect(s.lines.filter((l) => /^reproduce: tiny-(a|b): 2 runs submitted as Slurm job \d+ on lab$/.test(l))).toHaveLength(2)
    expect(s.lines).toContain('reproduce: Slurm on lab: 2 job arrays, 4/4 tasks settled: 4 COMPLETED')
    expect(s.lines.filter((l) => /^reproduce: \[\d\/4\] tiny-(a|b) (ecmp|rps) load 0\.5 seed 1: done, \d+\.\d (s|min) wall, \d+\.\d (s|min) CPU; \d left/.test(l))).toHaveLength(4)
    const runs = s.runs()
    expect(runs.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done'])
    for (const r of runs) {
      expect(r.facts?.runner).toBe('slurm')
      const l = s.ledger.get(r.id)!
      expect(l.fingerprint).toBe('sim-a')
      expect(l.cpuMs).toBeGreaterThan(0)
      expect(l.cost).toBeGreaterThan(0)
    }
    expect(first.page).toContain('the runs it made ran as Slurm job arrays on the cluster lab (one per template and per sweep row), not in this machine\'s worker threads')
    expect(first.page).not.toMatch(/\d+ cores, \d+ runs at a time/)
    expect(first.page).toContain('2 runs (0 not done, 0 reused from an earlier invocation)')
    place.close()

    // Later, without Slurm: nothing runs, every run is reused.
    const second = await s.run()
    expect(s.runs().map((r) => r.id)).toEqual(runs.map((r) => r.id))
    expect(s.lines).toContain('reproduce: all 4 runs reused')
    expect(second.page).toContain('2 runs (0 not done, 2 reused from an earlier invocation)')
    expect(cluster.queued()).toEqual([])
  })

  it('a task that fails on the cluster leaves its run not done, named on the page, and nothing is reused from it', async () => {
    const s = setup({ 'tiny-f': yaml('tiny-f', 30) })
    // The nodes' "Node" exits 1 at once: every task fails.
    const place = reproduceSlurm(s.core, { on: 'slurm', login: undefined, work: join(cluster.work, 'failing'), partition: cluster.partition, node: '/bin/false' })!
    expect(place.name).toBe('this machine')
    const r = await s.run({ slurm: place })
    place.close()
    const runs = s.runs()
    expect(runs.map((x) => x.status)).toEqual(['failed', 'failed'])
    expect(runs[0].error).toMatch(/^Slurm: task \d+_[01] FAILED/)
    expect(s.lines).toContain('reproduce: Slurm on this machine: 1 job array, 2/2 tasks settled: 2 FAILED')
    expect(r.page).toContain('2 runs (2 not done, 0 reused')
    expect(r.page).toMatch(/^Not done, left out of the claims: ecmp load 0\.5 seed 1 failed \(Slurm: task \d+_\d FAILED [^;]*\); rps load 0\.5 seed 1 failed \(Slurm: task \d+_\d FAILED .*\)\.$/m)
    expect(r.page).toContain('the runs it made ran as Slurm job arrays on the cluster whose login node is this machine')
    const plan = await s.run({ planOnly: true })
    expect(plan.page).toMatch(/^tiny-f: 2 to run \(about .*\), 0 reused$/m)
  })

  it('Ctrl-C cancels the job arrays (scancel) and the invocation ends interrupted', async () => {
    const s = setup({ 'tiny-h': yaml('tiny-h', 30) })
    // Held: nothing starts, so the cancel finds every task pending.
    const place = new SlurmPlace('held', { workDir: join(cluster.work, 'held'), partition: cluster.partition, hold: true }, async () => new LocalShell(cluster.env), 300)
    const abort = new AbortController()
    const run = s.run({ slurm: place, signal: abort.signal, log: (l) => (/runs submitted as Slurm job/.test(l) ? abort.abort() : undefined) })
    await expect(run).rejects.toBeInstanceOf(Interrupted)
    place.close()
    expect(s.runs().map((x) => x.status)).toEqual(['cancelled', 'cancelled'])
    expect(cluster.queued()).toEqual([])
  })

  it('Ctrl-C during the submissions stops them at once: the array submitted is cancelled, the one under way never reaches sbatch, the rest are not submitted', async () => {
    const s = setup({ 'tiny-s1': yaml('tiny-s1', 30), 'tiny-s2': yaml('tiny-s2', 30), 'tiny-s3': yaml('tiny-s3', 30) })
    // Each submission uploads twice (the runner, the sweep): the Ctrl-C comes during the second's.
    const local = new LocalShell(cluster.env)
    const abort = new AbortController()
    let uploads = 0
    const shell: ClusterShell = {
      label: local.label,
      ref: local.ref,
      run: (argv, o) => local.run(argv, o),
      close: () => local.close(),
      upload: (from, to) => {
        if (++uploads === 3) abort.abort()
        return local.upload(from, to)
      },
    }
    const place = new SlurmPlace('held', { workDir: join(cluster.work, 'stop'), partition: cluster.partition, hold: true }, async () => shell, 300)
    await expect(s.run({ slurm: place, signal: abort.signal })).rejects.toBeInstanceOf(Interrupted)
    place.close()
    const jobs = s.core.opts.store.listSlurmJobs()
    expect(jobs).toHaveLength(1)
    expect(s.lines.filter((l) => /runs submitted as Slurm job/.test(l))).toEqual([`reproduce: tiny-s1: 2 runs submitted as Slurm job ${jobs[0].jobId} on held`])
    expect(cluster.run(['scontrol', 'show', 'job', jobs[0].jobId])).toMatch(/JobState=CANCELLED\b/)
    expect(cluster.queued()).toEqual([])
    const runs = s.runs()
    expect(runs.map((r) => [s.core.opts.store.getExperiment(r.experimentId)!.name, r.status, r.error])).toEqual([
      ['tiny-s1', 'cancelled', expect.stringMatching(/^Slurm: task \d+_0 CANCELLED/)],
      ['tiny-s1', 'cancelled', expect.stringMatching(/^Slurm: task \d+_1 CANCELLED/)],
      ['tiny-s2', 'cancelled', 'cancelled before it was submitted to Slurm'],
      ['tiny-s2', 'cancelled', 'cancelled before it was submitted to Slurm'],
    ])
    expect(s.lines).toContain(`reproduce: tiny-s2: cancelled before it was submitted to Slurm: run(s) ${runs[2].id}, ${runs[3].id} cancelled, nothing submitted`)
    expect(s.lines).toContain('reproduce: stopped submitting: 2 job arrays not submitted')
  })

  it('runs an earlier invocation left open on the cluster are followed by the next one, not submitted again', async () => {
    const s = setup({ 'tiny-o': yaml('tiny-o', 30) })
    // The login node is lost right after the submission: every look fails, and so does scancel.
    const local = new LocalShell(cluster.env)
    const lost: ClusterShell = {
      label: local.label,
      ref: local.ref,
      upload: (from, to) => local.upload(from, to),
      close: () => local.close(),
      run: (argv, o) => (['mkdir', 'realpath', 'sbatch'].includes(argv[0]) ? local.run(argv, o) : Promise.reject(new Error('connection lost'))),
    }
    const place = new SlurmPlace('held', { workDir: join(cluster.work, 'open'), partition: cluster.partition, hold: true }, async () => lost, 200)
    const abort = new AbortController()
    const first = s.run({ slurm: place, signal: abort.signal, log: (l) => (/could not look at Slurm job/.test(l) ? abort.abort() : undefined) })
    await expect(first).rejects.toThrow(/connection lost/)
    const left = s.runs()
    expect(left.map((r) => r.status)).toEqual(['queued', 'queued'])
    const [job] = s.core.opts.store.listSlurmJobs({ open: true })
    cluster.run(['/usr/bin/scontrol', 'release', job.jobId])

    const plan = await s.run({ planOnly: true, slurm: place })
    expect(plan.page).toMatch(/^tiny-o: 2 to run .*, 0 reused; 2 still open on Slurm/m)
    const back = new SlurmPlace('this machine', { workDir: join(cluster.work, 'open'), partition: cluster.partition }, async () => new LocalShell(cluster.env), 300)
    await s.run({ slurm: back })
    back.close()
    expect(s.lines).toContain('reproduce: following 2 runs an earlier invocation left open on Slurm (1 job array)')
    expect(s.lines.some((l) => /submitted as Slurm job/.test(l))).toBe(false)
    expect(s.runs().map((r) => [r.id, r.status])).toEqual(left.map((r) => [r.id, 'done']))
    expect(cluster.queued()).toEqual([])
  })
})

describe('npm run reproduce -- --on slurm after an invocation killed between sbatch and the job\'s record', { timeout: 300_000 }, () => {
  let cluster: SlurmCluster
  beforeAll(async () => {
    cluster = await startSlurm()
    process.env.SLURM_CONF = cluster.conf
  }, 90_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  /**
   * An invocation (test/fixtures/reproduce/tiny-reproduce.ts, a process of its own) of one tiny
   * template `name` on simulator `fingerprint`, killed (SIGKILL) once sbatch has made its job
   * array (held with `hold`), before it records the job; then the next invocation, in this
   * process, on the same database. Returns the job's id and that next invocation's setup.
   */
  async function killedAfterSbatch(name: string, o: { hold: boolean; fingerprint: string }) {
    const dir = mkdtempSync(join(tmpdir(), `p4lab-reproduce-cut-${name}-`))
    const [templates, bin] = [join(dir, 'templates'), join(dir, 'bin')]
    mkdirSync(templates)
    mkdirSync(bin)
    writeFileSync(join(templates, `${name}.yaml`), yaml(name, 30))
    const submitted = join(dir, 'submitted')
    writeFileSync(join(bin, 'sbatch'), `#!/bin/sh\nout=$(/usr/bin/sbatch ${o.hold ? '--hold ' : ''}"$@") || exit $?\nprintf '%s' "$out" > '${submitted}'\nkill -KILL "$PPID"\nprintf '%s\\n' "$out"\n`)
    chmodSync(join(bin, 'sbatch'), 0o755)
    const dbPath = join(dir, 'r.db')
    const work = join(cluster.work, name)
    const argv = [join(ROOT, 'scripts', 'run-ts.mjs'), join(ROOT, 'test', 'fixtures', 'reproduce', 'tiny-reproduce.ts'), templates, dbPath, join(dir, 'results.md'), work, cluster.partition, o.fingerprint]
    const r = spawnSync(process.execPath, argv, { cwd: dir, encoding: 'utf8', env: { ...process.env, P4LAB_HOME: join(dir, 'home'), SLURM_CONF: cluster.conf, PATH: `${bin}:${process.env.PATH}` }, timeout: 150_000 })
    expect([r.status, r.signal], r.stderr).toEqual([null, 'SIGKILL'])
    const jobId = readFileSync(submitted, 'utf8').trim().split(';')[0]
    expect(jobId).toMatch(/^\d+$/)
    // What the killed invocation left: its runs queued, in the ledger, and no job recorded.
    const core = createNodeCore({ dbPath, parallelRuns: 1 })
    const ledger = new Ledger(dbPath)
    opened.push({ core, ledger })
    expect(core.start().marked).toEqual([1, 2])
    expect(core.opts.store.listSlurmJobs()).toEqual([])
    expect([1, 2].map((id) => ledger.get(id)?.fingerprint)).toEqual([o.fingerprint, o.fingerprint])
    const lines: string[] = []
    const run = (more: Partial<ReproduceOptions> = {}) => {
      lines.length = 0
      return reproduce({ core, templatesDir: templates, claims: { [name]: [holds] }, settings: {}, quick: false, outFile: join(dir, 'results.md'), parallelRuns: 1, log: (l) => lines.push(l), ledger, fingerprint: 'sim-a', ...more })
    }
    const place = () => reproduceSlurm(core, { on: 'slurm', work, partition: cluster.partition })!
    return { jobId, core, ledger, lines, run, place, runs: () => core.opts.store.listRuns({ shown: 'all' }).map((x) => [x.id, x.status]) }
  }
  const foundLine = (jobId: string, name: string, ended: boolean) => `^reproduce: Slurm job ${jobId} \\(p4lab-${name}-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it${ended ? ', ended since \\(found through squeue\\)' : ''}: `

  it('the job ended since: the next invocation adopts it, merges its results, reuses its runs and submits nothing', async () => {
    const k = await killedAfterSbatch('tiny-ended', { hold: false, fingerprint: 'sim-a' })
    await expect.poll(() => cluster.run(['squeue', '-h', '-r', '-j', k.jobId, '-o', '%i']).trim(), { timeout: 120_000, interval: 500 }).toBe('')
    const place = k.place()
    // --plan looks at no cluster: it counts the cells as to run and says why they may not be.
    const plan = await k.run({ slurm: place, planOnly: true })
    expect(plan.page).toMatch(/^tiny-ended: 2 to run /m)
    expect(plan.page.split('\n').at(-1)).toBe(
      '1 Slurm submission of an invocation killed before recording its job (run(s) 1, 2): counted above as to run; ' +
        'the invocation first looks for the job and adopts it if the ledger holds its runs for this simulator (its cells then followed or reused, not submitted)',
    )
    const r = await k.run({ slurm: place })
    place.close()
    expect(k.lines.filter((l) => new RegExp(foundLine(k.jobId, 'tiny-ended', true)).test(l)), k.lines.join('\n')).toEqual([expect.stringMatching(/: adopted and its results merged: run 1 done, run 2 done$/)])
    expect(k.lines).toContain('reproduce: all 2 runs reused')
    expect(k.lines.some((l) => /submitted as Slurm job/.test(l))).toBe(false)
    expect(k.runs()).toEqual([[1, 'done'], [2, 'done']])
    expect(k.core.opts.store.listSlurmJobs().map((j) => [j.jobId, j.endedAt !== null])).toEqual([[k.jobId, true]])
    expect(r.page).toContain('2 runs (0 not done, 2 reused from an earlier invocation)')
  })

  it('the job still queued: the next invocation adopts it and follows its runs to the end instead of submitting them again', async () => {
    const k = await killedAfterSbatch('tiny-held', { hold: true, fingerprint: 'sim-a' })
    const place = k.place()
    // Released once adopted: the look finds it queued, and the follow then sees it run.
    await k.run({ slurm: place, log: (l) => (k.lines.push(l), / adopted, its runs queued again /.test(l) && cluster.run(['scontrol', 'release', k.jobId])) })
    place.close()
    expect(k.lines.filter((l) => new RegExp(foundLine(k.jobId, 'tiny-held', false)).test(l)), k.lines.join('\n')).toEqual([expect.stringMatching(/: adopted, its runs queued again and followed as the job's/)])
    expect(k.lines).toContain('reproduce: following 2 runs an earlier invocation left open on Slurm (1 job array)')
    expect(k.lines.some((l) => /submitted as Slurm job/.test(l))).toBe(false)
    expect(k.runs()).toEqual([[1, 'done'], [2, 'done']])
    expect(k.core.opts.store.listSlurmJobs().map((j) => j.jobId)).toEqual([k.jobId])
    expect(cluster.queued()).toEqual([])
  })

  it('an invocation without --on slurm says it does not look for the job and runs the cells here; the next --on slurm one then cancels the job rather than count a cell twice', async () => {
    const k = await killedAfterSbatch('tiny-here', { hold: true, fingerprint: 'sim-a' })
    const plan = await k.run({ planOnly: true })
    expect(plan.page.split('\n').at(-1)).toBe(
      '1 Slurm submission of an invocation killed before recording its job (run(s) 1, 2): not looked for without --on slurm; --on slurm with that cluster adopts the job if the ledger holds its runs for this simulator',
    )
    await k.run()
    expect(k.lines).toContain(
      'reproduce: 1 Slurm submission of an invocation killed before recording its job (run(s) 1, 2) is not looked for without --on slurm: its cells run here anew if planned, ' +
        'and the next --on slurm invocation to that cluster then cancels the job (one that has ended it leaves unmerged) rather than count a cell twice',
    )
    expect(k.runs()).toEqual([[1, 'interrupted'], [2, 'interrupted'], [3, 'done'], [4, 'done']])
    const place = k.place()
    await k.run({ slurm: place })
    place.close()
    expect(k.lines.filter((l) => new RegExp(foundLine(k.jobId, 'tiny-here', false)).test(l)), k.lines.join('\n')).toEqual([expect.stringMatching(/: cancelled \(scancel\), not adopted: its cell ecmp load=0\.5 seed=1 ran again since \(run 3\)$/)])
    expect(k.lines).toContain('reproduce: all 2 runs reused')
    expect(cluster.run(['scontrol', 'show', 'job', k.jobId])).toMatch(/JobState=CANCELLED\b/)
    expect(k.runs()).toEqual([[1, 'interrupted'], [2, 'interrupted'], [3, 'done'], [4, 'done']])
  })

  it('the job\'s runs made for another simulator: the next invocation cancels it, says why, and submits the cells again', async () => {
    const k = await killedAfterSbatch('tiny-old', { hold: true, fingerprint: 'sim-old' })
    const place = k.place()
    await k.run({ slurm: place })
    place.close()
    expect(k.lines.filter((l) => new RegExp(foundLine(k.jobId, 'tiny-old', false)).test(l)), k.lines.join('\n')).toEqual([
      expect.stringMatching(/: cancelled \(scancel\), not adopted: run 1 was made for simulator sim-old, not this one \(sim-a\): its cell is submitted again$/),
    ])
    expect(cluster.run(['scontrol', 'show', 'job', k.jobId])).toMatch(/JobState=CANCELLED\b/)
    expect(k.lines.filter((l) => /^reproduce: tiny-old: 2 runs submitted as Slurm job \d+ on this machine$/.test(l))).toHaveLength(1)
    expect(k.runs()).toEqual([[1, 'interrupted'], [2, 'interrupted'], [3, 'done'], [4, 'done']])
    expect(cluster.queued()).toEqual([])
  })
})

describe('the --on slurm flags of npm run reproduce', () => {
  it('refuses bad flags with a message naming the fault', () => {
    const { core } = tempCore(1)
    opened.push({ core })
    const bad = (values: Record<string, string | boolean | undefined>) => {
      try {
        reproduceSlurm(core, values)
      } catch (err) {
        return (err as Error).message
      }
      return 'accepted'
    }
    expect(bad({ partition: 'x' })).toBe('--partition goes with --on slurm')
    expect(bad({ on: 'cloud' })).toBe("--on takes slurm or local, got 'cloud'")
    expect(bad({ on: 'slurm', parallel: '4' })).toMatch(/^--parallel .*--max-parallel/)
    expect(bad({ on: 'slurm', cluster: 'nowhere' })).toMatch(/^--cluster: no saved Slurm cluster 'nowhere'/)
    expect(bad({ on: 'slurm', cluster: 'lab', login: 'me@host' })).toBe('give --cluster NAME (a saved cluster) or --login USER@HOST, not both')
    expect(bad({ on: 'slurm', login: 'host-without-user' })).toBe("--login must be USER@HOST or USER@HOST:PORT, got 'host-without-user'")
    expect(bad({ on: 'slurm', key: '/k' })).toBe('--key goes with --login')
    expect(bad({ on: 'slurm', 'max-parallel': '0' })).toBe("--max-parallel must be a positive integer, got '0'")
    expect(bad({ on: 'local' })).toBe('accepted')
  })
})

import { beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { BIN, p4labAsync, withDb } from '../helpers/cli'
import { useSlurmLogin } from '../helpers/slurm'
import { ROOT } from '../helpers/start'
import { inTerminal, inTerminalPid, terminalEnded } from '../helpers/terminal'

// `p4lab run FILE --on slurm` as a user runs it: the built CLI, a real cluster behind the test
// sshd, the login node's key pinned only when the user names its fingerprint.
const YAML = `name: slurm-cli
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 30 }
seeds: [1, 2]
`

describe('p4lab run --on slurm', { timeout: 240_000 }, () => {
  const lab = useSlurmLogin('slurm-cli')
  beforeAll(() => {
    writeFileSync(join(lab.dir, 'small.yaml'), YAML)
  })

  const p4lab = (args: string[]) => p4labAsync(args, lab.dir)
  const on = () => ['--db', 'x.db', '--on', 'slurm', '--login', `${lab.sshd.user}@127.0.0.1:${lab.sshd.port}`, '--key', lab.sshd.plainKey, '--work', join(lab.cluster.work, 'cli'), '--partition', lab.cluster.partition, '--max-parallel', '2']

  it('pins the login node on request, submits, follows later, lists Slurm states and resumes nothing once done', async () => {
    const unknown = await p4lab(['run', 'small.yaml', ...on()])
    expect(unknown.code).toBe(1)
    const fp = /--trust-host-key (SHA256:\S+)/.exec(unknown.stderr)?.[1]
    expect(unknown.stderr).toContain('cannot be established')
    expect(fp).toBeTruthy()

    const submitted = await p4lab(['run', 'small.yaml', ...on(), '--trust-host-key', fp!, '--detach'])
    expect(submitted.stderr).toMatch(/submitted 2 cell\(s\) as Slurm job \d+/)
    expect(submitted.code).toBe(0)
    const listed = await p4lab(['list', '--db', 'x.db'])
    expect(listed.stdout).toMatch(/queued \(Slurm SUBMITTED\)/)

    const followed = await p4lab(['slurm', 'follow', '--db', 'x.db'])
    expect(followed.code, followed.stderr).toBe(0)
    expect(followed.stdout).toMatch(/run 1 ecmp load=0.3 seed=1: done \(Slurm COMPLETED\)/)
    expect(followed.stdout).toMatch(/run 2 ecmp load=0.3 seed=2: done \(Slurm COMPLETED\)/)
    const after = JSON.parse((await p4lab(['list', '--db', 'x.db', '--json'])).stdout) as Array<{ runs: Array<{ status: string; slurm: { state: string } }> }>
    expect(after[0].runs.map((r) => [r.status, r.slurm.state])).toEqual([['done', 'COMPLETED'], ['done', 'COMPLETED']])

    const resumed = await p4lab(['run', 'small.yaml', ...on(), '--resume'])
    expect(resumed.code).toBe(0)
    expect(resumed.stderr).toContain('2 of 2 cell(s) already done, 0 to submit')
    expect(lab.cluster.queued()).toEqual([])
  })

  /**
   * `p4lab run --on slurm` with this machine as the login node, as the leader of a process
   * group of its own (a terminal's foreground job), `commands` (name to sh script) first on its
   * PATH. A script sends what a Ctrl-C in the terminal sends: SIGINT to that group, its
   * parent's (`kill -INT "-$PPID"`). A p4lab that hangs is ended with its group.
   * `terminal`: p4lab runs instead in a terminal of its own (helpers/terminal.ts), closed when a
   * script writes a line to the FIFO `terminal.hup`; the script goes on once it reads the FIFO
   * `terminal.go`. What p4lab wrote there is `stderr`.
   * `handled`: a FIFO a script reads after sending its signal (`read x < FIFO`), written once
   * p4lab says on stderr that it handled the signal, so that what the script does next (sbatch
   * answering, the work folder found) reaches p4lab after the signal, however busy the machine.
   */
  async function signalled(name: string, commands: Record<string, string>, o: { terminal?: { hup: string; go: string }; handled?: { fifo: string; said: string }; env?: NodeJS.ProcessEnv } = {}) {
    const { terminal, handled } = o
    const bin = join(lab.dir, `${name}-bin`)
    mkdirSync(bin)
    for (const [command, script] of Object.entries(commands)) {
      writeFileSync(join(bin, command), `#!/bin/sh\n${script}`)
      chmodSync(join(bin, command), 0o755)
    }
    writeFileSync(join(lab.dir, `${name}.yaml`), YAML.replace('name: slurm-cli', `name: ${name}`))
    const db = join(lab.dir, `${name}.db`)
    const argv = [BIN, 'run', `${name}.yaml`, '--db', db, '--on', 'slurm', '--work', join(lab.cluster.work, name), '--partition', lab.cluster.partition]
    const [command, args] = terminal ? inTerminal([process.execPath, ...argv], terminal) : [process.execPath, argv]
    const child = spawn(command, args, {
      cwd: lab.dir,
      detached: true,
      env: { ...process.env, P4LAB_HOME: join(lab.dir, 'home'), SLURM_CONF: lab.cluster.conf, PATH: `${bin}:${process.env.PATH}`, ...o.env },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
    let released: Promise<void> | undefined
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString()
      // The open waits (off the event loop) for the script to open its end.
      if (handled && !released && stderr.includes(handled.said)) released = writeFile(handled.fifo, 'go\n')
    })
    const hung = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL')
      // p4lab in a terminal of its own is outside that group.
      const pid = terminal && inTerminalPid(stderr)
      if (pid) process.kill(-pid, 'SIGKILL')
    }, 150_000)
    let [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])))
    clearTimeout(hung)
    if (handled && !released) {
      // A p4lab that never said it handled the signal leaves the script waiting: let it go (if it is there).
      try {
        const fd = openSync(handled.fifo, constants.O_WRONLY | constants.O_NONBLOCK)
        writeSync(fd, 'go\n')
        closeSync(fd)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err
      }
    }
    await released
    if (terminal) {
      expect(code, stderr).toBe(0)
      const t = terminalEnded(stderr, code)
      ;[code, signal, stdout, stderr] = [t.code, t.signal, '', stdout + stderr]
    }
    const stored = withDb(db, (d) => ({
      jobs: d.prepare('SELECT job_id FROM slurm_jobs').pluck().all(),
      tasks: d.prepare('SELECT state, settled FROM slurm_tasks ORDER BY array_index').all(),
      runs: d.prepare('SELECT status FROM runs ORDER BY id').pluck().all(),
    }))
    return { code, signal, stdout, stderr, stored }
  }

  it("a task cancelled while pending (scancel JOB_1), which Slurm then lists nowhere: its run ends cancelled, saying why, and the follow ends with the other's result", async () => {
    // sbatch as on the cluster, held so that no task starts; the second task is cancelled while
    // it waits, then the job released. Without accounting Slurm keeps no record of that task,
    // while it lists the first one (running, then completed) for MinJobAge, an hour here.
    const r = await signalled('pending-cancelled', { sbatch: `out=$(/usr/bin/sbatch --hold "$@") || exit $?\njob=\${out%%;*}\n/usr/bin/scancel "\${job}_1" || exit 1\n/usr/bin/scontrol release "$job" || exit 1\nprintf '%s\\n' "$out"\n` })
    const jobId = /submitted 2 cell\(s\) as Slurm job (\d+)/.exec(r.stderr)?.[1]
    expect(jobId, r.stderr).toBeTruthy()
    expect(lab.cluster.run(['scontrol', 'show', 'job', '-o', jobId!]), r.stderr).not.toMatch(/ArrayTaskId=1\b/)
    expect(r.stored, r.stderr).toEqual({
      jobs: [jobId],
      tasks: [
        { state: 'COMPLETED', settled: 1 },
        { state: 'CANCELLED', settled: 1 },
      ],
      runs: ['done', 'cancelled'],
    })
    expect(r.stdout).toMatch(/run 1 ecmp load=0.3 seed=1: done \(Slurm COMPLETED\)/)
    expect(r.stdout).toMatch(/run 2 ecmp load=0.3 seed=2: cancelled \(Slurm CANCELLED: removed from the queue before it started \(a pending task cancelled\): Slurm lists other tasks of the job but not this one, and it left no log and no result\)/)
    // A run cancelled: 130, as for any (p4lab run --on slurm's exit status).
    expect([r.code, r.signal], r.stderr).toEqual([130, null])
  })

  it('Ctrl-C between sbatch submitting the array and p4lab recording it: the job is recorded, then cancelled, and its runs say so', async () => {
    // sbatch as on the cluster (held, so no task can finish first), then the Ctrl-C before its
    // answer reaches p4lab.
    const submitted = join(lab.dir, 'submitted')
    const r = await signalled('ctrlc-sbatch', { sbatch: `out=$(/usr/bin/sbatch --hold "$@") || exit $?\nprintf '%s' "$out" > '${submitted}'\nkill -INT "-$PPID"\nprintf '%s\\n' "$out"\n` })
    const jobId = readFileSync(submitted, 'utf8').trim().split(';')[0]
    expect(jobId, r.stderr).toMatch(/^\d+$/)
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=CANCELLED\b/)
    expect(lab.cluster.queued()).toEqual([])
    expect(r.stored, r.stderr).toEqual({ jobs: [jobId], tasks: [{ state: 'CANCELLED', settled: 1 }, { state: 'CANCELLED', settled: 1 }], runs: ['cancelled', 'cancelled'] })
    expect(r.stderr).toContain(`submitted 2 cell(s) as Slurm job ${jobId}`)
    expect(r.stderr).toContain('cancelling the Slurm job (scancel)')
    expect(r.stdout).toMatch(/: cancelled \(Slurm CANCELLED/)
    expect([r.code, r.signal]).toEqual([130, null])
  })

  // `kill` (SIGTERM to p4lab) and a terminal closed (SIGHUP to its foreground group) during the
  // submission are handled as a Ctrl-C there, each with its own exit status, 128 + its number.
  // sbatch answers once p4lab has said it is cancelling: the signal is handled before the answer.
  it.each([
    ['SIGTERM', 'kill -TERM "$PPID"', 143],
    ['SIGHUP', 'kill -HUP "-$PPID"', 129],
  ])('%s between sbatch submitting the array and p4lab recording it: the job is recorded and cancelled, and a later list shows its runs cancelled', async (sig, send, code) => {
    const name = `${sig.toLowerCase()}-sbatch`
    const submitted = join(lab.dir, `${name}-submitted`)
    const fifo = join(lab.dir, `${name}-handled.fifo`)
    execFileSync('mkfifo', [fifo])
    const r = await signalled(name, { sbatch: `out=$(/usr/bin/sbatch --hold "$@") || exit $?\nprintf '%s' "$out" > '${submitted}'\n${send}\nread x < '${fifo}'\nprintf '%s\\n' "$out"\n` }, { handled: { fifo, said: `p4lab: ${sig}: cancelling...` } })
    const jobId = readFileSync(submitted, 'utf8').trim().split(';')[0]
    expect(jobId, r.stderr).toMatch(/^\d+$/)
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=CANCELLED\b/)
    expect(lab.cluster.queued()).toEqual([])
    expect(r.stored, r.stderr).toEqual({ jobs: [jobId], tasks: [{ state: 'CANCELLED', settled: 1 }, { state: 'CANCELLED', settled: 1 }], runs: ['cancelled', 'cancelled'] })
    expect(r.stderr).toContain(`p4lab: ${sig}: cancelling...`)
    expect(r.stderr).toContain('cancelling the Slurm job (scancel)')
    expect([r.code, r.signal]).toEqual([code, null])
    const listed = await p4labAsync(['list', '--json', '--db', `${name}.db`], lab.dir)
    expect(listed.stderr).toBe('')
    expect((JSON.parse(listed.stdout) as Array<{ runs: Array<{ status: string; slurm: { state: string } }> }>)[0].runs.map((x) => [x.status, x.slurm.state])).toEqual([['cancelled', 'CANCELLED'], ['cancelled', 'CANCELLED']])
  })

  it('the terminal closed between sbatch submitting the array and p4lab recording it: the job is recorded and cancelled, exit 129', async () => {
    const [hup, go] = ['hup', 'go'].map((f) => join(lab.dir, `terminal-${f}.fifo`))
    for (const f of [hup, go]) execFileSync('mkfifo', [f])
    const submitted = join(lab.dir, 'terminal-submitted')
    const r = await signalled('terminal', { sbatch: `out=$(/usr/bin/sbatch --hold "$@") || exit $?\nprintf '%s' "$out" > '${submitted}'\necho submitted > '${hup}'\nread x < '${go}'\nprintf '%s\\n' "$out"\n` }, { terminal: { hup, go } })
    const jobId = readFileSync(submitted, 'utf8').trim().split(';')[0]
    expect(jobId, r.stderr).toMatch(/^\d+$/)
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=CANCELLED\b/)
    expect(lab.cluster.queued()).toEqual([])
    expect(r.stored, r.stderr).toEqual({ jobs: [jobId], tasks: [{ state: 'CANCELLED', settled: 1 }, { state: 'CANCELLED', settled: 1 }], runs: ['cancelled', 'cancelled'] })
    expect([r.code, r.signal], r.stderr).toEqual([129, null])
  })

  // The work folder is found once p4lab has said it is cancelling: the signal comes first.
  it('a SIGTERM heard only once the job is recorded takes its default: p4lab ends by it, the job goes on as recorded, and p4lab slurm cancel cancels it', async () => {
    // The signal is sent as the job's record commits: Node hears of it after the record, where
    // p4lab used to stop catching SIGTERM, which dropped it (p4lab then followed the held job for ever).
    const hook = join(ROOT, 'test', 'fixtures', 'cli', 'signal-after-insert.mjs')
    const r = await signalled('late-sigterm', { sbatch: 'exec /usr/bin/sbatch --hold "$@"\n' }, { env: { NODE_OPTIONS: `--import ${hook}`, P4LAB_TEST_SIGNAL: 'SIGTERM', P4LAB_TEST_TABLE: 'slurm_jobs' } })
    expect([r.code, r.signal], r.stderr).toEqual([null, 'SIGTERM'])
    expect(r.stored).toEqual({ jobs: [expect.stringMatching(/^\d+$/)], tasks: [{ state: 'SUBMITTED', settled: 0 }, { state: 'SUBMITTED', settled: 0 }], runs: ['queued', 'queued'] })
    const jobId = r.stored.jobs[0] as string
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=PENDING\b/)
    const cancelled = await p4labAsync(['slurm', 'cancel', '--db', 'late-sigterm.db'], lab.dir, { env: { SLURM_CONF: lab.cluster.conf } })
    expect(cancelled.code, cancelled.stderr).toBe(130)
    expect(cancelled.stdout).toMatch(/: cancelled \(Slurm CANCELLED/)
    expect(lab.cluster.queued()).toEqual([])
  })

  it.each([
    ['SIGTERM', 143, 'sigterm-early', 'kill -TERM "$PPID"', 'p4lab: SIGTERM: cancelling...'],
    ['Ctrl-C', 130, 'ctrlc-early', 'kill -INT "-$PPID"', 'p4lab: cancelling...'],
  ])('%s while the work folder is looked up, before any run is stored: nothing stored, nothing submitted, exit %i', async (_sig, code, name, send, said) => {
    const fifo = join(lab.dir, `${name}-handled.fifo`)
    execFileSync('mkfifo', [fifo])
    const r = await signalled(name, { realpath: `${send}\nread x < '${fifo}'\nexec /usr/bin/realpath "$@"\n` }, { handled: { fifo, said } })
    expect(r.stored).toEqual({ jobs: [], tasks: [], runs: [] })
    expect(lab.cluster.run(['squeue', '-h', '-o', '%j'])).not.toMatch(new RegExp(`^p4lab-${name}-`, 'm'))
    expect(r.stderr).toContain('p4lab: cancelled before anything was stored or submitted\n')
    expect([r.code, r.signal]).toEqual([code, null])
  })

  it('a p4lab killed while sbatch runs leaves its runs to be marked interrupted by the next p4lab, not queued for ever', async () => {
    const r = await signalled('killed', { sbatch: 'kill -KILL "$PPID"\nexit 1\n' })
    expect([r.code, r.signal]).toEqual([null, 'SIGKILL'])
    expect(r.stored).toEqual({ jobs: [], tasks: [], runs: ['queued', 'queued'] })
    const listed = await p4labAsync(['list', '--json', '--db', 'killed.db'], lab.dir)
    expect(listed.stderr).toMatch(/^p4lab: marked 2 run\(s\) cut off earlier as interrupted: 1, 2\np4lab: 1 Slurm submission\(s\) cut off before their job was recorded/)
    expect((JSON.parse(listed.stdout) as Array<{ runs: Array<{ status: string }> }>)[0].runs.map((x) => x.status)).toEqual(['interrupted', 'interrupted'])
    // Whether sbatch made the job p4lab cannot know: the next look finds none by its name.
    const status = await p4labAsync(['slurm', 'status', '--db', 'killed.db'], lab.dir, { env: { SLURM_CONF: lab.cluster.conf } })
    expect(status.stdout).toMatch(/^a submission for run\(s\) 1, 2 to this machine was cut off before its job was recorded: no job named p4lab-killed-[0-9a-f]{8} is queued there or known to Slurm, and no task of one left results in \S+: nothing to cancel or merge\n/)
    expect(status.code, status.stderr).toBe(0)
  })

  /**
   * A p4lab `name` killed after sbatch made its job, before recording it: the job's id. The job is
   * held, or with `ended` let run and waited for until Slurm lists it no longer as queued or running.
   */
  async function killedAfterSbatch(name: string, o: { ended?: boolean } = {}): Promise<string> {
    const submitted = join(lab.dir, `${name}-submitted`)
    const r = await signalled(name, { sbatch: `out=$(/usr/bin/sbatch ${o.ended ? '' : '--hold '}"$@") || exit $?\nprintf '%s' "$out" > '${submitted}'\nkill -KILL "$PPID"\nprintf '%s\\n' "$out"\n` })
    expect([r.code, r.signal]).toEqual([null, 'SIGKILL'])
    const jobId = readFileSync(submitted, 'utf8').trim().split(';')[0]
    expect(r.stored).toEqual({ jobs: [], tasks: [], runs: ['queued', 'queued'] })
    if (!o.ended) expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=PENDING\b/)
    else {
      await expect.poll(() => lab.cluster.run(['squeue', '-h', '-r', '-j', jobId, '-o', '%i']).trim(), { timeout: 120_000, interval: 500 }).toBe('')
      expect(lab.cluster.run(['scontrol', 'show', 'job', jobId]).match(/JobState=\w+/g)).toEqual(['JobState=COMPLETED', 'JobState=COMPLETED'])
    }
    return jobId
  }

  it('a p4lab killed after sbatch made the job, before recording it: the next open says so, p4lab slurm status finds the job by its name and adopts it, and its runs are followed and merged as any', async () => {
    const jobId = await killedAfterSbatch('killed-after')
    const listed = await p4labAsync(['list', '--json', '--db', 'killed-after.db'], lab.dir)
    expect(listed.stderr).toBe(
      'p4lab: marked 2 run(s) cut off earlier as interrupted: 1, 2\n' +
        'p4lab: 1 Slurm submission(s) cut off before their job was recorded (for run(s) 1, 2): sbatch may have made a job that nothing follows; p4lab slurm status looks for it on the cluster and adopts it (its runs followed again, or merged if it has ended) or, if they ran again since, cancels it (one that has ended is left unmerged, its folder named)\n',
    )
    expect((JSON.parse(listed.stdout) as Array<{ runs: Array<{ status: string }> }>)[0].runs.map((x) => x.status)).toEqual(['interrupted', 'interrupted'])

    const env = { SLURM_CONF: lab.cluster.conf }
    const status = await p4labAsync(['slurm', 'status', '--db', 'killed-after.db'], lab.dir, { env })
    const lines = status.stdout.split('\n')
    expect(lines[0]).toMatch(new RegExp(`^Slurm job ${jobId} \\(p4lab-killed-after-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it: adopted, its runs queued again and followed as the job's \\(p4lab slurm follow merges them\\)$`))
    expect(lines[1]).toMatch(new RegExp(`^Slurm job ${jobId} \\(experiment 1\\) on this machine: \\[\\.+\\] 0/2 settled: 2 PENDING$`))
    expect(lines.slice(2, 4)).toEqual([expect.stringMatching(/^run 1 ecmp load=0\.3 seed=1: queued \(Slurm PENDING/), expect.stringMatching(/^run 2 ecmp load=0\.3 seed=2: queued \(Slurm PENDING/)])
    // The open still says what it found; the look then adopts.
    expect(status.stderr).toBe(listed.stderr.split('\n')[1] + '\n')
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=PENDING\b/)
    const logs = withDb(join(lab.dir, 'killed-after.db'), (d) => d.prepare("SELECT run_id, line FROM logs WHERE source = 'slurm' ORDER BY id").all())
    expect(logs).toEqual([1, 2].map((run_id) => ({ run_id, line: lines[0] })))

    // Released, the job runs; followed, its tasks merge into the runs it was submitted for.
    lab.cluster.run(['scontrol', 'release', jobId])
    const followed = await p4labAsync(['slurm', 'follow', '--db', 'killed-after.db'], lab.dir, { env })
    expect(followed.code, followed.stderr).toBe(0)
    expect(followed.stdout).toMatch(/^run 1 ecmp load=0\.3 seed=1: done \(Slurm COMPLETED\)$/m)
    expect(followed.stdout).toMatch(/^run 2 ecmp load=0\.3 seed=2: done \(Slurm COMPLETED\)$/m)
    expect(lab.cluster.queued()).toEqual([])
    // Looked for once: the next open and look say nothing of it.
    const again = await p4labAsync(['slurm', 'status', '--db', 'killed-after.db'], lab.dir, { env })
    expect(again.stderr).toBe('')
    expect(again.stdout).toMatch(new RegExp(`^Slurm job ${jobId} \\(experiment 1\\) on this machine: \\[#+\\] 2/2 settled: 2 COMPLETED\n`))
  })

  it('a p4lab killed after sbatch made the job, before recording it, its cells run again since: p4lab slurm status cancels the job instead, saying why, and the runs stay interrupted', async () => {
    const jobId = await killedAfterSbatch('rerun-after')
    // A resume here marks the two runs interrupted and runs their cells again.
    const resumed = await p4labAsync(['run', 'rerun-after.yaml', '--db', 'rerun-after.db', '--resume'], lab.dir)
    expect(resumed.code, resumed.stderr).toBe(0)
    const env = { SLURM_CONF: lab.cluster.conf }
    const status = await p4labAsync(['slurm', 'status', '--db', 'rerun-after.db'], lab.dir, { env })
    expect(status.stdout).toMatch(new RegExp(`^Slurm job ${jobId} \\(p4lab-rerun-after-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it: cancelled \\(scancel\\), not adopted: its cell ecmp load=0\\.3 seed=1 ran again since \\(run 3\\)\nno Slurm jobs in `))
    expect(status.code, status.stderr).toBe(0)
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId])).toMatch(/JobState=CANCELLED\b/)
    expect(lab.cluster.queued()).toEqual([])
    expect(withDb(join(lab.dir, 'rerun-after.db'), (d) => d.prepare('SELECT status FROM runs ORDER BY id').pluck().all())).toEqual(['interrupted', 'interrupted', 'done', 'done'])
  })

  it('a p4lab killed after sbatch made the job, before recording it: run --on slurm --resume adopts the job, submits none of its cells again and follows it to its end', async () => {
    const jobId = await killedAfterSbatch('resume-after')
    const env = { SLURM_CONF: lab.cluster.conf }
    const db = join(lab.dir, 'resume-after.db')
    const following = p4labAsync(['run', 'resume-after.yaml', '--db', 'resume-after.db', '--on', 'slurm', '--work', join(lab.cluster.work, 'resume-after'), '--partition', lab.cluster.partition, '--resume'], lab.dir, { env })
    // Adopted (recorded), the job is released: it runs, and the command that adopted it follows it and merges its runs.
    await expect.poll(() => withDb(db, (d) => d.prepare('SELECT job_id FROM slurm_jobs').pluck().all()), { timeout: 60_000, interval: 200 }).toEqual([jobId])
    lab.cluster.run(['scontrol', 'release', jobId])
    const resumed = await following
    const stored = withDb(db, (d) => ({
      jobs: d.prepare('SELECT job_id FROM slurm_jobs').pluck().all(),
      runs: d.prepare('SELECT status FROM runs ORDER BY id').pluck().all(),
    }))
    const why = `${resumed.stderr}\n${resumed.stdout}\n${JSON.stringify(stored)}`
    expect(resumed.stderr, why).toContain('p4lab: resuming on Slurm: 0 of 2 cell(s) already done, 2 to submit\n')
    expect(resumed.stderr, why).toMatch(new RegExp(`^p4lab: Slurm job ${jobId} \\(p4lab-resume-after-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it: adopted, `, 'm'))
    expect(resumed.stderr, why).toContain('p4lab: 0 cell(s) left to submit beside the job adopted\n')
    expect(resumed.stdout, why).toMatch(/^run 1 ecmp load=0\.3 seed=1: done \(Slurm COMPLETED\)$/m)
    expect(resumed.stdout, why).toMatch(/^run 2 ecmp load=0\.3 seed=2: done \(Slurm COMPLETED\)$/m)
    expect(resumed.code, why).toBe(0)
    expect(stored, why).toEqual({ jobs: [jobId], runs: ['done', 'done'] })
    expect(lab.cluster.queued()).toEqual([])
  })

  it('a p4lab killed after sbatch made the job, before recording it, the job ended since: run --on slurm --resume adopts it, merges what its tasks wrote and submits none of its cells again', async () => {
    const jobId = await killedAfterSbatch('ended-after', { ended: true })
    const env = { SLURM_CONF: lab.cluster.conf }
    const resumed = await p4labAsync(['run', 'ended-after.yaml', '--db', 'ended-after.db', '--on', 'slurm', '--work', join(lab.cluster.work, 'ended-after'), '--partition', lab.cluster.partition, '--resume'], lab.dir, { env })
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toMatch(new RegExp(`^p4lab: Slurm job ${jobId} \\(p4lab-ended-after-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it, ended since \\(found through squeue\\): adopted and its results merged: run 1 done, run 2 done$`, 'm'))
    expect(resumed.stderr).toContain('p4lab: 0 cell(s) left to submit beside the job adopted\n')
    const stored = withDb(join(lab.dir, 'ended-after.db'), (d) => ({
      jobs: d.prepare('SELECT job_id, ended_at IS NOT NULL AS ended FROM slurm_jobs').all(),
      tasks: d.prepare('SELECT run_id, state, settled FROM slurm_tasks ORDER BY array_index').all(),
      runs: d.prepare('SELECT id, status FROM runs ORDER BY id').all(),
      flows: d.prepare('SELECT run_id, COUNT(*) AS n FROM flows GROUP BY run_id ORDER BY run_id').all(),
      submissions: d.prepare('SELECT COUNT(*) FROM slurm_submissions').pluck().get(),
    }))
    // The two runs the killed p4lab made, merged once each from the job's bundles; no other run, no other job.
    expect(stored).toEqual({
      jobs: [{ job_id: jobId, ended: 1 }],
      tasks: [{ run_id: 1, state: 'COMPLETED', settled: 1 }, { run_id: 2, state: 'COMPLETED', settled: 1 }],
      runs: [{ id: 1, status: 'done' }, { id: 2, status: 'done' }],
      flows: [{ run_id: 1, n: 30 }, { run_id: 2, n: 30 }],
      submissions: 0,
    })
    const again = await p4labAsync(['run', 'ended-after.yaml', '--db', 'ended-after.db', '--on', 'slurm', '--work', join(lab.cluster.work, 'ended-after'), '--partition', lab.cluster.partition, '--resume'], lab.dir, { env })
    expect(again.stderr).toBe('p4lab: resuming on Slurm: 2 of 2 cell(s) already done, 0 to submit\n')
  })

  it('a p4lab killed after sbatch made the job, before recording it, the job ended since: run --on slurm without --resume adopts it, merges it and submits none of its cells again', async () => {
    const jobId = await killedAfterSbatch('ended-plain', { ended: true })
    const env = { SLURM_CONF: lab.cluster.conf }
    const run = await p4labAsync(['run', 'ended-plain.yaml', '--db', 'ended-plain.db', '--on', 'slurm', '--work', join(lab.cluster.work, 'ended-plain'), '--partition', lab.cluster.partition], lab.dir, { env })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toMatch(new RegExp(`^p4lab: Slurm job ${jobId} \\(p4lab-ended-plain-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it, ended since \\(found through squeue\\): adopted and its results merged: run 1 done, run 2 done$`, 'm'))
    expect(run.stderr, run.stderr).toContain('p4lab: 0 cell(s) left to submit beside the job adopted\n')
    const stored = withDb(join(lab.dir, 'ended-plain.db'), (d) => ({
      jobs: d.prepare('SELECT job_id FROM slurm_jobs').pluck().all(),
      runs: d.prepare('SELECT id, status FROM runs ORDER BY id').all(),
    }))
    // The job adopted is the only one: its cells are not submitted again, nor run as new runs.
    expect(stored).toEqual({ jobs: [jobId], runs: [{ id: 1, status: 'done' }, { id: 2, status: 'done' }] })
    expect(lab.cluster.queued()).toEqual([])
  })

  it('a p4lab killed after sbatch made the job, before recording it: run --on slurm without --resume adopts the job, submits none of its cells again and follows it to its end', async () => {
    const jobId = await killedAfterSbatch('queued-plain')
    const env = { SLURM_CONF: lab.cluster.conf }
    const db = join(lab.dir, 'queued-plain.db')
    const followed = p4labAsync(['run', 'queued-plain.yaml', '--db', 'queued-plain.db', '--on', 'slurm', '--work', join(lab.cluster.work, 'queued-plain'), '--partition', lab.cluster.partition], lab.dir, { env })
    // Adopted (recorded), the job is released: it runs, and the command that adopted it follows it and merges its runs.
    await expect.poll(() => withDb(db, (d) => d.prepare('SELECT job_id FROM slurm_jobs').pluck().all()), { timeout: 60_000, interval: 200 }).toEqual([jobId])
    lab.cluster.run(['scontrol', 'release', jobId])
    const run = await followed
    const stored = withDb(db, (d) => ({
      jobs: d.prepare('SELECT job_id FROM slurm_jobs').pluck().all(),
      runs: d.prepare('SELECT status FROM runs ORDER BY id').pluck().all(),
    }))
    const why = `${run.stderr}\n${run.stdout}\n${JSON.stringify(stored)}`
    expect(run.stderr, why).toMatch(new RegExp(`^p4lab: Slurm job ${jobId} \\(p4lab-queued-plain-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it: adopted, `, 'm'))
    expect(run.stderr, why).toContain('p4lab: 0 cell(s) left to submit beside the job adopted\n')
    expect(run.stdout, why).toMatch(/^run 1 ecmp load=0\.3 seed=1: done \(Slurm COMPLETED\)$/m)
    expect(run.stdout, why).toMatch(/^run 2 ecmp load=0\.3 seed=2: done \(Slurm COMPLETED\)$/m)
    expect(run.code, why).toBe(0)
    expect(stored, why).toEqual({ jobs: [jobId], runs: ['done', 'done'] })
    expect(lab.cluster.queued()).toEqual([])
  })

  it('a p4lab killed after sbatch made the job, before recording it, one task of it failed and the job ended since: run --on slurm --resume adopts it, merges it, submits the failed cell again and follows that job', async () => {
    const jobId = await killedAfterSbatch('failed-task')
    // Task 1 finds no cell of its own in the job file: it fails (Slurm FAILED); task 0 runs as submitted.
    const sweeps = join(lab.cluster.work, 'failed-task', 'sweeps')
    const [sweep] = readdirSync(sweeps)
    const jobFile = join(sweeps, sweep, 'job.json')
    const job = JSON.parse(readFileSync(jobFile, 'utf8')) as { cells: unknown[] }
    expect(job.cells).toHaveLength(2)
    writeFileSync(jobFile, JSON.stringify({ ...job, cells: [job.cells[0], null] }))
    lab.cluster.run(['scontrol', 'release', jobId])
    await expect.poll(() => lab.cluster.run(['squeue', '-h', '-r', '-j', jobId, '-o', '%i']).trim(), { timeout: 120_000, interval: 500 }).toBe('')
    const env = { SLURM_CONF: lab.cluster.conf }
    const resumed = await p4labAsync(['run', 'failed-task.yaml', '--db', 'failed-task.db', '--on', 'slurm', '--work', join(lab.cluster.work, 'failed-task'), '--partition', lab.cluster.partition, '--resume'], lab.dir, { env })
    const stored = withDb(join(lab.dir, 'failed-task.db'), (d) => ({
      jobs: d.prepare('SELECT job_id FROM slurm_jobs ORDER BY id').pluck().all() as string[],
      runs: d.prepare('SELECT id, seed, status FROM runs ORDER BY id').all(),
    }))
    const why = `${resumed.stderr}\n${resumed.stdout}\n${JSON.stringify(stored)}`
    expect(resumed.stderr, why).toMatch(new RegExp(`^p4lab: Slurm job ${jobId} \\(p4lab-failed-task-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it, ended since \\(found through squeue\\): adopted and its results merged: run 1 done, run 2 failed$`, 'm'))
    expect(resumed.stderr, why).toContain('p4lab: 1 cell(s) left to submit beside the job adopted\n')
    expect(resumed.stderr, why).toMatch(/submitted 1 cell\(s\) as Slurm job \d+/)
    // The failed cell ran again, as the run of a job of its own; the done one did not.
    expect(stored.jobs, why).toHaveLength(2)
    expect(stored.jobs[0], why).toBe(jobId)
    expect(stored.runs, why).toEqual([
      { id: 1, seed: 1, status: 'done' },
      { id: 2, seed: 2, status: 'failed' },
      { id: 3, seed: 2, status: 'done' },
    ])
    expect(resumed.stdout, why).toMatch(/^run 3 ecmp load=0\.3 seed=2: done \(Slurm COMPLETED\)$/m)
    expect(resumed.code, why).toBe(0)
    expect(lab.cluster.queued()).toEqual([])
  })

  it('a p4lab killed after sbatch made the job, before recording it, the job ended since and its cells run again: p4lab slurm status leaves its results unmerged in its folder, saying where and why, and cancels nothing', async () => {
    const jobId = await killedAfterSbatch('ended-rerun', { ended: true })
    const resumed = await p4labAsync(['run', 'ended-rerun.yaml', '--db', 'ended-rerun.db', '--resume'], lab.dir)
    expect(resumed.code, resumed.stderr).toBe(0)
    const status = await p4labAsync(['slurm', 'status', '--db', 'ended-rerun.db'], lab.dir, { env: { SLURM_CONF: lab.cluster.conf } })
    const dir = new RegExp(`^Slurm job ${jobId} \\(p4lab-ended-rerun-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it, ended since \\(found through squeue\\): not adopted, its results left unmerged in (\\S+): its cell ecmp load=0\\.3 seed=1 ran again since \\(run 3\\)\nno Slurm jobs in `).exec(status.stdout)
    expect(dir, status.stdout).not.toBeNull()
    expect(status.code, status.stderr).toBe(0)
    expect(readdirSync(join(dir![1], 'results')).sort()).toEqual(['0', '1'])
    expect(withDb(join(lab.dir, 'ended-rerun.db'), (d) => d.prepare('SELECT status FROM runs ORDER BY id').pluck().all())).toEqual(['interrupted', 'interrupted', 'done', 'done'])
    expect(lab.cluster.run(['scontrol', 'show', 'job', jobId]).match(/JobState=\w+/g)).toEqual(['JobState=COMPLETED', 'JobState=COMPLETED'])
  })

  it('a p4lab killed after sbatch made the job, before recording it, the job ended and forgotten by Slurm since: p4lab slurm status finds it by the job its result bundles name, adopts it and merges them', async () => {
    const jobId = await killedAfterSbatch('forgotten', { ended: true })
    // As once the cluster's MinJobAge has passed (this one keeps jobs an hour): squeue lists no
    // ended job, and there is no accounting for sacct to ask.
    const bin = join(lab.dir, 'forgotten-squeue')
    mkdirSync(bin)
    writeFileSync(join(bin, 'squeue'), '#!/bin/sh\ncase " $* " in *" -t all "*) exit 0;; esac\nexec /usr/bin/squeue "$@"\n')
    chmodSync(join(bin, 'squeue'), 0o755)
    const status = await p4labAsync(['slurm', 'status', '--db', 'forgotten.db'], lab.dir, { env: { SLURM_CONF: lab.cluster.conf, PATH: `${bin}:${process.env.PATH}` } })
    expect(status.code, status.stderr).toBe(0)
    const lines = status.stdout.split('\n')
    expect(lines[0]).toMatch(new RegExp(`^Slurm job ${jobId} \\(p4lab-forgotten-[0-9a-f]{8}\\) on this machine, submitted for run\\(s\\) 1, 2 by a p4lab that ended before recording it, ended since \\(found through the result bundles in \\S+/sweeps/forgotten-1-\\S+\\): adopted and its results merged: run 1 done, run 2 done$`))
    expect(lines[1]).toMatch(new RegExp(`^Slurm job ${jobId} \\(experiment 1\\) on this machine: \\[#+\\] 2/2 settled: 2 COMPLETED$`))
    expect(withDb(join(lab.dir, 'forgotten.db'), (d) => d.prepare('SELECT status FROM runs ORDER BY id').pluck().all())).toEqual(['done', 'done'])
  })

  it('refuses Slurm options without --on slurm', async () => {
    const r = await p4lab(['run', 'small.yaml', '--db', 'y.db', '--partition', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--partition goes with --on slurm')
  })
})

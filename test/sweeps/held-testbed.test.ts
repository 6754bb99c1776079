// A sweep on a BMv2 testbed whose host cannot be reached, against the real test sshd: the first
// run that cannot reach it fails, and the runs queued behind it on the testbed are held (not
// started, each with the reason naming the testbed, the host and the error) instead of each
// trying, waiting out its own connection attempt and failing with the same error. A resume once
// the host is back runs them. The switches are the stand-ins of test/helpers/bmv2.ts.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'shell-quote'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TERMINAL_STATUSES } from '../../src-main/contract'
import { createNodeCore } from '../../src-main/core'
import type { Core } from '../../src-main/core/services'
import { p4labAsync, withDb } from '../helpers/cli'
import { dropper } from '../helpers/dropper'
import { probeNetns } from '../helpers/netns'
import { startBmv2Lab, stopBmv2Lab, type Bmv2Lab } from '../helpers/bmv2'

const probe = probeNetns()
if (!probe.ok) console.warn(`[held-testbed] skipping the runs to their end: ${probe.reason}`)

// Three cells (one scheme, one load, three seeds) on the testbed `testbed`.
const EXP = (testbed: string, name: string) => `name: ${name}
testbed: ${testbed}
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 2 }
seeds: [1, 2, 3]
`

describe('a sweep on a testbed that cannot be reached', () => {
  let lab: Bmv2Lab
  const dirs: string[] = []
  beforeAll(async () => {
    lab = await startBmv2Lab('held', 9900, { switchStandIn: true })
  })
  afterAll(async () => {
    await lab?.sshd.up().catch(() => undefined)
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
    await stopBmv2Lab(lab)
  })

  /**
   * A core (a new one, or `o.core`) with the testbed `tb`: one switch host at `port` on
   * 127.0.0.1 logging in with `o.keyFile` (default the lab's key), the lab sshd's host key trusted.
   */
  async function setup(tb: string, port: number, o: { core?: Core; keyFile?: string } = {}): Promise<Core> {
    let core = o.core
    if (!core) {
      const d = mkdtempSync(join(tmpdir(), 'p4lab-held-'))
      dirs.push(d)
      core = createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d })
    }
    const { sshd } = lab
    await core.opts.knownHosts!.trust(sshd.host, port, sshd.hostKey())
    await core.testbeds.create({
      name: tb,
      kind: 'bmv2',
      settings: { bringUp: 'netns', calibrate: false },
      hosts: [{ name: 'sw1', address: sshd.host, port, user: sshd.user, auth: 'key', keyFile: o.keyFile ?? sshd.plainKey }],
    })
    return core
  }

  const stepsOf = (core: Core, id: number) =>
    core.opts.store
      .listEvents(id)
      .filter((e) => e.kind === 'step')
      .map((e) => e.detail as { step: string; state: string })
      .map((s) => `${s.step}:${s.state}`)

  it('tries the host once: a host that drops every connection is connected to by the first run only', async () => {
    const host = await dropper()
    const { port } = host
    const core = await setup('dropper', port)
    try {
      const exp = core.findOrCreateExperiment(EXP('dropper', 'held-drop'), null)
      const runs = core.runExperiment(exp.id)
      expect(runs).toHaveLength(3)
      await core.orchestrator.wait(runs.map((r) => r.id))
      const rows = runs.map((r) => core.opts.store.getRun(r.id)!)
      const why = JSON.stringify(rows.map((r) => ({ id: r.id, status: r.status, error: r.error })))
      expect(host.connections(), why).toBe(1)
      expect(rows.map((r) => r.status), why).toEqual(['failed', 'held', 'held'])
      expect(rows[0].error, why).toMatch(new RegExp(`^sw1: ${lab.sshd.user}@\\[127\\.0\\.0\\.1\\]:${port}: cannot connect: `))
      // Nothing to cancel in a held run, and it says why.
      await expect(core.handlers['runs.cancel']({ id: rows[1].id })).rejects.toThrow(new RegExp(`^run ${rows[1].id} is held, never started \\(not started: testbed 'dropper' could not be reached`))
    } finally {
      core.opts.store.close()
      await host.close()
    }
  })

  it('p4lab run says how many runs it held and why, exits 1, and the --resume command it prints (with its --db and --testbed) tries the testbed once again', async () => {
    const host = await dropper()
    const { port } = host
    const cwd = mkdtempSync(join(tmpdir(), 'p4lab-held-cli-'))
    dirs.push(cwd)
    try {
      const { sshd } = lab
      // A database of its own (a name the shell must quote), and the file says another testbed than the one run on.
      const db = 'held cli.db'
      const add = await p4labAsync(['testbed', 'add', 'gone', '--db', db, '--kind', 'bmv2', '--host', `${sshd.user}@127.0.0.1:${port}`, '--key', sshd.plainKey, '--name', 'sw1'], cwd)
      expect(add.code, add.stderr).toBe(0)
      writeFileSync(join(cwd, 'sweep.yaml'), EXP('sim', 'held-cli'))
      const run = await p4labAsync(['run', 'sweep.yaml', '--db', db, '--testbed', 'gone'], cwd)
      expect(run.code, run.stderr).toBe(1)
      expect(host.connections(), run.stderr).toBe(1)
      expect(run.stderr, run.stderr).toMatch(new RegExp(`run 1 ecmp load=0\\.3 seed=1: failed \\(sw1: ${sshd.user}@\\[127\\.0\\.0\\.1\\]:${port}: cannot connect: `))
      expect(run.stderr, run.stderr).toMatch(/run 2 ecmp load=0\.3 seed=2: held\n/)
      expect(run.stderr, run.stderr).toMatch(/run 3 ecmp load=0\.3 seed=3: held\n/)
      expect(run.stderr, run.stderr).toMatch(/p4lab: 2 run\(s\) held: not started: testbed 'gone' could not be reached when run 1 tried \(host sw1: /)
      expect(run.stderr, run.stderr).toContain("p4lab: once the testbed is reachable: p4lab run sweep.yaml --db 'held cli.db' --testbed gone --resume\n")
      const statuses = () => withDb(join(cwd, db), (d) => d.prepare('SELECT id, status FROM runs ORDER BY id').all())
      expect(statuses()).toEqual([
        { id: 1, status: 'failed' },
        { id: 2, status: 'held' },
        { id: 3, status: 'held' },
      ])

      // Still unreachable: the command as printed resumes the same experiment in the same
      // database on the same testbed (no new revision, nothing stale), runs the three cells
      // again, and holds two of them again after one attempt.
      const hint = /^p4lab: once the testbed is reachable: (.*)$/m.exec(run.stderr)![1]
      const argv = parse(hint) as string[]
      expect(argv.slice(0, 2)).toEqual(['p4lab', 'run'])
      const resume = await p4labAsync(argv.slice(1), cwd)
      expect(resume.code, resume.stderr).toBe(1)
      expect(resume.stderr).toMatch(/^p4lab: resuming: 0 of 3 cell\(s\) already done, 3 to run$/m)
      expect(resume.stderr).not.toMatch(/saved as revision/)
      expect(host.connections(), resume.stderr).toBe(2)
      expect(statuses().slice(3)).toEqual([
        { id: 4, status: 'failed' },
        { id: 5, status: 'held' },
        { id: 6, status: 'held' },
      ])
      expect(withDb(join(cwd, db), (d) => d.prepare('SELECT COUNT(*) FROM experiments').pluck().get())).toBe(1)
    } finally {
      await host.close()
    }
  }, 120_000)

  it('a key file the host refuses, or one that cannot be read: the held runs say which host and why, never the local path of the key', async () => {
    const { sshd } = lab
    const keys = mkdtempSync(join(tmpdir(), 'p4lab-held-keys-'))
    dirs.push(keys)
    // A key of the right kind that the sshd does not authorize; another saved with the testbed, then removed.
    const refused = join(keys, 'id_refused_by_sshd')
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', refused])
    const gone = join(keys, 'id_gone_since')
    copyFileSync(sshd.plainKey, gone)
    const core = await setup('key-refused', sshd.port, { keyFile: refused })
    await setup('key-gone', sshd.port, { core, keyFile: gone })
    rmSync(gone)
    const store = core.opts.store
    try {
      for (const [tb, keyFile, why] of [
        ['key-refused', refused, /authentication failed with the key file of host sw1 \(/],
        ['key-gone', gone, /cannot read the key file of host sw1: ENOENT/],
      ] as const) {
        const exp = core.findOrCreateExperiment(EXP(tb, `held-${tb}`), null)
        const runs = core.runExperiment(exp.id)
        await core.orchestrator.wait(runs.map((r) => r.id))
        const rows = runs.map((r) => store.getRun(r.id)!)
        const all = JSON.stringify(rows.map((r) => ({ id: r.id, status: r.status, error: r.error })))
        expect(rows.map((r) => r.status), all).toEqual(['failed', 'held', 'held'])
        // The run that tried says why, naming the host's key file by its host.
        expect(rows[0].error, all).toMatch(new RegExp(`^sw1: ${sshd.user}@\\[127\\.0\\.0\\.1\\]:${sshd.port}: `))
        expect(rows[0].error, all).toMatch(why)
        for (const r of rows.slice(1)) {
          expect(r.error, all).toMatch(new RegExp(`^not started: testbed '${tb}' could not be reached when run ${rows[0].id} tried \\(host sw1: ${sshd.user}@\\[127\\.0\\.0\\.1\\]:${sshd.port}: `))
          expect(r.error, all).toMatch(why)
        }
        // The path is in no run's error, nor in what the run matrix says above its cells; the log of the run that tried has it.
        for (const r of rows) expect(r.error, all).not.toContain(keys)
        const m = await core.handlers['sweeps.matrix']({ experimentId: exp.id })
        expect(m.held).toEqual([{ testbed: tb, cells: 2, reason: rows[1].error }])
        expect(JSON.stringify(m)).not.toContain(keys)
        expect(store.listLogs(rows[0].id).map((l) => l.line).join('\n')).toContain(keyFile)
      }
    } finally {
      store.close()
    }
  })

  it("a run's own failure (a tool missing on a host it reaches) holds nothing, and a testbed held leaves the runs queued on another one alone", async () => {
    const { sshd } = lab
    // Testbed 'down': a host that drops every connection. Testbed 'up': the lab sshd, behind a
    // gate that passes no byte until opened, so that its runs are still queued (its first one
    // logging in) when the first run on 'down' fails; its simple_switch hidden, so each of its
    // runs fails on its own check.
    const unreachable = await dropper()
    let open!: () => void
    const opened = new Promise<void>((r) => (open = r))
    const gateSockets: Socket[] = []
    const gate: Server = createServer((client) => {
      gateSockets.push(client)
      client.pause()
      void opened.then(() => {
        const upstream = connect(sshd.port, '127.0.0.1')
        gateSockets.push(upstream)
        client.pipe(upstream).pipe(client)
        client.resume()
        const end = () => {
          client.destroy()
          upstream.destroy()
        }
        client.on('error', end).on('close', end)
        upstream.on('error', end).on('close', end)
      })
    })
    await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r))
    const simpleSwitch = join(lab.dir, 'switch-bin', 'simple_switch')
    renameSync(simpleSwitch, `${simpleSwitch}.hidden`)
    const core = await setup('down', unreachable.port)
    await setup('up', (gate.address() as { port: number }).port, { core })
    const store = core.opts.store
    try {
      const up = core.runExperiment(core.findOrCreateExperiment(EXP('up', 'held-not-up'), null).id)
      const down = core.runExperiment(core.findOrCreateExperiment(EXP('down', 'held-down-only'), null).id)
      const statuses = (runs: typeof up) => runs.map((r) => store.getRun(r.id)!.status)
      await core.orchestrator.wait(down.map((r) => r.id))
      expect(statuses(down)).toEqual(['failed', 'held', 'held'])
      // Held for 'down' while they waited behind the first run on 'up': still queued.
      const early = statuses(up)
      expect(early.slice(1), early.join()).toEqual(['queued', 'queued'])
      expect(TERMINAL_STATUSES, early.join()).not.toContain(early[0])
      open()
      await core.orchestrator.wait(up.map((r) => r.id))
      const rows = up.map((r) => store.getRun(r.id)!)
      const why = JSON.stringify(rows.map((r) => ({ id: r.id, status: r.status, error: r.error, steps: stepsOf(core, r.id) })))
      // Each ran its check and failed on its own: the first failure held nothing.
      expect(rows.map((r) => r.status), why).toEqual(['failed', 'failed', 'failed'])
      for (const r of rows) {
        expect(r.error, why).toMatch(/simple_switch/)
        expect(stepsOf(core, r.id), why).toContain('check:failed')
      }
      expect((await core.handlers['sweeps.matrix']({ experimentId: rows[0].experimentId })).held).toEqual([])
    } finally {
      open()
      renameSync(`${simpleSwitch}.hidden`, simpleSwitch)
      store.close()
      for (const sock of gateSockets) sock.destroy()
      await new Promise((r) => gate.close(r))
      await unreachable.close()
    }
  }, 120_000)

  it('fails the first run, holds the others with the reason, and a resume runs them once the sshd is back', async () => {
    const { sshd } = lab
    const core = await setup('lab-down', sshd.port)
    const store = core.opts.store
    try {
      await sshd.down()
      const exp = core.findOrCreateExperiment(EXP('lab-down', 'held-down'), null)
      const runs = core.runExperiment(exp.id)
      await core.orchestrator.wait(runs.map((r) => r.id))
      const rows = runs.map((r) => store.getRun(r.id)!)
      const why = JSON.stringify(rows.map((r) => ({ id: r.id, status: r.status, error: r.error, steps: stepsOf(core, r.id) })))

      // One run tried and failed, on the connection refused; it was not its own failure.
      expect(rows.map((r) => r.status), why).toEqual(['failed', 'held', 'held'])
      expect(rows[0].error, why).toMatch(new RegExp(`^sw1: ${sshd.user}@\\[127\\.0\\.0\\.1\\]:${sshd.port}: cannot connect: nothing listens on port ${sshd.port} there \\(connection refused`))
      expect(stepsOf(core, rows[0].id), why).toContain('check:failed')
      // The others never started: no step, no start time, and the reason names the testbed, the host and the error.
      for (const r of rows.slice(1)) {
        expect(stepsOf(core, r.id), why).toEqual([])
        expect(r.startedAt, why).toBeNull()
        expect(r.error, why).toMatch(new RegExp(`^not started: testbed 'lab-down' could not be reached when run ${rows[0].id} tried \\(host sw1: ${sshd.user}@\\[127\\.0\\.0\\.1\\]:${sshd.port}: cannot connect: nothing listens on port ${sshd.port} there \\(connection refused`))
        expect(r.error, why).toMatch(/resume the sweep/)
      }
      // The sweep says it is held for the testbed; the experiment counts its held runs.
      const m = await core.handlers['sweeps.matrix']({ experimentId: exp.id })
      expect(m.cells.map((c) => c.status)).toEqual(['failed', 'held', 'held'])
      expect(m.held).toEqual([{ testbed: 'lab-down', cells: 2, reason: rows[1].error }])
      const summary = (await core.handlers['experiments.list']({})).find((e) => e.id === exp.id)!
      expect(summary.runCounts).toMatchObject({ failed: 1, held: 2, queued: 0 })
      // A process that looks for runs left by dead owners leaves held runs alone: they are not in
      // flight. Asked as if this process (their owner) were gone, so a held run that counted as
      // in flight would be marked interrupted here.
      expect(store.markInterruptedRuns(() => false)).toEqual([])
      expect(rows.map((r) => store.getRun(r.id)!.status)).toEqual(['failed', 'held', 'held'])

      if (!probe.ok) return
      await sshd.up()
      const resumed = await core.handlers['sweeps.resume']({ experimentId: exp.id })
      // Every cell: the failed one and the two held.
      expect(resumed.runIds).toHaveLength(3)
      await core.orchestrator.wait(resumed.runIds)
      const after = resumed.runIds.map((id) => store.getRun(id)!)
      const awhy = JSON.stringify(after.map((r) => ({ id: r.id, status: r.status, error: r.error, steps: stepsOf(core, r.id) })))
      // The stand-in switches forward nothing, so the flows fail: 'incomplete', as on a reachable testbed. Never failed nor held.
      for (const r of after) {
        expect(['done', 'incomplete'], awhy).toContain(r.status)
        expect(stepsOf(core, r.id), awhy).toEqual(expect.arrayContaining(['check:done', 'traffic:done', 'teardown:done']))
      }
      const m2 = await core.handlers['sweeps.matrix']({ experimentId: exp.id })
      expect(m2.held).toEqual([])
      expect(m2.cells.every((c) => c.status === 'done' || c.status === 'incomplete')).toBe(true)
    } finally {
      await sshd.up().catch(() => undefined)
      store.close()
    }
  }, 300_000)
})

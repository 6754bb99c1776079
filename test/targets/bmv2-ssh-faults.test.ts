// SSH faults in the middle of a BMv2 run, against the real test sshd: the server goes away
// (every session it served is killed, new connections are refused) while the traffic runs.
// - Back within the testbed's reconnect window: the run reconnects and goes on to its end.
// - Back only after it: the run fails, naming the host and what was lost; its teardown could
//   not run, so it is not clean and what the run left is recorded; once the host is back,
//   `p4lab testbed clean` (Core.cleanTestbed) finds the run's processes by their pid files
//   and stops them, and a new run on the testbed does the same at its start (its check step).
// The switches are the stand-ins of test/helpers/bmv2.ts (no BMv2 here); the namespaces,
// veths and traffic agents are real processes on this machine, which is the "host".
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeCore } from '../../src-main/core'
import type { Core } from '../../src-main/core/services'
import { p4labKnownHosts } from '../../src-main/core/ssh'
import { listLeftovers } from '../../src-main/core/targets/shared/leftovers'
import { netnsList, probeNetns, processesMatching } from '../helpers/netns'
import { startBmv2Lab, stopBmv2Lab, type Bmv2Lab } from '../helpers/bmv2'
import { groupMembers } from '../helpers/sshd'

const probe = probeNetns()
if (!probe.ok) console.warn(`[bmv2-ssh-faults] skipping: ${probe.reason}`)

// Two leaves, a host on each: the clients' flows go through the stand-in switches, which
// forward nothing, so each flow waits out the agent's 10 s connect timeout: the traffic
// step lasts long enough to cut the connection in it.
const EXP = (testbed: string, name: string) => `name: ${name}
testbed: ${testbed}
topology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 4 }
seeds: [1]
`

async function waitFor(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The run's processes on the host: the live members of each pid file's group (or session), and those whose command line names the run directory or the run's prefix. */
function runProcesses(runDir: string, prefix: string): { pidFiles: number; byPidFile: number[]; byCmdline: number[] } {
  const files = existsSync(runDir) ? readdirSync(runDir).filter((f) => f.endsWith('.pid')) : []
  const byPidFile = new Set<number>()
  for (const f of files) {
    const pid = Number(readFileSync(join(runDir, f), 'utf8').trim())
    if (pid > 1) for (const m of groupMembers(pid)) if (m.state !== 'Z' && m.state !== 'X') byPidFile.add(m.pid)
  }
  const byCmdline = new Set([...processesMatching(runDir), ...processesMatching(prefix)].map((p) => p.pid))
  return { pidFiles: files.length, byPidFile: [...byPidFile].sort((a, b) => a - b), byCmdline: [...byCmdline].sort((a, b) => a - b) }
}

function linksWith(prefix: string): string[] {
  return spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => (l.split(': ')[1] ?? '').split('@')[0])
    .filter((n) => n.startsWith(prefix))
}

describe('an SSH connection lost during a BMv2 run', () => {
  let lab: Bmv2Lab
  const dirs: string[] = []
  const prefixes: string[] = []
  const runDirs: string[] = []
  beforeAll(async () => {
    lab = await startBmv2Lab('sshfault', 9700, { switchStandIn: true })
  })
  afterAll(async () => {
    // A failed test may have left the server down, or the run's processes and namespaces up.
    await lab?.sshd.up().catch(() => undefined)
    for (const p of [...prefixes, ...runDirs]) {
      for (const x of processesMatching(p)) process.kill(x.pid, 'SIGKILL')
      for (const ns of netnsList()) if (ns.startsWith(p)) spawnSync('ip', ['netns', 'del', ns])
    }
    for (const d of [...dirs, ...runDirs]) rmSync(d, { recursive: true, force: true })
    await stopBmv2Lab(lab)
  })

  async function setup(tb: string, reconnectWindowS: number): Promise<{ core: Core; d: string }> {
    const d = mkdtempSync(join(tmpdir(), 'p4lab-sshfault-'))
    dirs.push(d)
    const core = createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d })
    const { sshd } = lab
    await p4labKnownHosts(d).trust(sshd.host, sshd.port, sshd.hostKey())
    await core.testbeds.create({
      name: tb,
      kind: 'bmv2',
      settings: { bringUp: 'netns', calibrate: false, reconnectWindowS },
      hosts: [{ name: 'sw1', address: sshd.host, port: sshd.port, user: sshd.user, auth: 'key', keyFile: sshd.plainKey }],
    })
    return { core, d }
  }

  /** Starts a run and returns once its traffic clients are started (the poll rounds are under way). */
  async function startRun(core: Core, tb: string, name: string): Promise<{ id: number; runDir: string; prefix: string }> {
    const exp = core.findOrCreateExperiment(EXP(tb, name), null)
    const [run] = core.runExperiment(exp.id)
    const store = core.opts.store
    await waitFor('the traffic clients to start', () => store.listLogs(run.id).some((l) => /traffic: \d+ clients start at/.test(l.line)) || (store.getRun(run.id)?.status ?? '') === 'failed', 120_000)
    const dep = store
      .listEvents(run.id)
      .filter((e) => e.kind === 'deploy')
      .map((e) => e.detail as { part: string; dir?: string; prefix?: string })
      .find((x) => x.part === 'run-dir')
    expect(dep?.dir, `the run did not deploy: ${store.getRun(run.id)?.error}; ${store.listLogs(run.id).slice(-30).map((l) => `${l.source}: ${l.line}`).join('\n')}`).toBeTruthy()
    prefixes.push(dep!.prefix!)
    runDirs.push(dep!.dir!)
    return { id: run.id, runDir: dep!.dir!, prefix: dep!.prefix! }
  }

  /** orchestrator.wait with a hang guard that shows where the run is. */
  async function waitRun(core: Core, id: number, ms = 150_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const logs = core.opts.store.listLogs(id).map((l) => `${l.source}: ${l.line}`)
        reject(new Error(`run ${id} still ${core.opts.store.getRun(id)?.status} after ${ms / 1000} s; log tail:\n${logs.slice(-40).join('\n')}`))
      }, ms)
    })
    try {
      await Promise.race([core.orchestrator.wait([id]), guard])
    } finally {
      clearTimeout(timer)
    }
  }

  const stepStates = (core: Core, id: number) =>
    core.opts.store
      .listEvents(id)
      .filter((e) => e.kind === 'step')
      .map((e) => e.detail as { step: string; state: string })
      .map((s) => `${s.step}:${s.state}`)

  const teardowns = (core: Core, id: number) =>
    core.opts.store
      .listEvents(id)
      .filter((e) => e.kind === 'teardown')
      .map((e) => e.detail)

  it('reconnects when the server is back within the reconnect window, and the run goes on to its end', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { core } = await setup('fault-back', 120)
    try {
      const store = core.opts.store
      const run = await startRun(core, 'fault-back', 'fault-back')
      const started = runProcesses(run.runDir, run.prefix)
      await lab.sshd.down()
      // The run saw the server gone: at least one reconnect attempt failed.
      await waitFor('a failed reconnect attempt', () => store.listLogs(run.id).some((l) => /reconnect attempt \d+ failed/.test(l.line)))
      await lab.sshd.up()
      await waitRun(core, run.id)

      const row = store.getRun(run.id)!
      const logs = store.listLogs(run.id).map((l) => `${l.source}: ${l.line}`)
      const states = stepStates(core, run.id)
      const why = `status ${row.status}; error ${row.error}; steps ${states.join(' ')}; ${JSON.stringify(logs).slice(-3000)}`
      // The stand-in switches forward nothing, so the flows fail: 'incomplete', as without the fault. Never 'failed'.
      expect(['done', 'incomplete'], why).toContain(row.status)
      expect(row.error ?? '', why).not.toMatch(/connection|reconnect/)
      expect(states, why).toEqual(expect.arrayContaining(['traffic:done', 'collect:done', 'teardown:done']))
      expect(states.filter((s) => /:failed$/.test(s)), why).toEqual([])
      expect(logs.some((l) => /reconnected at attempt \d+/.test(l)), why).toBe(true)
      expect(teardowns(core, run.id)).toEqual([expect.objectContaining({ host: 'sw1', clean: true })])
      const after = runProcesses(run.runDir, run.prefix)
      console.log(`[ssh-faults] back within the window: run ${run.id} ${row.status}; processes of the run at the cut ${started.byPidFile.length} (${started.pidFiles} pid files), after teardown ${after.byPidFile.length} by pid file, ${after.byCmdline.length} by command line`)
      expect(started.pidFiles).toBeGreaterThan(0)
      expect(after).toEqual({ pidFiles: 0, byPidFile: [], byCmdline: [] })
      expect(netnsList().filter((n) => n.startsWith(run.prefix))).toEqual([])
      expect(linksWith(run.prefix)).toEqual([])
    } finally {
      await lab.sshd.up().catch(() => undefined)
      core.opts.store.close()
    }
  }, 300_000)

  it('fails cleanly when the server stays away past the window, and the cleanup later leaves 0 orphaned processes', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { core, d } = await setup('fault-gone', 2)
    try {
      const store = core.opts.store
      const run = await startRun(core, 'fault-gone', 'fault-gone')
      const started = runProcesses(run.runDir, run.prefix)
      await lab.sshd.down()
      await waitRun(core, run.id)

      const row = store.getRun(run.id)!
      const logs = store.listLogs(run.id).map((l) => `${l.source}: ${l.line}`)
      const states = stepStates(core, run.id)
      const why = `status ${row.status}; error ${row.error}; steps ${states.join(' ')}; ${JSON.stringify(logs).slice(-3000)}`
      expect(row.status, why).toBe('failed')
      // The reason names the host and what was lost.
      expect(row.error, why).toMatch(new RegExp(`lost the connection to ${lab.sshd.user}@\\[?127\\.0\\.0\\.1\\]?:${lab.sshd.port} and could not reconnect within the reconnect window of 2 s`))
      // The teardown could not run its commands: not clean, and said so.
      expect(states, why).toContain('teardown:failed')
      expect(teardowns(core, run.id)).toEqual([expect.objectContaining({ host: 'sw1', clean: false })])
      const records = listLeftovers(d, 'fault-gone')
      expect(records.map((r) => ({ runId: r.runId, host: r.host.name, prefix: r.prefix }))).toEqual([{ runId: run.id, host: 'sw1', prefix: run.prefix }])

      // What the run left running on the host while it could not reach it.
      const orphaned = runProcesses(run.runDir, run.prefix)
      expect(orphaned.byPidFile.length, why).toBeGreaterThan(0)

      await lab.sshd.up()
      const cleanupLog: string[] = []
      const results = await core.cleanTestbed('fault-gone', (l) => cleanupLog.push(l))
      const cwhy = cleanupLog.join('\n')
      expect(results, cwhy).toEqual([expect.objectContaining({ runId: run.id, host: 'sw1', clean: true, left: 0 })])
      expect(results[0].pidFiles, cwhy).toBe(orphaned.pidFiles)
      expect(results[0].found, cwhy).toBeGreaterThanOrEqual(orphaned.byPidFile.length)

      const after = runProcesses(run.runDir, run.prefix)
      console.log(
        `[ssh-faults] gone past the window: run ${run.id} failed (${row.error}); processes the run started that were alive at the cut: ${started.byPidFile.length} (${started.pidFiles} pid files, ${started.byCmdline.length} by command line); ` +
          `left after the failure: ${orphaned.byPidFile.length} by pid file, ${orphaned.byCmdline.length} by command line; ` +
          `cleanup found ${results[0].found} in ${results[0].pidFiles} pid files; left after the cleanup: ${after.byPidFile.length} by pid file, ${after.byCmdline.length} by command line`,
      )
      expect(after).toEqual({ pidFiles: 0, byPidFile: [], byCmdline: [] })
      expect(existsSync(run.runDir)).toBe(false)
      expect(netnsList().filter((n) => n.startsWith(run.prefix))).toEqual([])
      expect(linksWith(run.prefix)).toEqual([])
      expect(listLeftovers(d, 'fault-gone')).toEqual([])
      // Nothing left to do: a second clean finds nothing.
      expect(await core.cleanTestbed('fault-gone')).toEqual([])
    } finally {
      await lab.sshd.up().catch(() => undefined)
      core.opts.store.close()
    }
  }, 300_000)

  it('the next run on the testbed cleans what a run cut off past the window left, before it deploys', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { core, d } = await setup('fault-next', 2)
    try {
      const store = core.opts.store
      const cut = await startRun(core, 'fault-next', 'fault-next-a')
      await lab.sshd.down()
      await waitRun(core, cut.id)
      expect(store.getRun(cut.id)?.status).toBe('failed')
      const orphaned = runProcesses(cut.runDir, cut.prefix)
      expect(orphaned.byPidFile.length).toBeGreaterThan(0)
      expect(listLeftovers(d, 'fault-next').map((r) => r.runId)).toEqual([cut.id])

      await lab.sshd.up()
      const next = await startRun(core, 'fault-next', 'fault-next-b')
      // Cleaned at the new run's check, before its deploy: gone while the new run is running.
      const during = runProcesses(cut.runDir, cut.prefix)
      await waitRun(core, next.id)
      const cleanup = store
        .listEvents(next.id)
        .filter((e) => e.kind === 'cleanup')
        .map((e) => e.detail as { results: Array<{ runId: number; clean: boolean; pidFiles: number; found: number; left: number }> })
      const why = store
        .listLogs(next.id)
        .filter((l) => l.source === 'cleanup')
        .map((l) => l.line)
        .join('\n')
      expect(cleanup, why).toEqual([{ results: [expect.objectContaining({ runId: cut.id, clean: true, left: 0, pidFiles: orphaned.pidFiles })] }])
      console.log(
        `[ssh-faults] cleaned by the next run: run ${cut.id} left ${orphaned.byPidFile.length} processes by pid file (${orphaned.byCmdline.length} by command line, ${orphaned.pidFiles} pid files); ` +
          `run ${next.id}'s check found ${cleanup[0].results[0].found} and left ${cleanup[0].results[0].left}; while run ${next.id} ran: ${during.byPidFile.length} by pid file, ${during.byCmdline.length} by command line`,
      )
      expect(during).toEqual({ pidFiles: 0, byPidFile: [], byCmdline: [] })
      expect(runProcesses(cut.runDir, cut.prefix)).toEqual({ pidFiles: 0, byPidFile: [], byCmdline: [] })
      expect(listLeftovers(d, 'fault-next')).toEqual([])
      expect(['done', 'incomplete']).toContain(store.getRun(next.id)?.status)
      expect(teardowns(core, next.id)).toEqual([expect.objectContaining({ host: 'sw1', clean: true })])
    } finally {
      await lab.sshd.up().catch(() => undefined)
      core.opts.store.close()
    }
  }, 400_000)
})

// A six-switch BMv2 run (leaf-spine, 4 leaves and 2 spines, a host on each leaf) against real sshds whose
// MaxSessions is 10 (OpenSSH's default, set explicitly) and 3. On a real host, teardown failed
// on every run with "(SSH) Channel open failure: open failed": it stops every process of the run
// at once, and with six switches, their pollers and the traffic agents that asked for more
// sessions than MaxSessions. Here the processes are real (the namespaces, veths and agents are;
// simple_switch and simple_switch_CLI are the stand-ins of test/helpers/bmv2.ts, since there is
// no BMv2 on this machine), so deploy, the traffic's poll rounds and teardown open as many
// sessions as a real run does.
import { mkdtempSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeCore } from '../../src-main/core'
import { p4labKnownHosts } from '../../src-main/core/ssh'
import { netnsList, probeNetns, processesMatching } from '../helpers/netns'
import { labSession, startBmv2Lab, stopBmv2Lab, type Bmv2Lab } from '../helpers/bmv2'
import { liveProcessesMatching } from '../helpers/sshd'

const probe = probeNetns()
if (!probe.ok) console.warn(`[bmv2-sessions] skipping: ${probe.reason}`)

const SIX = (testbed: string) => `name: six-switches
testbed: ${testbed}
topology: { kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 1, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 4 }
seeds: [1]
`

async function waitFor(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

function linksWith(prefix: string): string[] {
  return spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => (l.split(': ')[1] ?? '').split('@')[0])
    .filter((n) => n.startsWith(prefix))
}

describe.each([10, 3])('a six-switch run against an sshd with MaxSessions %i', (maxSessions) => {
  let lab: Bmv2Lab
  beforeAll(async () => {
    lab = await startBmv2Lab(`bmv2ms${maxSessions}`, 9800 + maxSessions * 10, { sshdConfig: [`MaxSessions ${maxSessions}`], switchStandIn: true })
  })
  afterAll(() => stopBmv2Lab(lab))

  it('deploys six switches, runs its traffic and tears down clean, through the core', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const d = mkdtempSync(join(tmpdir(), 'p4lab-bmv2six-'))
    const core = createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d })
    let prefix = ''
    try {
      const { sshd } = lab
      await p4labKnownHosts(d).trust(sshd.host, sshd.port, sshd.hostKey())
      // The stand-in switches forward nothing: no capacity to calibrate against (see labTestbed).
      await core.testbeds.create({ name: 'six', kind: 'bmv2', settings: { bringUp: 'netns', calibrate: false }, hosts: [{ name: 'sw1', address: sshd.host, port: sshd.port, user: sshd.user, auth: 'key', keyFile: sshd.plainKey }] })
      const exp = core.findOrCreateExperiment(SIX('six'), null)
      const runs = core.runExperiment(exp.id)
      await core.orchestrator.wait(runs.map((r) => r.id))
      const store = core.opts.store
      const events = store.listEvents(runs[0].id)
      const steps = events.filter((e) => e.kind === 'step').map((e) => e.detail as { step: string; state: string })
      const states = steps.map((s) => `${s.step}:${s.state}`)
      const deploy = events.filter((e) => e.kind === 'deploy').map((e) => e.detail as { part: string; prefix?: string; switches?: number })
      prefix = deploy.find((x) => x.part === 'run-dir')?.prefix ?? ''
      const logs = store.listLogs(runs[0].id).map((l) => `${l.source}: ${l.line}`)
      const why = `steps ${states.join(' ')}; error ${store.getRun(runs[0].id)?.error}; ${JSON.stringify(logs).slice(-3000)}`
      expect(states, why).toEqual(expect.arrayContaining(['deploy:done', 'traffic:done', 'teardown:done']))
      expect(states.filter((s) => s.endsWith(':failed')), why).toEqual([])
      expect(deploy.find((x) => x.part === 'configured')?.switches).toBe(6)
      // Six switches polled at once: against MaxSessions 3 the pool learned the server's limit.
      if (maxSessions === 3) expect(logs.some((l) => /the server refused a session with \d+ open; using at most [123] at once per connection/.test(l)), why).toBe(true)
      const teardown = events.filter((e) => e.kind === 'teardown').map((e) => e.detail)
      expect(teardown).toEqual([expect.objectContaining({ host: 'sw1', clean: true })])
      expect(prefix).toMatch(/^p4\w+-$/)
      expect(netnsList().filter((n) => n.startsWith(prefix))).toEqual([])
      expect(linksWith(prefix)).toEqual([])
      expect(processesMatching(prefix)).toEqual([])
    } finally {
      core.opts.store.close()
      if (prefix) for (const ns of netnsList()) if (ns.startsWith(prefix)) spawnSync('ip', ['netns', 'del', ns])
      rmSync(d, { recursive: true, force: true })
    }
  }, 240_000)

  it('teardown completes, clean, when every session is busy as it starts', async (t) => {
    t.skip(!probe.ok, probe.reason)
    // Once is enough, with the fewer sessions.
    t.skip(maxSessions !== 3, 'run against MaxSessions 3')
    const { session, ctx, events, runDirBase } = labSession(lab, SIX('sim'))
    const marker = `119.${String(Date.now() % 10000).padStart(4, '0')}`
    try {
      await session.build()
      await session.deploy()
      const h = ctx.testbed!.hosts[0]
      const host = await session.run.host(h)
      // Deploy may have opened extra connections; they close when unused. Then one is left.
      await waitFor('the deploy commands to finish and one connection to be left', () => host.sessionStats.open === 0 && host.sessionStats.connections === 1)
      // A long command in every session the server allows on it.
      const busy = Array.from({ length: maxSessions }, () => host.run(['sleep', marker]).catch((e: Error) => e))
      await waitFor('every session to be busy', () => liveProcessesMatching(`sleep ${marker}`).length === maxSessions)
      const marker2 = join(runDirBase, session.run.key)
      // The six switches, to stop.
      expect(processesMatching(marker2).length).toBeGreaterThanOrEqual(6)

      await session.teardown()
      expect(events.filter((e) => e.kind === 'teardown').map((e) => e.detail)).toEqual([expect.objectContaining({ host: 'sw1', clean: true })])
      expect(host.sessionStats.overflowOpened).toBeGreaterThanOrEqual(1)
      expect(netnsList().filter((n) => n.startsWith(session.prefix))).toEqual([])
      expect(linksWith(session.prefix)).toEqual([])
      expect(processesMatching(marker2)).toEqual([])
      // Teardown closed the connections: the long commands end with them.
      for (const r of await Promise.all(busy)) expect(r).toMatchObject({ code: 'closed' })
    } finally {
      await session.teardown().catch(() => undefined)
      // The sleeps outlive their closed sessions (no tty, no SIGHUP): end them by pid.
      for (const pid of liveProcessesMatching(`sleep ${marker}`)) process.kill(pid, 'SIGKILL')
    }
  }, 240_000)
})

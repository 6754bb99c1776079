// The BMv2 driver against a real OpenSSH sshd on this machine as the switch host (tests run
// as root, so namespaces and veths are real). There is no simple_switch, simple_switch_CLI or
// p4c here:
// - the compile step uses a stand-in `p4c-bm2-ss` (a script that copies the real p4c output of
//   test/fixtures/bmv2/fixture.p4), only so that the deploy steps after it can run;
// - simple_switch is genuinely missing, so deploy fails when it would start the switches;
// - the CLI configure and poll steps replay the real transcripts in test/fixtures/bmv2.
// What is checked from here: namespaces and veths made and removed for real, teardown leaving
// no namespace, interface or process of the run, cancellation, and hostile names through sshd.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeCore } from '../../src-main/core'
import { computeControlPlane } from '../../src-main/core/controlplane'
import { p4labKnownHosts } from '../../src-main/core/ssh'
import { planNetns, runPrefix } from '../../src-main/core/targets/shared/netns'
import { RemoteRun, ToolMissingError, teardownHost } from '../../src-main/core/targets/shared/remote'
import { CliConfigError, bringUpTopology, configureSwitch, pollSwitch } from '../../src-main/core/targets/bmv2/steps'
import { CLI_PROMPT } from '../../src-main/core/targets/bmv2/output'
import { CancelledError, type RunTestbed } from '../../src-main/core/targets/driver'
import { buildFabric } from '../../src-main/model/topology'
import { netnsList, probeNetns, processesMatching } from '../helpers/netns'
import { BMV2_FIXTURES as FIX, labSession, labTestbed, startBmv2Lab, stopBmv2Lab, type Bmv2Lab, type LabSession } from '../helpers/bmv2'
import { liveProcessesMatching, type Sshd } from '../helpers/sshd'

const probe = probeNetns()
if (!probe.ok) console.warn(`[bmv2-driver] skipping the namespace tests: ${probe.reason}`)

const SMALL = (name = 'bmv2-small') => `name: ${JSON.stringify(name)}
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 40Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: 0.3, flows: 20 }
seeds: [1]
`

let lab: Bmv2Lab
let sshd: Sshd
let dir: string

beforeAll(async () => {
  lab = await startBmv2Lab('bmv2drv', 9001)
  ;({ sshd, dir } = lab)
})

afterAll(() => stopBmv2Lab(lab))

const testbed = (name = 'lab'): RunTestbed => labTestbed(lab, name)

function makeSession(o: { yaml?: string; tb?: RunTestbed; remoteBase?: string; runId?: number } = {}): LabSession {
  return labSession(lab, o.yaml ?? SMALL(), o)
}

/** What the machine holds of a run, seen from the test itself. */
function leftovers(prefix: string, marker: string) {
  const links = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => (l.split(': ')[1] ?? '').split('@')[0])
    .filter((n) => n.startsWith(prefix))
  return {
    namespaces: netnsList().filter((n) => n.startsWith(prefix)),
    links,
    processes: processesMatching(marker).map((p) => p.cmdline),
  }
}

describe('BMv2 driver: topology bring-up with netns + veth', () => {
  it('makes exactly the namespaces and veths of a 2-leaf, 2-spine fabric, and teardown removes them all', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { session, ctx } = makeSession()
    await session.build()
    const h = ctx.testbed!.hosts[0]
    const spec = ctx.plan.spec
    const state = computeControlPlane(buildFabric(spec.topology), 'ecmp')
    const plan = planNetns(state, session.prefix)
    await bringUpTopology(session.run, h, plan)

    const ns = netnsList().filter((n) => n.startsWith(session.prefix)).sort()
    expect(ns).toEqual([plan.switchNs, ...plan.hosts.map((x) => x.ns)].sort())
    expect(ns).toHaveLength(5)
    // Switch ports: one per port of every switch (4 host links + 8 fabric link ends), all up.
    const swLinks = spawnSync('ip', ['-n', plan.switchNs, '-o', 'link', 'show'], { encoding: 'utf8' }).stdout
    const names = swLinks.split('\n').map((l) => (l.split(': ')[1] ?? '').split('@')[0]).filter((n) => n.startsWith(session.prefix)).sort()
    expect(names).toEqual(plan.switches.flatMap((s) => s.ports.map((p) => p.ifname)).sort())
    expect(names).toHaveLength(4 + 8)
    for (const n of names) expect(n.length).toBeLessThanOrEqual(15)
    // Each host: eth0 with its MAC, its /32, and the default route to its ToR port's MAC.
    for (const host of plan.hosts) {
      const addr = spawnSync('ip', ['-n', host.ns, '-o', 'addr', 'show', 'dev', 'eth0'], { encoding: 'utf8' }).stdout
      expect(addr).toContain(`${host.ip}/32`)
      expect(spawnSync('ip', ['-n', host.ns, 'link', 'show', 'eth0'], { encoding: 'utf8' }).stdout).toContain(host.mac)
      expect(spawnSync('ip', ['-n', host.ns, 'route'], { encoding: 'utf8' }).stdout).toMatch(/default via 169\.254\.1\.1 dev eth0/)
      expect(spawnSync('ip', ['-n', host.ns, 'neigh'], { encoding: 'utf8' }).stdout).toContain(host.gatewayMac)
    }
    // Nothing in the root namespace.
    expect(leftovers(session.prefix, session.run.key).links).toEqual([])

    const problem = await teardownHost(session.run, h, session.prefix)
    session.run.close()
    expect(problem).toBeNull()
    expect(leftovers(session.prefix, session.run.key)).toEqual({ namespaces: [], links: [], processes: [] })
  })
})

describe('BMv2 driver: a run whose simple_switch cannot start', () => {
  it('fails at deploy naming the missing tool, and tears down completely', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { session, logs, events, runDirBase } = makeSession()
    await session.build()
    const err = await session.deploy().then(
      () => null,
      (e: Error) => e,
    )
    expect(err).toBeInstanceOf(ToolMissingError)
    expect(err!.message).toMatch(/^simple_switch, simple_switch_CLI are not installed on sw1 \(.*\) \(not found on PATH\)/)
    // It got as far as the topology: the namespaces were there.
    expect(logs.some((l) => /topology: 5 namespaces, 8 veth pairs/.test(l))).toBe(true)
    expect(netnsList().filter((n) => n.startsWith(session.prefix))).toHaveLength(5)
    expect(existsSync(join(runDirBase, session.run.key, 'p4lab_agent.py'))).toBe(true)

    await session.teardown()
    expect(leftovers(session.prefix, session.run.key)).toEqual({ namespaces: [], links: [], processes: [] })
    expect(liveProcessesMatching(session.run.key)).toEqual([])
    expect(existsSync(join(runDirBase, session.run.key))).toBe(false)
    expect(events.find((e) => e.kind === 'teardown')?.detail).toMatchObject({ host: 'sw1', clean: true })
    expect(logs.some((l) => /teardown: verified, nothing of run-\d+-\w+ \(prefix p4\w+-\) is left/.test(l))).toBe(true)
    // Idempotent.
    await session.teardown()
  })
})

describe('BMv2 driver: cancel', () => {
  it('cancelled during deploy (while the topology comes up): stops promptly and tears down completely', async (t) => {
    t.skip(!probe.ok, probe.reason)
    // HULA's 3-tier fabric: 33 namespaces, so the bring-up takes a while.
    const yaml = SMALL().replace(/topology: .*/, 'topology: { kind: three-tier, pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, hostLink: 10Gbps, fabricLink: 40Gbps }')
    const { session, abort } = makeSession({ yaml })
    await session.build()
    const deploying = session.deploy().then(
      () => null,
      (e: Error) => e,
    )
    // Cancel once some host namespaces exist.
    for (let i = 0; i < 400 && netnsList().filter((n) => n.startsWith(session.prefix)).length < 4; i++) await new Promise((r) => setTimeout(r, 25))
    expect(netnsList().filter((n) => n.startsWith(session.prefix)).length).toBeGreaterThanOrEqual(4)
    abort.abort()
    const err = await deploying
    expect(err).toBeInstanceOf(CancelledError)
    await session.teardown()
    expect(leftovers(session.prefix, session.run.key)).toEqual({ namespaces: [], links: [], processes: [] })
  })

  it('cancelled during traffic (real agents in the host namespaces): no agent, namespace or interface is left', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const { session, abort, runDirBase } = makeSession()
    await session.build()
    // Deploy stops at the missing simple_switch with the topology and the files in place;
    // the traffic step is then driven on that (no switch forwards: the clients only wait).
    await expect(session.deploy()).rejects.toBeInstanceOf(ToolMissingError)
    const traffic = session.startTraffic().then(async () => {
      for await (const _ of session.telemetry()) void _
    })
    const marker = join(runDirBase, session.run.key)
    // Cancel as soon as clients run (they fail their flows after a 10 s connect timeout and exit, so do not wait long).
    for (let i = 0; i < 600 && processesMatching(`${marker}/p4lab_agent.py client`).length === 0; i++) await new Promise((r) => setTimeout(r, 50))
    expect(processesMatching(`${marker}/p4lab_agent.py server`)).toHaveLength(4)
    expect(processesMatching(`${marker}/p4lab_agent.py client`).length).toBeGreaterThan(0)
    abort.abort()
    await expect(traffic).rejects.toBeInstanceOf(CancelledError)
    await session.teardown()
    expect(leftovers(session.prefix, marker)).toEqual({ namespaces: [], links: [], processes: [] })
  })
})

describe('BMv2 driver: hostile names through the real sshd', () => {
  it('a testbed, experiment and run directory named with spaces, quotes, $() and backticks reach the host as data', async (t) => {
    t.skip(!probe.ok, probe.reason)
    const pwn = join(dir, 'PWNED')
    const evil = `it's "$(touch ${pwn})" \`touch ${pwn}\` ; touch ${pwn}`
    const base = join(dir, `runs ${evil}`)
    const tb = testbed(`lab ${evil}`)
    // (A line feed in a name is refused when the file is read: test/cli/limits.test.ts.)
    const { session, runDirBase } = makeSession({ yaml: SMALL(`exp ${evil}`), tb, remoteBase: base })
    expect(session.ctx.plan.spec.name).toContain('$(touch')
    await session.build()
    await expect(session.deploy()).rejects.toBeInstanceOf(ToolMissingError)
    const runJson = JSON.parse(readFileSync(join(runDirBase, session.run.key, 'run.json'), 'utf8'))
    expect(runJson).toMatchObject({ testbed: tb.name, experiment: session.ctx.plan.spec.name })
    // An argv with every hostile piece comes back exactly.
    const h = tb.hosts[0]
    const echoed = await session.run.run(h, ['printf', '%s\\n', evil, tb.name, base], { logOutput: false })
    expect(echoed.stdout.toString('utf8')).toBe(`${evil}\n${tb.name}\n${base}\n`)
    await session.teardown()
    expect(existsSync(join(runDirBase, session.run.key))).toBe(false)
    expect(existsSync(pwn)).toBe(false)
    expect(leftovers(session.prefix, session.run.key)).toEqual({ namespaces: [], links: [], processes: [] })
  })
})

describe('BMv2 driver: configure and poll steps against the real transcripts', () => {
  let run: RemoteRun
  let h: RunTestbed['hosts'][number]
  beforeAll(() => {
    const made = makeSession()
    run = made.session.run
    h = made.ctx.testbed!.hosts[0]
  })
  afterAll(() => run?.close())

  /** A "CLI" that saves what it is piped and answers with a real transcript. */
  const replay = (transcript: string, saved: string) => ['sh', '-c', 'cat > "$1"; cat "$0"', transcript, saved]

  it('an error in the transcript fails the configure step, naming the command and the CLI message', async () => {
    const cmds = readFileSync(join(FIX, 'cli-session-errors.cmds'), 'utf8').trim().split('\n')
    const file = join(dir, 'errors.cli')
    writeFileSync(file, cmds.join('\n') + '\n')
    const saved = join(dir, 'errors.stdin')
    const err = await configureSwitch(run, h, 'tor0', file, cmds, { ns: null, thriftPort: 9090, cli: replay(join(FIX, 'cli-session-errors.txt'), saved) }).then(
      () => null,
      (e: Error) => e,
    )
    expect(err).toBeInstanceOf(CliConfigError)
    expect(err!.message).toBe(
      'configuring tor0: 10 of its commands failed: command 1 `table_add I.nextHop I.noSuchAction 1 0x06&&&0xff => 3`: Table I.nextHop has no action I.noSuchAction; ' +
        'command 2 `table_add I.nextHop I.forward 1 0x06&&&0xff => 3`: Action I.forward needs 2 parameters; ' +
        'command 3 `table_add I.noSuchTable I.forward 1 => 3 00:00:00:00:00:01`: Invalid table name (I.noSuchTable); …',
    )
    expect((err as CliConfigError).failures[3].error).toMatchObject({ kind: 'invalid-operation', code: 'DUPLICATE_ENTRY' })
    // The command file was what the CLI read on its stdin.
    expect(readFileSync(saved, 'utf8')).toBe(readFileSync(file, 'utf8'))
  })

  it('a clean transcript passes, with the multicast node handles the file expects', async () => {
    const cmds = readFileSync(join(FIX, 'cli-session-ok.cmds'), 'utf8').trim().split('\n')
    const file = join(dir, 'ok.cli')
    writeFileSync(file, cmds.join('\n') + '\n')
    const results = await configureSwitch(run, h, 'tor0', file, cmds, { ns: null, thriftPort: 9090, cli: replay(join(FIX, 'cli-session-ok.txt'), join(dir, 'ok.stdin')) })
    expect(results.filter((r) => r.value?.type === 'mc-node-handle').map((r) => (r.value as { handle: number }).handle)).toEqual([0, 1])
  })

  it('the CLI not reaching the switch fails the step with its message', async () => {
    const cmds = ['table_add I.dstTor I.setDstTor 10.0.1.0/24 => 1']
    const file = join(dir, 'one.cli')
    writeFileSync(file, cmds[0] + '\n')
    await expect(configureSwitch(run, h, 'agg0', file, cmds, { ns: null, thriftPort: 1, cli: replay(join(FIX, 'cli-no-switch.txt'), join(dir, 'x.stdin')) })).rejects.toThrow(
      /configuring agg0: simple_switch_CLI could not reach the switch: Could not connect to thrift client on port 1/,
    )
  })

  it('a poll round is one CLI process with every read on its stdin, its answers keyed back', async () => {
    // A transcript of exactly these reads, cut from the real session's answers.
    const ok = readFileSync(join(FIX, 'cli-session-ok.txt'), 'utf8').split(CLI_PROMPT)
    const okCmds = readFileSync(join(FIX, 'cli-session-ok.cmds'), 'utf8').trim().split('\n')
    const answer = (c: string) => ok[1 + okCmds.indexOf(c)]
    const transcript = ok[0] + [answer('register_read I.bestHop 1'), answer('register_read I.bestHop'), answer('counter_read I.portPackets 0')].map((a) => CLI_PROMPT + a).join('') + CLI_PROMPT
    const tfile = join(dir, 'poll.txt')
    writeFileSync(tfile, transcript)
    const saved = join(dir, 'poll.stdin')
    const round = await pollSwitch(
      run,
      h,
      [
        { kind: 'register', name: 'I.bestHop', index: 1 },
        { kind: 'register', name: 'I.bestHop' },
        { kind: 'counter', name: 'I.portPackets', index: 0 },
      ],
      { ns: null, thriftPort: 9090, cli: replay(tfile, saved) },
    )
    expect(readFileSync(saved, 'utf8')).toBe('register_read I.bestHop 1\nregister_read I.bestHop\ncounter_read I.portPackets 0\n')
    expect(round.errors).toEqual([])
    expect(round.registers.get('I.bestHop[1]')).toBe(3)
    expect(round.counters.get('I.portPackets[0]')).toBeDefined()
  })
})

describe('a run on a bmv2 testbed through the core', () => {
  it('goes check → … and fails cleanly at the missing tools, every step in the log and the events', async () => {
    const d = mkdtempSync(join(tmpdir(), 'p4lab-bmv2run-'))
    const core = createNodeCore({ dbPath: join(d, 'p4lab.db'), baseDir: d, dataDir: d })
    try {
      await p4labKnownHosts(d).trust(sshd.host, sshd.port, sshd.hostKey())
      await core.testbeds.create({ name: 'lab1', kind: 'bmv2', settings: { bringUp: 'netns' }, hosts: [{ name: 'sw1', address: sshd.host, port: sshd.port, user: sshd.user, auth: 'key', keyFile: sshd.plainKey }] })
      const exp = core.findOrCreateExperiment(SMALL().replace('testbed: sim', 'testbed: lab1'), null)
      const runs = core.runExperiment(exp.id)
      await core.orchestrator.wait(runs.map((r) => r.id))
      const store2 = core.opts.store
      const row = store2.getRun(runs[0].id)!
      expect(row.status).toBe('failed')
      expect(row.error).toMatch(/^p4c-bm2-ss, simple_switch, simple_switch_CLI are not installed on sw1 \(.*\) \(not found on PATH\)/)
      const steps = store2.listEvents(row.id).filter((e) => e.kind === 'step').map((e) => e.detail as { step: string; state: string })
      expect(steps.map((s) => `${s.step}:${s.state}`)).toEqual(['check:started', 'check:failed', 'teardown:started', 'teardown:done'])
      const statuses = store2.listEvents(row.id).filter((e) => e.kind === 'status').map((e) => (e.detail as { to: string }).to)
      expect(statuses).toEqual(['queued', 'deploying', 'failed'])
    } finally {
      core.opts.store.close()
      rmSync(d, { recursive: true, force: true })
    }
  })
})

void runPrefix

// The BMv2 target: a Linux switch host over SSH.
//
//   check     log in to every host, find the tools (the testbeds' Check), root on the switch host
//   build     the scheme's v1model program through the artifact cache, compiled on the switch
//             host (SshRunner) when it has p4c-bm2-ss, else on this machine when it does
//             (with -DP4LAB_INT when the experiment has telemetry.int on: another artifact key);
//             the control plane rendered per switch (simple_switch_CLI command files) with the
//             testbed's rate ceiling, or its fixed rateScale (and the INT entries when on), and
//             the queue mapping recorded
//   deploy    upload the agent, the JSON, the command files and the workload CDF into the run
//             directory; namespaces and veths (netns.ts; with INT, a collector namespace and a
//             link per switch into it, and the agent's relay listening there: int.ts); one
//             simple_switch per switch, detached (RemoteProcesses), in the switch namespace; each
//             configured by piping its file, queue rates left out, into simple_switch_CLI, the
//             transcript parsed (any error fails the step); probe senders (agent probe mode) on
//             one host per ToR for HULA/DHLB; then the rate calibration (calibrate.ts, measure.ts):
//             iperf3 across the fabric's longest path, the scale lowered until the offered load
//             fits, the switches brought to the file at that scale (rescale.ts), and the scale
//             and its reason recorded
//   traffic   an agent server in every host namespace, then the clients (one PRNG stream per host)
//   telemetry (telemetry.ts) a poll round per interval: one simple_switch_CLI per switch with every
//             read, and one read of the switch host's load (hostload.ts); with INT, the relay's output read every intReadMs meanwhile, decoded into int.*
//             series and points; at the end the relay is stopped, read to the end, its counts logged
//   collect   the agents' JSON lines → flows
//   teardown  stop every process of the run by group, delete its namespaces and veths, then
//             verify that nothing with its prefix is left; a leftover is an error in the log.
//
// A testbed mapping over several switch hosts (multihost.ts): the check's cabling run leaves the
// checked fabric up (cabling.ts), and deploy, traffic, telemetry, collect and teardown run on
// every host at once, each host's steps reported as it goes (multirun.ts, multideploy.ts,
// hosts.ts). The rate calibration and the host-load sampling are one-host measurements and do
// not run there.
import { join } from 'node:path'
import { Bmv2Settings } from '../../../contract/schemas'
import { Bmv2Mapping } from '../../../contract/testbed-mapping'
import { buildFabric, type FabricSpec } from '../../../model/topology'
import {
  bmv2QueueMapping,
  cliCommandLines,
  fastestQueueBps,
  computeControlPlane,
  intNodeNames,
  intPlan,
  renderCli,
  schemeModule,
  type Bmv2QueueMapping,
  type ControlPlaneState,
  type CpScheme,
  type IntPlan,
} from '../../controlplane'
import { P4Builder, LocalRunner, SshRunner, programPath, programRelPath, readVariant, schemeParams, type ArtifactStore, type BuildResult, type CompilerRunner } from '../../p4build'
import { isCpScheme } from '../../p4build/render'
import { AGENT_FILE } from '../shared/agent'
import {
  type RunContext,
  type RunOutput,
  type RunTestbedHost,
  type TargetDriver,
  type TargetFacts,
  type TargetMessage,
  type TargetSession,
} from '../driver'
import { startAgentServers, startClients, startProbeSenders } from './agents'
import { longestPath, offeredLoad } from './calibrate'
import { configureSwitches, rescaleSwitches, startSwitches, switchProcName, uploadRunFiles, type RunFiles } from './deploy'
import { IntRelay } from './int'
import { planNetns, runPrefix, type NetnsPlan } from '../shared/netns'
import { calibrate, recordCalibration } from './measure'
import { RemoteRun, nonce, teardownTouchedHosts, type RemoteDeps } from '../shared/remote'
import { withoutQueueRates } from './rescale'
import { flowsPerHost } from '../shared/workload'
import { bringUpTopology } from './steps'
import { bmv2Telemetry } from './telemetry'
import { cablingBeforeDeploy } from './cabling'
import { MultiHostRun, collectFlowFiles } from './multirun'

export interface Bmv2DriverOptions extends RemoteDeps {
  /** The compile cache (artifacts rows); a driver sees nothing else of the store. */
  artifacts: ArtifactStore
  /** <userData>: artifacts (<dataDir>/artifacts) and variants live here. */
  dataDir: string
  /** The shipped programs (p4/). */
  p4Dir: string
  /** resources/agent/p4lab_agent.py */
  agentFile: string
  /** Where to compile when the switch host has no compiler; default this machine (LocalRunner). */
  localRunner?: CompilerRunner | null
  /** Absolute compiler paths on the switch host, for SshRunner (e.g. { 'p4c-bm2-ss': '/opt/p4c/bin/p4c-bm2-ss' }). */
  compilerPaths?: Record<string, string>
  /** ms between telemetry poll rounds at the least (a CLI process per switch per round). Default 1000. */
  minPollMs?: number
  /** Keep the run directory on the host after a clean teardown (debugging). */
  keepRunDir?: boolean
  /** ms between reads of the INT relay's output while traffic runs. Default 250. */
  intReadMs?: number
  /** ms the INT relay keeps receiving after the traffic ends (reports in flight). Default 1000. */
  intDrainMs?: number
}

interface Built {
  state: ControlPlaneState
  mapping: Bmv2QueueMapping
  programName: string
  artifact: BuildResult
  /** switch name → command lines at mapping.scale (what each switch ends up configured with). */
  commands: Map<string, string[]>
  /** With telemetry.int on: every switch's INT configuration. */
  int?: IntPlan
  /** The agents' offered load at the chosen scale (bit/s), once calibrated. */
  offeredBps?: number
}

/** Every switch's command lines and the queue mapping, at the ceiling's scale or at `scale`. */
function renderCommands(state: ControlPlaneState, o: { ceilingBps: number; scale?: number; int?: IntPlan }): { mapping: Bmv2QueueMapping; commands: Map<string, string[]> } {
  const q = { ceilingBps: o.ceilingBps, ...(o.scale !== undefined ? { scale: o.scale } : {}) }
  const mapping = bmv2QueueMapping(state, q)
  const commands = new Map<string, string[]>()
  for (const sw of state.switches) commands.set(sw.name, cliCommandLines(renderCli(state, sw.name, undefined, { ...q, ...(o.int ? { int: o.int } : {}) })))
  return { mapping, commands }
}

export class Bmv2Session implements TargetSession {
  readonly run: RemoteRun
  private readonly settings: Bmv2Settings
  private built: Built | undefined
  private plan: NetnsPlan | undefined
  private dir = ''
  private facts: TargetFacts = { target: 'bmv2' }
  private clientNames: Array<{ host: number; name: string }> = []
  private trafficStart = 0
  private tornDown: Promise<void> | undefined
  /** The INT collector (telemetry.int on), from deploy on. */
  private intRelay: IntRelay | undefined
  /** The clients' start on the switch host's clock (epoch ns): INT samples are timed from it. */
  private trafficStartNs = 0n
  /** A fabric over several hosts (the mapping's), from the cabling check on: kept up for deploy. */
  private multi: MultiHostRun | undefined

  constructor(
    readonly ctx: RunContext,
    private readonly o: Bmv2DriverOptions,
    runNonce = nonce(),
  ) {
    if (!ctx.testbed) throw new Error('the bmv2 driver runs on a stored testbed; this run has none')
    this.settings = Bmv2Settings.parse(ctx.testbed.settings)
    this.run = new RemoteRun(ctx, o, runNonce)
  }

  /** The host that runs the switches: the mapping's first host, else the first 'switch-host'. */
  get switchHost(): RunTestbedHost {
    const mapped = this.mapping?.hosts[0]?.host
    const h = this.ctx.testbed!.hosts.find((x) => (mapped ? x.name === mapped : x.role === 'switch-host'))
    if (!h) throw new Error(`testbed '${this.ctx.testbed!.name}' has no ${mapped ? `host '${mapped}' (its mapping names it)` : 'switch-host'}`)
    return h
  }

  /** The testbed's BMv2 mapping, when it has one (stored and checked by the testbeds' service). */
  get mapping(): Bmv2Mapping | null {
    const m = this.ctx.testbed!.mapping
    if (m === undefined || m === null) return null
    const p = Bmv2Mapping.safeParse(m)
    if (!p.success) throw new Error(`testbed '${this.ctx.testbed!.name}': its stored mapping cannot be read (${p.error.issues[0]?.message}); set it again (Testbeds view or p4lab testbed map)`)
    return p.data
  }

  get prefix(): string {
    return runPrefix(this.ctx.plan.runId, this.run.nonceText)
  }

  async check(): Promise<TargetFacts> {
    const tb = this.ctx.testbed!
    const local = this.o.localRunner === null ? null : (this.o.localRunner ?? new LocalRunner())
    const localCompiler = local ? await local.which('p4c-bm2-ss') : null
    // The driver brings the topology up with netns (Mininet is not needed), and compiles locally when it can.
    const ignore = ['mn', ...(localCompiler ? ['p4c-bm2-ss'] : [])]
    for (const h of tb.hosts) {
      const r = await this.run.checkHost('bmv2', tb.settings, h, ignore)
      for (const t of r.tools) if (t.found && t.version) this.facts[`${h.name}.${t.name}`] = t.version
    }
    await this.run.requireRoot(this.switchHost)
    // What earlier runs could not tear down here (the host unreachable then) goes first.
    await this.run.cleanLeftovers()
    // With a mapping, every link carries a frame before anything is deployed (cabling.ts).
    const mapping = this.mapping
    if (mapping) {
      const { plan } = this.ctx
      if (!isCpScheme(plan.scheme)) throw new Error(`scheme '${plan.scheme}' has no BMv2 program`)
      const state = computeControlPlane(buildFabric(plan.spec.topology as FabricSpec), plan.scheme, schemeParams(plan.spec.topology, plan.spec.params))
      const several = mapping.hosts.length > 1
      if (several && plan.spec.int) {
        throw new Error(
          `telemetry.int needs the INT collector's namespace linked to every switch, and the testbed's mapping spreads the fabric over ${mapping.hosts.length} hosts: ` +
            'map every switch to one host, or turn telemetry.int off. Nothing was deployed.',
        )
      }
      // Over several hosts the checked fabric stays up: the switches start on the links that carried the frames.
      const mplan = await cablingBeforeDeploy(this.run, tb, state, mapping, this.prefix, this.facts, { keep: several })
      if (several) this.multi = new MultiHostRun(this.run, mplan, this.facts, this.o)
    }
    this.facts.bringUp = 'netns'
    return this.facts
  }

  async build(): Promise<void> {
    const { plan } = this.ctx
    if (!isCpScheme(plan.scheme)) throw new Error(`scheme '${plan.scheme}' has no BMv2 program`)
    const scheme: CpScheme = plan.scheme
    const w = plan.spec.workload
    if (w.kind === 'incast' || w.kind === 'permutation') {
      throw new Error(`the bmv2 driver does not run ${w.kind} workloads yet (Poisson CDF and long-lived ones only)`)
    }
    const topology = plan.spec.topology
    const state = computeControlPlane(buildFabric(topology as FabricSpec), scheme, schemeParams(topology, plan.spec.params))
    const int = plan.spec.int ? intPlan(state, plan.spec.int) : undefined
    const { mapping, commands } = renderCommands(state, { ceilingBps: this.settings.rateCeilingBps, scale: this.settings.rateScale, int })
    const programName = schemeModule(scheme).iface('bmv2').programName
    // The INT option is a build flag: an INT build and a default one have different artifact keys.
    const flags = int ? ['-DP4LAB_INT'] : []

    this.run.throwIfCancelled()
    const variant = plan.experimentId !== undefined ? readVariant(this.o.dataDir, plan.experimentId, { scheme: programName, target: 'bmv2' }) : null
    const file = variant?.file ?? programPath(this.o.p4Dir, { scheme: programName, target: 'bmv2' })
    const runner = await this.compilerRunner()
    this.ctx.log('build', `${variant ? 'variant' : 'program'} ${file} with p4c-bm2-ss${flags.length ? ` ${flags.join(' ')}` : ''} (${runner.where})`)
    const builder = new P4Builder({ store: this.o.artifacts, artifactsDir: join(this.o.dataDir, 'artifacts'), runner })
    const artifact = await builder.build({ file, target: 'bmv2', flags, program: variant ? `variant:${programName}` : `p4/${programRelPath({ scheme: programName, target: 'bmv2' })}`, signal: this.ctx.signal })
    this.ctx.log('build', `${artifact.hit ? 'cache hit' : 'compiled'}: artifact ${artifact.key.slice(0, 12)} (${artifact.artifact.compiler})`)
    this.built = { state, mapping, programName, artifact, commands, ...(int ? { int } : {}) }
    if (int) {
      this.facts.int = true
      this.facts.intPort = int.udpPort
      this.facts.intWatch = int.watch
      this.ctx.log('build', `INT on: postcards from ${int.watch === 'all' ? 'every port' : int.watch === 'fabric' ? 'the switch-to-switch ports' : 'the host ports'} of every switch to udp ${int.collectorIp}:${int.udpPort}, mirror session ${int.session}; Node ID = switch id`)
    }
    this.facts.program = programRelPath({ scheme: programName, target: 'bmv2' })
    this.facts.artifact = artifact.key
    this.facts.compiler = artifact.artifact.compiler
    this.facts.buildCacheHit = artifact.hit
    this.recordMapping(mapping)
  }

  /** The queue mapping goes into the facts and an event: how the fabric's rates were scaled onto BMv2. */
  private recordMapping(m: Bmv2QueueMapping, source = 'build'): void {
    this.facts.rateCeilingBps = m.ceilingBps
    this.facts.rateScale = m.scale
    this.facts.queuePacketBytes = m.packetBytes
    this.facts.queueMapping = JSON.stringify(m.ports.map((p) => [p.switch, p.port, p.bps, p.pps, p.depthPackets]))
    this.ctx.event?.('bmv2.queue-mapping', { ceilingBps: m.ceilingBps, scale: m.scale, packetBytes: m.packetBytes, ports: m.ports })
    this.ctx.log(source, `link rates x ${m.scale} (fastest link at most ${m.ceilingBps / 1e6} Mbps), queues set with set_queue_rate/set_queue_depth`)
  }

  /**
   * The rate calibration (calibrate.ts, measure.ts), on switches configured without queue rates:
   * measure the longest path, choose the scale, bring every switch to the file at that scale.
   * Over several hosts nothing is measured (multirun.ts says why): the ceiling's or the fixed scale.
   */
  private async calibrateRates(plan: NetnsPlan, configured: Map<string, string[]>): Promise<void> {
    const b = this.built!
    const m = this.multi
    const h = m ? m.hosts[0] : this.switchHost
    const spec = this.ctx.plan.spec
    const offered = offeredLoad(spec, this.ctx.plan.load, flowsPerHost(spec, plan.hosts.length))
    const path = longestPath(b.state, plan)
    const input = { fastestBps: fastestQueueBps(b.state), ceilingBps: this.settings.rateCeilingBps, offeredBps: offered.totalBps, ...(this.settings.rateScale !== undefined ? { fixedScale: this.settings.rateScale } : {}) }
    const measure = !m && this.settings.calibrate ? { src: { name: path.src.name, ns: path.src.ns }, dst: { name: path.dst.name, ns: path.dst.ns, ip: path.dst.ip } } : null
    const cal = await calibrate(this.run, h, input, measure, m && this.settings.calibrate ? { why: m.unmeasured, warn: true } : undefined)
    if (cal.choice.scale !== b.mapping.scale) {
      const again = renderCommands(b.state, { ceilingBps: this.settings.rateCeilingBps, scale: cal.choice.scale, ...(b.int ? { int: b.int } : {}) })
      this.built = { ...b, ...again }
      this.recordMapping(again.mapping, 'deploy')
    }
    const sent = m ? await m.rescale(configured, this.built!.commands) : await rescaleSwitches(this.run, h, plan, configured, this.built!.commands)
    this.built!.offeredBps = cal.choice.offeredBps
    recordCalibration(this.ctx, h, this.facts, cal, { path, offered, commandsSent: sent })
  }

  private async compilerRunner(): Promise<CompilerRunner> {
    const h = this.switchHost
    const remote = new SshRunner(await this.run.host(h), { tools: this.o.compilerPaths })
    if (await remote.which('p4c-bm2-ss')) return remote
    const local = this.o.localRunner === null ? null : (this.o.localRunner ?? new LocalRunner())
    if (local && (await local.which('p4c-bm2-ss'))) return local
    throw new Error(`p4c-bm2-ss is not installed on ${h.name} (${h.user}@${h.address}) nor on this machine; install p4c on the switch host (docs/TESTBEDS.md)`)
  }

  async deploy(): Promise<void> {
    const b = this.built
    if (!b) throw new Error('deploy before build')
    const plan = planNetns(b.state, this.prefix, b.int)
    this.plan = plan
    this.facts.prefix = plan.prefix
    this.facts.runKey = this.run.key
    // The queue rates come after the calibration: it measures what the switches forward unshaped.
    const configured = new Map([...b.commands].map(([sw, cmds]) => [sw, withoutQueueRates(cmds)]))
    if (this.multi) {
      await this.multi.deploy({ files: this.runFiles(b, plan), commands: configured, state: b.state, plan })
      return this.calibrateRates(plan, configured)
    }
    const h = this.switchHost
    this.dir = await this.run.runDir(h)
    this.run.touched.add(h.id)
    this.ctx.event?.('deploy', { part: 'run-dir', host: h.name, dir: this.dir, prefix: plan.prefix })

    // 1. Files: agent, JSON, command files, workload CDF, run.json, in one folder upload.
    await uploadRunFiles(this.run, h, this.dir, { ...this.runFiles(b, plan), commands: configured })

    // 2. Topology.
    await bringUpTopology(this.run, h, plan)

    // 2b. INT: the collector listens before any switch can report.
    // (planNetns made the collector from the INT plan: there is one exactly when b.int is set.)
    const c = plan.collector
    if (c) {
      this.intRelay = new IntRelay(this.run, h, { ns: c.ns, port: c.udpPort, loc: this.agentLoc(), names: intNodeNames(b.int!) })
      await this.intRelay.start()
      this.ctx.event?.('deploy', { part: 'int-collector', ns: c.ns, port: c.udpPort, address: this.intRelay.listening?.address })
    }

    // 3. One simple_switch per switch, detached, in the switch namespace.
    await startSwitches(this.run, h, plan, { json: `${this.dir}/${b.programName}.json`, dir: this.dir })
    this.facts.thriftPorts = plan.switches.map((s) => `${s.name}:${s.thriftPort}`).join(' ')

    // 4. Configuration: the command file piped into simple_switch_CLI, the transcript parsed.
    await configureSwitches(this.run, h, plan, this.dir, configured)
    this.ctx.event?.('deploy', { part: 'configured', switches: plan.switches.length })

    // 5. Probe senders on one host per ToR (HULA, DHLB): the agent's raw-socket probe mode.
    const scheme = this.ctx.plan.scheme
    if (scheme === 'hula' || scheme === 'dhlb') {
      const periodUs = await startProbeSenders(this.run, h, plan, b.state, scheme, this.agentLoc())
      this.facts.probePeriodUs = periodUs
      this.ctx.log(h.name, `probe senders started on ${b.state.tors.length} ToR hosts, every ${periodUs} µs`)
    }

    // 6. The rate scale the switches can carry (the probes, running, take their share), then the queue rates.
    await this.calibrateRates(plan, configured)
  }

  /** What goes into the run directory on a switch host, but the command files. */
  private runFiles(b: Built, plan: NetnsPlan): Omit<RunFiles, 'commands'> {
    const w = this.ctx.plan.spec.workload
    return {
      agentFile: this.o.agentFile,
      programJson: b.artifact.files.json,
      programName: b.programName,
      ...('file' in w ? { workloadCdf: w.file } : {}),
      runJson: { runId: this.ctx.plan.runId, testbed: this.ctx.testbed!.name, experiment: this.ctx.plan.spec.name, scheme: this.ctx.plan.scheme, prefix: plan.prefix },
    }
  }

  private agentLoc() {
    return { python: 'python3', agent: `${this.dir}/${AGENT_FILE}` }
  }

  async startTraffic(): Promise<void> {
    const b = this.built
    const plan = this.plan
    if (!b || !plan) throw new Error('startTraffic before deploy')
    if (this.multi) return this.multi.startTraffic({ rateScale: b.mapping.scale, flat: plan })
    const h = this.switchHost
    const loc = this.agentLoc()
    await startAgentServers(this.run, h, plan, loc)
    this.clientNames = []
    // startClients reads the switch host's clock first thing: the clients start 2 s after that.
    const before = Date.now()
    const c = await startClients(this.run, h, plan, { dir: this.dir, rateScale: b.mapping.scale, loc }, this.clientNames)
    this.trafficStart = before + 2000
    this.trafficStartNs = c.startAtNs
    this.facts.agentLinkBps = c.linkBps
    this.facts.flowsPerHost = c.perHost.join(' ')
    this.ctx.log(h.name, `traffic: ${this.clientNames.length} clients start at ${c.startAtNs} (epoch ns), host links at ${c.linkBps / 1e6} Mbps`)
  }

  /** The poll rounds and the INT relay's messages until the traffic is done (telemetry.ts). */
  async *telemetry(): AsyncIterable<TargetMessage> {
    const b = this.built
    const plan = this.plan
    if (!b || !plan) throw new Error('telemetry before deploy')
    if (this.multi) {
      yield* this.multi.telemetry({ plan, state: b.state, mapping: b.mapping })
      return
    }
    yield* bmv2Telemetry({
      run: this.run,
      h: this.switchHost,
      plan,
      state: b.state,
      mapping: b.mapping,
      clients: this.clientNames,
      trafficStartMs: this.trafficStart,
      trafficStartNs: this.trafficStartNs,
      ...(this.intRelay ? { relay: this.intRelay } : {}),
      facts: this.facts,
      minPollMs: this.o.minPollMs,
      intReadMs: this.o.intReadMs,
      intDrainMs: this.o.intDrainMs,
      ...(b.offeredBps !== undefined ? { hostLoad: { proc: switchProcName, offeredBps: b.offeredBps } } : {}),
    })
  }

  async collect(): Promise<RunOutput> {
    const plan = this.plan
    if (!plan) throw new Error('collect before deploy')
    const clients = this.multi ? this.multi.clients : this.clientNames.map((c) => ({ ...c, h: this.switchHost, dir: this.dir }))
    return collectFlowFiles(this.run, plan, clients, this.facts)
  }

  async teardown(): Promise<void> {
    this.tornDown ??= this.doTeardown()
    return this.tornDown
  }

  private async doTeardown(): Promise<void> {
    if (this.multi) return this.multi.teardown(this.prefix)
    await teardownTouchedHosts(this.run, this.ctx.testbed!.hosts, (h) => (h.role === 'switch-host' ? this.prefix : null), {
      keepRunDir: this.o.keepRunDir,
    })
  }
}

export class Bmv2Driver implements TargetDriver {
  readonly kind = 'bmv2' as const
  /** One run at a time per testbed: the runs would share the switch host's CPU and names. */
  readonly maxParallelRuns = 1

  constructor(private readonly o: Bmv2DriverOptions) {}

  /** Runs are checked per testbed (session.check); the driver itself needs nothing local. */
  async check(): Promise<TargetFacts> {
    return { target: 'bmv2' }
  }

  open(ctx: RunContext): Bmv2Session {
    return new Bmv2Session(ctx, this.o)
  }
}

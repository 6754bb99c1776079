// The Tofino target: SDE boxes or tofino-model hosts over SSH.
//
// Mapping: the testbed's 'sde' hosts, in order, carry the fabric's switches in control-plane
// order (ToRs first), one switch each (one ASIC or one tofino-model per host). Traffic:
// - tofino-model: the hosts of a switch are network namespaces on its SDE host, joined by veth
//   pairs to the model's ports (ports.json maps each DEV_PORT to its veth); links between
//   switches on different hosts are not joined by the driver (see docs/TESTBEDS.md);
// - hardware: the testbed's 'traffic' hosts, in order, are the fabric's hosts; each must
//   already carry its control-plane address (checked) and be cabled to its ToR port.
//
//   check     tools per host ($SDE, $SDE_INSTALL, bf-p4c, run_*.sh; python3 on traffic hosts)
//   build     bf-p4c through the artifact cache, on the first SDE host (SshRunner, SDE env);
//             on hardware with a mapping, p4lab's check program too
//   deploy    upload the compiled program (its .conf rewritten to the uploaded paths), the
//             rendered bfrt_python script, ports.json and the agent; on hardware with a
//             mapping, first the check program on every switch: its front-panel ports added
//             and up, and the frame check over every link (bringup.ts, frames.ts), which
//             stops the run before the scheme's program is configured; then tofino-model
//             (run_tofino_model.sh -c CONF -f ports.json) then run_switchd.sh -c CONF,
//             detached; wait for bfshell; on hardware the mapped ports again (ports.ts);
//             run_bfshell.sh -b script.py (tables, multicast, pktgen for probes), output parsed
//             (the SDE's scripts on each switch's host: sde.ts)
//   traffic   agent servers then clients (one PRNG stream per host; traffic.ts)
//   telemetry a bfrt poll script per round (operation_register_sync / counter sync) reading the
//             port counters and the cells the scheme's descriptor names (telemetry.ts)
//   teardown  stop every process of the run by group, delete its namespaces and veths, verify.
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TofinoSettings } from '../../../contract/schemas'
import { TofinoMapping } from '../../../contract/testbed-mapping'
import { buildFabric, type FabricSpec } from '../../../model/topology'
import { computeControlPlane, renderBfrt, schemeModule, type ControlPlaneState } from '../../controlplane'
import { P4Builder, SshRunner, programPath, programRelPath, readVariant, schemeParams, type ArtifactStore, type BuildResult } from '../../p4build'
import { isCpScheme } from '../../p4build/render'
import { uploadDir } from '../../ssh'
import { copyAgent } from '../shared/agent'
import {
  type RunContext,
  type RunOutput,
  type RunTestbedHost,
  type TargetDriver,
  type TargetFacts,
  type TargetMessage,
  type TargetSession,
} from '../driver'
import { planNetns, runPrefix, type NetnsPlan } from '../shared/netns'
import { RemoteRun, collectAgentFlows, nonce, sleep, teardownTouchedHosts, type RemoteDeps } from '../shared/remote'
import { bfrtPollScript, parseBfrtPollRound, type BfrtPollRead, type BfrtPollRound } from './output'
import { tofinoSeriesPlan, type TofinoSeriesPlan } from './telemetry'
import { mappedPortProblems, mappedPorts, portAddScript, portStatusScript } from './ports'
import { frameFiles, linksBeforeDeploy, waitPortsUp, type CheckSwitch } from './bringup'
import { CHECK_PROGRAM, planFrames, type FramePlan } from './frames'
import { resourcesDir } from '../../paths'
import { bringUpModelPorts, modelPortsJson, rewriteConf } from './model'
import { READY_SCRIPT, bfshellStep, runBfshell, startSwitchd, switchShell, waitBfshell, type Placement } from './sde'
import { startTofinoTraffic, type TofinoClient } from './traffic'

export interface TofinoDriverOptions extends RemoteDeps {
  /** The compile cache (artifacts rows); a driver sees nothing else of the store. */
  artifacts: ArtifactStore
  dataDir: string
  p4Dir: string
  agentFile: string
  /** ms to wait for bf_switchd to answer bfshell. Default 180 000 (the model is slow to start). */
  switchdTimeoutMs?: number
  /** ms to wait for the mapped front-panel ports to come up (hardware). Default 60 000. */
  portsUpTimeoutMs?: number
  /** ms between two reads of the ports' state while they come up. Default 2000. */
  portsPollMs?: number
  /** ms between a frame check's bursts and the counter read after them. Default 1000. */
  frameSettleMs?: number
  /** p4lab's cabling check program (TNA). Default: resources/tofino/p4lab_cabling.p4. */
  checkProgram?: string
  minPollMs?: number
  keepRunDir?: boolean
}

export { modelPortsJson, rewriteConf }

export class TofinoSession implements TargetSession {
  readonly run: RemoteRun
  private readonly settings: TofinoSettings
  private state: ControlPlaneState | undefined
  private programName = ''
  private artifact: BuildResult | undefined
  private checkArtifact: BuildResult | undefined
  private placements: Placement[] = []
  private plan: NetnsPlan | undefined
  private dirs = new Map<number, string>()
  private facts: TargetFacts = { target: 'tofino' }
  private clients: TofinoClient[] = []
  private trafficStart = 0
  private polls: TofinoSeriesPlan | undefined
  private tornDown: Promise<void> | undefined

  constructor(
    readonly ctx: RunContext,
    private readonly o: TofinoDriverOptions,
    runNonce = nonce(),
  ) {
    if (!ctx.testbed) throw new Error('the tofino driver runs on a stored testbed; this run has none')
    this.settings = TofinoSettings.parse(ctx.testbed.settings)
    this.run = new RemoteRun(ctx, o, runNonce)
  }

  get prefix(): string {
    return runPrefix(this.ctx.plan.runId, this.run.nonceText)
  }

  private sdeHosts(): RunTestbedHost[] {
    return this.ctx.testbed!.hosts.filter((h) => h.role === 'sde')
  }

  private trafficHosts(): RunTestbedHost[] {
    return this.ctx.testbed!.hosts.filter((h) => h.role === 'traffic')
  }

  private computeState(): ControlPlaneState {
    if (this.state) return this.state
    const { plan } = this.ctx
    if (!isCpScheme(plan.scheme)) throw new Error(`scheme '${plan.scheme}' has no Tofino program`)
    const topology = plan.spec.topology
    this.state = computeControlPlane(buildFabric(topology as FabricSpec), plan.scheme, schemeParams(topology, plan.spec.params))
    this.programName = schemeModule(plan.scheme).iface('tofino').programName
    return this.state
  }

  async check(): Promise<TargetFacts> {
    // Refused before any host is logged into.
    if (this.ctx.plan.spec.int) {
      throw new Error('telemetry.int: INT postcards exist only in the v1model programs (BMv2 testbeds); the TNA programs have no INT option yet. Remove telemetry.int to run on Tofino')
    }
    const tb = this.ctx.testbed!
    const state = this.computeState()
    const sde = this.sdeHosts()
    if (sde.length < state.switches.length) {
      throw new Error(
        `testbed '${tb.name}' has ${sde.length} sde host(s), and this fabric has ${state.switches.length} switches (${state.switches.map((s) => s.name).join(', ')}): ` +
          'the tofino driver runs one switch per sde host (one Tofino or one tofino-model each); see docs/TESTBEDS.md',
      )
    }
    if (this.settings.target === 'hardware' && this.trafficHosts().length < state.hosts.length) {
      throw new Error(`testbed '${tb.name}' has ${this.trafficHosts().length} traffic host(s) for ${state.hosts.length} fabric hosts; on hardware every fabric host is a traffic host (docs/TESTBEDS.md)`)
    }
    this.placements = []
    for (const h of tb.hosts) {
      const r = await this.run.checkHost('tofino', tb.settings, h)
      for (const t of r.tools) if (t.found && (t.version || t.path)) this.facts[`${h.name}.${t.name}`] = t.version ?? t.path ?? ''
      // With a mapping, each switch goes to the SDE host it names; else the sde hosts in order.
      const mapped = this.mapping?.switches.find((m) => m.host === h.name)
      const i = this.mapping ? (mapped ? state.switches.findIndex((x) => x.name === mapped.switch) : -1) : sde.indexOf(h)
      if (i >= 0 && i < state.switches.length) {
        const sdePath = r.tools.find((t) => t.name === '$SDE')?.path
        const installPath = r.tools.find((t) => t.name === '$SDE_INSTALL')?.path
        if (!sdePath || !installPath) throw new Error(`${h.name}: $SDE / $SDE_INSTALL not found`)
        this.placements.push({ sw: state.switches[i].name, switchIndex: i, host: h, sde: sdePath, sdeInstall: installPath })
      }
    }
    if (this.settings.target === 'model') for (const p of this.placements) await this.run.requireRoot(p.host)
    if (this.mapping) {
      const problems = mappedPortProblems(state, this.mapping, this.placements.map((p) => p.sw), this.settings.target === 'hardware')
      if (problems.length) throw new Error(`the testbed's mapping does not fit this fabric: ${problems.join('; ')}`)
    }
    // What earlier runs could not tear down on these hosts (unreachable then) goes first.
    await this.run.cleanLeftovers()
    this.facts.target = `tofino-${this.settings.target}`
    this.facts.placement = this.placements.map((p) => `${p.sw}@${p.host.name}`).join(' ')
    return this.facts
  }

  async build(): Promise<void> {
    const state = this.computeState()
    void state
    const w = this.ctx.plan.spec.workload
    if (w.kind === 'incast' || w.kind === 'permutation') throw new Error(`the tofino driver does not run ${w.kind} workloads yet`)
    const first = this.placements[0]
    if (!first) throw new Error('build before check: no SDE host placed')
    const { plan } = this.ctx
    const variant = plan.experimentId !== undefined ? readVariant(this.o.dataDir, plan.experimentId, { scheme: this.programName, target: 'tofino' }) : null
    const file = variant?.file ?? programPath(this.o.p4Dir, { scheme: this.programName, target: 'tofino' })
    const runner = new SshRunner(await this.run.host(first.host), {
      tools: { 'bf-p4c': `${first.sdeInstall}/bin/bf-p4c` },
      env: { SDE: first.sde, SDE_INSTALL: first.sdeInstall },
    })
    this.ctx.log('build', `${variant ? 'variant' : 'program'} ${file} with bf-p4c (${runner.where})`)
    const builder = new P4Builder({ store: this.o.artifacts, artifactsDir: join(this.o.dataDir, 'artifacts'), runner })
    this.artifact = await builder.build({ file, target: 'tofino', program: variant ? `variant:${this.programName}` : `p4/${programRelPath({ scheme: this.programName, target: 'tofino' })}`, signal: this.ctx.signal })
    this.facts.artifact = this.artifact.key
    this.facts.compiler = this.artifact.artifact.compiler
    this.facts.program = programRelPath({ scheme: this.programName, target: 'tofino' })
    if (this.frameCheck()) {
      const check = this.o.checkProgram ?? join(resourcesDir(), 'tofino', `${CHECK_PROGRAM}.p4`)
      this.ctx.log('build', `the cabling check program ${check} with bf-p4c (${runner.where})`)
      this.checkArtifact = await builder.build({ file: check, target: 'tofino', program: `p4lab:${CHECK_PROGRAM}`, signal: this.ctx.signal })
      this.facts.checkArtifact = this.checkArtifact.key
    }
  }

  /** Hardware with a mapping: the ports are brought up and every link carries a frame before the scheme's program runs. */
  private frameCheck(): boolean {
    return this.settings.target === 'hardware' && this.mapping !== null
  }

  async deploy(): Promise<void> {
    const state = this.computeState()
    const art = this.artifact
    if (!art) throw new Error('deploy before build')
    const model = this.settings.target === 'model'
    this.plan = planNetns(state, this.prefix)
    this.facts.prefix = this.prefix
    const frames = this.frameCheck() ? planFrames(state, (sw) => mappedPorts(this.mapping!, sw) ?? []) : null
    if (frames && !this.checkArtifact) throw new Error('deploy before build: the check program was not compiled')
    for (const p of this.placements) await this.upload(p, frames)
    if (frames) await this.checkLinks(frames)
    for (const p of this.placements) {
      this.run.throwIfCancelled()
      const h = p.host
      const dir = this.dirs.get(h.id)!
      if (model) await bringUpModelPorts(this.run, this.plan!, p.switchIndex, p.host)
      await this.run.requireTools(h, [`${p.sde}/run_switchd.sh`, `${p.sde}/run_bfshell.sh`, ...(model ? [`${p.sde}/run_tofino_model.sh`] : [])])
      const conf = `${dir}/${this.programName}.tofino/${this.programName}.conf`
      if (model) await (await this.run.processes(h)).start(`model-${p.sw}`, [`${p.sde}/run_tofino_model.sh`, '-c', conf, '-f', `${dir}/ports.json`], { cwd: p.sde, env: { SDE: p.sde, SDE_INSTALL: p.sdeInstall } })
      await startSwitchd(this.run, p, `switchd-${p.sw}`, conf)
      await this.waitBfshell(p, `switchd-${p.sw}`, `${dir}/ready.py`, this.programName)
      if (!model && this.mapping && mappedPorts(this.mapping, p.sw)) await this.portsUp(p)
      await bfshellStep(this.run, p, `${dir}/${p.sw}.py`, 'configure')
    }
    this.ctx.event?.('deploy', { part: 'configured', switches: this.placements.map((p) => p.sw) })
  }

  /** Everything a switch's SDE host needs, in the run's directory there. */
  private async upload(p: Placement, frames: FramePlan | null): Promise<void> {
    this.run.throwIfCancelled()
    const state = this.computeState()
    const art = this.artifact!
    const model = this.settings.target === 'model'
    const h = p.host
    const dir = await this.run.runDir(h)
    this.dirs.set(h.id, dir)
    this.run.touched.add(h.id)
    const stage = mkdtempSync(join(tmpdir(), 'p4lab-tofino-'))
    try {
      const progDir = `${this.programName}.tofino`
      cpSync(art.files.tofino, join(stage, progDir), { recursive: true })
      writeFileSync(join(stage, progDir, `${this.programName}.conf`), rewriteConf(readFileSync(art.files.conf, 'utf8'), `${dir}/${progDir}`))
      const ports = !model && this.mapping ? mappedPorts(this.mapping, p.sw) : null
      // Mapped front-panel ports are added by ports.py (their DEV_PORTs are the SDE's to say), not by the fabric's port numbers.
      writeFileSync(join(stage, `${p.sw}.py`), renderBfrt(state, p.sw, undefined, { skipPorts: model || ports !== null }))
      // The switch's own scripts in a folder of its own: two SDE "hosts" may share a file system.
      mkdirSync(join(stage, p.sw))
      if (ports) {
        writeFileSync(join(stage, p.sw, 'ports.py'), portAddScript(p.sw, ports))
        writeFileSync(join(stage, p.sw, 'ports-up.py'), portStatusScript(p.sw, ports))
      }
      writeFileSync(join(stage, 'ready.py'), READY_SCRIPT(this.programName))
      if (frames && this.checkArtifact) {
        const checkDir = `${CHECK_PROGRAM}.tofino`
        cpSync(this.checkArtifact.files.tofino, join(stage, checkDir), { recursive: true })
        writeFileSync(join(stage, checkDir, `${CHECK_PROGRAM}.conf`), rewriteConf(readFileSync(this.checkArtifact.files.conf, 'utf8'), `${dir}/${checkDir}`))
        writeFileSync(join(stage, 'ready-check.py'), READY_SCRIPT(CHECK_PROGRAM))
        mkdirSync(join(stage, p.sw, 'frames'))
        for (const [f, text] of Object.entries(frameFiles(frames, p.sw, (this.ctx.plan.runId % 0x100000) * 0x100))) writeFileSync(join(stage, p.sw, ...f.split('/')), text)
      }
      if (model) writeFileSync(join(stage, 'ports.json'), modelPortsJson(this.plan!, p.switchIndex))
      copyAgent(this.o.agentFile, stage)
      const w = this.ctx.plan.spec.workload
      if ('file' in w) copyFileSync(w.file, join(stage, 'workload.cdf'))
      mkdirSync(join(stage, 'poll'))
      writeFileSync(join(stage, 'poll', 'round.py'), bfrtPollScript(this.programName, this.pollReads(p)))
      await uploadDir(await this.run.host(h), stage, dir, { signal: this.ctx.signal })
    } finally {
      rmSync(stage, { recursive: true, force: true })
    }
  }

  /** Hardware with a mapping: ports up and a frame over every link under the check program (bringup.ts). */
  private async checkLinks(frames: FramePlan): Promise<void> {
    const switches = this.placements.map((p): CheckSwitch => {
      const dir = this.dirs.get(p.host.id)!
      const proc = `switchd-check-${p.sw}`
      return {
        shell: this.shell(p),
        start: async () => {
          await this.run.requireTools(p.host, [`${p.sde}/run_switchd.sh`, `${p.sde}/run_bfshell.sh`])
          await startSwitchd(this.run, p, proc, `${dir}/${CHECK_PROGRAM}.tofino/${CHECK_PROGRAM}.conf`)
        },
        ready: () => this.waitBfshell(p, proc, `${dir}/ready-check.py`, CHECK_PROGRAM),
        portsUp: () => this.portsUp(p),
        stop: async () => void (await (await this.run.processes(p.host)).stop(proc)),
      }
    })
    await linksBeforeDeploy(this.ctx, frames, switches, this.facts, { settleMs: this.o.frameSettleMs })
  }

  private waitBfshell(p: Placement, proc: string, readyFile: string, program: string): Promise<void> {
    return waitBfshell(this.run, p, { proc, readyFile, program, timeoutMs: this.o.switchdTimeoutMs ?? 180_000 })
  }

  /** The testbed's Tofino mapping (hardware front-panel ports), when it has one. */
  get mapping(): TofinoMapping | null {
    const m = this.ctx.testbed!.mapping
    if (m === undefined || m === null) return null
    const p = TofinoMapping.safeParse(m)
    if (!p.success) throw new Error(`testbed '${this.ctx.testbed!.name}': its stored mapping is not a Tofino mapping (${p.error.issues[0]?.message}); set it again`)
    return p.data
  }

  private shell(p: Placement) {
    return switchShell(this.run, p, `${this.dirs.get(p.host.id)}/${p.sw}`)
  }

  /** Adds the switch's mapped front-panel ports and waits until each is up. */
  private async portsUp(p: Placement): Promise<void> {
    const ports = mappedPorts(this.mapping!, p.sw) ?? []
    const sh = this.shell(p)
    await bfshellStep(this.run, p, `${sh.dir}/ports.py`, 'ports')
    await waitPortsUp(this.ctx, sh, ports, { timeoutMs: this.o.portsUpTimeoutMs ?? 60_000, pollMs: this.o.portsPollMs })
  }

  /** What each round polls and the series it feeds: the port counters and the scheme's cells. */
  private seriesPlan(): TofinoSeriesPlan {
    this.polls ??= tofinoSeriesPlan(this.computeState(), this.placements.map((p) => p.sw), this.ctx.plan.scheme)
    return this.polls
  }

  private pollReads(p: Placement): BfrtPollRead[] {
    return this.seriesPlan().reads.get(p.sw) ?? []
  }

  async startTraffic(): Promise<void> {
    const state = this.computeState()
    const plan = this.plan
    if (!plan) throw new Error('startTraffic before deploy')
    const model = this.settings.target === 'model'
    this.trafficStart = await startTofinoTraffic(this.run, { state, plan, model, placements: this.placements, dirs: this.dirs, trafficHosts: this.trafficHosts(), agentFile: this.o.agentFile }, this.clients)
  }

  async *telemetry(): AsyncIterable<TargetMessage> {
    const sp = this.seriesPlan()
    yield { type: 'series', defs: sp.defs }
    const intervalMs = Math.max(this.o.minPollMs ?? 2000, this.ctx.plan.spec.telemetryIntervalNs / 1e6)
    const capMs = this.ctx.plan.spec.stopAfterNs / 1e6 + 60_000
    let prev: Map<string, BfrtPollRound> | null = null
    let prevT = 0
    for (;;) {
      this.run.throwIfCancelled()
      const now = new Map<string, BfrtPollRound>()
      for (const p of this.placements) {
        const reads = this.pollReads(p)
        const r = await runBfshell(this.run, p, `${this.dirs.get(p.host.id)}/poll/round.py`, 'p4lab-poll')
        now.set(p.sw, parseBfrtPollRound(reads, r.stdout.toString('utf8')))
      }
      const t = Date.now()
      if (prev) yield { type: 'telemetry', t: new Float64Array([(t - this.trafficStart) * 1e6]), values: sp.values(now, prev, (t - prevT) / 1000) }
      prev = now
      prevT = t
      let running = 0
      for (const c of this.clients) if ((await (await this.run.processes(c.host)).status(c.name)).alive) running++
      if (running === 0) break
      if (t - this.trafficStart > capMs) {
        for (const c of this.clients) await (await this.run.processes(c.host)).stop(c.name)
        break
      }
      await sleep(intervalMs, this.ctx.signal)
    }
  }

  async collect(): Promise<RunOutput> {
    const plan = this.plan!
    const files: Array<{ hostIndex: number; source: string; text: string }> = []
    for (const c of this.clients) {
      const r = await this.run.run(c.host, ['cat', '--', c.out], { check: false, logOutput: false, maxCapture: 256 << 20, retryOnLoss: true })
      files.push({ hostIndex: c.hostIndex, source: plan.hosts[c.hostIndex].name, text: r.stdout.toString('utf8') })
    }
    const ipToHost = new Map(plan.hosts.map((x) => [x.ip, x.index]))
    const out = collectAgentFlows(files, (ip) => ipToHost.get(ip))
    return {
      flows: out.flows,
      counters: { flowsFinished: out.finished, flowsUnfinished: out.unfinished, flowsFailed: out.failed, agentLineErrors: out.lineErrors.length },
      facts: { ...this.facts },
    }
  }

  async teardown(): Promise<void> {
    this.tornDown ??= this.doTeardown()
    return this.tornDown
  }

  private async doTeardown(): Promise<void> {
    const fabricPrefix = (h: { role: string }) => (h.role === 'sde' && this.settings.target === 'model' ? this.prefix : null)
    await teardownTouchedHosts(this.run, this.ctx.testbed!.hosts, fabricPrefix, { keepRunDir: this.o.keepRunDir })
  }
}

export class TofinoDriver implements TargetDriver {
  readonly kind = 'tofino' as const
  readonly maxParallelRuns = 1

  constructor(private readonly o: TofinoDriverOptions) {}

  async check(): Promise<TargetFacts> {
    return { target: 'tofino' }
  }

  open(ctx: RunContext): TofinoSession {
    return new TofinoSession(ctx, this.o)
  }
}

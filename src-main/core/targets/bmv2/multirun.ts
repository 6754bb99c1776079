// The BMv2 session's steps on a fabric spread over several switch hosts (the testbed's mapping,
// multihost.ts), from deploy to teardown; the driver dispatches here when its check left such a
// fabric up. Each host's part is done by multideploy.ts; this module keeps what the session
// needs across the steps (the clients on each host, when the traffic started) and what differs
// from one host: no INT collector (refused at check), no host-load sampling, and no rate
// measurement (it runs iperf3 between two namespaces of one host), so the scale is the
// ceiling's or the fixed one. The flow files are read the same way for one host or several
// (collectFlowFiles).
import type { Bmv2QueueMapping, ControlPlaneState } from '../../controlplane'
import type { RunOutput, RunTestbedHost, TargetFacts, TargetMessage } from '../driver'
import type { NetnsPlan } from '../shared/netns'
import { collectAgentFlows, type RemoteRun } from '../shared/remote'
import type { RunFiles } from './deploy'
import { teardownEveryHost } from './hosts'
import { MultiHostDeploy, type MultiHostClient } from './multideploy'
import type { MultiHostPlan } from './multihost'
import { bmv2Telemetry } from './telemetry'

export class MultiHostRun {
  readonly deployed: MultiHostDeploy
  /** The clients, each with the host it runs on and that host's run directory. */
  readonly clients: MultiHostClient[] = []
  private trafficStartMs = 0
  private trafficStartNs = 0n

  constructor(
    private readonly run: RemoteRun,
    plan: MultiHostPlan,
    private readonly facts: TargetFacts,
    private readonly o: { minPollMs?: number; keepRunDir?: boolean },
  ) {
    const tb = run.ctx.testbed!
    this.deployed = new MultiHostDeploy(run, plan, (name) => tb.hosts.find((x) => x.name === name)!)
    facts.switchHosts = plan.parts.map((p) => `${p.host}: ${p.switches.map((x) => x.name).join(' ')}`).join('; ')
  }

  get hosts(): RunTestbedHost[] {
    return this.deployed.hosts
  }

  /** Why the rate calibration does not measure this fabric (the choice's warning says it). */
  get unmeasured(): string {
    const hs = this.hosts
    return `the rate calibration measures a path between two namespaces of one host, and this fabric spreads over ${hs.length} hosts (${hs.map((h) => h.name).join(', ')})`
  }

  /** Files, switches, tables and probe senders on every host at once; the rate scale is the session's next step. */
  async deploy(o: { files: Omit<RunFiles, 'commands'>; commands: ReadonlyMap<string, readonly string[]>; state: ControlPlaneState; plan: NetnsPlan }): Promise<void> {
    const scheme = this.run.ctx.plan.scheme
    await this.deployed.deploy({ files: o.files, commands: o.commands, state: o.state, scheme })
    this.facts.thriftPorts = o.plan.switches.map((s) => `${s.name}:${s.thriftPort}`).join(' ')
    if (scheme === 'hula' || scheme === 'dhlb') this.facts.probePeriodUs = Math.max(1, (o.state.params.probePeriodNs ?? 200_000) / 1000)
  }

  /** Each host's switches from `configured` to `final` (rescale.ts); the commands sent, all hosts. */
  rescale(configured: ReadonlyMap<string, readonly string[]>, final: ReadonlyMap<string, readonly string[]>): Promise<number> {
    return this.deployed.rescale(configured, final)
  }

  async startTraffic(o: { rateScale: number; flat: NetnsPlan }): Promise<void> {
    this.clients.length = 0
    const c = await this.deployed.startTraffic(o, this.clients)
    this.trafficStartMs = c.localStartMs
    this.trafficStartNs = c.startAtNs
    this.facts.agentLinkBps = c.linkBps
    this.facts.flowsPerHost = c.perHost.join(' ')
    const hs = this.hosts
    this.run.ctx.log('traffic', `${this.clients.length} clients on ${hs.length} hosts start at ${c.startAtNs} (epoch ns, ${hs[0].name}'s clock), host links at ${c.linkBps / 1e6} Mbps`)
  }

  /** The poll rounds, each switch polled on its own host (telemetry.ts). */
  async *telemetry(o: { plan: NetnsPlan; state: ControlPlaneState; mapping: Bmv2QueueMapping }): AsyncIterable<TargetMessage> {
    const hs = this.hosts
    this.run.ctx.log('telemetry', `polling the switches on each of ${hs.map((h) => h.name).join(', ')}; the switch hosts' load is not sampled on a fabric over several hosts`)
    yield* bmv2Telemetry({
      run: this.run,
      h: hs[0],
      plan: o.plan,
      parts: this.deployed.parts.map((x) => ({ h: x.h, plan: x.view })),
      state: o.state,
      mapping: o.mapping,
      clients: this.clients,
      trafficStartMs: this.trafficStartMs,
      trafficStartNs: this.trafficStartNs,
      facts: this.facts,
      minPollMs: this.o.minPollMs,
    })
  }

  /** Every host at once, with its progress. */
  teardown(prefix: string): Promise<void> {
    return teardownEveryHost(this.run, this.run.ctx.testbed!.hosts, (h) => (h.role === 'switch-host' ? prefix : null), { keepRunDir: this.o.keepRunDir })
  }
}

/** Each client's flow file, read from the host it ran on, → the run's flows and counters. */
export async function collectFlowFiles(run: RemoteRun, plan: NetnsPlan, clients: readonly MultiHostClient[], facts: TargetFacts): Promise<RunOutput> {
  const files: Array<{ hostIndex: number; source: string; text: string }> = []
  for (const c of clients) {
    const host = plan.hosts[c.host]
    const h = c.h
    const r = await run.run(h, ['cat', '--', `${c.dir}/flows-h${c.host}.jsonl`], { check: false, logOutput: false, maxCapture: 256 << 20, retryOnLoss: true })
    if (r.code !== 0) run.ctx.log(h.name, `no flow file from ${host.name}: ${r.stderr.toString('utf8').trim()}`)
    files.push({ hostIndex: c.host, source: host.name, text: r.stdout.toString('utf8') })
  }
  const ipToHost = new Map(plan.hosts.map((x) => [x.ip, x.index]))
  const out = collectAgentFlows(files, (ip) => ipToHost.get(ip))
  for (const e of out.lineErrors.slice(0, 10)) run.ctx.log('collect', e.message)
  return {
    flows: out.flows,
    counters: { flowsFinished: out.finished, flowsUnfinished: out.unfinished, flowsFailed: out.failed, agentLineErrors: out.lineErrors.length },
    facts: { ...facts },
  }
}

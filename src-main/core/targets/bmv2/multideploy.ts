// A BMv2 fabric spread over several switch hosts, deployed on all of them (the mapping's
// HostParts, multihost.ts). The run's check step brought each host's part up (namespaces, veths,
// VXLAN to the other hosts) and sent a frame over every link; deploy keeps exactly those links,
// so the switches run on the cables that were checked. Every host, at once (hosts.ts):
//
//   files     the run directory on the host: the agent, the program JSON, its switches' command
//             files, the workload CDF, run.json
//   switches  one simple_switch per switch of the host, in the host's switch namespace, on its
//             interfaces (veth or VXLAN)
//   tables    each switch's command file piped into simple_switch_CLI on its host, transcript parsed
//   probes    HULA/DHLB probe senders in the fabric hosts of this host's ToRs
//   rates     after the scale is chosen, each switch brought to its file at that scale
//   servers   an agent server in every fabric host namespace of the host
//   clients   the clients of its fabric hosts, all hosts' clients starting at one instant
//
// Each piece is the one-host step run on a per-host view of the plan (hostView): a NetnsPlan
// holding the host's switches and fabric hosts, named as the whole fabric names them, so thrift
// ports, process names and interface names stay unique across hosts.
import type { ControlPlaneState } from '../../controlplane'
import type { RunTestbedHost } from '../driver'
import { AGENT_FILE, type AgentLocation } from '../shared/agent'
import type { NetnsPlan } from '../shared/netns'
import type { RemoteRun } from '../shared/remote'
import { hostClockNs, startAgentServers, startClients, startProbeSenders, type ClientsStarted } from './agents'
import { configureSwitches, rescaleSwitches, startSwitches, uploadRunFiles, type RunFiles } from './deploy'
import { onEveryHost, type HostStep } from './hosts'
import type { HostPart, MultiHostPlan } from './multihost'

/** The host's part as a one-host plan: its switch namespace, switches, fabric hosts and veths. */
export function hostView(plan: MultiHostPlan, p: HostPart): NetnsPlan {
  return { prefix: plan.prefix, switchNs: p.switchNs, switches: p.switches, hosts: p.hosts, links: p.veths }
}

const pick = <V>(m: ReadonlyMap<string, V>, keys: readonly string[]): Map<string, V> => new Map(keys.flatMap((k) => (m.has(k) ? [[k, m.get(k)!] as const] : [])))

/** A host's part of the plan, the testbed host it is on, and its one-host view. */
export interface PartOn {
  part: HostPart
  h: RunTestbedHost
  view: NetnsPlan
}

export interface MultiHostClient {
  /** Fabric host index. */
  host: number
  name: string
  /** The switch host it runs on, and that host's run directory (its flow file is there). */
  h: RunTestbedHost
  dir: string
}

/** The deployed fabric over several hosts: each host's view, run directory and agents. */
export class MultiHostDeploy {
  /** Testbed host name → run directory there. */
  readonly dirs = new Map<string, string>()
  readonly parts: readonly PartOn[]

  constructor(
    private readonly run: RemoteRun,
    readonly plan: MultiHostPlan,
    hostOf: (name: string) => RunTestbedHost,
  ) {
    this.parts = plan.parts.map((part) => ({ part, h: hostOf(part.host), view: hostView(plan, part) }))
  }

  get hosts(): RunTestbedHost[] {
    return this.parts.map((x) => x.h)
  }

  private each<T>(phase: 'deploy' | 'traffic', fn: (x: PartOn, step: HostStep) => Promise<T>): Promise<T[]> {
    return onEveryHost(this.run, phase, this.hosts, (h, step) => fn(this.parts.find((x) => x.h.id === h.id)!, step))
  }

  agentLoc(host: string): AgentLocation {
    return { python: 'python3', agent: `${this.dirs.get(host)}/${AGENT_FILE}` }
  }

  /** Files, switches, tables and (HULA, DHLB) probe senders on every host at once. */
  async deploy(o: { files: Omit<RunFiles, 'commands'>; commands: ReadonlyMap<string, readonly string[]>; state: ControlPlaneState; scheme: string }): Promise<void> {
    const { run } = this
    await this.each('deploy', async ({ part, h, view }, step) => {
      const names = part.switches.map((s) => s.name)
      const dir = await step('files', async () => {
        const d = await run.runDir(h)
        this.dirs.set(part.host, d)
        run.touched.add(h.id)
        await uploadRunFiles(run, h, d, { ...o.files, commands: pick(o.commands, names) })
        run.ctx.event?.('deploy', { part: 'run-dir', host: h.name, dir: d, prefix: this.plan.prefix })
        return d
      })
      await step('switches', () => startSwitches(run, h, view, { json: `${dir}/${o.files.programName}.json`, dir }))
      await step('tables', () => configureSwitches(run, h, view, dir, pick(o.commands, names)))
      run.ctx.event?.('deploy', { part: 'configured', host: h.name, switches: names })
      if (o.scheme === 'hula' || o.scheme === 'dhlb') {
        const scheme = o.scheme
        await step('probes', async () => {
          const period = await startProbeSenders(run, h, view, o.state, scheme, this.agentLoc(part.host))
          run.ctx.log(h.name, `probe senders started on the hosts of ${o.state.tors.filter((t) => part.hosts.some((x) => x.tor === t.name)).length} ToRs, every ${period} µs`)
        })
      }
    })
  }

  /** Each host's switches from `configured` to `final` (rescale.ts); the commands sent, all hosts. */
  async rescale(configured: ReadonlyMap<string, readonly string[]>, final: ReadonlyMap<string, readonly string[]>): Promise<number> {
    const sent = await this.each('deploy', ({ part, h, view }, step) => {
      const names = part.switches.map((s) => s.name)
      return step('rates', () => rescaleSwitches(this.run, h, view, pick(configured, names), pick(final, names)))
    })
    return sent.reduce((a, b) => a + b, 0)
  }

  /**
   * Servers on every host, then the clients, all starting 2 s after the first host's clock
   * reads now (the hosts' clocks are taken to agree, as NTP keeps them).
   */
  async startTraffic(o: { rateScale: number; flat: NetnsPlan }, clients: MultiHostClient[]): Promise<ClientsStarted & { localStartMs: number }> {
    const { run } = this
    await this.each('traffic', ({ part, h, view }, step) => step('servers', () => startAgentServers(run, h, view, this.agentLoc(part.host))))
    const localStartMs = Date.now() + 2000
    const startAtNs = (await hostClockNs(run, this.parts[0].h)) + 2_000_000_000n
    const started = await this.each('traffic', ({ part, h }, step) =>
      step('clients', async () => {
        const mine: Array<{ host: number; name: string }> = []
        const dir = this.dirs.get(part.host)!
        try {
          // The work is drawn over the whole fabric (every host's stream and destinations); this host starts its own hosts' clients.
          return await startClients(run, h, o.flat, { dir, rateScale: o.rateScale, loc: this.agentLoc(part.host), startAtNs, only: new Set(part.hosts.map((x) => x.index)) }, mine)
        } finally {
          for (const c of mine) clients.push({ ...c, h, dir })
        }
      }),
    )
    return { ...started[0], startAtNs, localStartMs }
  }
}

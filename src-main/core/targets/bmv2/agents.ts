// The deploy and traffic phases start agents on the hosts (probe senders, servers, clients); as functions of the plan they read and run apart from the session that sequences the phases.

import type { ControlPlaneState } from '../../controlplane'
import { agentClientArgv, agentProbeArgv, agentServerArgv, type AgentLocation } from '../shared/agent'
import type { RunTestbedHost } from '../driver'
import type { NetnsPlan } from '../shared/netns'
import { sleep, type RemoteRun } from '../shared/remote'
import { AGENT_PORT, agentWork, flowsPerHost } from '../shared/workload'

const HULA_ETHERTYPE = 0x2345
const DHLB_ETHERTYPE = 0x2347

/** HULA or DHLB probe senders (the agent's raw-socket probe mode) on one host per ToR; returns the period in µs. */
export async function startProbeSenders(run: RemoteRun, h: RunTestbedHost, plan: NetnsPlan, state: ControlPlaneState, scheme: 'hula' | 'dhlb', loc: AgentLocation): Promise<number> {
  const procs = await run.processes(h)
  const periodUs = Math.max(1, (state.params.probePeriodNs ?? 200_000) / 1000)
  for (const tor of state.tors) {
    const host = plan.hosts.find((x) => x.tor === tor.name)
    if (!host) continue
    const payloadHex =
      scheme === 'hula'
        ? tor.index.toString(16).padStart(6, '0') + '00' // hula_t { torId: 24, minUtil: 8 }
        : tor.index.toString(16).padStart(4, '0') + '05' + '00' // dhlb_t { originTor: 16, minDegree: 8 = 5, hopCount: 0 }
    const argv = agentProbeArgv(loc, { iface: 'eth0', ethertype: scheme === 'hula' ? HULA_ETHERTYPE : DHLB_ETHERTYPE, periodUs, payloadHex })
    await procs.start(`probe-h${host.index}`, ['ip', 'netns', 'exec', host.ns, ...argv])
  }
  return periodUs
}

/** An agent server in every host namespace; returns once each has said it is listening. */
export async function startAgentServers(run: RemoteRun, h: RunTestbedHost, plan: NetnsPlan, loc: AgentLocation): Promise<void> {
  const procs = await run.processes(h)
  for (const host of plan.hosts) {
    run.throwIfCancelled()
    await procs.start(`srv-h${host.index}`, ['ip', 'netns', 'exec', host.ns, ...agentServerArgv(loc, { port: AGENT_PORT, bind: host.ip })])
  }
  for (const host of plan.hosts) {
    const name = `srv-h${host.index}`
    await waitListening(run, h, name, {
      what: `the agent server of ${host.name}`,
      timeoutMs: 15_000,
      pollMs: 200,
      listening: (log) => (log.includes('"listening"') ? true : undefined),
      exitDetail: async () => (await procs.readLog(name, 2048)).trim(),
    })
  }
}

/**
 * Waits until a detached process of the run says it listens: its log's last 4 KiB read every
 * `pollMs` until `listening` finds it there (what it returns is returned). Throws when the process
 * exits first (`exitDetail` of that log in the message) or after `timeoutMs`.
 */
export async function waitListening<T>(
  run: RemoteRun,
  h: RunTestbedHost,
  name: string,
  o: { what: string; timeoutMs: number; pollMs: number; listening: (log: string) => T | undefined; exitDetail: (log: string) => string | Promise<string> },
): Promise<T> {
  const procs = await run.processes(h)
  const deadline = Date.now() + o.timeoutMs
  for (;;) {
    run.throwIfCancelled()
    const log = await procs.readLog(name, 4096)
    const found = o.listening(log)
    if (found !== undefined) return found
    const st = await procs.status(name)
    if (!st.alive) throw new Error(`${o.what} exited: ${await o.exitDetail(log)}`)
    if (Date.now() > deadline) throw new Error(`${o.what} did not start listening within ${o.timeoutMs / 1000} s`)
    await sleep(o.pollMs, run.ctx.signal)
  }
}

export interface ClientsStarted {
  /** Wall-clock epoch ns of the switch host at which every client starts. */
  startAtNs: bigint
  /** The host links' rate the Poisson clients pace their load against (scaled onto BMv2). */
  linkBps: number
  /** Flows per host. */
  perHost: number[]
}

/** The host's wall clock (epoch ns). */
export async function hostClockNs(run: RemoteRun, h: RunTestbedHost): Promise<bigint> {
  return BigInt((await run.run(h, ['date', '+%s%N'], { logOutput: false })).stdout.toString('utf8').trim())
}

/**
 * A client per host (one PRNG stream each), writing `<dir>/flows-h<i>.jsonl`, all starting 2 s
 * from now on the switch host's clock (or at `startAtNs`, one instant for every switch host of a
 * fabric over several). `only`: the fabric hosts whose clients run on h (the work is drawn for
 * every fabric host of `plan` either way, so each keeps its stream and its destinations).
 * `started` gets each client as it starts, so a failure part-way leaves the ones already running in it.
 */
export async function startClients(
  run: RemoteRun,
  h: RunTestbedHost,
  plan: NetnsPlan,
  o: { dir: string; rateScale: number; loc: AgentLocation; startAtNs?: bigint; only?: ReadonlySet<number> },
  started: Array<{ host: number; name: string }>,
): Promise<ClientsStarted> {
  const procs = await run.processes(h)
  // Every client starts at one wall-clock instant of the switch host, 2 s from now.
  const startAtNs = o.startAtNs ?? (await hostClockNs(run, h)) + 2_000_000_000n
  const spec = run.ctx.plan.spec
  const linkBps = spec.topology.hostLinkBps * o.rateScale
  const work = agentWork(spec, run.ctx.plan.load, plan.hosts, { linkBps, cdfFile: () => `${o.dir}/workload.cdf`, target: 'bmv2' })
  const perHost = flowsPerHost(spec, plan.hosts.length)
  for (const { index, dsts, workload } of work) {
    run.throwIfCancelled()
    const host = plan.hosts[index]
    if (o.only && !o.only.has(host.index)) continue
    const name = `cli-h${host.index}`
    const argv = agentClientArgv(o.loc, { dsts, out: `${o.dir}/flows-h${host.index}.jsonl`, workload, seed: run.ctx.plan.seed, startAtNs, src: host.ip })
    await procs.start(name, ['ip', 'netns', 'exec', host.ns, ...argv])
    started.push({ host: host.index, name })
  }
  return { startAtNs, linkBps, perHost }
}

// The traffic step of a Tofino run: where each fabric host runs its agents, and starting them.
// On tofino-model a fabric host is a namespace on its ToR's SDE host (the run directory there
// already holds the agent); on hardware it is a traffic host of the testbed, which gets a run
// directory with the agent and must already carry the host's fabric address (checked here).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ControlPlaneState } from '../../controlplane'
import { uploadDir } from '../../ssh'
import type { RunTestbedHost } from '../driver'
import { AGENT_FILE, agentClientArgv, agentServerArgv, copyAgent } from '../shared/agent'
import type { NetnsPlan } from '../shared/netns'
import { sleep, type RemoteRun } from '../shared/remote'
import { AGENT_PORT, agentWork } from '../shared/workload'
import type { Placement } from './sde'

/** A started client: its host, process name, fabric host index and flow file. */
export interface TofinoClient {
  host: RunTestbedHost
  name: string
  hostIndex: number
  out: string
}

export interface TrafficPlace {
  state: ControlPlaneState
  plan: NetnsPlan
  /** tofino-model (namespaces on the SDE hosts) rather than hardware (traffic hosts). */
  model: boolean
  placements: readonly Placement[]
  /** SDE host id → the run directory there. */
  dirs: ReadonlyMap<number, string>
  /** The testbed's traffic hosts, in order (hardware). */
  trafficHosts: readonly RunTestbedHost[]
  agentFile: string
}

/** Agent servers on every fabric host, then the clients (one PRNG stream per host), pushed to `clients` as they start; returns when they start (ms, this machine's clock). */
export async function startTofinoTraffic(run: RemoteRun, o: TrafficPlace, clients: TofinoClient[]): Promise<number> {
  const { ctx } = run
  const { plan } = o
  // Where each fabric host runs: a namespace on its ToR's SDE host (model), or a traffic host (hardware).
  const where = o.state.hosts.map((hostState, i) => {
    const ph = plan.hosts[i]
    if (o.model) {
      const p = o.placements.find((x) => x.sw === hostState.tor)!
      return { host: p.host, wrap: ['ip', 'netns', 'exec', ph.ns], dir: o.dirs.get(p.host.id)!, ip: ph.ip, index: i, tor: hostState.tor }
    }
    return { host: o.trafficHosts[i], wrap: [] as string[], dir: '', ip: ph.ip, index: i, tor: hostState.tor }
  })
  for (const w of where) {
    if (!w.dir) {
      w.dir = await run.runDir(w.host)
      run.touched.add(w.host.id)
      const stage = mkdtempSync(join(tmpdir(), 'p4lab-traffic-'))
      try {
        copyAgent(o.agentFile, stage)
        const wl = ctx.plan.spec.workload
        if ('file' in wl) copyFileSync(wl.file, join(stage, 'workload.cdf'))
        await uploadDir(await run.host(w.host), stage, w.dir, { signal: ctx.signal })
      } finally {
        rmSync(stage, { recursive: true, force: true })
      }
      const addrs = (await run.run(w.host, ['ip', '-o', 'addr', 'show'], { logOutput: false })).stdout.toString('utf8')
      if (!addrs.includes(` ${w.ip}/`)) throw new Error(`traffic host ${w.host.name} does not have fabric host ${w.index}'s address ${w.ip}; configure it as docs/TESTBEDS.md says`)
    }
    const procs = await run.processes(w.host)
    await procs.start(`srv-h${w.index}`, [...w.wrap, ...agentServerArgv({ agent: `${w.dir}/${AGENT_FILE}` }, { port: AGENT_PORT, bind: w.ip })])
  }
  await sleep(1500, ctx.signal)
  const spec = ctx.plan.spec
  const work = agentWork(spec, ctx.plan.load, where, { linkBps: spec.topology.hostLinkBps, cdfFile: (i) => `${where[i].dir}/workload.cdf`, target: 'tofino' })
  const first = where[0].host
  const startAtNs = BigInt((await run.run(first, ['date', '+%s%N'], { logOutput: false })).stdout.toString('utf8').trim()) + 3_000_000_000n
  for (const { index, dsts, workload } of work) {
    run.throwIfCancelled()
    const w = where[index]
    const out = `${w.dir}/flows-h${w.index}.jsonl`
    const name = `cli-h${w.index}`
    await (await run.processes(w.host)).start(name, [...w.wrap, ...agentClientArgv({ agent: `${w.dir}/${AGENT_FILE}` }, { dsts, out, workload, seed: ctx.plan.seed, startAtNs, src: w.ip })])
    clients.push({ host: w.host, name, hostIndex: w.index, out })
  }
  return Date.now() + 3000
}

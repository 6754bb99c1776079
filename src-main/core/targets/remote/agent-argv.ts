// The agent's and iperf3's command lines are checked here, before any ssh or spawn, so that a bad option fails in p4lab with its name rather than on a remote host.

export const AGENT_FILE = 'p4lab_agent.py'

/** How the agent is invoked: interpreter and the uploaded file's path on the host. */
export interface AgentLocation {
  /** Default 'python3'. */
  python?: string
  /** Path of p4lab_agent.py on the host. */
  agent: string
}

export interface AgentAddress {
  host: string
  port: number
}

function num(name: string, v: number, ok: (v: number) => boolean, what: string): string {
  if (!Number.isFinite(v) || !ok(v)) throw new RangeError(`agent: ${name} must be ${what}, got ${v}`)
  return String(v)
}
const int = (name: string, v: number, min: number): string =>
  num(name, v, (x) => Number.isInteger(x) && x >= min, `an integer >= ${min}`)
const positive = (name: string, v: number): string => num(name, v, (x) => x > 0, '> 0')

function address(a: AgentAddress): string {
  if (a.host === '' || /[\s,]/.test(a.host)) throw new RangeError(`agent: bad host '${a.host}'`)
  const host = a.host.includes(':') && !a.host.startsWith('[') ? `[${a.host}]` : a.host
  return `${host}:${int('port', a.port, 1)}`
}

function head(loc: AgentLocation, mode: string): string[] {
  return [loc.python ?? 'python3', loc.agent, mode]
}

export function agentServerArgv(loc: AgentLocation, o: { port: number; bind?: string }): string[] {
  const argv = [...head(loc, 'server'), '--port', int('port', o.port, 0)]
  if (o.bind !== undefined) argv.push('--bind', o.bind)
  return argv
}

export interface PoissonAgentWorkload {
  kind: 'poisson'
  /** Path of the CDF file on the host (the format of resources/workloads/*.cdf). */
  cdf: string
  load: number
  linkBps: number
  flows: number
  /** PRNG stream; give each source host its own (default 1, the simulator's workload stream). */
  stream?: number
}

export interface IncastAgentWorkload {
  kind: 'incast'
  flowBytes: number
  events: number
  ratePerSec: number
  /** Poisson background traffic alongside the incast events. */
  background?: Omit<PoissonAgentWorkload, 'kind'>
}

export interface LongLivedAgentWorkload {
  kind: 'long-lived'
  flows: number
  /** Unbounded when omitted. */
  sizeBytes?: number
  durationS?: number
}

export type AgentWorkload = PoissonAgentWorkload | IncastAgentWorkload | LongLivedAgentWorkload

export interface AgentClientOptions {
  dsts: AgentAddress[]
  /** Output file on the host ('-' for stdout). */
  out: string
  workload: AgentWorkload
  seed: number
  /** Wall-clock epoch ns at which to start (all incast senders get the same). */
  startAtNs?: bigint
  maxInflight?: number
  /** Label written as "src" (default: the socket's local address). */
  src?: string
}

function poissonArgs(w: Omit<PoissonAgentWorkload, 'kind'>): string[] {
  if (w.cdf === '') throw new RangeError('agent: cdf path is empty')
  const load = num('load', w.load, (x) => x > 0 && x <= 1, 'in (0, 1]')
  const argv = ['--cdf', w.cdf, '--load', load, '--link-bps', positive('linkBps', w.linkBps), '--flows', int('flows', w.flows, 0)]
  if (w.stream !== undefined) argv.push('--stream', int('stream', w.stream, 0))
  return argv
}

export function agentClientArgv(loc: AgentLocation, o: AgentClientOptions): string[] {
  if (o.dsts.length === 0) throw new RangeError('agent: a client needs at least one destination')
  const argv = [...head(loc, 'client'), '--dsts', o.dsts.map(address).join(','), '--out', o.out, '--seed', int('seed', o.seed, 0)]
  const w = o.workload
  switch (w.kind) {
    case 'poisson':
      argv.push(...poissonArgs(w))
      break
    case 'incast':
      argv.push('--incast', '--incast-bytes', int('flowBytes', w.flowBytes, 1), '--events', int('events', w.events, 0))
      argv.push('--incast-rate', positive('ratePerSec', w.ratePerSec))
      if (w.background) argv.push(...poissonArgs(w.background))
      break
    case 'long-lived':
      argv.push('--long-lived', '--flows', int('flows', w.flows, 1))
      if (w.sizeBytes !== undefined) argv.push('--size', int('sizeBytes', w.sizeBytes, 1))
      if (w.durationS !== undefined) argv.push('--duration', positive('durationS', w.durationS))
      break
  }
  if (o.startAtNs !== undefined) {
    if (o.startAtNs < 0n) throw new RangeError('agent: startAtNs must be >= 0')
    argv.push('--start-at', o.startAtNs.toString())
  }
  if (o.maxInflight !== undefined) argv.push('--max-inflight', int('maxInflight', o.maxInflight, 1))
  if (o.src !== undefined) argv.push('--src', o.src)
  return argv
}

export interface AgentProbeOptions {
  iface: string
  ethertype: number
  periodUs: number
  payloadHex: string
  dstMac?: string
  count?: number
}

export function agentProbeArgv(loc: AgentLocation, o: AgentProbeOptions): string[] {
  const et = num('ethertype', o.ethertype, (x) => Number.isInteger(x) && x >= 0 && x <= 0xffff, 'a 16-bit integer')
  if (!/^([0-9a-fA-F]{2})*$/.test(o.payloadHex)) throw new RangeError('agent: payloadHex must be pairs of hex digits')
  if (o.dstMac !== undefined && !/^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/.test(o.dstMac)) {
    throw new RangeError(`agent: bad MAC '${o.dstMac}'`)
  }
  const argv = [...head(loc, 'probe'), '--iface', o.iface, '--ethertype', '0x' + Number(et).toString(16).padStart(4, '0')]
  argv.push('--period-us', positive('periodUs', o.periodUs), '--payload-hex', o.payloadHex)
  if (o.dstMac !== undefined) argv.push('--dst-mac', o.dstMac)
  if (o.count !== undefined) argv.push('--count', int('count', o.count, 1))
  return argv
}

/** The agent's relay mode: every UDP datagram on `port` as a line on stdout (relay-output.ts reads them). */
export function agentRelayArgv(loc: AgentLocation, o: { port: number; bind?: string; rcvbufBytes?: number }): string[] {
  const argv = [...head(loc, 'relay'), '--port', num('port', o.port, (x) => Number.isInteger(x) && x >= 0 && x <= 65535, 'an integer 0-65535')]
  if (o.bind !== undefined) {
    if (o.bind === '' || /[\s,]/.test(o.bind)) throw new RangeError(`agent: bad bind address '${o.bind}'`)
    argv.push('--bind', o.bind)
  }
  if (o.rcvbufBytes !== undefined) argv.push('--rcvbuf', int('rcvbufBytes', o.rcvbufBytes, 0))
  return argv
}

// iperf3: the alternative generator for throughput runs.

export function iperf3ServerArgv(o: { port: number; bind?: string; oneOff?: boolean }): string[] {
  // --forceflush: the banner and reports reach a pipe or log file as they happen.
  const argv = ['iperf3', '-s', '-p', int('port', o.port, 1), '--forceflush']
  if (o.bind !== undefined) argv.push('-B', o.bind)
  if (o.oneOff ?? true) argv.push('-1')
  return argv
}

export function iperf3ClientArgv(o: { server: string; port: number; seconds: number; parallel?: number; bind?: string; omitSeconds?: number }): string[] {
  const argv = ['iperf3', '-c', o.server, '-p', int('port', o.port, 1), '-J', '-t', positive('seconds', o.seconds)]
  if (o.parallel !== undefined) argv.push('-P', int('parallel', o.parallel, 1))
  // -O: the first seconds (TCP's slow start) are sent but left out of the summary.
  if (o.omitSeconds !== undefined) argv.push('-O', int('omitSeconds', o.omitSeconds, 0))
  if (o.bind !== undefined) argv.push('-B', o.bind)
  return argv
}

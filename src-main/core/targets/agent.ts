// The traffic agent (resources/agent/p4lab_agent.py) seen from p4lab: the argv of each of
// its modes (for ssh `cmd()` or a local spawn) and the parser of its JSON lines into the
// flow columns the store takes (`insertFlows`) and a target returns (`SimFlows`).
//
// Output format (one JSON object per line, see the agent's header):
//   {"id","src","dst","size","start_ns","end_ns","fct_ns","retransmits"}
//   optional "delivered" (unfinished flows), "group" (incast event), "error" (failed flow);
//   and one {"summary": {...}} at the end.
// start_ns/end_ns are wall-clock epoch nanoseconds (~1.8e18, beyond 2^53): they are read
// from the line's text as BigInt and made relative to an origin before becoming numbers.

import type { SimFlows } from '../../sim/types'

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

// ---------------------------------------------------------------------------------------
// Parsing

/** One rejected line: where it came from and why. Never thrown by the parser. */
export class AgentLineError extends Error {
  constructor(
    readonly source: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${source}:${line}: ${reason}`)
    this.name = 'AgentLineError'
  }
}

/** One flow line, checked. Times are exact epoch nanoseconds. */
export interface AgentFlowLine {
  source: string
  line: number
  id: number
  src: string | null
  /** "ip:port" as written. */
  dst: string
  /** -1 for an unbounded (long-lived) flow. */
  size: number
  startNs: bigint
  endNs: bigint | null
  fctNs: number | null
  retransmits: number | null
  delivered: number | null
  group: number | null
  error: string | null
}

export type AgentSummary = Record<string, unknown>

const FLOW_KEYS = new Set(['id', 'src', 'dst', 'size', 'start_ns', 'end_ns', 'fct_ns', 'retransmits', 'delivered', 'group', 'error'])
const REQUIRED_KEYS = ['id', 'src', 'dst', 'size', 'start_ns', 'end_ns', 'fct_ns', 'retransmits']

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0

/** The exact digits of an integer field, read from the raw text (JSON numbers lose them). */
function exactInt(text: string, key: string): bigint | null {
  const m = new RegExp(`"${key}"\\s*:\\s*(-?\\d+)\\s*[,}]`).exec(text)
  return m ? BigInt(m[1]) : null
}

/** Parses one line: a flow, a summary, nothing (blank), or an AgentLineError. */
export function parseAgentLine(
  text: string,
  line: number,
  source = 'agent',
): { kind: 'flow'; flow: AgentFlowLine } | { kind: 'summary'; summary: AgentSummary } | { kind: 'blank' } | { kind: 'error'; error: AgentLineError } {
  const fail = (reason: string) => ({ kind: 'error' as const, error: new AgentLineError(source, line, reason) })
  const t = text.trim()
  if (t === '') return { kind: 'blank' }
  let o: unknown
  try {
    o = JSON.parse(t)
  } catch (e) {
    return fail(`not JSON (${(e as Error).message})`)
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return fail('not a JSON object')
  const r = o as Record<string, unknown>
  if ('summary' in r) {
    if (typeof r.summary !== 'object' || r.summary === null || Array.isArray(r.summary)) return fail('summary is not an object')
    return { kind: 'summary', summary: r.summary as AgentSummary }
  }
  for (const k of REQUIRED_KEYS) if (!(k in r)) return fail(`missing "${k}"`)
  for (const k of Object.keys(r)) if (!FLOW_KEYS.has(k)) return fail(`unknown key "${k}"`)
  if (!isCount(r.id)) return fail(`id must be a non-negative integer, got ${JSON.stringify(r.id)}`)
  if (!(r.src === null || (typeof r.src === 'string' && r.src !== ''))) return fail('src must be an address or null')
  if (typeof r.dst !== 'string' || !/^(\[[^\]]+\]|[^:\s]+|[0-9a-fA-F:]+):\d+$/.test(r.dst)) return fail(`dst must be "ip:port", got ${JSON.stringify(r.dst)}`)
  if (!(r.size === -1 || (isCount(r.size) && r.size >= 1))) return fail(`size must be >= 1 or -1 (unbounded), got ${JSON.stringify(r.size)}`)
  const startNs = typeof r.start_ns === 'number' ? exactInt(t, 'start_ns') : null
  if (startNs === null || startNs < 0n) return fail(`start_ns must be a non-negative integer, got ${JSON.stringify(r.start_ns)}`)
  let endNs: bigint | null = null
  if (r.end_ns !== null) {
    endNs = typeof r.end_ns === 'number' ? exactInt(t, 'end_ns') : null
    if (endNs === null || endNs < startNs) return fail(`end_ns must be an integer >= start_ns or null, got ${JSON.stringify(r.end_ns)}`)
  }
  if (!(r.fct_ns === null || isCount(r.fct_ns))) return fail(`fct_ns must be a non-negative integer or null, got ${JSON.stringify(r.fct_ns)}`)
  if ((r.fct_ns === null) !== (endNs === null)) return fail('end_ns and fct_ns must both be set (finished) or both null')
  if (endNs !== null && endNs - startNs !== BigInt(r.fct_ns as number)) return fail('end_ns - start_ns differs from fct_ns')
  if (!(r.retransmits === null || isCount(r.retransmits))) return fail(`retransmits must be a non-negative integer or null, got ${JSON.stringify(r.retransmits)}`)
  const delivered = r.delivered ?? null
  if (!(delivered === null || isCount(delivered))) return fail(`delivered must be a non-negative integer, got ${JSON.stringify(delivered)}`)
  const group = r.group ?? null
  if (!(group === null || isCount(group))) return fail(`group must be a non-negative integer, got ${JSON.stringify(group)}`)
  const error = r.error ?? null
  if (!(error === null || typeof error === 'string')) return fail('error must be a string')
  if (error !== null && endNs !== null) return fail('a failed flow cannot have an end')
  if (r.size === -1 && endNs !== null) return fail('an unbounded flow cannot finish')
  return {
    kind: 'flow',
    flow: {
      source,
      line,
      id: r.id,
      src: r.src as string | null,
      dst: r.dst,
      size: r.size as number,
      startNs,
      endNs,
      fctNs: r.fct_ns as number | null,
      retransmits: r.retransmits as number | null,
      delivered: delivered as number | null,
      group: group as number | null,
      error: error as string | null,
    },
  }
}

/** "10.0.0.1:5001" → "10.0.0.1"; "[fe80::1]:5001" → "fe80::1". */
export function addressHost(addr: string): string {
  const i = addr.lastIndexOf(':')
  const h = i < 0 ? addr : addr.slice(0, i)
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h
}

export interface AgentFlows extends SimFlows {
  /** Flow id as the agent numbered it (per source file). */
  ids: Int32Array
  /** tcpi_total_retrans per flow; null where the kernel did not report it. */
  retransmits: Array<number | null>
  /** Per flow: the agent's error text for a failed flow, else null. */
  errors: Array<string | null>
}

export interface AgentOutput {
  flows: AgentFlows
  /** The epoch ns that startNs/finishNs are relative to. */
  originNs: bigint
  /** One per source that wrote its final line. */
  summaries: Array<{ source: string; summary: AgentSummary }>
  /** Every rejected line; `errors.length` is the count. */
  lineErrors: AgentLineError[]
  finished: number
  unfinished: number
  failed: number
}

export interface CollectOptions {
  /** Maps an IP address to the run's host index; undefined rejects the line. */
  hostOf: (ip: string) => number | undefined
}

/**
 * Accumulates the agents' lines (several hosts, several files) and turns them into flow
 * columns. Malformed lines are counted as AgentLineError with their source and line; the
 * collector never throws on input.
 */
export class AgentOutputCollector {
  private readonly flows: Array<{ f: AgentFlowLine; src: number; dst: number }> = []
  private readonly seen = new Set<string>()
  readonly lineErrors: AgentLineError[] = []
  readonly summaries: Array<{ source: string; summary: AgentSummary }> = []

  constructor(private readonly opts: CollectOptions) {}

  /**
   * One line. `srcHost` (when the caller knows which host wrote the file) is the source
   * host; otherwise the line's "src" address is looked up.
   */
  addLine(text: string, line: number, source = 'agent', srcHost?: number): void {
    const p = parseAgentLine(text, line, source)
    if (p.kind === 'blank') return
    if (p.kind === 'error') {
      this.lineErrors.push(p.error)
      return
    }
    if (p.kind === 'summary') {
      this.summaries.push({ source, summary: p.summary })
      return
    }
    const f = p.flow
    const err = (reason: string) => this.lineErrors.push(new AgentLineError(source, line, reason))
    const key = `${source}\u0000${f.id}`
    if (this.seen.has(key)) return void err(`flow id ${f.id} appears twice`)
    let src = srcHost
    if (src === undefined) {
      if (f.src === null) return void err('src is null and the source host is not known')
      src = this.opts.hostOf(f.src)
      if (src === undefined) return void err(`src ${f.src} is not a host of the run`)
    }
    const dst = this.opts.hostOf(addressHost(f.dst))
    if (dst === undefined) return void err(`dst ${f.dst} is not a host of the run`)
    this.seen.add(key)
    this.flows.push({ f, src, dst })
  }

  /** A whole file or stream of lines. */
  addText(text: string, source = 'agent', srcHost?: number): void {
    const lines = text.split('\n')
    if (lines[lines.length - 1] === '') lines.pop()
    lines.forEach((l, i) => this.addLine(l, i + 1, source, srcHost))
  }

  /**
   * The flows, ordered by start time (then source and id). Times become nanoseconds since
   * `originNs` (default: the earliest start); a flow that did not finish has finishNs -1.
   */
  result(originNs?: bigint): AgentOutput {
    const list = [...this.flows].sort((a, b) =>
      a.f.startNs < b.f.startNs ? -1 : a.f.startNs > b.f.startNs ? 1 : a.f.source < b.f.source ? -1 : a.f.source > b.f.source ? 1 : a.f.id - b.f.id,
    )
    const origin = originNs ?? (list.length > 0 ? list[0].f.startNs : 0n)
    const n = list.length
    const out: AgentFlows = {
      src: new Int32Array(n),
      dst: new Int32Array(n),
      sizeBytes: new Float64Array(n),
      startNs: new Float64Array(n),
      finishNs: new Float64Array(n),
      deliveredBytes: new Float64Array(n),
      group: new Int32Array(n),
      ids: new Int32Array(n),
      retransmits: [],
      errors: [],
    }
    let finished = 0
    let failed = 0
    list.forEach(({ f, src, dst }, i) => {
      out.src[i] = src
      out.dst[i] = dst
      out.sizeBytes[i] = f.size
      out.startNs[i] = Number(f.startNs - origin)
      out.finishNs[i] = f.endNs === null ? -1 : Number(f.endNs - origin)
      out.deliveredBytes[i] = f.endNs !== null ? f.size : (f.delivered ?? 0)
      out.group[i] = f.group ?? -1
      out.ids[i] = f.id
      out.retransmits.push(f.retransmits)
      out.errors.push(f.error)
      if (f.endNs !== null) finished++
      if (f.error !== null) failed++
    })
    return {
      flows: out,
      originNs: origin,
      summaries: [...this.summaries],
      lineErrors: [...this.lineErrors],
      finished,
      unfinished: n - finished - failed,
      failed,
    }
  }
}

/** One agent output file in one call. */
export function parseAgentOutput(text: string, opts: CollectOptions & { source?: string; srcHost?: number; originNs?: bigint }): AgentOutput {
  const c = new AgentOutputCollector(opts)
  c.addText(text, opts.source ?? 'agent', opts.srcHost)
  return c.result(opts.originNs)
}

// ---------------------------------------------------------------------------------------
// iperf3: the alternative generator for throughput runs (`-J` output).

export function iperf3ServerArgv(o: { port: number; bind?: string; oneOff?: boolean }): string[] {
  // --forceflush: the banner and reports reach a pipe or log file as they happen.
  const argv = ['iperf3', '-s', '-p', int('port', o.port, 1), '--forceflush']
  if (o.bind !== undefined) argv.push('-B', o.bind)
  if (o.oneOff ?? true) argv.push('-1')
  return argv
}

export function iperf3ClientArgv(o: { server: string; port: number; seconds: number; parallel?: number; bind?: string }): string[] {
  const argv = ['iperf3', '-c', o.server, '-p', int('port', o.port, 1), '-J', '-t', positive('seconds', o.seconds)]
  if (o.parallel !== undefined) argv.push('-P', int('parallel', o.parallel, 1))
  if (o.bind !== undefined) argv.push('-B', o.bind)
  return argv
}

export interface Iperf3Result {
  /** Sender-side and receiver-side mean throughput over the test, bits per second. */
  sentBps: number
  receivedBps: number
  sentBytes: number
  receivedBytes: number
  seconds: number
  /** Sender retransmissions (null where iperf3 does not report them). */
  retransmits: number | null
  /** Per-interval receiver-side throughput (bits per second), from `intervals[].sum`. */
  intervalsBps: number[]
}

/** Parses `iperf3 -c … -J` output; an `error` member or a missing summary is returned as an error. */
export function parseIperf3Json(text: string): { ok: true; result: Iperf3Result } | { ok: false; error: string } {
  let o: unknown
  try {
    o = JSON.parse(text)
  } catch (e) {
    return { ok: false, error: `iperf3 output is not JSON: ${(e as Error).message}` }
  }
  if (typeof o !== 'object' || o === null) return { ok: false, error: 'iperf3 output is not a JSON object' }
  const r = o as { error?: unknown; end?: Record<string, unknown>; intervals?: unknown }
  if (typeof r.error === 'string') return { ok: false, error: `iperf3: ${r.error}` }
  const sent = r.end?.sum_sent as Record<string, unknown> | undefined
  const recv = r.end?.sum_received as Record<string, unknown> | undefined
  const n = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0
  if (!sent || !recv || !n(sent.bits_per_second) || !n(recv.bits_per_second) || !n(sent.bytes) || !n(recv.bytes)) {
    return { ok: false, error: 'iperf3 output has no end.sum_sent / end.sum_received summary' }
  }
  const seconds = n(recv.seconds) ? recv.seconds : n(sent.seconds) ? sent.seconds : 0
  const intervalsBps: number[] = []
  if (Array.isArray(r.intervals)) {
    for (const iv of r.intervals as Array<{ sum?: { bits_per_second?: unknown } }>) {
      if (n(iv?.sum?.bits_per_second)) intervalsBps.push(iv.sum.bits_per_second)
    }
  }
  return {
    ok: true,
    result: {
      sentBps: sent.bits_per_second,
      receivedBps: recv.bits_per_second,
      sentBytes: sent.bytes,
      receivedBytes: recv.bytes,
      seconds,
      retransmits: n(sent.retransmits) ? sent.retransmits : null,
      intervalsBps,
    },
  }
}

// What the agents write is untrusted remote text; one parser turns it into flow columns and counts every bad line instead of throwing.
//
// Output format (one JSON object per line, see the agent's header):
//   {"id","src","dst","size","start_ns","end_ns","fct_ns","retransmits"}
//   optional "delivered" (unfinished flows), "group" (incast event), "error" (failed flow);
//   and one {"summary": {...}} at the end.
// start_ns/end_ns are wall-clock epoch nanoseconds (~1.8e18, beyond 2^53): they are read
// from the line's text as BigInt and made relative to an origin before becoming numbers.

import type { SimFlows } from '../../../sim/types'

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

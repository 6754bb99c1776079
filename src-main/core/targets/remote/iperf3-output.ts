// iperf3 -J output is a different format from the agent's lines (one JSON document, not a line per flow), so it has its own parser.

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

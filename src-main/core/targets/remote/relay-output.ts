// The agent's relay mode (resources/agent/p4lab_agent.py `relay`) seen from p4lab: its output
// lines, read back from the file its stdout and stderr go to.
//
//   <arrival epoch ns> <payload in base64>        one per datagram
//   {"listening": "ADDR:PORT", "rcvbuf": BYTES}   once, first
//   {"summary": {"mode": "relay", ...}}           once, last (SIGTERM/SIGINT)
//
// Anything else (a Python warning on stderr, a line cut short) is 'other': reported, never fatal.

export interface RelaySummary {
  datagrams: number
  bytes: number
  errors: number
  /** Growth of the namespace's UDP RcvbufErrors while the relay ran (null: unknown). */
  kernelDrops: number | null
  /** Growth of its UDP NoPorts (datagrams to a port nothing listened on). */
  noPort: number | null
}

export type RelayLine =
  | { kind: 'datagram'; atNs: bigint; payload: Buffer }
  | { kind: 'listening'; address: string; rcvbuf: number | null }
  | { kind: 'summary'; summary: RelaySummary }
  | { kind: 'other'; line: string }

const DATAGRAM = /^(\d{1,20}) ((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null)

export function parseRelayLine(line: string): RelayLine {
  const m = DATAGRAM.exec(line)
  if (m) return { kind: 'datagram', atNs: BigInt(m[1]), payload: Buffer.from(m[2], 'base64') }
  if (line.startsWith('{')) {
    let v: unknown
    try {
      v = JSON.parse(line)
    } catch {
      return { kind: 'other', line }
    }
    const o = v as Record<string, unknown>
    if (typeof o?.listening === 'string') return { kind: 'listening', address: o.listening, rcvbuf: count(o.rcvbuf) }
    const s = o?.summary as Record<string, unknown> | undefined
    if (s && typeof s === 'object' && s.mode === 'relay') {
      return {
        kind: 'summary',
        summary: { datagrams: count(s.datagrams) ?? 0, bytes: count(s.bytes) ?? 0, errors: count(s.errors) ?? 0, kernelDrops: count(s.kernel_drops), noPort: count(s.no_port) },
      }
    }
  }
  return { kind: 'other', line }
}

/**
 * Splits a chunk of the relay's output at its last newline: the complete lines, and how many
 * bytes they took (what a reader that resumes by byte offset has consumed). A trailing part
 * without a newline is left for the next read, unless it fills the whole chunk (a line longer
 * than any the relay writes): then it is returned as one line, so a reader cannot stall on it.
 */
export function completeLines(chunk: Buffer, chunkLimit: number): { lines: string[]; bytes: number } {
  const nl = chunk.lastIndexOf(0x0a)
  if (nl < 0) return chunk.length >= chunkLimit ? { lines: [chunk.toString('utf8')], bytes: chunk.length } : { lines: [], bytes: 0 }
  const text = chunk.subarray(0, nl).toString('utf8')
  return { lines: text.split('\n').map((l) => l.replace(/\r$/, '')), bytes: nl + 1 }
}

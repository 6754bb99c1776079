// The flow table: one row per flow, shared by the workload, both TCP endpoints and the
// result. Rows are typed-array columns (like packets) so a 100k-flow run costs a few MB
// and no objects. Sequence space is counted in segments, not bytes: every segment but the
// last carries a full MSS, so a segment index and the flow size give the byte count.

import { fmix32 } from '../engine/rng'
import type { MessageTable } from './messages'

/** TCP/IP header bytes added to every data segment on the wire. */
export const TCP_HEADER_BYTES = 40
/** ACKs are padded to the minimum Ethernet frame. */
export const ACK_WIRE_BYTES = 64
const PROTO_TCP = 6
/** Segment count of an unbounded flow: more than any run can send (2^31 − 1 × MSS bytes). */
export const UNBOUNDED_SEGMENTS = 0x7fffffff
const SERVER_PORT = 5001

/** Hash of a 5-tuple, as a switch's ECMP stage would compute it from the headers. */
export function hash5Tuple(src: number, dst: number, sport: number, dport: number, proto: number): number {
  let h = 0x9747b28c
  h = fmix32(h ^ src)
  h = fmix32(h ^ Math.imul(dst, 0x27d4eb2d))
  h = fmix32(h ^ ((sport << 16) | dport))
  h = fmix32(h ^ proto)
  return h | 0
}

export class FlowTable {
  readonly src: Int32Array
  readonly dst: Int32Array
  readonly sizeBytes: Float64Array
  readonly startPs: Float64Array
  /** -1 until the last ACK reaches the sender. */
  readonly finishPs: Float64Array
  readonly nSeg: Int32Array
  readonly dataHash: Int32Array
  readonly ackHash: Int32Array
  /** Incast event of each flow, or -1. */
  readonly group: Int32Array
  done = 0
  /** Flow ids in the order they finished: the first `done` entries are set. */
  readonly finishOrder: Int32Array
  /**
   * Set when the rows are persistent connections carrying several flows each (messages.ts):
   * a row's nSeg then grows as its flows arrive, and the run reports the messages.
   */
  msgs: MessageTable | null = null

  constructor(
    readonly n: number,
    readonly mss: number,
  ) {
    this.src = new Int32Array(n)
    this.dst = new Int32Array(n)
    this.sizeBytes = new Float64Array(n)
    this.startPs = new Float64Array(n)
    this.finishPs = new Float64Array(n).fill(-1)
    this.nSeg = new Int32Array(n)
    this.dataHash = new Int32Array(n)
    this.ackHash = new Int32Array(n)
    this.group = new Int32Array(n).fill(-1)
    this.finishOrder = new Int32Array(n)
  }

  set(f: number, src: number, dst: number, sizeBytes: number, startPs: number): void {
    this.src[f] = src
    this.dst[f] = dst
    this.sizeBytes[f] = sizeBytes
    this.startPs[f] = startPs
    // An unbounded flow (sizeBytes = Infinity) never runs out of segments.
    this.nSeg[f] = Number.isFinite(sizeBytes) ? Math.ceil(sizeBytes / this.mss) : UNBOUNDED_SEGMENTS
    // The client's ephemeral port comes from the flow id; ACKs travel the reverse tuple.
    const sport = 1024 + (f % 64512)
    this.dataHash[f] = hash5Tuple(src, dst, sport, SERVER_PORT, PROTO_TCP)
    this.ackHash[f] = hash5Tuple(dst, src, SERVER_PORT, sport, PROTO_TCP)
  }

  /** Payload bytes of a segment. */
  segBytes(f: number, seg: number): number {
    if (this.msgs !== null) return this.msgs.segBytes(f, seg, this.mss)
    return seg === this.nSeg[f] - 1 ? this.sizeBytes[f] - seg * this.mss : this.mss
  }

  /** Payload bytes in segments [0, seg). */
  bytesBelow(f: number, seg: number): number {
    if (this.msgs !== null) return this.msgs.bytesBelow(f, seg, this.mss)
    return Math.min(seg * this.mss, this.sizeBytes[f])
  }
}

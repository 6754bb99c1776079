// Flows on persistent connections (the HULA paper's traffic model, its §6: each client
// opens a few persistent TCP connections to a server and sends its flows on them one after
// another). The transport rows of the FlowTable are then connections: one 5-tuple, one
// congestion state (cwnd, ssthresh, RTT estimate) for the connection's whole life. This
// table holds the application's flows ("messages") on them, which is what the run reports.
//
// A connection's byte stream is its messages in arrival order (FIFO). Each message starts
// on a segment boundary, as an application that writes one message at a time with Nagle
// off: the last segment of a message may be short. A message's FCT runs from its arrival
// (when the application hands it to the socket) to the ACK of its last byte, so it
// includes the time it waited behind earlier messages on the same connection.
//
// Message ids are the workload's flow order; `byConn` lists them grouped by connection in
// arrival order, so a segment's message is a binary search within its connection.

/** The generated flows, as columns (workload/list.ts's FlowList). */
export interface MessageColumns {
  readonly length: number
  readonly src: ArrayLike<number>
  readonly dst: ArrayLike<number>
  readonly size: ArrayLike<number>
  readonly startPs: ArrayLike<number>
  readonly group: ArrayLike<number>
}

export class MessageTable {
  readonly n: number
  readonly conn: Int32Array
  readonly src: Int32Array
  readonly dst: Int32Array
  readonly sizeBytes: Float64Array
  /** Arrival at the sender. */
  readonly startPs: Float64Array
  /** -1 until its last byte is acknowledged. */
  readonly finishPs: Float64Array
  readonly group: Int32Array
  /** The message's first segment and one past its last, in its connection's sequence space. */
  readonly segStart: Int32Array
  readonly segEnd: Int32Array
  /** Payload bytes of the connection's stream before this message. */
  readonly byteStart: Float64Array
  /** Message ids grouped by connection, each group in arrival order. */
  private readonly byConn: Int32Array
  private readonly msgBase: Int32Array
  private readonly msgCount: Int32Array
  /** Per connection: how many of its messages are acknowledged in full. */
  private readonly head: Int32Array
  /** Per connection: messages that have arrived. */
  readonly arrived: Int32Array
  /**
   * Per connection: the byConn position messageOf last found, one for the sender's lookups
   * and one for the receiver's; each side walks its stream forward, so it is nearly always
   * the answer again and the binary search is skipped.
   */
  private readonly sendHint: Int32Array
  private readonly recvHint: Int32Array
  done = 0
  readonly finishOrder: Int32Array

  /**
   * `list` holds the messages (src, dst, size, arrival, group), which keep its order as
   * their ids; `connOf[i]` is the connection (0 .. connections − 1) of message i.
   */
  constructor(list: MessageColumns, connOf: ArrayLike<number>, connections: number, mss: number) {
    const n = list.length
    this.n = n
    this.conn = Int32Array.from(connOf)
    this.src = Int32Array.from(list.src)
    this.dst = Int32Array.from(list.dst)
    this.sizeBytes = Float64Array.from(list.size)
    this.startPs = Float64Array.from(list.startPs)
    this.finishPs = new Float64Array(n).fill(-1)
    this.group = Int32Array.from(list.group)
    this.segStart = new Int32Array(n)
    this.segEnd = new Int32Array(n)
    this.byteStart = new Float64Array(n)
    this.msgBase = new Int32Array(connections)
    this.msgCount = new Int32Array(connections)
    this.head = new Int32Array(connections)
    this.arrived = new Int32Array(connections)
    this.sendHint = new Int32Array(connections)
    this.recvHint = new Int32Array(connections)
    this.finishOrder = new Int32Array(n)
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => this.startPs[a] - this.startPs[b] || a - b)
    for (let i = 0; i < n; i++) this.msgCount[this.conn[i]]++
    for (let c = 1; c < connections; c++) this.msgBase[c] = this.msgBase[c - 1] + this.msgCount[c - 1]
    this.sendHint.set(this.msgBase)
    this.recvHint.set(this.msgBase)
    this.byConn = new Int32Array(n)
    const fill = new Int32Array(connections)
    const segs = new Int32Array(connections)
    const bytes = new Float64Array(connections)
    for (const m of order) {
      const c = this.conn[m]
      const size = this.sizeBytes[m]
      if (!(Number.isFinite(size) && size >= 1)) throw new Error(`flow ${m} on a persistent connection must have a finite size >= 1 B`)
      this.byConn[this.msgBase[c] + fill[c]++] = m
      this.segStart[m] = segs[c]
      segs[c] += Math.ceil(size / mss)
      this.segEnd[m] = segs[c]
      this.byteStart[m] = bytes[c]
      bytes[c] += size
    }
  }

  /**
   * Message m arrives (messages of a connection arrive in its order: the starter walks them
   * by time, then id): the connection's stream now ends at the returned segment.
   */
  arrive(m: number): number {
    this.arrived[this.conn[m]]++
    return this.segEnd[m]
  }

  /**
   * The connection's cumulative ACK reached `ack`: finishes its messages acknowledged in
   * full, in order. True when every message of the connection has arrived and finished.
   */
  acked(c: number, ack: number, now: number): boolean {
    const base = this.msgBase[c]
    const end = base + this.arrived[c]
    let k = base + this.head[c]
    while (k < end && this.segEnd[this.byConn[k]] <= ack) {
      const m = this.byConn[k++]
      this.finishPs[m] = now
      this.finishOrder[this.done++] = m
    }
    this.head[c] = k - base
    return this.head[c] === this.msgCount[c]
  }

  /**
   * The message of connection c holding segment seg (its last if seg is past them all).
   * Messages of a connection tile its segments in order, so the hinted one holds seg
   * exactly when seg lies in its [segStart, segEnd).
   */
  private messageOf(c: number, seg: number, hint: Int32Array): number {
    const k = hint[c]
    const h = this.byConn[k]
    if (seg >= this.segStart[h] && seg < this.segEnd[h]) return h
    let lo = this.msgBase[c]
    let hi = lo + this.msgCount[c] - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.segEnd[this.byConn[mid]] <= seg) lo = mid + 1
      else hi = mid
    }
    hint[c] = lo
    return this.byConn[lo]
  }

  segBytes(c: number, seg: number, mss: number): number {
    const m = this.messageOf(c, seg, this.sendHint)
    return seg === this.segEnd[m] - 1 ? this.sizeBytes[m] - (seg - this.segStart[m]) * mss : mss
  }

  bytesBelow(c: number, seg: number, mss: number): number {
    if (seg <= 0 || this.msgCount[c] === 0) return 0
    const m = this.messageOf(c, seg - 1, this.recvHint)
    return this.byteStart[m] + Math.min((seg - this.segStart[m]) * mss, this.sizeBytes[m])
  }

  /** Payload bytes of message m delivered in order, given its connection's rcvNxt. */
  delivered(m: number, rcvNxt: number, mss: number): number {
    const segs = rcvNxt - this.segStart[m]
    return segs <= 0 ? 0 : Math.min(segs * mss, this.sizeBytes[m])
  }
}

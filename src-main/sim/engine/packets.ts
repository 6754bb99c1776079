// Packets are rows of a struct-of-arrays pool: a packet is an integer handle, its fields
// are typed-array cells, and freed handles go back on an Int32Array free list. Nothing is
// allocated per packet, so the garbage collector stays out of the hot path. The pool
// doubles when exhausted; callers must read the arrays through the pool (pkts.seq[p]),
// never keep a reference to one, because growth replaces them.

/** The packet is a cumulative ACK (seq holds the next expected segment). */
export const PKT_ACK = 1
/** A data packet sent before (retransmission or go-back-N resend). */
export const PKT_RTX = 2
/** On an ACK: the data packet it acknowledges was a retransmission (Karn: no RTT sample). */
export const PKT_ECHO_RTX = 4

export class PacketPool {
  flow: Int32Array
  /** Data: segment index. ACK: cumulative ack, the next segment expected. */
  seq: Int32Array
  /** Bytes on the wire, headers included. */
  wireBytes: Int32Array
  flags: Uint8Array
  /** Destination host; the only field switches route on. */
  dst: Int32Array
  /** 5-tuple hash of the packet's direction, computed once per flow. */
  hash: Int32Array
  /** Data: when the sender emitted it (ps). ACK: echoes that time back (TCP timestamps). */
  sentPs: Float64Array
  capacity: number
  inUse = 0
  maxInUse = 0
  private free: Int32Array
  private nFree: number

  constructor(capacity = 1024) {
    this.capacity = capacity
    this.flow = new Int32Array(capacity)
    this.seq = new Int32Array(capacity)
    this.wireBytes = new Int32Array(capacity)
    this.flags = new Uint8Array(capacity)
    this.dst = new Int32Array(capacity)
    this.hash = new Int32Array(capacity)
    this.sentPs = new Float64Array(capacity)
    this.free = new Int32Array(capacity)
    for (let i = 0; i < capacity; i++) this.free[i] = capacity - 1 - i
    this.nFree = capacity
  }

  alloc(): number {
    if (this.nFree === 0) this.grow()
    if (++this.inUse > this.maxInUse) this.maxInUse = this.inUse
    return this.free[--this.nFree]
  }

  release(p: number): void {
    this.inUse--
    this.free[this.nFree++] = p
  }

  private grow(): void {
    const old = this.capacity
    const cap = old * 2
    const i32 = (a: Int32Array): Int32Array => {
      const b = new Int32Array(cap)
      b.set(a)
      return b
    }
    this.flow = i32(this.flow)
    this.seq = i32(this.seq)
    this.wireBytes = i32(this.wireBytes)
    this.dst = i32(this.dst)
    this.hash = i32(this.hash)
    const flags = new Uint8Array(cap)
    flags.set(this.flags)
    this.flags = flags
    const sent = new Float64Array(cap)
    sent.set(this.sentPs)
    this.sentPs = sent
    // Every old handle is in use (the list was empty), so the free list is just the new rows.
    this.free = new Int32Array(cap)
    for (let i = 0; i < old; i++) this.free[i] = cap - 1 - i
    this.nFree = old
    this.capacity = cap
  }
}

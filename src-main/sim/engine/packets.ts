// Packets are rows of a struct-of-arrays pool: a packet is an integer handle, its fields
// are typed-array cells, and freed handles go back on an Int32Array free list. Nothing is
// allocated per packet, so the garbage collector stays out of the hot path. The pool
// doubles when exhausted; callers must read the arrays through the pool (pkts.seq[p]),
// never keep a reference to one, because growth replaces them.

/** Packet kinds (pkts.kind). Switches route DATA and ACK; PROBE and CREDIT go to the forwarding stage. */
export const KIND_DATA = 0
export const KIND_ACK = 1
export const KIND_PROBE = 2
export const KIND_CREDIT = 3
/**
 * A PFC PAUSE (or resume) frame for the lossless class (net/buffer.ts): hdr0 = 1 to pause,
 * 0 to resume; hdr1 = pause time in ns; sentPs = when the downstream decided to send it.
 * It stops at the next hop (a switch port or a host NIC), never forwarded.
 */
export const KIND_PAUSE = 4

/** The packet is a cumulative ACK (seq holds the next expected segment). Mirrors kind === KIND_ACK. */
export const PKT_ACK = 1
/** A data packet sent before (retransmission or go-back-N resend). */
export const PKT_RTX = 2
/** On an ACK: the data packet it acknowledges was a retransmission (Karn: no RTT sample). */
export const PKT_ECHO_RTX = 4
/** ECN-capable transport (DCTCP data): a switch queue past its threshold marks it instead of ignoring it. */
export const PKT_ECT = 8
/** Congestion experienced: set by a switch queue on an ECT packet. */
export const PKT_CE = 16
/** On an ACK: the data packet it acknowledges carried CE (ECN-echo, one per ACK as with no delayed ACK). */
export const PKT_ECE = 32
/** Charged to its ingress port's PFC headroom rather than to the shared pool (net/buffer.ts). */
export const PKT_HDRM = 64
/** On an ACK: a DCQCN congestion notification (CNP) rides on it (tcp/dcqcn.ts). */
export const PKT_CNP = 128

export class PacketPool {
  flow: Int32Array
  /** Data: segment index. ACK: cumulative ack, the next segment expected. */
  seq: Int32Array
  /** Bytes on the wire, headers included. */
  wireBytes: Int32Array
  flags: Uint8Array
  /** KIND_DATA, KIND_ACK, KIND_PROBE or KIND_CREDIT. */
  kind: Uint8Array
  /** Source host (-1 for a packet a switch made, such as a probe). */
  src: Int32Array
  /** Destination host; the only field switches route data and ACKs on. */
  dst: Int32Array
  /** 5-tuple hash of the packet's direction, computed once per flow. */
  hash: Int32Array
  /** Data: when the sender emitted it (ps). ACK: echoes that time back (TCP timestamps). */
  sentPs: Float64Array
  /**
   * Generic header fields owned by the forwarding scheme, zeroed at alloc: what a scheme
   * piggy-backs on data and ACKs (CONGA's LBTag/CE and feedback, a flowlet id) or carries
   * in its probes (HULA's torID/minUtil, DHLB's load degree, Floodgate's credits). Each
   * scheme documents its use of them in its file header.
   */
  hdr0: Int32Array
  hdr1: Int32Array
  hdr2: Int32Array
  hdr3: Int32Array
  /**
   * Shared-buffer switches only (net/buffer.ts): global ingress port + 1 of the switch that
   * holds the packet now (0: none, e.g. a packet the switch made), so its bytes leave the
   * right ingress counter when it departs. Zeroed at alloc.
   */
  inPort: Int32Array
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
    this.kind = new Uint8Array(capacity)
    this.src = new Int32Array(capacity)
    this.dst = new Int32Array(capacity)
    this.hash = new Int32Array(capacity)
    this.sentPs = new Float64Array(capacity)
    this.hdr0 = new Int32Array(capacity)
    this.hdr1 = new Int32Array(capacity)
    this.hdr2 = new Int32Array(capacity)
    this.hdr3 = new Int32Array(capacity)
    this.inPort = new Int32Array(capacity)
    this.free = new Int32Array(capacity)
    for (let i = 0; i < capacity; i++) this.free[i] = capacity - 1 - i
    this.nFree = capacity
  }

  /** A fresh handle; its scheme header fields are zero, every other field is the caller's to set. */
  alloc(): number {
    if (this.nFree === 0) this.grow()
    if (++this.inUse > this.maxInUse) this.maxInUse = this.inUse
    const p = this.free[--this.nFree]
    this.hdr0[p] = 0
    this.hdr1[p] = 0
    this.hdr2[p] = 0
    this.hdr3[p] = 0
    this.inPort[p] = 0
    return p
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
    const u8 = (a: Uint8Array): Uint8Array => {
      const b = new Uint8Array(cap)
      b.set(a)
      return b
    }
    this.flow = i32(this.flow)
    this.seq = i32(this.seq)
    this.wireBytes = i32(this.wireBytes)
    this.src = i32(this.src)
    this.dst = i32(this.dst)
    this.hash = i32(this.hash)
    this.hdr0 = i32(this.hdr0)
    this.hdr1 = i32(this.hdr1)
    this.hdr2 = i32(this.hdr2)
    this.hdr3 = i32(this.hdr3)
    this.inPort = i32(this.inPort)
    this.flags = u8(this.flags)
    this.kind = u8(this.kind)
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

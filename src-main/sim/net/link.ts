// One direction of a link: a drop-tail (and ECN-marking) output queue, its serializer and
// the wire behind it, as one element with one pending event.
//
// A FIFO served at a constant rate needs no event to know when a packet leaves: on
// arrival its serialization end is max(now, end of the previous packet) + size/rate, and it
// reaches the far end `delay` later. So the element keeps every packet it owns in one ring
// (queued, serializing and on the wire, in order) with its serialization end, and wakes
// only when the head reaches the far end: one event per packet per hop, where a separate
// queue and pipe (htsim) take two. Which packets are still queued is found lazily: those
// whose serialization has not ended by now (`qHead` walks forward on demand), so drop-tail,
// ECN marking and queue.depth count exactly what a queue-then-pipe model would: the packet
// being serialized included, the packets on the wire excluded.
//
// Busy time is exact: all serializations are committed at enqueue, and the queue is
// work-conserving, so the part still ahead of now is lastTxEnd − now; and the bytes still
// to serialize are that time over the per-byte cost.
//
// Memory layout, for speed on fabrics of a thousand links: a slot is two float64s
// (serialization end, packet), and every link's ring starts as a window of one shared
// slab, so an event touches the slab's header (always hot) and one or two cache lines of
// slots rather than three typed arrays of its own. A ring that outgrows its window (long
// fat links) moves to a private array.
//
// A host NIC also reports departures of data packets to its host's HostTx (net/host.ts):
// while flows of that host are blocked on a full NIC, the element also wakes at the next
// departure (its one event is at the earlier of the two), so a freed slot is handed over
// at the instant it frees.

import type { Counters, SimContext } from '../engine/context'
import { KIND_LINK } from '../engine/context'
import { KIND_DATA, PKT_CE, PKT_ECT, type PacketPool } from '../engine/packets'
import type { Rng } from '../engine/rng'
import type { Scheduler } from '../engine/scheduler'
import type { HostAdmission, PacketSink } from './ports'

export class Link {
  // Fields are declared hottest first: V8 lays them out in this order, so one event's
  // reads fall in the object's first cache lines.
  /** Absolute sequence numbers into the ring: oldest not yet arrived, oldest not yet sent, next free. */
  private head = 0
  private qHead = 0
  private tail = 0
  /** Slots (txEnd, packet) at buf[base + 2·(seq & mask)]. */
  private buf: Float64Array
  private base: number
  private mask: number
  /** When the last packet accepted finishes serializing. */
  lastTxEndPs = 0
  /** Serialization time committed so far, up to lastTxEndPs. */
  busyPs = 0
  /** Serialization cost; exact whenever 8e12 / bps is an integer (1, 10, 25, 40, 100G...). */
  readonly psPerByte: number
  readonly delayPs: number
  /** Drop-tail limit in packets; Infinity for a host NIC (HostTx backpressures senders). */
  readonly capacity: number
  /** An ECT packet that finds this many packets queued is marked CE (Infinity: never). */
  ecnThreshold = Infinity
  /** Most packets queued since the sampler last reset it. */
  maxDepth = 0
  readonly elem: number
  next: PacketSink | null = null
  /** The port this link arrives on at the far end. */
  nextPort = 0
  /** Set on a host NIC only: its host's admission control, and the host index. */
  hostTx: HostAdmission | null = null
  /** False while the link is down: it holds nothing and drops what it is offered. */
  up = true
  private readonly ctx: SimContext
  private readonly pkts: PacketPool
  private readonly heap: Scheduler
  private readonly counters: Counters
  host = -1
  /** Host NIC only: data packets still queued (ACKs do not count against the NIC limit). */
  dataQueuedLazy = 0
  /** Cumulative per-port counts, read by the sampler as differences. */
  dropCount = 0
  markCount = 0
  readonly bps: number
  readonly index: number
  /** Fraction of packets the wire loses (a custom topology's link loss), drawn from lossRng. */
  loss = 0
  lossRng: Rng | null = null

  constructor(
    ctx: SimContext,
    bps: number,
    delayPs: number,
    capacity: number,
    index: number,
    /** The shared slab and this link's window in it: `slots` slots (a power of two) from `base`. */
    slab: Float64Array,
    base: number,
    slots: number,
  ) {
    this.buf = slab
    this.base = base
    this.mask = slots - 1
    this.psPerByte = 8e12 / bps
    this.delayPs = delayPs
    this.capacity = capacity
    this.elem = ctx.addElement(KIND_LINK, index)
    this.ctx = ctx
    this.pkts = ctx.pkts
    this.heap = ctx.heap
    this.counters = ctx.counters
    this.bps = bps
    this.index = index
  }

  enqueue(p: number): void {
    const now = this.ctx.now
    if (this.qHead < this.tail && this.buf[this.base + 2 * (this.qHead & this.mask)] <= now) this.advance(now)
    const pkts = this.pkts
    const c = this.counters
    if (!this.up) {
      c.drops++
      c.linkDownDrops++
      this.dropCount++
      pkts.release(p)
      return
    }
    const q = this.tail - this.qHead
    if (q >= this.capacity) {
      c.drops++
      this.dropCount++
      pkts.release(p)
      return
    }
    if (q >= this.ecnThreshold && (pkts.flags[p] & PKT_ECT) !== 0) {
      pkts.flags[p] |= PKT_CE
      c.ecnMarks++
      this.markCount++
    }
    if (this.tail - this.head > this.mask) this.grow()
    const bytes = pkts.wireBytes[p]
    const last = this.lastTxEndPs
    const start = now > last ? now : last
    const end = start + Math.ceil(bytes * this.psPerByte)
    const i = this.base + 2 * (this.tail & this.mask)
    this.buf[i] = end
    this.buf[i + 1] = p
    this.tail++
    this.lastTxEndPs = end
    this.busyPs += end - start
    if (q >= this.maxDepth) this.maxDepth = q + 1
    if (this.hostTx !== null && pkts.kind[p] === KIND_DATA) {
      const d = ++this.dataQueuedLazy
      if (d > c.maxHostQueuePackets) c.maxHostQueuePackets = d
    }
    if (this.tail - this.head === 1) this.heap.schedule(this.elem, end + this.delayPs)
  }

  /** The head packet reached the far end, or (host NIC) a packet left while flows wait. */
  onEvent(): void {
    const ctx = this.ctx
    const now = ctx.now
    const hostTx = this.hostTx
    if (hostTx !== null) {
      // A NIC counts its departures now: blocked flows may be waiting for the slot.
      this.advance(now)
      if (hostTx.blockedCount(this.host) > 0) hostTx.wake(this.host)
    }
    if (this.head < this.tail) {
      const i = this.base + 2 * (this.head & this.mask)
      if (this.buf[i] + this.delayPs <= now) {
        // Packet handles ride in the float slab; |0 makes them integers again, so every
        // typed-array access downstream is an integer-indexed one.
        const p = this.buf[i + 1] | 0
        // A switch port walks qHead lazily; the packet arriving has certainly left the queue.
        if (this.qHead === this.head) this.qHead++
        this.head++
        this.reschedule()
        this.counters.packetHops++
        if (this.loss > 0 && this.lossRng!.nextFloat() < this.loss) {
          // Lost on the wire: it was serialized and travelled, and never arrives.
          this.counters.drops++
          this.counters.lossDrops++
          this.dropCount++
          this.pkts.release(p)
          return
        }
        this.next!.receive(p, this.nextPort)
        return
      }
    }
    this.reschedule()
  }

  /** Packets queued now (the one serializing included, those on the wire not). */
  depth(): number {
    this.advance(this.ctx.now)
    return this.tail - this.qHead
  }

  /** Bytes still to serialize now (the rest of the packet on the serializer included). */
  queuedBytes(): number {
    const ahead = this.lastTxEndPs - this.ctx.now
    return ahead > 0 ? ahead / this.psPerByte : 0
  }

  /** Host NIC: data packets queued now. */
  dataQueued(): number {
    this.advance(this.ctx.now)
    return this.dataQueuedLazy
  }

  /** Busy picoseconds up to now, the packet being serialized included. */
  busyUntilNow(): number {
    const ahead = this.lastTxEndPs - this.ctx.now
    return ahead > 0 ? this.busyPs - ahead : this.busyPs
  }

  /**
   * Host NIC: a flow just blocked on this NIC; make sure the element wakes when the next
   * packet leaves (its pending event may be a later arrival, or none).
   */
  armDepartureWake(): void {
    if (this.qHead >= this.tail) return
    const d = this.buf[this.base + 2 * (this.qHead & this.mask)]
    const heap = this.ctx.heap
    if (!heap.isPending(this.elem) || heap.timeOf(this.elem) > d) heap.schedule(this.elem, d)
  }

  /** Takes the link down (dropping all it holds, queued or on the wire) or brings it back. */
  setUp(up: boolean): void {
    if (up === this.up) return
    this.up = up
    if (up) return
    const ctx = this.ctx
    const c = ctx.counters
    const held = this.tail - this.head
    for (let s = this.head; s < this.tail; s++) ctx.pkts.release(this.buf[this.base + 2 * (s & this.mask) + 1] | 0)
    c.drops += held
    c.linkDownDrops += held
    this.dropCount += held
    const ahead = this.lastTxEndPs - ctx.now
    if (ahead > 0) this.busyPs -= ahead
    this.lastTxEndPs = ctx.now
    this.head = this.qHead = this.tail
    this.dataQueuedLazy = 0
    ctx.heap.cancel(this.elem)
    // Flows blocked on a dead NIC get their turn; what they send is dropped and recovered by RTO.
    if (this.hostTx !== null && this.hostTx.blockedCount(this.host) > 0) this.hostTx.wake(this.host)
  }

  /** Moves qHead past every packet whose serialization has ended by now. */
  private advance(now: number): void {
    const buf = this.buf
    const base = this.base
    const mask = this.mask
    let s = this.qHead
    const tail = this.tail
    if (s >= tail || buf[base + 2 * (s & mask)] > now) return
    if (this.hostTx === null) {
      do s++
      while (s < tail && buf[base + 2 * (s & mask)] <= now)
    } else {
      const kind = this.pkts.kind
      let data = 0
      do {
        if (kind[buf[base + 2 * (s & mask) + 1] | 0] === KIND_DATA) data++
        s++
      } while (s < tail && buf[base + 2 * (s & mask)] <= now)
      this.dataQueuedLazy -= data
    }
    this.qHead = s
  }

  private reschedule(): void {
    let t = Infinity
    if (this.head < this.tail) t = this.buf[this.base + 2 * (this.head & this.mask)] + this.delayPs
    const hostTx = this.hostTx
    if (hostTx !== null && this.qHead < this.tail && hostTx.blockedCount(this.host) > 0) {
      const d = this.buf[this.base + 2 * (this.qHead & this.mask)]
      if (d < t) t = d
    }
    if (t !== Infinity) this.heap.schedule(this.elem, t)
  }

  private grow(): void {
    const n = this.mask + 1
    const m = 2 * n - 1
    const buf = new Float64Array(4 * n)
    for (let s = this.head; s < this.tail; s++) {
      const from = this.base + 2 * (s & this.mask)
      const to = 2 * (s & m)
      buf[to] = this.buf[from]
      buf[to + 1] = this.buf[from + 1]
    }
    this.buf = buf
    this.base = 0
    this.mask = m
  }
}

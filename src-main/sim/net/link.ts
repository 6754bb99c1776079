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
//
// With a shared buffer (net/buffer.ts) a switch port asks the buffer, not its own capacity,
// whether a packet fits, and hands each packet's bytes back when its serialization ends.
// PFC: a PAUSE frame arriving here stops the lossless class (net/pfc.ts holds what may not
// start). PFC frames themselves never queue behind data: insertControl puts one right after
// the packet being serialized and delays the rest by its 64 B.

import type { Counters, SimContext } from '../engine/context'
import { KIND_LINK } from '../engine/context'
import { KIND_DATA, PKT_CE, PKT_ECT, type PacketPool } from '../engine/packets'
import type { Rng } from '../engine/rng'
import type { Scheduler } from '../engine/scheduler'
import { PfcPause, type PausableLink } from './pfc'
import type { BufferedPort, HostAdmission, PacketSink, SwitchBuffer } from './ports'

export class Link implements BufferedPort, PausableLink {
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
  /** Shared-buffer switch port: the buffer and this port's global number (else null, -1). */
  buffer: SwitchBuffer | null = null
  bufPort = -1
  /** RED marking on queued bytes (DCQCN): off while redKmax is 0. */
  redKmin = 0
  redKmax = 0
  redPmax = 0
  redRng: Rng | null = null
  /** Most bytes queued (serializing included) at any enqueue. */
  maxQueuedBytes = 0
  /** PFC's state at this end, from the first PFC frame that reaches it (null: never paused). */
  pfc: PfcPause | null = null

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

  /** Offers p to the queue; false if it was dropped (the link is down or the buffer is full). */
  enqueue(p: number): boolean {
    const now = this.ctx.now
    if (this.qHead < this.tail && this.buf[this.base + 2 * (this.qHead & this.mask)] <= now) this.advance(now)
    const pkts = this.pkts
    const c = this.counters
    if (!this.up) {
      c.drops++
      c.linkDownDrops++
      this.dropCount++
      if (this.buffer !== null) this.buffer.abandon(this.bufPort, p)
      pkts.release(p)
      return false
    }
    const q = this.tail - this.qHead
    const buffer = this.buffer
    if (buffer === null ? q >= this.capacity : !buffer.admit(this.bufPort, p, pkts.wireBytes[p])) {
      c.drops++
      this.dropCount++
      pkts.release(p)
      return false
    }
    if (q >= this.ecnThreshold && (pkts.flags[p] & PKT_ECT) !== 0) {
      pkts.flags[p] |= PKT_CE
      c.ecnMarks++
      this.markCount++
    }
    if (this.redKmax > 0 && (pkts.flags[p] & PKT_ECT) !== 0) this.red(p)
    // A NIC counts its data packets once, when offered (held ones included: they stay in the NIC).
    if (this.hostTx !== null && pkts.kind[p] === KIND_DATA) {
      const d = ++this.dataQueuedLazy
      if (d > c.maxHostQueuePackets) c.maxHostQueuePackets = d
    }
    const pfc = this.pfc
    if (pfc !== null && pfc.paused && pfc.holds(p, now)) return true
    this.commit(p, now)
    return true
  }

  /** Puts p on the serializer's schedule (it has been admitted). */
  commit(p: number, now: number): void {
    const pkts = this.pkts
    const q = this.tail - this.qHead
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
    const qb = (end - now) / this.psPerByte
    if (qb > this.maxQueuedBytes) this.maxQueuedBytes = qb
    if (this.buffer !== null && q === 0) this.buffer.noteDeparture(this.bufPort, end)
    if (this.tail - this.head === 1) this.heap.schedule(this.elem, end + this.delayPs)
  }

  /** RED on the bytes queued ahead (DCQCN's switch marking): certain past Kmax, with probability rising to Pmax between Kmin and Kmax. */
  private red(p: number): void {
    const qb = this.queuedBytes()
    if (qb <= this.redKmin) return
    if (qb <= this.redKmax && this.redRng!.nextFloat() >= (this.redPmax * (qb - this.redKmin)) / (this.redKmax - this.redKmin)) return
    this.pkts.flags[p] |= PKT_CE
    this.counters.ecnMarks++
    this.markCount++
  }

  /** PFC: the lossless class may send again (net/pfc.ts committed what it held). */
  resumed(): void {
    if (this.hostTx !== null && this.hostTx.blockedCount(this.host) > 0) this.wakeAtDeparture()
  }

  /** A PFC frame (KIND_PAUSE) from the far end of this link reached our end (net/pfc.ts). */
  onPauseFrame(f: number): void {
    const pfc = this.pfc ?? (this.pfc = new PfcPause(this, this.pkts))
    pfc.onFrame(f, this.ctx.now)
  }

  /** PFC: takes the packets not yet started off the schedule, in order (the queue is work-conserving, so only the one at qHead has started). */
  takeBackUnstarted(now: number): Int32Array | null {
    this.advance(now)
    const first = this.qHead + 1
    if (first >= this.tail) return null
    const n = this.tail - first
    const back = new Int32Array(n)
    for (let i = 0; i < n; i++) back[i] = this.buf[this.base + 2 * ((first + i) & this.mask) + 1] | 0
    const newLast = this.buf[this.base + 2 * (this.qHead & this.mask)]
    this.busyPs -= this.lastTxEndPs - newLast
    this.lastTxEndPs = newLast
    this.tail = first
    return back
  }

  /**
   * Sends a PFC frame out of this port ahead of the queue: right after the packet being
   * serialized, delaying every later one by the frame's serialization.
   */
  insertControl(f: number): void {
    const now = this.ctx.now
    this.advance(now)
    if (!this.up) {
      this.pkts.release(f)
      return
    }
    const first = this.qHead < this.tail ? this.qHead + 1 : this.tail
    if (first === this.tail) {
      this.commit(f, now)
      return
    }
    if (this.tail - this.head > this.mask) this.grow()
    const dt = Math.ceil(this.pkts.wireBytes[f] * this.psPerByte)
    const buf = this.buf
    const base = this.base
    const mask = this.mask
    for (let s = this.tail; s > first; s--) {
      const to = base + 2 * (s & mask)
      const from = base + 2 * ((s - 1) & mask)
      buf[to] = buf[from] + dt
      buf[to + 1] = buf[from + 1]
    }
    const i = base + 2 * (first & mask)
    buf[i] = buf[base + 2 * ((first - 1) & mask)] + dt
    buf[i + 1] = f
    this.tail++
    this.lastTxEndPs += dt
    this.busyPs += dt
  }

  /**
   * Makes sure the element wakes when the next queued packet leaves (its pending event may be a
   * later arrival, or none): a flow just blocked on this host NIC, or this switch just paused a port.
   */
  wakeAtDeparture(): void {
    this.advance(this.ctx.now)
    if (this.qHead >= this.tail) return
    const d = this.buf[this.base + 2 * (this.qHead & this.mask)]
    const heap = this.heap
    if (!heap.isPending(this.elem) || heap.timeOf(this.elem) > d) heap.schedule(this.elem, d)
  }

  /** PFC: lossless packets waiting for the pause to end (a just-offered one among them if it was held). */
  heldCount(): number {
    return this.pfc === null ? 0 : this.pfc.heldCount()
  }

  /** Shared buffer: hands back the bytes of packets whose serialization has ended; returns the next departure time. */
  releaseDeparted(now: number): number {
    this.advance(now)
    return this.qHead < this.tail ? this.buf[this.base + 2 * (this.qHead & this.mask)] : Infinity
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
    } else if (this.buffer !== null) {
      // Its bytes leave the switch buffer before the packet reaches the next hop.
      this.advance(now)
    }
    const pfc = this.pfc
    if (pfc !== null && pfc.paused && now >= pfc.untilPs) pfc.resume(now)
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

  /** Takes the link down (dropping all it holds, queued or on the wire) or brings it back. */
  setUp(up: boolean): void {
    if (up === this.up) return
    this.up = up
    if (up) return
    const ctx = this.ctx
    const c = ctx.counters
    this.advance(ctx.now)
    let held = this.tail - this.head
    for (let s = this.head; s < this.tail; s++) {
      const p = this.buf[this.base + 2 * (s & this.mask) + 1] | 0
      if (this.buffer !== null && s >= this.qHead) this.buffer.release(this.bufPort, p)
      ctx.pkts.release(p)
    }
    const pfc = this.pfc
    if (pfc !== null) {
      while (pfc.heldCount() > 0) {
        const p = pfc.shift()
        if (this.buffer !== null) this.buffer.release(this.bufPort, p)
        ctx.pkts.release(p)
        held++
      }
      pfc.paused = false
    }
    this.buffer?.flushResumes()
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
  advance(now: number): void {
    const buf = this.buf
    const base = this.base
    const mask = this.mask
    let s = this.qHead
    const tail = this.tail
    if (s >= tail || buf[base + 2 * (s & mask)] > now) return
    if (this.buffer !== null) {
      const buffer = this.buffer
      do {
        buffer.release(this.bufPort, buf[base + 2 * (s & mask) + 1] | 0)
        s++
      } while (s < tail && buf[base + 2 * (s & mask)] <= now)
      this.qHead = s
      buffer.flushResumes()
      return
    } else if (this.hostTx === null) {
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

  /** Sets the one pending event: the head's arrival, a departure someone waits for, or the pause's end. */
  reschedule(): void {
    let t = Infinity
    if (this.head < this.tail) t = this.buf[this.base + 2 * (this.head & this.mask)] + this.delayPs
    const hostTx = this.hostTx
    if (this.qHead < this.tail && (hostTx !== null ? hostTx.blockedCount(this.host) > 0 : this.buffer !== null && this.buffer.wantsDepartures(this.buffer.portSwitch[this.bufPort]))) {
      const d = this.buf[this.base + 2 * (this.qHead & this.mask)]
      if (d < t) t = d
    }
    const pfc = this.pfc
    if (pfc !== null && pfc.paused && pfc.heldCount() > 0 && pfc.untilPs < t) t = pfc.untilPs
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

// The event list the run uses: a timing wheel in front of the indexed heap (heap.ts).
//
// Most events in a busy fabric are link arrivals a serialization plus a propagation delay
// ahead, so nearly every pending event lies within a few microseconds of now. Those go
// into a wheel of B buckets, each `width` ps wide, covering [cursor, cursor + B·width).
// A bucket is a list kept in (time, schedule order): an event is inserted walking back
// from the tail, which is almost always where it belongs (later events are scheduled
// later), so scheduling is O(1), and the next event is the head of the first non-empty
// bucket (found through a bitmap, so sparse wheels cost a few word scans) — no sifting
// through a thousand-element heap on every event. Events beyond the
// wheel (RTOs, the sampler, the workload generator) go to the heap, whose top competes
// with the wheel's minimum at every pop, so nothing ever needs migrating.
//
// The contract is the heap's: one pending event per element, ties broken by schedule
// order (a global sequence number), so a run is deterministic. The run loop pops an
// element before running it; an element that wants another wake-up schedules it.

import { EventHeap } from './heap'

const NONE = 0
const WHEEL = 1
const FAR = 2

export class Scheduler {
  size = 0
  maxSize = 0
  /** Time of the event the last pop() returned. */
  poppedTime = 0
  private seq = 0
  private time: Float64Array
  private order: Float64Array
  private where: Uint8Array
  private next: Int32Array
  private prev: Int32Array
  private readonly head: Int32Array
  private readonly tail: Int32Array
  private readonly bits: Int32Array
  private readonly buckets: number
  private readonly mask: number
  /** Bucket width in ps, a power of two, and its reciprocal. */
  private readonly width: number
  private readonly invWidth: number
  /** Absolute slot (time / width) of the wheel's first bucket. */
  private cursor = 0
  private wheelCount = 0
  private readonly far: EventHeap

  constructor(elements = 64, bucketWidthPs = 1024, buckets = 4096) {
    if (buckets < 32 || (buckets & (buckets - 1)) !== 0) throw new Error('buckets must be a power of two >= 32')
    const n = Math.max(4, elements)
    this.time = new Float64Array(n)
    this.order = new Float64Array(n)
    this.where = new Uint8Array(n)
    this.next = new Int32Array(n)
    this.prev = new Int32Array(n)
    this.buckets = buckets
    this.mask = buckets - 1
    this.head = new Int32Array(buckets).fill(-1)
    this.tail = new Int32Array(buckets).fill(-1)
    this.bits = new Int32Array(buckets >>> 5)
    let w = 1
    while (w < bucketWidthPs) w *= 2
    this.width = w
    this.invWidth = 1 / w
    this.far = new EventHeap(n)
  }

  ensureElements(n: number): void {
    this.far.ensureElements(n)
    if (n <= this.time.length) return
    let cap = this.time.length
    while (cap < n) cap *= 2
    const f64 = (a: Float64Array): Float64Array => {
      const b = new Float64Array(cap)
      b.set(a)
      return b
    }
    const i32 = (a: Int32Array): Int32Array => {
      const b = new Int32Array(cap)
      b.set(a)
      return b
    }
    this.time = f64(this.time)
    this.order = f64(this.order)
    this.next = i32(this.next)
    this.prev = i32(this.prev)
    const where = new Uint8Array(cap)
    where.set(this.where)
    this.where = where
  }

  isPending(el: number): boolean {
    return this.where[el] !== NONE
  }

  /** Time of an element's pending event; only meaningful when isPending(el). */
  timeOf(el: number): number {
    return this.time[el]
  }

  /** Sets (or moves) the one pending event of an element. */
  schedule(el: number, t: number): void {
    const seq = this.seq++
    const w = this.where[el]
    if (w === WHEEL) this.unlink(el)
    else if (w === NONE && ++this.size > this.maxSize) this.maxSize = this.size
    this.time[el] = t
    this.order[el] = seq
    const slot = Math.floor(t * this.invWidth)
    if (slot - this.cursor < this.buckets) {
      if (w === FAR) this.far.cancel(el)
      this.where[el] = WHEEL
      const b = (slot | 0) & this.mask
      // Walk back from the tail past later events; an equal time stays ahead (earlier order).
      const time = this.time
      let after = this.tail[b]
      while (after >= 0 && time[after] > t) after = this.prev[after]
      const next = this.next
      const prev = this.prev
      if (after < 0) {
        const h = this.head[b]
        next[el] = h
        prev[el] = -1
        if (h >= 0) prev[h] = el
        else {
          this.tail[b] = el
          this.bits[b >>> 5] |= 1 << (b & 31)
        }
        this.head[b] = el
      } else {
        const n = next[after]
        next[el] = n
        prev[el] = after
        next[after] = el
        if (n >= 0) prev[n] = el
        else this.tail[b] = el
      }
      this.wheelCount++
    } else {
      this.where[el] = FAR
      this.far.schedule(el, t, seq)
    }
  }

  cancel(el: number): void {
    const w = this.where[el]
    if (w === NONE) return
    if (w === WHEEL) this.unlink(el)
    else this.far.cancel(el)
    this.where[el] = NONE
    this.size--
  }

  /** Removes and returns the earliest element (its time in poppedTime), or -1 if none. */
  pop(): number {
    let best = -1
    let bt = Infinity
    let slot = 0
    let b = 0
    if (this.wheelCount > 0) {
      b = this.firstBucket()
      best = this.head[b]
      bt = this.time[best]
      slot = this.cursor + ((b - ((this.cursor | 0) & this.mask)) & this.mask)
    }
    const far = this.far
    if (far.size > 0) {
      const ft = far.topTime()
      if (best < 0 || ft < bt || (ft === bt && far.topOrder() < this.order[best])) {
        const el = far.pop()
        this.where[el] = NONE
        this.size--
        this.poppedTime = ft
        const slot = Math.floor(ft * this.invWidth)
        if (slot > this.cursor) this.cursor = slot
        return el
      }
    }
    if (best < 0) return -1
    // The cursor moves only to the slot of the event popped, never past now: everything
    // scheduled while it runs is at or after now, hence inside the wheel's window or beyond.
    this.cursor = slot
    // Unlink the head of bucket b.
    const n = this.next[best]
    this.head[b] = n
    if (n >= 0) this.prev[n] = -1
    else {
      this.tail[b] = -1
      this.bits[b >>> 5] &= ~(1 << (b & 31))
    }
    this.wheelCount--
    this.where[best] = NONE
    this.size--
    this.poppedTime = bt
    return best
  }

  private unlink(el: number): void {
    const n = this.next[el]
    const p = this.prev[el]
    if (n >= 0 && p >= 0) {
      this.prev[n] = p
      this.next[p] = n
    } else {
      const b = (Math.floor(this.time[el] * this.invWidth) | 0) & this.mask
      if (n >= 0) this.prev[n] = p
      else this.tail[b] = p
      if (p >= 0) this.next[p] = n
      else this.head[b] = n
      if (n < 0 && p < 0) this.bits[b >>> 5] &= ~(1 << (b & 31))
    }
    this.wheelCount--
  }

  /** The first non-empty bucket at or after the cursor. */
  private firstBucket(): number {
    const mask = this.mask
    const bits = this.bits
    const start = (this.cursor | 0) & mask
    let word = start >>> 5
    let w = bits[word] & (-1 << (start & 31))
    const words = bits.length
    let scanned = 0
    while (w === 0) {
      word = word + 1 === words ? 0 : word + 1
      w = bits[word]
      // Past a full turn only the bits before start remain (they are the wheel's far end).
      if (++scanned > words) throw new Error('scheduler: wheel count and bitmap disagree')
    }
    return (word << 5) | (31 - Math.clz32(w & -w))
  }
}

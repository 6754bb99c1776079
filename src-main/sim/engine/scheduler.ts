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
  /**
   * Per element, four float64s: time, schedule order, next and prev in its bucket's list
   * (-1: none). One array rather than four keeps an element's row in one cache line and
   * lets the compiled code check and load one array instead of four.
   */
  private ev: Float64Array
  private where: Uint8Array
  /** Per bucket: head and tail element (-1: empty). */
  private readonly bk: Int32Array
  private readonly bits: Int32Array
  private readonly buckets: number
  private readonly mask: number
  /** Bucket width in ps, a power of two, and its reciprocal. */
  private readonly width: number
  private readonly invWidth: number
  /** Absolute slot (time / width) of the wheel's first bucket; never past now's slot. */
  private cursor = 0
  private wheelCount = 0
  private readonly far: EventHeap

  constructor(elements = 64, bucketWidthPs = 1024, buckets = 4096) {
    if (buckets < 32 || (buckets & (buckets - 1)) !== 0) throw new Error('buckets must be a power of two >= 32')
    const n = Math.max(4, elements)
    this.ev = new Float64Array(4 * n)
    this.where = new Uint8Array(n)
    this.buckets = buckets
    this.mask = buckets - 1
    this.bk = new Int32Array(2 * buckets).fill(-1)
    this.bits = new Int32Array(buckets >>> 5)
    let w = 1
    while (w < bucketWidthPs) w *= 2
    this.width = w
    this.invWidth = 1 / w
    this.far = new EventHeap(n)
  }

  ensureElements(n: number): void {
    this.far.ensureElements(n)
    if (n <= this.where.length) return
    let cap = this.where.length
    while (cap < n) cap *= 2
    const ev = new Float64Array(4 * cap)
    ev.set(this.ev)
    this.ev = ev
    const where = new Uint8Array(cap)
    where.set(this.where)
    this.where = where
  }

  isPending(el: number): boolean {
    return this.where[el] !== NONE
  }

  /** Time of an element's pending event; only meaningful when isPending(el). */
  timeOf(el: number): number {
    return this.ev[4 * el]
  }

  /** Sets (or moves) the one pending event of an element. */
  schedule(el: number, t: number): void {
    const seq = this.seq++
    const w = this.where[el]
    if (w === WHEEL) this.unlink(el)
    else if (w === NONE && ++this.size > this.maxSize) this.maxSize = this.size
    const ev = this.ev
    const r = 4 * el
    ev[r] = t
    ev[r + 1] = seq
    const slot = Math.floor(t * this.invWidth)
    if (slot - this.cursor < this.buckets) {
      if (w === FAR) this.far.cancel(el)
      this.where[el] = WHEEL
      const bk = this.bk
      const b2 = 2 * ((slot | 0) & this.mask)
      // Walk back from the tail past later events; an equal time stays ahead (earlier order).
      let after = bk[b2 + 1]
      while (after >= 0 && ev[4 * after] > t) after = ev[4 * after + 3] | 0
      if (after < 0) {
        const h = bk[b2]
        ev[r + 2] = h
        ev[r + 3] = -1
        if (h >= 0) ev[4 * h + 3] = el
        else {
          bk[b2 + 1] = el
          const b = b2 >>> 1
          this.bits[b >>> 5] |= 1 << (b & 31)
        }
        bk[b2] = el
      } else {
        const n = ev[4 * after + 2] | 0
        ev[r + 2] = n
        ev[r + 3] = after
        ev[4 * after + 2] = el
        if (n >= 0) ev[4 * n + 3] = el
        else bk[b2 + 1] = el
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
    const ev = this.ev
    let best = -1
    let bt = Infinity
    let slot = 0
    let b = 0
    if (this.wheelCount > 0) {
      b = this.firstBucket()
      best = this.bk[2 * b]
      bt = ev[4 * best]
      slot = this.cursor + ((b - ((this.cursor | 0) & this.mask)) & this.mask)
    }
    const far = this.far
    if (far.size > 0) {
      const ft = far.topTime()
      if (best < 0 || ft < bt || (ft === bt && far.topOrder() < ev[4 * best + 1])) {
        const el = far.pop()
        this.where[el] = NONE
        this.size--
        this.poppedTime = ft
        const fslot = Math.floor(ft * this.invWidth)
        if (fslot > this.cursor) this.cursor = fslot
        return el
      }
    }
    if (best < 0) return -1
    // The cursor moves only to the slot of the event popped, never past now: everything
    // scheduled while it runs is at or after now, hence inside the wheel's window or beyond.
    this.cursor = slot
    // Unlink the head of bucket b.
    const n = ev[4 * best + 2] | 0
    this.bk[2 * b] = n
    if (n >= 0) ev[4 * n + 3] = -1
    else {
      this.bk[2 * b + 1] = -1
      this.bits[b >>> 5] &= ~(1 << (b & 31))
    }
    this.wheelCount--
    this.where[best] = NONE
    this.size--
    this.poppedTime = bt
    return best
  }

  private unlink(el: number): void {
    const ev = this.ev
    const r = 4 * el
    const n = ev[r + 2] | 0
    const p = ev[r + 3] | 0
    if (n >= 0 && p >= 0) {
      ev[4 * n + 3] = p
      ev[4 * p + 2] = n
    } else {
      const b = (Math.floor(ev[r] * this.invWidth) | 0) & this.mask
      if (n >= 0) ev[4 * n + 3] = p
      else this.bk[2 * b + 1] = p
      if (p >= 0) ev[4 * p + 2] = n
      else this.bk[2 * b] = n
      if (n < 0 && p < 0) this.bits[b >>> 5] &= ~(1 << (b & 31))
    }
    this.wheelCount--
  }

  /** The first non-empty bucket at or after the cursor. */
  private firstBucket(): number {
    const bits = this.bits
    const start = (this.cursor | 0) & this.mask
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

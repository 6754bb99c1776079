// The event list. Every element (queue, pipe, flow timer, generator, sampler) owns at
// most one pending wake-up, so this is an *indexed* heap of elements rather than a heap
// of events: rescheduling or cancelling an element is an O(log n) move of its one slot,
// and the heap never grows with the traffic. Keys live by heap position in typed arrays
// (time in integer picoseconds, then a global schedule sequence number) so sifting walks
// contiguous memory and ties break in schedule order, which makes runs deterministic.
// The heap is 4-ary: half the levels of a binary heap, and a node's four children share
// one or two cache lines, which matters once the fabric has a thousand elements.

export class EventHeap {
  size = 0
  maxSize = 0
  private seq = 0
  private time: Float64Array
  private order: Float64Array
  private elem: Int32Array
  /** Heap position of each element, -1 when it has no pending event. */
  private pos: Int32Array

  constructor(elements = 64) {
    const n = Math.max(4, elements)
    this.time = new Float64Array(n)
    this.order = new Float64Array(n)
    this.elem = new Int32Array(n)
    this.pos = new Int32Array(n).fill(-1)
  }

  /** Makes room for element ids below n (the heap can never hold more than that). */
  ensureElements(n: number): void {
    if (n <= this.pos.length) return
    let cap = this.pos.length
    while (cap < n) cap *= 2
    const grow = <T extends Float64Array | Int32Array>(a: T, make: (k: number) => T): T => {
      const b = make(cap)
      b.set(a)
      return b
    }
    this.time = grow(this.time, (k) => new Float64Array(k))
    this.order = grow(this.order, (k) => new Float64Array(k))
    this.elem = grow(this.elem, (k) => new Int32Array(k))
    const pos = new Int32Array(cap).fill(-1)
    pos.set(this.pos)
    this.pos = pos
  }

  isPending(el: number): boolean {
    return this.pos[el] >= 0
  }

  /** Time of an element's pending event; only meaningful when isPending(el). */
  timeOf(el: number): number {
    return this.time[this.pos[el]]
  }

  topTime(): number {
    return this.time[0]
  }

  /** The earliest element, left in place while it runs (see finishTop). */
  topElem(): number {
    return this.elem[0]
  }

  topOrder(): number {
    return this.order[0]
  }

  /**
   * Ends the run of the element that was on top with schedule number `order`. Most
   * elements re-arm themselves while they run (a queue's next packet, a pipe's next head),
   * which is then one sift from the root instead of a pop plus a push. If the element did
   * not re-arm, it is still the minimum (anything scheduled meanwhile is at >= now with a
   * later number), so it is popped here.
   */
  finishTop(el: number, order: number): void {
    if (this.pos[el] === 0 && this.order[0] === order) this.pop()
  }

  /** Sets (or moves) the one pending event of an element. */
  schedule(el: number, t: number, seq: number = this.seq++): void {
    const i = this.pos[el]
    if (i < 0) {
      const at = this.size++
      if (this.size > this.maxSize) this.maxSize = this.size
      this.siftUp(at, el, t, seq)
    } else if (t < this.time[i]) {
      // The new sequence number is larger than the old one, so the key only
      // decreases when the time does.
      this.siftUp(i, el, t, seq)
    } else {
      this.siftDown(i, el, t, seq)
    }
  }

  cancel(el: number): void {
    const i = this.pos[el]
    if (i < 0) return
    this.pos[el] = -1
    const last = --this.size
    if (i === last) return
    const lt = this.time[last]
    const ls = this.order[last]
    const le = this.elem[last]
    if (i > 0) {
      const p = (i - 1) >> 2
      const pt = this.time[p]
      if (lt < pt || (lt === pt && ls < this.order[p])) {
        this.siftUp(i, le, lt, ls)
        return
      }
    }
    this.siftDown(i, le, lt, ls)
  }

  /** Removes and returns the earliest element; the caller reads topTime() first. */
  pop(): number {
    const el = this.elem[0]
    this.pos[el] = -1
    const last = --this.size
    if (last > 0) this.refillRoot(last)
    return el
  }

  /**
   * Moves the last entry into the hole at the root. The last entry is usually a late
   * event (a far-off RTO), so walk the hole down to a leaf along the smallest children,
   * then sift the entry up from there (Floyd's bottom-up trick: fewer compares).
   */
  private refillRoot(last: number): void {
    const time = this.time
    const order = this.order
    const elem = this.elem
    const pos = this.pos
    let i = 0
    for (;;) {
      const c = 4 * i + 1
      if (c >= last) break
      const end = c + 4 < last ? c + 4 : last
      // The order of the minimum is loaded only on a tie, which is rare.
      let m = c
      let mt = time[c]
      for (let k = c + 1; k < end; k++) {
        const kt = time[k]
        if (kt < mt) {
          m = k
          mt = kt
        } else if (kt === mt && order[k] < order[m]) {
          m = k
        }
      }
      const ms = order[m]
      time[i] = mt
      order[i] = ms
      const me = elem[m]
      elem[i] = me
      pos[me] = i
      i = m
    }
    this.siftUp(i, elem[last], time[last], order[last])
  }

  private siftUp(i: number, el: number, t: number, s: number): void {
    const time = this.time
    const order = this.order
    const elem = this.elem
    const pos = this.pos
    while (i > 0) {
      const p = (i - 1) >> 2
      const pt = time[p]
      if (pt < t || (pt === t && order[p] < s)) break
      time[i] = pt
      order[i] = order[p]
      const pe = elem[p]
      elem[i] = pe
      pos[pe] = i
      i = p
    }
    time[i] = t
    order[i] = s
    elem[i] = el
    pos[el] = i
  }

  private siftDown(i: number, el: number, t: number, s: number): void {
    const time = this.time
    const order = this.order
    const elem = this.elem
    const pos = this.pos
    const n = this.size
    for (;;) {
      const c = 4 * i + 1
      if (c >= n) break
      const end = c + 4 < n ? c + 4 : n
      // The order of the minimum is loaded only on a tie, which is rare.
      let m = c
      let mt = time[c]
      for (let k = c + 1; k < end; k++) {
        const kt = time[k]
        if (kt < mt) {
          m = k
          mt = kt
        } else if (kt === mt && order[k] < order[m]) {
          m = k
        }
      }
      const ms = order[m]
      if (t < mt || (t === mt && s < ms)) break
      time[i] = mt
      order[i] = ms
      const me = elem[m]
      elem[i] = me
      pos[me] = i
      i = m
    }
    time[i] = t
    order[i] = s
    elem[i] = el
    pos[el] = i
  }
}

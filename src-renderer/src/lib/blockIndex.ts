// A multi-level block index of an append-only telemetry line: min, max (and where they
// occurred), sum and count of finite values per block, extended as samples arrive. The
// downsampler (downsample.ts) reads a bucket of thousands of samples from a few blocks.
// No DOM: tested in node.

type Values = Float32Array | Float64Array

/** log2 of the samples per level-0 block, and of the blocks of one level per block of the next. */
const BASE_SHIFT = 4
const FAN_SHIFT = 3

const grown = <A extends Values | Int32Array>(a: A, size: number): A => {
  const b = new (a.constructor as new (n: number) => A)(size)
  b.set(a as never)
  return b
}

/** One level of the index: per block, its extremes (first occurrence), sum and finite count. */
class Level {
  count = 0
  min: Values
  max: Values
  minIdx = new Int32Array(64)
  maxIdx = new Int32Array(64)
  sum = new Float64Array(64)
  finite = new Int32Array(64)

  constructor(exact: boolean) {
    // Float32 samples keep Float32 extremes (exact, half the memory); others need Float64.
    this.min = exact ? new Float32Array(64) : new Float64Array(64)
    this.max = exact ? new Float32Array(64) : new Float64Array(64)
  }

  reserve(need: number): void {
    if (need <= this.min.length) return
    let size = this.min.length
    while (size < need) size *= 2
    this.min = grown(this.min, size)
    this.max = grown(this.max, size)
    this.minIdx = grown(this.minIdx, size)
    this.maxIdx = grown(this.maxIdx, size)
    this.sum = grown(this.sum, size)
    this.finite = grown(this.finite, size)
  }
}

/**
 * The block index of one line: level 0 summarises blocks of 16 samples, each further level
 * blocks of 8 blocks of the level below (128, 1024, ... samples). A range [a, e) splits into at
 * most 15 loose samples and 7 blocks of each level at either edge, plus whole blocks of the
 * coarsest level inside it: its min, max and sum cost tens of reads, not e - a, and a range
 * whose edges are block edges (see bucketBounds) reads no loose samples at all. The pieces are
 * read in index order, so a tie goes to the first occurrence, as in a plain scan. Memory: about
 * 2 bytes per sample (level 0), for lines of 4 (Float32).
 */
export class MinMaxBlocks {
  readonly levels: Level[] = []
  /** The last query's result (see query). */
  min = Infinity
  max = -Infinity
  iMin = -1
  iMax = -1
  sum = 0
  finite = 0
  /** Right-hand pieces of a query, read after the middle: (level, from, to) triples. */
  private readonly stack = new Int32Array(3 * 32)
  private exact: boolean | null = null

  /** Complete level-0 blocks summarised. */
  get count(): number {
    return this.levels.length === 0 ? 0 : this.levels[0].count
  }

  /** Samples per block of a level: 16, 128, 1024, ... */
  static blockSize(level: number): number {
    return 1 << (BASE_SHIFT + FAN_SHIFT * level)
  }

  /** Summarises the complete blocks of y[0, n) not yet summarised; y's prefix must not change. */
  update(y: ArrayLike<number>, n: number): this {
    if (this.exact === null) this.exact = y instanceof Float32Array
    let below = n
    for (let k = 0; ; k++) {
      const full = below >> (k === 0 ? BASE_SHIFT : FAN_SHIFT)
      if (full === 0) break
      if (k === this.levels.length) this.levels.push(new Level(this.exact))
      this.levels[k].reserve(full)
      this.summarise(y, k, full)
      below = full
    }
    return this
  }

  /**
   * Summarises blocks [lv.count, full) of level k from the level below (k = 0: the samples),
   * each block read as a query reads a piece. Leaves the query result fields overwritten.
   */
  private summarise(y: ArrayLike<number>, k: number, full: number): void {
    const lv = this.levels[k]
    const shift = k === 0 ? BASE_SHIFT : FAN_SHIFT
    for (let b = lv.count; b < full; b++) {
      this.reset()
      this.read(y, k - 1, b << shift, (b + 1) << shift, false)
      this.read(y, k - 1, b << shift, (b + 1) << shift, true)
      lv.min[b] = this.min
      lv.max[b] = this.max
      lv.minIdx[b] = this.iMin
      lv.maxIdx[b] = this.iMax
      lv.sum[b] = this.sum
      lv.finite[b] = this.finite
    }
    lv.count = Math.max(lv.count, full)
  }

  /**
   * Min and max of y[a, e) (min, max, and iMin, iMax their first occurrences, -1 when nothing
   * compared), or with `sums` its sum and count of finite values. y is the indexed line.
   */
  query(y: ArrayLike<number>, a: number, e: number, sums: boolean): void {
    this.reset()
    const stack = this.stack
    let sp = 0
    let level = -1
    let lo = a
    let hi = e
    // Going up: the left edge is read now (it comes first), the right edge is kept for after.
    while (level + 1 < this.levels.length) {
      const shift = level === -1 ? BASE_SHIFT : FAN_SHIFT
      const upLo = (lo + (1 << shift) - 1) >> shift
      const upHi = Math.min(hi >> shift, this.levels[level + 1].count)
      if (upLo >= upHi) break
      this.read(y, level, lo, upLo << shift, sums)
      stack[sp++] = level
      stack[sp++] = upHi << shift
      stack[sp++] = hi
      level++
      lo = upLo
      hi = upHi
    }
    this.read(y, level, lo, hi, sums)
    while (sp > 0) {
      hi = stack[--sp]
      lo = stack[--sp]
      level = stack[--sp]
      this.read(y, level, lo, hi, sums)
    }
  }

  /** Clears the running result. */
  private reset(): void {
    this.min = Infinity
    this.max = -Infinity
    this.iMin = this.iMax = -1
    this.sum = 0
    this.finite = 0
  }

  /** Folds entries [lo, hi) of a level (-1: the samples) into the running result. */
  private read(y: ArrayLike<number>, level: number, lo: number, hi: number, sums: boolean): void {
    if (lo >= hi) return
    if (sums) {
      let sum = 0
      let cnt = 0
      if (level < 0) {
        for (let j = lo; j < hi; j++) {
          const v = y[j]
          if (v - v === 0) {
            sum += v
            cnt++
          }
        }
      } else {
        const lv = this.levels[level]
        for (let j = lo; j < hi; j++) {
          sum += lv.sum[j]
          cnt += lv.finite[j]
        }
      }
      this.sum += sum
      this.finite += cnt
      return
    }
    let mn = this.min
    let mx = this.max
    let iMn = this.iMin
    let iMx = this.iMax
    if (level < 0) {
      for (let j = lo; j < hi; j++) {
        const v = y[j]
        if (v < mn) {
          mn = v
          iMn = j
        }
        if (v > mx) {
          mx = v
          iMx = j
        }
      }
    } else {
      const lv = this.levels[level]
      for (let j = lo; j < hi; j++) {
        if (lv.min[j] < mn) {
          mn = lv.min[j]
          iMn = lv.minIdx[j]
        }
        if (lv.max[j] > mx) {
          mx = lv.max[j]
          iMx = lv.maxIdx[j]
        }
      }
    }
    this.min = mn
    this.max = mx
    this.iMin = iMn
    this.iMax = iMx
  }
}

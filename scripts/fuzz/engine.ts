// A small seeded mutation fuzzer: each harness turns a pseudo-random stream into inputs
// (mutations of real samples, or generated ones), runs the code under test on each, and
// counts as a crash every exception that is not one of our own clear refusals. Seeded, so
// a crash found once is found again: its input number and seed rebuild it.

/** xorshift32: small, seedable, plenty for picking mutations. */
export class Rng {
  private s: number
  constructor(seed: number) {
    this.s = seed >>> 0 || 1
  }
  u32(): number {
    let s = this.s
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    this.s = s >>> 0
    return this.s
  }
  below(n: number): number {
    return n <= 0 ? 0 : this.u32() % n
  }
  chance(p: number): boolean {
    return this.u32() / 2 ** 32 < p
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.below(xs.length)]
  }
}

const INTERESTING = ['', '0', '-1', '1e308', '-0', 'NaN', 'Infinity', '4294967296', '9007199254740993', '0x', '\0', '\u202e', '\ud800', '\n', '\r\n', '\t', ' ', '"', "'", '\\', '%', '{}', '[]']

/** One to four text edits: byte-ish changes, dictionary tokens, cut, duplicated or spliced ranges. */
export function mutateText(r: Rng, text: string, dict: readonly string[], others: readonly string[] = []): string {
  let t = text
  for (let k = 0, n = 1 + r.below(4); k < n; k++) {
    const at = r.below(t.length + 1)
    const len = 1 + r.below(Math.min(64, Math.max(1, t.length - at)))
    switch (r.below(9)) {
      case 0:
        t = t.slice(0, at) + t.slice(at + len)
        break
      case 1:
        t = t.slice(0, at) + String.fromCharCode(r.below(r.chance(0.8) ? 128 : 0x10000)) + t.slice(at + 1)
        break
      case 2:
      case 3:
        t = t.slice(0, at) + r.pick(dict) + t.slice(at)
        break
      case 4:
        t = t.slice(0, at) + r.pick(INTERESTING) + t.slice(at + (r.chance(0.5) ? len : 0))
        break
      case 5:
        t = t.slice(0, at) + t.slice(at, at + len).repeat(1 + r.below(4)) + t.slice(at + len)
        break
      case 6:
        t = t.slice(0, r.below(t.length + 1))
        break
      case 7: {
        const o = others.length > 0 ? r.pick(others) : t
        const from = r.below(o.length + 1)
        t = t.slice(0, at) + o.slice(from, from + 1 + r.below(200)) + t.slice(at + len)
        break
      }
      default: {
        // A number nearby replaced by an extreme one.
        const m = /-?\d+(\.\d+)?/.exec(t.slice(at))
        if (m) t = t.slice(0, at + m.index) + r.pick(INTERESTING.slice(1, 9)) + t.slice(at + m.index + m[0].length)
      }
    }
  }
  return t
}

/** One to four byte edits of a copy: flips, random bytes, truncation, extension, copied ranges. */
export function mutateBytes(r: Rng, data: Uint8Array): Uint8Array {
  let b = Uint8Array.from(data)
  for (let k = 0, n = 1 + r.below(4); k < n; k++) {
    if (b.length === 0) b = new Uint8Array(1 + r.below(64))
    const at = r.below(b.length)
    switch (r.below(6)) {
      case 0:
        b[at] ^= 1 << r.below(8)
        break
      case 1:
        b[at] = r.pick([0, 0xff, 0x7f, 0x80, 0x30, 0x20, r.below(256)])
        break
      case 2:
        b = b.subarray(0, r.below(b.length + 1))
        break
      case 3: {
        const extra = new Uint8Array(1 + r.below(64))
        for (let i = 0; i < extra.length; i++) extra[i] = r.below(256)
        const out = new Uint8Array(b.length + extra.length)
        out.set(b.subarray(0, at))
        out.set(extra, at)
        out.set(b.subarray(at), at + extra.length)
        b = out
        break
      }
      case 4: {
        const len = Math.min(1 + r.below(512), b.length - at)
        const to = r.below(b.length)
        b.copyWithin(to, at, at + len)
        break
      }
      default:
        for (let i = at, end = Math.min(b.length, at + 1 + r.below(16)); i < end; i++) b[i] = r.below(256)
    }
  }
  return b
}

export interface Harness<T> {
  name: string
  /** The next input, drawn from `r`. */
  next(r: Rng): T
  /** Runs the code under test on it; throws what the code throws. */
  run(input: T): void | Promise<void>
  /** True when a thrown error is one of ours: a refusal with a clear message. */
  clear(err: unknown): boolean
  /** How a crash's input is shown (short). */
  show(input: T): string
  /** Frees what the harness holds (temporary folders). */
  close?(): void
}

export interface FuzzReport {
  name: string
  seed: number
  inputs: number
  crashes: number
  /** Distinct crash messages with their count and the first input number. */
  distinct: Array<{ message: string; count: number; first: number; input: string }>
  seconds: number
}

export async function fuzz<T>(h: Harness<T>, o: { count: number; seed: number; progress?: (done: number) => void }): Promise<FuzzReport> {
  const r = new Rng(o.seed)
  const started = Date.now()
  const distinct = new Map<string, { message: string; count: number; first: number; input: string }>()
  let crashes = 0
  for (let i = 0; i < o.count; i++) {
    const input = h.next(r)
    try {
      await h.run(input)
    } catch (err) {
      if (h.clear(err)) continue
      crashes++
      const e = err as Error
      const message = `${e?.name ?? typeof err}: ${String(e?.message ?? err).slice(0, 200)}`
      const d = distinct.get(message)
      if (d) d.count++
      else distinct.set(message, { message, count: 1, first: i, input: h.show(input).slice(0, 400) })
    }
    if (o.progress && (i + 1) % 10_000 === 0) o.progress(i + 1)
  }
  return { name: h.name, seed: o.seed, inputs: o.count, crashes, distinct: [...distinct.values()], seconds: (Date.now() - started) / 1000 }
}

// A seeded PRNG of our own so a run is reproducible everywhere (Math.random is neither
// seedable nor stable across engines). sfc32 is small, fast on 32-bit integer math and
// passes PractRand; splitmix32 spreads arbitrary seeds and stream ids over its state so
// independent streams (workload, per-packet spraying) do not perturb each other.

function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0
  let z = state.s
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number, stream = 0) {
    const lo = seed >>> 0
    const hi = Math.floor(seed / 4294967296) >>> 0
    const st = { s: (lo ^ Math.imul(hi, 0x27d4eb2d) ^ Math.imul(stream + 1, 0x165667b1)) | 0 }
    this.a = splitmix32(st)
    this.b = splitmix32(st)
    this.c = splitmix32(st)
    this.d = splitmix32(st)
    for (let i = 0; i < 12; i++) this.nextU32()
  }

  nextU32(): number {
    const a = this.a
    const b = this.b
    const c = this.c
    const d = (this.d + 1) | 0
    const t = (((a + b) | 0) + d) | 0
    this.d = d
    this.a = b ^ (b >>> 9)
    this.b = (c + (c << 3)) | 0
    const r = (c << 21) | (c >>> 11)
    this.c = (r + t) | 0
    return t >>> 0
  }

  /** Uniform in [0, 1). */
  nextFloat(): number {
    return this.nextU32() / 4294967296
  }

  /** Uniform integer in [0, n). */
  nextInt(n: number): number {
    return Math.floor((this.nextU32() / 4294967296) * n)
  }
}

/** murmur3's finalizer: a cheap, well-mixed 32-bit hash step. */
export function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

// Units written the way people write them in experiment files, parsed to the base units
// the simulator and the store use: bits per second, integer nanoseconds, integer bytes.
// SI prefixes are decimal (1 Gbps = 1e9 bit/s, 1 KB = 1000 B); binary sizes say so (KiB).
// A plain number (or a numeric string) is taken as already being in the base unit.

export class UnitError extends Error {
  override name = 'UnitError'
}

const NUMBER = String.raw`(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?`

const RATE_RE = new RegExp(String.raw`^${NUMBER}\s*([kKmMgGtT]?)(bps|b/s)?$`)
const RATE_PREFIX: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12 }

// Both the micro sign (U+00B5) and the Greek mu (U+03BC) are typed for "micro".
const DURATION_RE = new RegExp(String.raw`^${NUMBER}\s*(ns|us|\u00b5s|\u03bcs|ms|s)$`)
const DURATION_NS: Record<string, number> = { ns: 1, us: 1e3, '\u00b5s': 1e3, '\u03bcs': 1e3, ms: 1e6, s: 1e9 }

const SIZE_RE = new RegExp(String.raw`^${NUMBER}\s*(B|[kK]B|MB|GB|TB|KiB|MiB|GiB|TiB)$`)
const SIZE_BYTES: Record<string, number> = {
  B: 1,
  KB: 1e3,
  kB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
}

function show(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`
  if (v === undefined) return 'nothing'
  return JSON.stringify(v) ?? String(v)
}

/** A plain non-negative number, or a string holding only one; undefined otherwise. */
function plainNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : undefined
  if (typeof v === 'string' && new RegExp(`^${NUMBER}$`).test(v.trim())) return Number(v.trim())
  return undefined
}

function mantissa(m: RegExpMatchArray): number {
  return Number(m[1]) * 10 ** Number(m[2] ?? 0)
}

/**
 * Rounds a product that should be an integer. Decimal fractions are not exact in binary
 * (1.1 * 1e3 = 1100.0000000000002), so a tiny relative error is forgiven; a real
 * fraction (0.5 ns) is not.
 */
function toInteger(x: number, what: string, input: unknown): number {
  const r = Math.round(x)
  if (Math.abs(x - r) > 1e-9 * Math.max(1, Math.abs(x))) {
    throw new UnitError(`expected a whole number of ${what}, got ${show(input)} (${x} ${what})`)
  }
  return r
}

/** '10Gbps', '40G', '100Mbps', '1.5Gbps', or a number of bit/s → bit/s. */
export function parseRate(v: unknown): number {
  const plain = plainNumber(v)
  if (plain !== undefined) return plain
  const m = typeof v === 'string' ? v.trim().match(RATE_RE) : null
  if (!m) throw new UnitError(`expected a rate such as 10Gbps, got ${show(v)}`)
  return mantissa(m) * RATE_PREFIX[m[3].toLowerCase()]
}

/** '1us', '500ns', '2ms', '1.5s', '1µs', or a number of ns → integer ns. */
export function parseDuration(v: unknown): number {
  const plain = plainNumber(v)
  if (plain !== undefined) return toInteger(plain, 'nanoseconds', v)
  const m = typeof v === 'string' ? v.trim().match(DURATION_RE) : null
  if (!m) throw new UnitError(`expected a duration such as 100us, got ${show(v)}`)
  return toInteger(mantissa(m) * DURATION_NS[m[3]], 'nanoseconds', v)
}

/** '100KB', '1.5MB', '64B', '1MiB', or a number of bytes → integer bytes. */
export function parseSize(v: unknown): number {
  const plain = plainNumber(v)
  if (plain !== undefined) return toInteger(plain, 'bytes', v)
  const m = typeof v === 'string' ? v.trim().match(SIZE_RE) : null
  if (!m) throw new UnitError(`expected a size such as 100KB, got ${show(v)}`)
  return toInteger(mantissa(m) * SIZE_BYTES[m[3]], 'bytes', v)
}

function withPrefix(x: number, steps: Array<[number, string]>, unit: string): string {
  for (const [scale, prefix] of steps) {
    if (Math.abs(x) >= scale) return `${+(x / scale).toPrecision(6)}${prefix}${unit}`
  }
  return `${x}${unit}`
}

/** 1e10 → '10Gbps'. The inverse of parseRate, for labels. */
export function formatRate(bps: number): string {
  return withPrefix(bps, [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'K']], 'bps')
}

/** 1500 → '1.5us'. The inverse of parseDuration, for labels. */
export function formatDuration(ns: number): string {
  if (Math.abs(ns) >= 1e9) return `${+(ns / 1e9).toPrecision(6)}s`
  if (Math.abs(ns) >= 1e6) return `${+(ns / 1e6).toPrecision(6)}ms`
  if (Math.abs(ns) >= 1e3) return `${+(ns / 1e3).toPrecision(6)}us`
  return `${ns}ns`
}

/** 1500000 → '1.5MB'. The inverse of parseSize (decimal prefixes), for labels. */
export function formatSize(bytes: number): string {
  return withPrefix(bytes, [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'K']], 'B')
}

const EVENT_RATE_RE = new RegExp(String.raw`^${NUMBER}\s*/\s*(s|ms|us|\u00b5s|\u03bcs)$`)
const PER_SECOND: Record<string, number> = { s: 1, ms: 1e3, us: 1e6, '\u00b5s': 1e6, '\u03bcs': 1e6 }

/** '2000/s', '2/ms', or a number of events per second → events per second. */
export function parseEventRate(v: unknown): number {
  const plain = plainNumber(v)
  if (plain !== undefined) return plain
  const m = typeof v === 'string' ? v.trim().match(EVENT_RATE_RE) : null
  if (!m) throw new UnitError(`expected a rate of events such as 2000/s, got ${show(v)}`)
  return mantissa(m) * PER_SECOND[m[3]]
}

export type QuantityUnit = 'duration' | 'size' | 'rate'

/**
 * A string with a unit, classified by the unit it is written in and parsed to its base
 * unit: '100us' → duration (ns), '64KB' → size (bytes), '10Gbps' or '40G' → rate (bit/s).
 * Undefined when the string has none of these units (plain numbers included).
 */
export function parseQuantity(v: string): { unit: QuantityUnit; value: number } | undefined {
  const s = v.trim()
  if (DURATION_RE.test(s)) return { unit: 'duration', value: parseDuration(s) }
  if (SIZE_RE.test(s)) return { unit: 'size', value: parseSize(s) }
  if (plainNumber(s) === undefined && RATE_RE.test(s)) return { unit: 'rate', value: parseRate(s) }
  return undefined
}

// The number formatting plot axes, legends and tables use: durations in ns/µs/ms/s with 3
// significant digits, counts with thin grouping, loads. Pure: runs in the renderer and the core.

const DASH = '—'
const NS_UNITS: Array<[number, string]> = [
  [1, 'ns'],
  [1e3, 'µs'],
  [1e6, 'ms'],
  [1e9, 's'],
]

/**
 * A duration in nanoseconds as ns/µs/ms/s with 3 significant digits: 1234 → "1.23 µs",
 * 999_700 → "1.00 ms" (rounding may carry into the next unit).
 */
export function formatNs(ns: number | null | undefined): string {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return DASH
  const abs = Math.abs(ns)
  if (abs === 0) return '0 ns'
  for (let i = NS_UNITS.length - 1; i >= 0; i--) {
    const [scale, unit] = NS_UNITS[i]
    if (abs >= scale || i === 0) {
      const text = sig3(ns / scale)
      // 999.96 µs rounds to "1.00e+3": carry to the next unit instead.
      if (Math.abs(Number(text)) >= 1000 && i < NS_UNITS.length - 1) {
        return `${sig3(ns / NS_UNITS[i + 1][0])} ${NS_UNITS[i + 1][1]}`
      }
      return `${text} ${unit}`
    }
  }
  return DASH
}

/**
 * A duration in nanoseconds, short: up to 3 significant digits and no trailing zeros, as a
 * person writes one (a bucket width, a CLI table cell): 1e6 → "1 ms", 2.5e9 → "2.5 s",
 * 12_345 → "12.3 µs"; `missing` for none.
 */
export function formatNsShort(ns: number | null | undefined, missing = DASH): string {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return missing
  const abs = Math.abs(ns)
  const [v, unit] = abs >= 1e9 ? [ns / 1e9, 's'] : abs >= 1e6 ? [ns / 1e6, 'ms'] : abs >= 1e3 ? [ns / 1e3, 'µs'] : [ns, 'ns']
  return `${Number(v.toPrecision(3))} ${unit}`
}

/** 3 significant digits without exponent notation for |x| in [0.001, 1e6). */
export function sig3(x: number): string {
  if (x === 0) return '0'
  const abs = Math.abs(x)
  if (abs >= 1000) return Math.round(x).toString()
  const text = x.toPrecision(3)
  return text.includes('e') ? Number(text).toString() : text
}

/** Integer counts with thin grouping: 1234567 → "1 234 567". */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return DASH
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009')
}

/** A load as a fraction of the host link: 0.3 → "0.3", 0.25 → "0.25". */
export function formatLoad(load: number): string {
  return Number(load.toFixed(3)).toString()
}

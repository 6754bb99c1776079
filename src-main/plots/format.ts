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

/** A rate in bit/s as Gb/s, Mb/s, kb/s or b/s with 3 significant digits: 66381905955.4 → "66.4 Gb/s". */
export function formatBps(bps: number | null | undefined): string {
  if (bps === null || bps === undefined || !Number.isFinite(bps)) return DASH
  const abs = Math.abs(bps)
  const [v, unit] = abs >= 1e9 ? [bps / 1e9, 'Gb/s'] : abs >= 1e6 ? [bps / 1e6, 'Mb/s'] : abs >= 1e3 ? [bps / 1e3, 'kb/s'] : [bps, 'b/s']
  return `${sig3(v)} ${unit}`
}

/** Bytes as B, kB, MB, GB (powers of 1000) with 3 significant digits. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return DASH
  const abs = Math.abs(bytes)
  if (abs < 1000) return `${Math.round(bytes)} B`
  const [v, unit] = abs >= 1e9 ? [bytes / 1e9, 'GB'] : abs >= 1e6 ? [bytes / 1e6, 'MB'] : [bytes / 1e3, 'kB']
  return `${sig3(v)} ${unit}`
}

/**
 * A counter by the unit its name carries (the vocabulary's suffixes): …Bps a rate, …Ns a
 * duration, Bytes anywhere in it a size; anything else a count, grouped by thousands.
 */
export function formatCounter(name: string, v: number): string {
  if (name.endsWith('Bps')) return formatBps(v)
  if (name.endsWith('Ns')) return formatNs(v)
  if (/Bytes/.test(name)) return formatBytes(v)
  return Number.isInteger(v) ? formatCount(v) : sig3(v)
}

const asRecord = (d: unknown): Record<string, unknown> | null => (d && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : null)

/**
 * A run event as one line of text: a status change as "queued → deploying", a step as
 * "build done in 120 ms", a scheme's or the simulator's message as it is, other details as
 * key=value pairs.
 */
export function eventText(kind: string, detail: unknown): string {
  const d = asRecord(detail)
  if (kind === 'status' && d) return `${String(d.from ?? '—')} → ${String(d.to ?? '?')}${d.error ? `: ${String(d.error)}` : ''}`
  // A step's time is whole milliseconds: one under 1 ms reads "0 ms", not "0 ns".
  if (kind === 'step' && d) return `${String(d.step ?? '?')} ${String(d.state ?? '?')}${typeof d.ms === 'number' ? ` in ${d.ms < 1 ? `${d.ms} ms` : formatNsShort(d.ms * 1e6)}` : ''}${d.error ? `: ${String(d.error)}` : ''}`
  if (typeof detail === 'string') return detail
  if (detail === null || detail === undefined) return ''
  if (!d) return JSON.stringify(detail)
  return Object.entries(d)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ')
}

/**
 * An FCT slowdown (FCT over the ideal FCT, 1 at best) with 3 significant digits and a ×:
 * 1.2345 → "1.23×"; `missing` when a run has none (stored before slowdown was measured).
 */
export function formatSlowdown(v: number | null | undefined, missing = 'n/a'): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return missing
  return `${sig3(v)}×`
}

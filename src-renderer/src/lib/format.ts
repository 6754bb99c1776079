// Pure formatting helpers for the tables and charts. No DOM, no Vue: tested in node.

import { formatCount, formatLoad, formatNs, formatNsShort, sig3 } from '@plots/format'

// Durations, counts and loads are formatted by the shared plot module, so the app's
// tables and the SVG plots in archives print the same numbers.
export { formatCount, formatLoad, formatNs, formatNsShort, sig3 }

const DASH = '—'

/** Sim time for progress lines and chart axes: "12.5 ms". */
export function formatSimTime(ns: number): string {
  return formatNs(ns)
}

/** A queue depth in packets: a whole count as it is ("33 pkt", not "33.0 pkt"), a mean with 3 digits ("1.25 pkt"). */
export function formatPackets(v: number): string {
  if (!Number.isFinite(v)) return DASH
  return `${Number.isInteger(v) ? String(v) : sig3(v)} pkt`
}

/** A ratio as a percentage: 0.4567 → "45.7%". */
export function formatPercent(ratio: number | null | undefined, digits = 1): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return DASH
  return `${(ratio * 100).toFixed(digits)}%`
}

/** A wall-clock ISO time as local "YYYY-MM-DD HH:MM". */
export function formatWhen(iso: string | null | undefined): string {
  if (!iso) return DASH
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`
}

/** Elapsed wall time between two ISO instants: "3.2 s", "4 m 05 s". */
export function formatElapsed(startIso: string | null, endIso: string | null, nowMs = Date.now()): string {
  if (!startIso) return DASH
  const start = Date.parse(startIso)
  const end = endIso ? Date.parse(endIso) : nowMs
  if (!Number.isFinite(start) || !Number.isFinite(end)) return DASH
  const s = Math.max(0, (end - start) / 1000)
  if (s < 60) return `${s.toFixed(1)} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} m ${String(Math.floor(s % 60)).padStart(2, '0')} s`
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} m`
}

/**
 * The first of `names` that the run's counters have. Targets name their counters a little
 * differently, and a loose pattern would add up related ones (retransmits + fastRetransmits).
 * null when none is there, so "0" always means a real zero.
 */
export function pickCounter(counters: Record<string, number> | null | undefined, names: readonly string[]): number | null {
  if (!counters) return null
  for (const name of names) {
    const v = counters[name]
    if (typeof v === 'number' && Number.isFinite(v)) return v
  }
  return null
}

export const DROP_COUNTERS = ['drops', 'packetDrops', 'queueDrops'] as const
export const RETRANSMIT_COUNTERS = ['retransmits', 'retransmissions', 'tcpRetransmits'] as const

/** All counters as "name: value" lines, for a tooltip. */
export function describeCounters(counters: Record<string, number> | null | undefined): string {
  if (!counters) return ''
  return Object.entries(counters)
    .map(([k, v]) => `${k}: ${/Ns$/.test(k) ? formatNs(v) : formatCount(v)}`)
    .join('\n')
}

/** "3 runs", "1 run", "1\u2009200 flows": every label built from a count says it this way. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`
}

/** Bytes in decimal units, 3 significant digits: 1460 → "1.46 KB"; negative (unbounded) → "∞". */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return DASH
  if (n < 0 || n === Infinity) return '∞'
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let i = 0
  let v = n
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000
    i++
  }
  return i === 0 ? `${Math.round(v)} B` : `${sig3(v)} ${units[i]}`
}

/** Round axis ticks in [lo, hi]: multiples of a 1-2-5 × 10^k step, about `count` intervals of it. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  const span = hi - lo
  if (!(span > 0) || !Number.isFinite(span)) return Number.isFinite(lo) ? [lo] : []
  const mag = 10 ** Math.floor(Math.log10(span / count))
  // The step whose number of intervals is nearest `count`.
  let step = mag
  for (const m of [0.5, 1, 2, 5, 10]) if (Math.abs(span / (m * mag) - count) < Math.abs(span / step - count)) step = m * mag
  // Rounded to the step's digits, so 0.1 + 0.2 shows as 0.3.
  const digits = Math.max(0, -Math.floor(Math.log10(step)))
  const out: number[] = []
  const eps = span * 1e-9
  for (let k = Math.ceil((lo - eps) / step); k * step <= hi + eps; k++) out.push(Number((k * step).toFixed(digits)))
  return out
}

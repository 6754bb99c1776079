// Plain-text tables and units for the terminal.
import { formatNsShort } from '../plots/format'

/** A duration in ns with up to three significant digits and a unit a person reads at a glance; '-' for none. */
export function formatNs(ns: number | null | undefined): string {
  return formatNsShort(ns, '-')
}

export function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String))
  const width = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)))
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ').trimEnd()
  return [line(header), line(width.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')
}

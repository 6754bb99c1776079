// Plain-text tables and units for the terminal.

/** A duration in ns with three significant digits and a unit a person reads at a glance. */
export function formatNs(ns: number | null | undefined): string {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return '-'
  const abs = Math.abs(ns)
  const [v, unit] =
    abs >= 1e9 ? [ns / 1e9, 's'] : abs >= 1e6 ? [ns / 1e6, 'ms'] : abs >= 1e3 ? [ns / 1e3, 'µs'] : [ns, 'ns']
  return `${Number(v.toPrecision(3))} ${unit}`
}

export function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String))
  const width = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)))
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ').trimEnd()
  return [line(header), line(width.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')
}

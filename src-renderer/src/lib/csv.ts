// CSV as RFC 4180 says: comma-separated, CRLF line ends, a field quoted when it holds a
// comma, a quote, CR or LF (quotes doubled inside). Pure: tested in node.

export type CsvValue = string | number | boolean | null | undefined

/** One field: numbers as JavaScript prints them (round-trip exact), null/undefined/NaN empty. */
export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : ''
  const s = String(v)
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** A header row and data rows as one CSV text, ending with CRLF. */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly CsvValue[]>): string {
  const lines = [header.map(csvField).join(',')]
  for (const r of rows) lines.push(r.map(csvField).join(','))
  return lines.join('\r\n') + '\r\n'
}

/** Parses CSV text back into rows of strings (for tests and for reading exports). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i += 2
          continue
        }
        quoted = false
        i++
        continue
      }
      field += c
      i++
      continue
    }
    if (c === '"') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    } else if (c === '\r' || c === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      if (c === '\r' && text[i + 1] === '\n') i++
    } else field += c
    i++
  }
  if (field !== '' || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

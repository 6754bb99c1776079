// RFC 4180 CSV: a field is quoted when it holds a comma, quote, CR or LF; quotes double.
// Lines end in CRLF as the RFC says (spreadsheets and pandas read both).
import { writeFileSync } from 'node:fs'

export type CsvValue = string | number | null | undefined

export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return ''
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

export function csvLine(values: readonly CsvValue[]): string {
  return values.map(csvField).join(',') + '\r\n'
}

/** Writes a header and rows, given as an iterable so large tables stream from the database. */
export function writeCsv(file: string, header: readonly string[], rows: Iterable<readonly CsvValue[]>): void {
  const parts: string[] = [csvLine(header)]
  for (const r of rows) parts.push(csvLine(r))
  writeFileSync(file, parts.join(''))
}

// RFC 4180 CSV: a field is quoted when it holds a comma, quote, CR or LF; quotes double.
// Lines end in CRLF as the RFC says (spreadsheets and pandas read both).
import { writeFileSync } from 'node:fs'

export type CsvValue = string | number | null | undefined

/**
 * A number at the precision it was measured with: 12 significant digits, more than any
 * counter, clock or rate here resolves, so the noise that binary arithmetic leaves in the last
 * digits of a double (33466.39999999991 for 33466.4) goes. Integers print in full.
 */
export function csvNumber(v: number): string {
  if (!Number.isFinite(v)) return ''
  if (Number.isInteger(v)) return String(v)
  return String(Number(v.toPrecision(12)))
}

/**
 * A time in ns at the picosecond the simulator counts in: a difference of two times
 * (finish − start) carries more float noise than the 15 digits of csvNumber hide.
 */
export function atPs(v: CsvValue): CsvValue {
  return typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v) ? Math.round(v * 1000) / 1000 : v
}

export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return ''
  const s = typeof v === 'number' ? csvNumber(v) : v
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

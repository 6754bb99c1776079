// compare's plain-text table: one line per line key × x, the mean and the band across
// seeds. Numbers are shown with four significant digits in a unit chosen per value, so the
// text is a pure function of the result (byte-identical after an archive round trip).
import { COMPLETE_SHARE } from '../../contract'
import type { CompareResult } from './compare'
import type { FieldValue } from './records'

function sig(v: number, digits = 4): string {
  if (!Number.isFinite(v)) return '-'
  if (v === 0) return '0'
  return String(Number(v.toPrecision(digits)))
}

export function formatValue(v: number, unit: CompareResult['unit']): string {
  if (!Number.isFinite(v)) return '-'
  if (unit === 'ns') {
    const abs = Math.abs(v)
    if (abs >= 1e9) return `${sig(v / 1e9)} s`
    if (abs >= 1e6) return `${sig(v / 1e6)} ms`
    if (abs >= 1e3) return `${sig(v / 1e3)} us`
    return `${sig(v)} ns`
  }
  if (unit === 'bps') {
    const abs = Math.abs(v)
    if (abs >= 1e9) return `${sig(v / 1e9)} Gbps`
    if (abs >= 1e6) return `${sig(v / 1e6)} Mbps`
    return `${sig(v)} bps`
  }
  return sig(v)
}

function cell(v: FieldValue): string {
  return v === null ? '-' : String(v)
}

const BAND_NAMES = { minmax: 'min..max across seeds', ci95: '95% CI of the mean across seeds (Student t)' }

export function formatCompareTable(r: CompareResult): string {
  // Beside an FCT statistic, the same statistic of FCT slowdown (n/a for runs stored before it).
  const withSlowdown = r.rows.some((row) => row.slowdown !== undefined)
  const header = [...r.lineKeys, r.by, 'seeds', 'mean', 'lo', 'hi', ...(withSlowdown ? ['slowdown'] : [])]
  // One seed has no confidence interval: say so instead of printing lo = hi = mean.
  const noInterval = (n: number) => r.band === 'ci95' && n < 2
  const rows = r.rows.map((row) => [
    ...r.lineKeys.map((k) => cell(row.line[k])),
    cell(row.x),
    String(row.n),
    formatValue(row.mean, r.unit),
    noInterval(row.n) ? `n/a (${row.n} seed)` : formatValue(row.lo, r.unit),
    noInterval(row.n) ? 'n/a' : formatValue(row.hi, r.unit),
    ...(withSlowdown ? [row.slowdown === null || row.slowdown === undefined ? 'n/a' : `${sig(row.slowdown)}x`] : []),
  ])
  const width = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  const textCols = r.lineKeys.length
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < textCols ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ').trimEnd()
  const what = r.baseline ? `${r.metric} FCT normalised to ${r.baseline}` : r.metric
  const out = [
    `experiments: ${r.experiments.join(', ')}`,
    `metric: ${what}; band: ${BAND_NAMES[r.band]}${r.query ? `; where: ${r.query}` : ''}`,
    `runs: ${r.matched} matched, ${r.excluded} left out (not done, superseded, or no value)`,
    ...(r.unfinishedFlows && r.unfinishedFlows.flows > 0
      ? [`unfinished flows: ${r.unfinishedFlows.unfinished} of ${r.unfinishedFlows.flows} (${((100 * r.unfinishedFlows.unfinished) / r.unfinishedFlows.flows).toFixed(2)} %) in the runs above, left out of their FCT statistics`]
      : []),
    '',
    line(header),
    line(width.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ]
  if (r.differences.length > 0) {
    out.push('', `parameters that differ: ${r.differences.map((d) => d.field).join(', ')}`)
  }
  if (r.incomplete.length > 0) {
    out.push('', `left out as incomplete (fewer than ${COMPLETE_SHARE * 100} % of their flows finished):`)
    for (const c of r.incomplete) {
      const where = [...(r.experiments.length > 1 ? [c.experiment] : []), ...(new Set(r.incomplete.map((x) => x.target)).size > 1 ? [c.target] : [])]
      out.push(
        `  ${[...where, c.scheme].join(' ')} load ${c.load} seed ${c.seed}: ${c.finished} of ${c.flows} flows finished (${c.failed} failed, ${c.unfinished} unfinished); likely cause: ${c.cause ?? 'unknown'}`,
      )
    }
  }
  return out.join('\n') + '\n'
}

/** JSON with a fixed key order and a trailing newline, for `p4lab compare --json`. */
export function formatCompareJson(r: CompareResult): string {
  return JSON.stringify(r, null, 2) + '\n'
}

/** The percentiles `--cdf` prints of each CDF, and their column names. */
const CDF_COLUMNS: ReadonlyArray<[number, string]> = [
  [0.1, 'p10'],
  [0.25, 'p25'],
  [0.5, 'p50'],
  [0.75, 'p75'],
  [0.9, 'p90'],
  [0.99, 'p99'],
  [0.999, 'p99.9'],
  [1, 'max'],
]

/**
 * compare --cdf as text, after the table: each CDF (per line and x, and per flow-size bucket for
 * slowdown) read at a few percentiles, the seeds pooled. The points themselves are in --json.
 */
export function formatCompareCdfs(r: CompareResult, kind: 'fct' | 'queue' | 'slowdown'): string {
  const cdfs = r.cdfs ?? []
  const withBucket = cdfs.some((c) => c.bucket !== undefined)
  const value = (v: number) => (kind === 'fct' ? formatValue(v, 'ns') : kind === 'slowdown' ? `${sig(v)}x` : `${sig(v)} pkt`)
  const at = (points: Array<[number, number]>, p: number) => {
    const hit = points.find(([, q]) => Math.abs(q - p) < 1e-9)
    return hit ? value(hit[0]) : '-'
  }
  const header = [...r.lineKeys, r.by, ...(withBucket ? ['flow size'] : []), ...CDF_COLUMNS.map(([, name]) => name)]
  const rows = cdfs.map((c) => [...r.lineKeys.map((k) => cell(c.line[k])), cell(c.x), ...(withBucket ? [c.bucket ?? '-'] : []), ...CDF_COLUMNS.map(([p]) => (c.points.length ? at(c.points, p) : '-'))])
  const width = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)))
  const textCols = r.lineKeys.length
  const line = (cells: string[]) => cells.map((c, i) => (i < textCols || (withBucket && i === textCols + 1) ? c.padEnd(width[i]) : c.padStart(width[i]))).join('  ').trimEnd()
  const cls = kind === 'fct' && /^(small|large)\./.test(r.metric) ? (r.metric.startsWith('small') ? ' of flows under 100 KB' : ' of flows over 10 MB') : ''
  const what = { fct: `FCT${cls}`, queue: 'queue depth (every port, every sample)', slowdown: 'FCT slowdown per flow size' }[kind]
  // A row of dashes is a CDF with no point: say under the table which rows and why, since a
  // size class no flow fell in and one whose flows all failed to finish read alike otherwise.
  const empty = cdfs
    .filter((c) => c.points.length === 0)
    .map((c) => {
      const where = [...r.lineKeys.map((k) => `${k} ${cell(c.line[k])}`), `${r.by} ${cell(c.x)}`, ...(c.bucket !== undefined ? [`flows of ${c.bucket}`] : [])].join(', ')
      const why =
        c.flows === undefined
          ? kind === 'queue'
            ? 'no queue sample was recorded'
            : `no flow${cls.replace(/^ of flows/, '')} finished`
          : c.flows === 0
            ? 'the runs had no flow of this size'
            : `none of its ${c.flows} flow${c.flows === 1 ? '' : 's'} finished`
      return `  - ${where}: ${why}`
    })
  const notes = empty.length > 0 ? ['', `"-": no point to read (${empty.length} row${empty.length === 1 ? '' : 's'}):`, ...empty] : []
  return ['', `CDF of ${what}, seeds pooled: the value at each percentile (--json has the points)`, '', line(header), line(width.map((w) => '-'.repeat(w))), ...rows.map(line), ...notes].join('\n') + '\n'
}

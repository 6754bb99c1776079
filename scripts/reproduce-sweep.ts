// The sensitivity sweep of `npm run reproduce`: for a template whose claims miss the paper's
// number, re-run the claims' points (the schemes and loads their measures read) under each
// variant of each open setting (reproduce-settings.ts), one setting at a time, at a smaller
// scale, and show how each moves the measured value against the paper's.
import { parseDocument } from 'yaml'
import type { Core } from '../src-main/core'
import type { RunRow } from '../src-main/core/store'
import type { Claim } from './reproduce-claims'
import { Results } from './reproduce-results'
import { applyOverrides, type PaperOrder, type TemplateSettings } from './reproduce-settings'
import { VISIBLY_BETTER } from './reproduce-claims'
import { fmtRatio, fmtValue, orderCheck, paperValue, verdict, type OrderCheck } from './reproduce-verdict'

/** The runs a set of claims reads: their schemes in the template's order, and their loads (undefined: all of the template's). */
export interface Points {
  schemes: string[]
  loads: number[] | undefined
}

export function pointsOf(picked: ReadonlyArray<{ scheme: string; load: number | undefined }>, templateSchemes: readonly string[]): Points {
  const schemes = templateSchemes.filter((s) => picked.some((p) => p.scheme === s))
  const loads = picked.some((p) => p.load === undefined) ? undefined : [...new Set(picked.map((p) => p.load as number))].sort((a, b) => a - b)
  return { schemes, loads }
}

export interface SweepScale {
  /** At most this many flows a run. */
  maxFlows: number
}

/** The template cut to the points, the first seed and at most `maxFlows` flows, under a name of its own. */
export function sweepText(text: string, points: Points, scale: SweepScale, name: string): string {
  const doc = parseDocument(text)
  doc.set('name', name)
  if (points.schemes.length > 0) doc.set('schemes', points.schemes)
  if (points.loads && points.loads.length > 0 && doc.hasIn(['workload', 'load'])) doc.setIn(['workload', 'load'], points.loads.length === 1 ? points.loads[0] : points.loads)
  const flows = doc.getIn(['workload', 'flows'])
  if (typeof flows === 'number') doc.setIn(['workload', 'flows'], Math.min(flows, scale.maxFlows))
  const seeds = doc.get('seeds') as { items?: Array<{ value?: number }> } | undefined
  const first = seeds?.items?.[0]?.value
  if (typeof first === 'number') doc.set('seeds', [first])
  return doc.toString()
}

export interface Row {
  setting: string
  value: string
  yaml: string
  error?: string
  /** The open setting's variant this row applies (none: the template's own row). */
  variant?: { path: string; index: number; value: unknown }
}

export interface SweepOptions {
  name: string
  text: string
  file: string
  claims: Claim[]
  points: Points
  settings: TemplateSettings
  scale: SweepScale
}

/** The sweep's rows: the template's own setting first, then each variant that differs from it (or the spec's refusal of it). */
export function sweepRows(o: SweepOptions): Row[] {
  const base = sweepText(o.text, o.points, o.scale, `${o.name}-sweep`)
  const current = parseDocument(base)
  const rows: Row[] = [{ setting: '(the template)', value: 'as declared above', yaml: base }]
  for (const s of o.settings.open) {
    const now = JSON.stringify(current.getIn(s.path.split('.')) ?? null)
    s.variants.forEach((v, i) => {
      if (JSON.stringify(v.value ?? null) === now) return
      rows.push(variantRow({ setting: s.path, value: v.label, yaml: '', variant: { path: s.path, index: i, value: v.value } }, base, o))
    })
  }
  return rows
}

function variantRow(row: Row, base: string, o: Pick<SweepOptions, 'name' | 'points' | 'scale'>): Row {
  const v = row.variant!
  try {
    return { ...row, yaml: applyOverrides(sweepText(base, o.points, o.scale, `${o.name}-sweep-${v.path}-${v.index}`), { [v.path]: v.value }) }
  } catch (err) {
    return { ...row, yaml: '', error: (err as Error).message }
  }
}

/**
 * The rows of a sweep made again from another template, the baseline a claim compares with
 * (Results.companion): the same cut to the points and the same setting row by row, so that
 * both sides of the claim's ratio change alike.
 */
export function alikeRows(rows: readonly Row[], o: Pick<SweepOptions, 'name' | 'text' | 'points' | 'scale'>): Row[] {
  const base = sweepText(o.text, o.points, o.scale, `${o.name}-sweep`)
  return rows.map(({ error: _refused, ...row }) => (row.variant ? variantRow(row, base, o) : { ...row, yaml: base }))
}

/** The run key of a sweep row (reproduce-runner.ts). */
export const rowKey = (name: string, i: number, row: Row) => `${name} sweep ${i} (${row.setting}: ${row.value})`

/** The runs a sweep row reads: its own, and the baselines its claims compare with. */
export interface RowRuns {
  runs: ReadonlyMap<string, RunRow[]>
  companionsOf?: (i: number) => ReadonlyMap<string, Results>
}

function rowResults(core: Core, o: Pick<SweepOptions, 'name' | 'file'>, rows: readonly Row[], i: number, rr: RowRuns): Results {
  const row = rows[i]
  return new Results(core, core.parseOrThrow(row.yaml, o.file), rr.runs.get(rowKey(o.name, i, row)) ?? [], rr.companionsOf?.(i) ?? new Map(), true)
}

/** The figure's order of schemes in each row of a sweep: our ranking, or why there is none. */
export function sweepOrders(core: Core, o: Pick<SweepOptions, 'name' | 'file'>, rows: readonly Row[], rr: RowRuns, order: PaperOrder): Array<OrderCheck | { error: string }> {
  return rows.map((row, i) => {
    if (row.error) return { error: `refused: ${row.error}` }
    const r = rowResults(core, o, rows, i, rr)
    try {
      return orderCheck(order.schemes, (s) => order.value(r, s), VISIBLY_BETTER)
    } catch (err) {
      return { error: (err as Error).message }
    }
  })
}

/** An order's cell: "hula < ecmp, matches" (the paper's order) or "hula ≈ ecmp, does not match". */
export const orderCell = (c: OrderCheck | { error: string }): string => ('error' in c ? `n/a (${c.error})` : `${c.text}, ${c.matches ? 'matches' : 'does not match'}`)

/**
 * The sweep's table in markdown: one row per variant (the template's own setting first), one
 * column per claim that misses or does not hold, each cell our value, ours over the paper's and
 * whether it holds; and, given the figure's order of schemes, a last column with the order in
 * each row. A variant the spec refuses shows the refusal in its row. `runs` holds each row's
 * runs by rowKey (reproduce-runner.ts runs them).
 */
export function sweepTable(core: Core, o: SweepOptions, rows: readonly Row[], runs: ReadonlyMap<string, RunRow[]>, companionsOf: (i: number) => ReadonlyMap<string, Results> = () => new Map(), order?: PaperOrder): string[] {
  const head = o.claims.map((c) => {
    const p = paperValue(c)
    return `${c.claim} (paper: ${p === undefined ? c.seed : fmtValue(c.measure, p)})`
  })
  if (order) head.push(`order of schemes by ${order.what} (paper: ${order.schemes.join(' < ')})`)
  const orders = order ? sweepOrders(core, o, rows, { runs, companionsOf }, order) : []
  const lines = [`| setting | value | ${head.join(' | ')} |`, `|---|---|${head.map(() => '---|').join('')}`]
  rows.forEach((row, i) => {
    const cells = o.claims.map((c) => {
      if (row.error) return `refused: ${row.error.replace(/\|/g, '\\|')}`
      const r = rowResults(core, o, rows, i, { runs, companionsOf })
      let v: number
      try {
        v = c.measure.value(r)
      } catch (err) {
        return `n/a (${(err as Error).message})`
      }
      const p = paperValue(c)
      if (p === undefined) return `${fmtValue(c.measure, v)}, ${c.measure.holds(v) ? 'holds' : 'does not hold'}`
      const vd = verdict(p, v)
      return `${fmtValue(c.measure, v)} (${fmtRatio(vd.ratio)} of the paper's${vd.within ? ', within ±30 %' : ''}${c.measure.holds(v) ? '' : ', does not hold'})`
    })
    if (order) cells.push(row.error ? `refused: ${row.error.replace(/\|/g, '\\|')}` : orderCell(orders[i]))
    lines.push(`| ${row.setting} | ${row.value} | ${cells.join(' | ')} |`)
  })
  return lines
}

// How a measured number compares with the paper's, for docs/results.md: the paper's value of a
// claim, ours over it, whether ours lands within ±30 %, and whether a figure ranks its schemes
// as the paper does. Pure, so each rule is tested on known values.
import type { Claim, Measure } from './reproduce-claims'

/** How far ours may be from the paper's, as a share of the paper's, and still count as reproduced. */
export const TOLERANCE = 0.3

/**
 * The paper's number for a claim in the measure's unit, or undefined for a qualitative claim
 * ("better", "within 1 ms", "holds"). An explicit `paper` wins; otherwise the paper's figure
 * as written ("3.7×", "≈1.07× (7 % better)", "90 %", "0.175 %") is read, so claims written
 * before the field existed keep working.
 */
export function paperValue(c: Pick<Claim, 'seed' | 'paper' | 'measure'>): number | undefined {
  if (c.paper !== undefined) return c.paper
  const m = /^\s*≈?\s*(\d+(?:\.\d+)?)\s*(×|x\b|%)/.exec(c.seed)
  if (!m) return undefined
  const n = Number(m[1])
  if (m[2] === '%') return c.measure.unit === '%' ? n / 100 : undefined
  return c.measure.unit === 'x' ? n : undefined
}

export interface Verdict {
  /** Ours over the paper's; NaN when either is missing. */
  ratio: number
  /** Whether ours is within ±TOLERANCE of the paper's. */
  within: boolean
}

export function verdict(paper: number, ours: number): Verdict {
  if (!Number.isFinite(paper) || paper === 0 || Number.isNaN(ours)) return { ratio: NaN, within: false }
  const ratio = ours / paper
  return { ratio, within: Number.isFinite(ratio) && Math.abs(ratio - 1) <= TOLERANCE + 1e-12 }
}

/**
 * Whether a claim is missed: a numeric claim outside ±30 % (or not measured), a qualitative
 * one that does not hold. Missed claims get the sensitivity sweep.
 */
export function missed(paper: number | undefined, ours: number, holds: boolean): boolean {
  if (paper === undefined) return !holds
  return !verdict(paper, ours).within
}

export interface OrderCheck {
  /** The schemes ranked by our values, best (lowest) first; NaN values last. */
  ours: string[]
  /** `ours` for the page: "<" between two schemes at least the margin apart, "≈" between two closer than that (or unknown). */
  text: string
  matches: boolean
}

/** a is better than b by at least the margin (lower is better; 0 beats anything above it). */
const clearlyBelow = (a: number, b: number, margin: number): boolean => Number.isFinite(a) && Number.isFinite(b) && a >= 0 && (a === 0 ? b > 0 : b / a >= margin)

/**
 * Our ranking of `paperOrder`'s schemes (lower is better) and whether it is the paper's: each
 * scheme must be better than the next by the factor `margin` (the page uses a qualitative
 * "better"'s 1.05), so a difference within the noise between seeds is a tie, and a tie does not match.
 */
export function orderCheck(paperOrder: readonly string[], value: (scheme: string) => number, margin: number): OrderCheck {
  const vals = new Map(paperOrder.map((s) => [s, value(s)]))
  const ours = [...paperOrder].sort((a, b) => {
    const va = vals.get(a)!
    const vb = vals.get(b)!
    if (Number.isNaN(va)) return Number.isNaN(vb) ? 0 : 1
    if (Number.isNaN(vb)) return -1
    return va - vb
  })
  const text = ours.map((s, i) => (i === 0 ? s : `${clearlyBelow(vals.get(ours[i - 1])!, vals.get(s)!, margin) ? '<' : '≈'} ${s}`)).join(' ')
  let matches = true
  for (let i = 1; i < paperOrder.length; i++) {
    if (!clearlyBelow(vals.get(paperOrder[i - 1])!, vals.get(paperOrder[i])!, margin)) matches = false
  }
  return { ours, text, matches }
}

/** A value in the claim's unit, for the page. */
export function fmtValue(m: Pick<Measure, 'unit'>, v: number): string {
  if (v === Infinity) return m.unit === 'x' ? '∞ (divided by 0)' : '∞'
  if (!Number.isFinite(v)) return 'n/a'
  if (m.unit === 'packets') return `${v}`
  if (m.unit === 'yes/no') return v === 1 ? 'yes' : 'no'
  if (m.unit === 'x') return `${v.toFixed(2)}×`
  if (m.unit === '%') return `${(v * 100).toFixed(3)} %`
  if (m.unit === 'ms') return `${(v / 1e6).toFixed(3)} ms`
  return v.toFixed(3)
}

/** Ours over the paper's, for the page: "0.30" or "∞" or "n/a". */
export function fmtRatio(r: number): string {
  if (r === Infinity) return '∞'
  if (!Number.isFinite(r)) return 'n/a'
  return r.toFixed(2)
}

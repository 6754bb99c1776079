import { z } from 'zod'
import { parseDuration, parseQuantity, parseRate, parseSize, type QuantityUnit } from '../../model/units'
import { paramName, type ParamUnit } from '../../model/scheme'
import { KNOWN_PARAMS, paramRuleProblems } from '../../schemes'
import { describeValue } from './messages'

// Scheme parameters (`params:`): an open mapping, passed to the simulator as
// SimConfig.schemeParams. A value is a number, true/false (1/0), or a string with a unit;
// the unit decides the name it is passed under and its base unit:
//   flowletGap: 100us → flowletGapNs: 100000     (durations in ns)
//   creditSize: 10KB  → creditSizeBytes: 10000   (sizes in bytes)
//   probeRate: 1Gbps  → probeRateBps: 1e9        (rates in bit/s)
//   dreAlpha: 0.2     → dreAlpha: 0.2            (numbers as written)
// A name that already ends in its unit's suffix keeps it (creditBytes: 10KB → creditBytes).
// The names the schemes declare (each scheme's params.ts, joined in src-main/schemes as
// KNOWN_PARAMS) are checked for their unit and range, and a plain number for a duration or
// size is taken in its base unit (flowletGap: 100000 → flowletGapNs: 100000).

const EXAMPLE: Record<ParamUnit, string> = {
  duration: 'a positive duration such as 100us',
  size: 'a positive size such as 10KB',
  rate: 'a positive rate such as 10Gbps',
  number: 'a positive number',
  fraction: 'a number in (0, 1]',
  count: 'a positive whole number',
  flag: 'true or false (or 1 or 0)',
}

function withSuffix(key: string, unit: QuantityUnit): string {
  return paramName(key, unit)
}

export interface NormalisedParams {
  /** schemeParams: normalised name → value in base units. */
  values: Record<string, number>
  /** normalised name → the key written in the file. */
  sourceOf: Record<string, string>
  problems: Array<{ key: string; message: string }>
}

function normaliseOne(key: string, v: unknown): { name: string; value: number } | { problem: string } {
  const known = Object.hasOwn(KNOWN_PARAMS, key) ? KNOWN_PARAMS[key] : undefined
  if (known) {
    const fail = { problem: `expected ${EXAMPLE[known.unit]}, got ${describeValue(v)}` }
    if (known.unit === 'flag') {
      if (typeof v === 'boolean') return { name: key, value: v ? 1 : 0 }
      return v === 0 || v === 1 ? { name: key, value: v } : fail
    }
    if (known.unit === 'duration' || known.unit === 'size' || known.unit === 'rate') {
      if (typeof v !== 'number' && typeof v !== 'string') return fail
      let x: number
      try {
        const q = typeof v === 'string' ? parseQuantity(v) : undefined
        if (q && q.unit !== known.unit) return fail
        x = known.unit === 'duration' ? parseDuration(v) : known.unit === 'size' ? parseSize(v) : parseRate(v)
      } catch (err) {
        return { problem: (err as Error).message }
      }
      return x > 0 ? { name: withSuffix(key, known.unit), value: x } : fail
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) return fail
    if (!(v > 0) || (known.unit === 'fraction' && v > 1) || (known.unit === 'count' && !Number.isInteger(v))) return fail
    return { name: key, value: v }
  }
  if (typeof v === 'number' && Number.isFinite(v)) return { name: key, value: v }
  if (typeof v === 'boolean') return { name: key, value: v ? 1 : 0 }
  if (typeof v === 'string') {
    const s = v.trim()
    if (s !== '' && Number.isFinite(Number(s))) return { name: key, value: Number(s) }
    try {
      const q = parseQuantity(s)
      if (q) return { name: withSuffix(key, q.unit), value: q.value }
    } catch (err) {
      return { problem: (err as Error).message }
    }
  }
  return { problem: `expected a number, or a duration (100us), size (64KB) or rate (10Gbps), got ${describeValue(v)}` }
}

/** Normalises a raw `params:` mapping, reporting each bad value at its key. */
export function normaliseParams(raw: Record<string, unknown>): NormalisedParams {
  const out: NormalisedParams = { values: {}, sourceOf: {}, problems: [] }
  for (const [key, v] of Object.entries(raw)) {
    const r = normaliseOne(key, v)
    if ('problem' in r) {
      out.problems.push({ key, message: r.problem })
    } else if (r.name in out.values) {
      out.problems.push({ key, message: `${out.sourceOf[r.name]} and ${key} both give ${r.name}; keep one` })
    } else {
      out.values[r.name] = r.value
      out.sourceOf[r.name] = key
    }
  }
  return out
}

export const paramsSchema = z
  .record(z.string(), z.unknown(), {
    error: (iss) =>
      `expected a mapping of scheme parameters such as { flowletGap: 100us, probePeriod: 200us }, got ${describeValue(iss.input)}`,
  })
  .transform((raw, ctx) => {
    const r = normaliseParams(raw)
    for (const p of r.problems) ctx.addIssue({ code: 'custom', path: [p.key], message: p.message, input: raw[p.key] })
    return r.values
  })

/**
 * The rules between parameters that the experiment's schemes declare (HULA's τ ≥ 2 T_p,
 * DHLB's T_probe ≥ 2δ, ...). Each applies when both values are given; a scheme's own
 * defaults satisfy it.
 */
export function paramRules(p: NormalisedParams, schemes: readonly string[]): Array<{ key: string; message: string }> {
  return paramRuleProblems(p.values, p.sourceOf, schemes)
}

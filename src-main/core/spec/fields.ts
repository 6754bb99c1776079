// The building blocks of the experiment file's schema (schema.ts, topology-schema.ts,
// traffic-schema.ts): strict mappings whose unknown keys list the known ones, numbers and
// unit strings with messages of the form "expected <what>, got <value>", and unions keyed
// by `kind` whose error sits at the kind field.
import { z } from 'zod'
import { parseDuration, parseRate, parseSize } from '../../model/units'
import { describeValue, expected } from './messages'
import { SCHEMES } from './types'

/**
 * A strict mapping: unknown keys are errors that list the known ones. `refused` names
 * fields that look as if they belong but do not apply here, each with the reason; they are
 * errors at the field, and are not listed as known.
 */
export function mapping<S extends z.ZodRawShape>(shape: S, what = 'a mapping', refused: Record<string, string> = {}) {
  const known = Object.keys(shape).join(', ')
  const extra: Record<string, z.ZodOptional<z.ZodAny>> = {}
  for (const [key, why] of Object.entries(refused)) {
    extra[key] = z
      .any()
      .superRefine((v, ctx) => {
        if (v !== undefined) ctx.addIssue({ code: 'custom', message: why, input: v })
      })
      .optional()
  }
  return z.strictObject(
    { ...shape, ...extra } as S,
    {
      // parse.ts prefixes "unknown field '<key>'; " per key, at that key's line.
      error: (iss) => (iss.code === 'unrecognized_keys' ? `expected one of ${known}` : expected(what)(iss)),
    },
  )
}

export function integer(what: string, min: number) {
  const e = expected(what)
  return z.number({ error: e }).int({ error: e }).min(min, { error: e })
}

export const positiveInt = (what = 'a positive integer') => integer(what, 1)

export function text(what = 'a non-empty string') {
  const e = expected(what)
  return z.string({ error: e }).trim().min(1, { error: e })
}

/** A unit string (or a plain number in the base unit) normalised by parse. */
export function quantity(parse: (v: unknown) => number, noun: string, example: string, sign: 'positive' | 'non-negative') {
  return z.union([z.string(), z.number()], { error: expected(`a ${noun} such as ${example}`) }).transform((v, ctx) => {
    let x: number
    try {
      x = parse(v)
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message, input: v })
      return z.NEVER
    }
    if (sign === 'positive' ? !(x > 0) : !(x >= 0)) {
      ctx.addIssue({ code: 'custom', message: `expected a ${sign} ${noun} such as ${example}, got ${describeValue(v)}`, input: v })
      return z.NEVER
    }
    return x
  })
}

export const rate = () => quantity(parseRate, 'rate', '10Gbps', 'positive')
export const duration = (sign: 'positive' | 'non-negative' = 'positive') => quantity(parseDuration, 'duration', '100us', sign)

/** One value or a list of them, as a non-empty list without duplicates. */
export function oneOrMany<T extends z.ZodType>(item: T, what: string) {
  return z.preprocess(
    (v) => (v === undefined || v === null || Array.isArray(v) ? v : [v]),
    z
      .array(item, { error: expected(`${what} or a list of them`) })
      .min(1, { error: `expected at least one ${what}, got an empty list` })
      .superRefine((list, ctx) => {
        list.forEach((x, i) => {
          if (list.indexOf(x) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `duplicate value ${describeValue(x)}`, input: x })
        })
      }),
  )
}

/** A schema chosen by the value's shape (a number or a list, say), its issues passed on as they are. */
export function either(pick: (v: unknown) => z.ZodType) {
  return z.any().transform((v, ctx) => {
    const r = pick(v).safeParse(v)
    if (!r.success) {
      for (const iss of r.error.issues) ctx.addIssue({ ...iss } as Parameters<typeof ctx.addIssue>[0])
      return z.NEVER
    }
    return r.data as unknown
  })
}

/** The error of a union keyed by `kind`: a missing or unknown kind, at the kind field. */
export function kindError(kinds: readonly string[], what: string) {
  const list = kinds.join(', ')
  return (iss: { code?: string; input?: unknown }) => {
    if (iss.code === 'invalid_union') {
      const kind = (iss.input as Record<string, unknown> | undefined)?.kind
      return kind === undefined ? `required field is missing; expected one of ${list}` : `expected one of ${list}, got ${describeValue(kind)}`
    }
    return expected(what)(iss)
  }
}

export const scheme = z.enum(SCHEMES as [string, ...string[]], {
  error: (iss) =>
    typeof iss.input === 'string'
      ? `unknown scheme '${iss.input}'; the sim implements ${SCHEMES.join(', ')}`
      : expected(`a scheme (${SCHEMES.join(', ')})`)(iss),
})

export const load = z
  .number({ error: expected('a number in (0, 1]') })
  .gt(0, { error: expected('a number in (0, 1]') })
  .lte(1, { error: expected('a number in (0, 1]') })

export const size = () => quantity(parseSize, 'size', '64KB', 'positive')
export const linkName = () => text('a link name such as spine1-agg3')


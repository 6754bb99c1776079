import { DEFAULT_HOST_QUEUE_PACKETS } from '../../sim/types'
import { z } from 'zod'
import { parseDuration, parseRate } from '../units'
import { SCHEMES, WORKLOAD_KINDS } from './types'

// The zod schema of an experiment file. Every check carries its own message in the
// form "expected <what>, got <value>", so an error reads the same whichever rule
// caught it; parse.ts adds the file, line, column and field path.

/** A value as the user would recognise it from their file. */
export function describeValue(v: unknown): string {
  if (v === null) return 'nothing'
  if (typeof v === 'string') return `'${v}'`
  if (Array.isArray(v)) return 'a list'
  if (typeof v === 'object') return 'a mapping'
  return String(v)
}

type Issue = { input?: unknown; code?: string }

function expected(what: string) {
  return (iss: Issue) =>
    iss.input === undefined ? `required field is missing; expected ${what}` : `expected ${what}, got ${describeValue(iss.input)}`
}

/** A strict mapping: unknown keys are errors that list the known ones. */
function mapping<S extends z.ZodRawShape>(shape: S, what = 'a mapping') {
  const known = Object.keys(shape).join(', ')
  return z.strictObject(shape, {
    // parse.ts prefixes "unknown field '<key>'; " per key, at that key's line.
    error: (iss) => (iss.code === 'unrecognized_keys' ? `expected one of ${known}` : expected(what)(iss)),
  })
}

function integer(what: string, min: number) {
  const e = expected(what)
  return z.number({ error: e }).int({ error: e }).min(min, { error: e })
}

const positiveInt = (what = 'a positive integer') => integer(what, 1)

function text(what = 'a non-empty string') {
  const e = expected(what)
  return z.string({ error: e }).trim().min(1, { error: e })
}

/** A unit string (or a plain number in the base unit) normalised by parse. */
function quantity(parse: (v: unknown) => number, noun: string, example: string, sign: 'positive' | 'non-negative') {
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

const rate = () => quantity(parseRate, 'rate', '10Gbps', 'positive')
const duration = (sign: 'positive' | 'non-negative' = 'positive') => quantity(parseDuration, 'duration', '100us', sign)

/** One value or a list of them, as a non-empty list without duplicates. */
function oneOrMany<T extends z.ZodType>(item: T, what: string) {
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

const scheme = z.enum(SCHEMES as [string, ...string[]], {
  error: (iss) =>
    typeof iss.input === 'string'
      ? `unknown scheme '${iss.input}'; the sim implements ${SCHEMES.join(', ')}`
      : expected(`a scheme (${SCHEMES.join(', ')})`)(iss),
})

const load = z
  .number({ error: expected('a number in (0, 1]') })
  .gt(0, { error: expected('a number in (0, 1]') })
  .lte(1, { error: expected('a number in (0, 1]') })

const topology = mapping({
  kind: z.literal('leaf-spine', { error: expected("'leaf-spine' (the only topology the sim builds today)") }),
  // Flows go to hosts on other leaves, so one leaf would have no traffic to carry.
  leaves: integer('an integer of at least 2', 2),
  spines: positiveInt(),
  hostsPerLeaf: positiveInt(),
  hostLink: rate(),
  fabricLink: rate(),
  linkDelay: duration('non-negative').default(1_000),
  queuePackets: positiveInt().default(100),
  // Packets a sender may hand to its NIC before it is held back (TCP Small Queues).
  hostQueuePackets: positiveInt().default(DEFAULT_HOST_QUEUE_PACKETS),
})

const transport = mapping({
  kind: z.literal('newreno', { error: expected("'newreno'") }).default('newreno'),
  mss: positiveInt('a positive integer (bytes of TCP payload)').default(1460),
  initCwnd: positiveInt('a positive integer (packets)').default(10),
  minRto: duration().default(1_000_000),
}).prefault({})

const workload = mapping({
  kind: z.enum(WORKLOAD_KINDS as [string, ...string[]], { error: expected(`one of ${WORKLOAD_KINDS.join(', ')}`) }),
  // Existence, and the pairing with kind: cdf, are checked in workload.ts.
  file: text('a path to a CDF file').optional(),
  load: oneOrMany(load, 'a number in (0, 1]'),
  flows: positiveInt(),
})

const telemetry = mapping({ interval: duration().default(100_000) }).prefault({})

export function experimentSchema(testbeds: readonly string[]) {
  return mapping(
    {
      name: text(),
      description: z.string({ error: expected('a string') }).trim().default(''),
      tags: z.array(text('a non-empty string'), { error: expected('a list of strings') }).default([]),
      testbed: z
        .string({ error: expected('a testbed name') })
        .refine((t) => testbeds.includes(t), {
          error: (iss) => `unknown testbed ${describeValue(iss.input)}; known testbeds: ${testbeds.join(', ')}`,
        })
        .default('sim'),
      topology,
      transport,
      schemes: oneOrMany(scheme, 'a scheme'),
      workload,
      seeds: oneOrMany(integer('a non-negative integer', 0), 'a non-negative integer').default([1]),
      telemetry,
      stopAfter: duration().default(10_000_000_000),
    },
    'a mapping of experiment fields (name, topology, schemes, workload, ...)',
  )
}

export type RawExperiment = z.output<ReturnType<typeof experimentSchema>>

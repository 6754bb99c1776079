// The zod schema of an experiment file. Every check carries its own message in the
// form "expected <what>, got <value>", so an error reads the same whichever rule
// caught it; parse.ts adds the file, line, column and field path. The topology is in
// topology-schema.ts, transport, buffer and workload in traffic-schema.ts, the building
// blocks in fields.ts.
import { z } from 'zod'
import { formatDuration } from '../../model/units'
import { paramsSchema } from './params'
import { describeValue, expected } from './messages'
import { duration, either, integer, kindError, linkName, mapping, oneOrMany, positiveInt, scheme, text } from './fields'
import { topologySchema } from './topology-schema'
import { bufferSchema, transport, workloadSchema } from './traffic-schema'
import { INT_WATCH, type IntWatch } from './types'

export { describeValue, expected }
export { MAX_FABRIC_LINKS, topologySchema } from './topology-schema'
export { bufferSchema, workloadSchema } from './traffic-schema'

export const failureSchema = mapping(
  {
    // Checked against the fabric in fabric.ts.
    link: linkName(),
    at: duration('non-negative'),
    recover: duration().optional(),
  },
  'a mapping { link, at, recover }',
).superRefine((f, ctx) => {
  if (f.recover !== undefined && f.recover <= f.at) {
    ctx.addIssue({
      code: 'custom',
      path: ['recover'],
      message: `expected a time after at (${formatDuration(f.at)}), got ${formatDuration(f.recover)}`,
      input: f.recover,
    })
  }
})

const failures = z.array(failureSchema, { error: expected('a list of { link, at, recover } mappings') }).default([])

export const stopAfterSchema = duration().default(10_000_000_000)

/** The UDP port INT reports go to when telemetry.int names none (p4/README.md's example). */
export const DEFAULT_INT_PORT = 32766

const intWatch = z.enum(INT_WATCH as [IntWatch, ...IntWatch[]], { error: expected(`one of ${INT_WATCH.join(', ')}`) })

/**
 * telemetry.int: INT postcard reports from the v1model programs (BMv2 testbeds). `true` or a
 * mapping turns it on (`{}` takes the defaults), `false` leaves it off.
 */
const intOption = either((v) =>
  typeof v === 'boolean'
    ? z.boolean()
    : mapping(
        {
          port: integer('a UDP port (an integer from 1 to 65535)', 1)
            .max(65535, { error: expected('a UDP port (an integer from 1 to 65535)') })
            .default(DEFAULT_INT_PORT),
          watch: intWatch.default('all'),
        },
        'true, false or a mapping { port, watch }',
      ),
)

export const telemetrySchema = mapping({ interval: duration().default(100_000), int: intOption.optional() }).prefault({})

/** sbatch --time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (Slurm's forms). */
export const SLURM_TIME_RE = /^(\d+-)?\d+(:\d{1,2}){0,2}$/

/**
 * Where the cells run: on this machine (the default, no `runner:`), or as one Slurm job array
 * on a saved cluster (`p4lab cluster add`, or Clusters in the app). The p4lab run flags
 * (--cluster, --partition, --account, --time, --cpus-per-task, --max-parallel) override it.
 */
export const runnerSchema = z.discriminatedUnion(
  'kind',
  [
    mapping({ kind: z.literal('local') }, "a mapping { kind: local } (local runs need no other field)"),
    mapping(
      {
        kind: z.literal('slurm'),
        cluster: text('the name of a saved Slurm cluster (p4lab cluster list)'),
        partition: text('a Slurm partition name').optional(),
        account: text('a Slurm account name').optional(),
        time: z
          .union([z.string(), z.number()], { error: expected('a Slurm time limit such as 30, 1:00:00 or 1-12') })
          .transform((v) => String(v).trim())
          .refine((v) => SLURM_TIME_RE.test(v), { error: (iss) => `expected a Slurm time limit such as 30 (minutes), 1:00:00 or 1-12 (days-hours), got ${describeValue(iss.input)}` })
          .optional(),
        cpusPerTask: positiveInt().optional(),
        maxParallel: positiveInt('a positive integer (array tasks running at once)').optional(),
      },
      'a mapping { kind: slurm, cluster, partition, account, time, cpusPerTask, maxParallel }',
    ),
  ],
  { error: kindError(['local', 'slurm'], 'a mapping { kind: slurm, cluster: NAME, ... }') },
)

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
      topology: topologySchema,
      transport,
      buffer: bufferSchema.optional(),
      schemes: oneOrMany(scheme, 'a scheme'),
      workload: workloadSchema,
      params: paramsSchema.default({}),
      failures,
      failover: z.enum(['global', 'local'], { error: expected("'global' or 'local'") }).default('global'),
      seeds: oneOrMany(integer('a non-negative integer', 0), 'a non-negative integer').default([1]),
      telemetry: telemetrySchema,
      stopAfter: stopAfterSchema,
      runner: runnerSchema.optional(),
    },
    'a mapping of experiment fields (name, topology, schemes, workload, ...)',
  )
}

export type RawExperiment = z.output<ReturnType<typeof experimentSchema>>
export type RawTopology = z.output<typeof topologySchema>
export type RawWorkload = z.output<typeof workloadSchema>

import { DEFAULT_HOST_QUEUE_PACKETS, SERVER_CHOICES } from '../../sim/types'
import { DESTINATIONS, type Destinations } from '../../model/topology/destinations'
import { leafSpineUplinkBps } from '../../model/topology/build'
import { NODE_NAME_RE } from '../../model/topology/names'
import { z } from 'zod'
import { formatDuration, parseDuration, parseEventRate, parseRate, parseSize } from '../../model/units'
import { paramsSchema } from './params'
import { describeValue, expected } from './messages'
import { CDF_KINDS, DEFAULT_FAN_IN, INT_WATCH, SCHEMES, TOPOLOGY_KINDS, WORKLOAD_KINDS, type CdfKind, type IntWatch } from './types'

// The zod schema of an experiment file. Every check carries its own message in the
// form "expected <what>, got <value>", so an error reads the same whichever rule
// caught it; parse.ts adds the file, line, column and field path.

export { describeValue, expected }

/**
 * A strict mapping: unknown keys are errors that list the known ones. `refused` names
 * fields that look as if they belong but do not apply here, each with the reason; they are
 * errors at the field, and are not listed as known.
 */
function mapping<S extends z.ZodRawShape>(shape: S, what = 'a mapping', refused: Record<string, string> = {}) {
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

/** A schema chosen by the value's shape (a number or a list, say), its issues passed on as they are. */
function either(pick: (v: unknown) => z.ZodType) {
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
function kindError(kinds: readonly string[], what: string) {
  const list = kinds.join(', ')
  return (iss: { code?: string; input?: unknown }) => {
    if (iss.code === 'invalid_union') {
      const kind = (iss.input as Record<string, unknown> | undefined)?.kind
      return kind === undefined ? `required field is missing; expected one of ${list}` : `expected one of ${list}, got ${describeValue(kind)}`
    }
    return expected(what)(iss)
  }
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

const size = () => quantity(parseSize, 'size', '64KB', 'positive')
const linkName = () => text('a link name such as spine1-agg3')

/** Fields every topology kind has, after its own. */
const topologyCommon = {
  hostLink: rate(),
  fabricLink: rate(),
  linkDelay: duration('non-negative').default(1_000),
  queuePackets: positiveInt().default(100),
  // Packets a sender may hand to its NIC before it is held back (TCP Small Queues).
  hostQueuePackets: positiveInt().default(DEFAULT_HOST_QUEUE_PACKETS),
  // Asymmetry: links taken out before the run, and links slower than fabricLink.
  // Names are checked against the fabric in fabric.ts.
  remove: z
    .array(linkName(), { error: expected('a list of link names such as [spine1-agg3]') })
    .superRefine((list, ctx) => {
      list.forEach((x, i) => {
        if (list.indexOf(x) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `duplicate value ${describeValue(x)}`, input: x })
      })
    })
    .optional(),
  slow: z.record(z.string(), rate(), { error: expected('a mapping of link names to rates, such as { spine1-agg3: 10Gbps }') }).optional(),
}

/**
 * The most links a topology may have. The file is checked against the fabric it builds,
 * so a typo (k: 4000) must not build a billion-link graph; the largest fabrics the sim
 * is meant for (a k=64 fat-tree: 196,608 links) are well inside.
 */
export const MAX_FABRIC_LINKS = 1_000_000

function sizeCheck(kind: string, links: number, ctx: z.core.$RefinementCtx<unknown>) {
  if (links > MAX_FABRIC_LINKS) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: `this ${kind} would have ${links.toLocaleString('en-US')} links; the simulator builds at most ${MAX_FABRIC_LINKS.toLocaleString('en-US')}`,
    })
  }
}

const oversubscription = () =>
  z.number({ error: expected('a ratio of at least 1, such as 2 for 2:1') }).gte(1, { error: expected('a ratio of at least 1, such as 2 for 2:1') })

const leafSpine = mapping({
  kind: z.literal('leaf-spine'),
  // Flows go to hosts on other leaves, so one leaf would have no traffic to carry.
  leaves: integer('an integer of at least 2', 2),
  spines: positiveInt(),
  hostsPerLeaf: positiveInt(),
  // Parallel links between each leaf and each spine, as in CONGA's testbed.
  linksPerSpine: positiveInt().optional(),
  ...topologyCommon,
  // With oversubscription, the uplink rate follows from it and fabricLink may be left out.
  fabricLink: rate().optional(),
  oversubscription: oversubscription().optional(),
}).superRefine((t, ctx) => {
  sizeCheck(t.kind, t.leaves * (t.hostsPerLeaf + t.spines * (t.linksPerSpine ?? 1)), ctx)
  if (t.fabricLink === undefined && t.oversubscription === undefined) {
    ctx.addIssue({ code: 'custom', path: ['fabricLink'], message: 'required field is missing; expected a rate such as 10Gbps (or give oversubscription, and the uplink rate follows)', input: undefined })
    return
  }
  if (t.oversubscription === undefined) return
  try {
    leafSpineUplinkBps({ ...t, fabricLinkBps: t.fabricLink ?? 0, hostLinkBps: t.hostLink })
  } catch (err) {
    ctx.addIssue({ code: 'custom', path: ['oversubscription'], message: (err as Error).message, input: t.oversubscription })
  }
})

const fatTree = mapping({
  kind: z.literal('fat-tree'),
  k: integer('an even integer of at least 2', 2).refine((k) => k % 2 === 0, { error: expected('an even integer of at least 2') }),
  // Hosts per edge switch; default k/2 (the textbook fat-tree, no oversubscription at equal rates).
  hostsPerTor: positiveInt().optional(),
  ...topologyCommon,
}).superRefine((t, ctx) => sizeCheck(t.kind, (t.k ** 2 / 2) * (t.hostsPerTor ?? t.k / 2) + t.k ** 3 / 2, ctx))

const threeTier = mapping({
  kind: z.literal('three-tier'),
  pods: positiveInt(),
  torsPerPod: positiveInt(),
  aggsPerPod: positiveInt(),
  spines: positiveInt(),
  hostsPerTor: positiveInt(),
  ...topologyCommon,
}).superRefine((t, ctx) => {
  const tors = t.pods * t.torsPerPod
  sizeCheck(t.kind, tors * t.hostsPerTor + tors * t.aggsPerPod + t.pods * t.aggsPerPod * t.spines, ctx)
  if (t.pods * t.torsPerPod < 2) {
    ctx.addIssue({
      code: 'custom',
      path: ['torsPerPod'],
      message: `expected at least two ToRs in all (pods × torsPerPod), got ${t.pods * t.torsPerPod}; flows go to hosts on other ToRs`,
      input: t.torsPerPod,
    })
  }
})

const nodeName = (what: string) =>
  text(what).refine((v) => NODE_NAME_RE.test(v), {
    error: (iss) => `expected ${what}: letters, digits, '_' and '.' (no '-', ':' or '/', which link names use), got ${describeValue(iss.input)}`,
  })

const TIERS = ['host', 'tor', 'agg', 'spine'] as const

const customNode = mapping(
  {
    name: nodeName('a node name such as tor0'),
    tier: z.enum(TIERS, { error: expected(`a tier: ${TIERS.join(', ')}`) }),
    pod: integer('a pod number (an integer from 0)', 0).optional(),
  },
  'a mapping { name, tier, pod }',
)

/** A link end: a node name, or `node:port` with an explicit port number (from 0). */
const linkEnd = z.string({ error: expected('a node name, or node:port such as spine0:3') }).transform((v, ctx) => {
  const m = /^([^:]*)(?::(\d+))?$/.exec(v.trim())
  if (!m || !NODE_NAME_RE.test(m[1])) {
    ctx.addIssue({ code: 'custom', message: `expected a node name, or node:port such as spine0:3, got ${describeValue(v)}`, input: v })
    return z.NEVER
  }
  return m[2] === undefined ? { node: m[1] } : { node: m[1], port: Number(m[2]) }
})

const lossRate = z
  .number({ error: expected('a fraction of packets in [0, 1), such as 0.001') })
  .gte(0, { error: expected('a fraction of packets in [0, 1), such as 0.001') })
  .lt(1, { error: expected('a fraction of packets in [0, 1), such as 0.001') })

const customLink = mapping(
  { a: linkEnd, b: linkEnd, speed: rate().optional(), delay: duration('non-negative').optional(), loss: lossRate.optional() },
  'a mapping { a, b, speed, delay, loss }',
)

// The graph itself (names, ends, ports, tiers) is checked by the builder (model/topology/custom.ts)
// and the graph checks (spec/graph.ts), which name the node or link at fault.
const custom = mapping({
  kind: z.literal('custom'),
  nodes: z.array(customNode, { error: expected('a list of nodes { name, tier, pod }') }).min(1, { error: 'expected at least one node, got an empty list' }),
  links: z.array(customLink, { error: expected('a list of links { a, b, speed, delay, loss }') }).min(1, { error: 'expected at least one link, got an empty list' }),
  // The most a switch's down bandwidth may exceed its up bandwidth; default 1 (non-blocking).
  oversubscription: oversubscription().optional(),
  ...topologyCommon,
}).superRefine((t, ctx) => sizeCheck(t.kind, t.links.length, ctx))

export const topologySchema = z.discriminatedUnion('kind', [leafSpine, fatTree, threeTier, custom], {
  error: kindError(TOPOLOGY_KINDS, `a mapping with kind: ${TOPOLOGY_KINDS.join(', ')}`),
})

const transportCommon = {
  mss: positiveInt('a positive integer (bytes of TCP payload)').default(1460),
  initCwnd: positiveInt('a positive integer (packets)').default(10),
  minRto: duration().default(1_000_000),
}

const newreno = mapping({ kind: z.literal('newreno'), ...transportCommon }, 'a mapping', {
  ecnThreshold: 'ecnThreshold is the DCTCP marking threshold (packets); it needs kind: dctcp, and this transport is newreno',
  dctcpG: "dctcpG is DCTCP's gain g; it needs kind: dctcp, and this transport is newreno",
})

const dctcp = mapping({
  kind: z.literal('dctcp'),
  ...transportCommon,
  // Default: 65 packets at 10G, scaled with each port's rate (DCTCP_K_AT_10G).
  ecnThreshold: positiveInt('a positive integer (packets queued)').optional(),
  // Default 1/16.
  dctcpG: z
    .number({ error: expected('a number in (0, 1]') })
    .gt(0, { error: expected('a number in (0, 1]') })
    .lte(1, { error: expected('a number in (0, 1]') })
    .optional(),
})

const fraction = () =>
  z
    .number({ error: expected('a number in (0, 1]') })
    .gt(0, { error: expected('a number in (0, 1]') })
    .lte(1, { error: expected('a number in (0, 1]') })

// DCQCN (sim/tcp/dcqcn.ts): every field defaults to the DCQCN paper's value (DCQCN_DEFAULTS).
const dcqcn = mapping(
  {
    kind: z.literal('dcqcn'),
    ...transportCommon,
    kmin: size().optional(),
    kmax: size().optional(),
    pmax: fraction().optional(),
    g: fraction().optional(),
    cnpInterval: duration().optional(),
    alphaTimer: duration().optional(),
    rateTimer: duration().optional(),
    byteCounter: size().optional(),
    fastRecoverySteps: positiveInt().optional(),
    rai: rate().optional(),
    rhai: rate().optional(),
    minRate: rate().optional(),
  },
  'a mapping',
  {
    ecnThreshold: "ecnThreshold is DCTCP's marking threshold; DCQCN marks with RED between kmin and kmax",
    dctcpG: "dctcpG is DCTCP's gain; DCQCN's is g",
  },
).superRefine((t, ctx) => {
  if (t.kmin !== undefined && t.kmax !== undefined && t.kmax <= t.kmin) {
    ctx.addIssue({ code: 'custom', path: ['kmax'], message: `expected a size above kmin (${t.kmin} B), got ${t.kmax} B`, input: t.kmax })
  }
})

const transport = z
  .preprocess(
    (v) => (typeof v === 'object' && v !== null && !Array.isArray(v) && !('kind' in v) ? { kind: 'newreno', ...v } : v),
    z.discriminatedUnion('kind', [newreno, dctcp, dcqcn], { error: kindError(['newreno', 'dctcp', 'dcqcn'], 'a mapping') }),
  )
  .prefault({})

/**
 * buffer: left out, every switch port has its own drop-tail queue of topology.queuePackets
 * (what every template ran with before shared buffers existed, so their results stay the
 * same). `kind: shared` gives each switch one buffer of `size` bytes with dynamic thresholds
 * (sim/net/buffer.ts); α = 1 by default, a common setting of Broadcom Trident/Tomahawk
 * switches that the papers do not give. `pfc` adds PFC for data and ACKs: XOFF at
 * α_pfc × free buffer (default 1/8, a common setting; not given by the DCQCN or Floodgate
 * papers), resume `xonOffset` below it (default two MTUs), headroom per port (default: link
 * RTT × rate + three MTUs + the pause frame, the least that keeps the class lossless).
 */
export const bufferSchema = mapping(
  {
    kind: z.literal('shared', { error: expected("'shared' (leave buffer out for per-port queues)") }),
    size: size(),
    alpha: z.number({ error: expected('a positive number') }).gt(0, { error: expected('a positive number') }).default(1),
    pfc: mapping(
      {
        alpha: z.number({ error: expected('a positive number') }).gt(0, { error: expected('a positive number') }).default(1 / 8),
        xonOffset: quantity(parseSize, 'size', '3KB', 'non-negative').default(3000),
        headroom: size().optional(),
      },
      'a mapping { alpha, xonOffset, headroom }',
    ).optional(),
  },
  'a mapping { kind: shared, size, alpha, pfc }',
)

const cdfFile = () => text('a path to a CDF file').optional() // existence and the pairing with cdf: workload.ts
const loads = () => oneOrMany(load, 'a number in (0, 1]')
const cdfKind = (what: string) => z.enum(CDF_KINDS as [CdfKind, ...CdfKind[]], { error: expected(`one of ${CDF_KINDS.join(', ')}${what}`) })

const poisson = mapping({
  kind: cdfKind(''),
  file: cdfFile(),
  load: loads(),
  flows: positiveInt(),
  // Checked against the fabric (pods) in checks.ts.
  destinations: z.enum(DESTINATIONS as [Destinations, ...Destinations[]], { error: expected(`one of ${DESTINATIONS.join(', ')}`) }).optional(),
  // Share of the flows, in arrival order, left out of the statistics as warm-up (stats.ts).
  warmup: z.number({ error: expected('a share in [0, 0.5)') }).min(0, { error: expected('a share in [0, 0.5)') }).lt(0.5, { error: expected('a share in [0, 0.5)') }).optional(),
  // The HULA paper's client-server model; omitted: one new connection per flow.
  connections: mapping({
    perServer: positiveInt('a positive integer (persistent connections per server)'),
    servers: positiveInt('a positive integer (servers per client)').optional(),
    // How clients pick servers (sim/workload/clientserver.ts); omitted: random.
    choice: z.enum(SERVER_CHOICES, { error: expected(`one of ${SERVER_CHOICES.join(', ')}`) }).optional(),
  }).optional(),
})

const fanInOne = positiveInt('a fan-in (a positive integer)')
const fanInMix = z
  .array(
    z.tuple([positiveInt('a fan-in (a positive integer)'), z.number({ error: expected('a positive weight') }).gt(0, { error: expected('a positive weight') })], {
      error: expected('a [fanIn, weight] pair'),
    }),
  )
  .min(1, { error: 'expected at least one [fanIn, weight] pair, got an empty list' })
  .superRefine((mix, ctx) => {
    mix.forEach(([n], i) => {
      if (mix.findIndex(([m]) => m === n) !== i) ctx.addIssue({ code: 'custom', path: [i, 0], message: `duplicate fan-in ${n}`, input: n })
    })
  })

const incast = mapping({
  kind: z.literal('incast'),
  background: cdfKind(' (the Poisson background traffic)'),
  file: cdfFile(),
  load: loads(),
  flows: positiveInt('a positive integer (background flows)'),
  incast: mapping(
    {
      events: positiveInt('a positive integer (incast events)'),
      rate: quantity(parseEventRate, 'rate of events', '2000/s', 'positive'),
      flowSize: size(),
      fanIn: either((v) => (Array.isArray(v) ? fanInMix : fanInOne)).default(DEFAULT_FAN_IN.map(([n, w]) => [n, w])),
    },
    'a mapping { events, rate, flowSize, fanIn }',
  ),
})

const saturating = (kind: string) =>
  `load does not apply to kind ${kind}: its flows are saturating (they send as fast as the fabric lets them), so its runs are recorded with load 1; remove load`

const hostIndex = () => integer('a host index (an integer from 0)', 0)

const longLived = mapping(
  {
    kind: z.literal('long-lived'),
    flows: positiveInt().optional(),
    // Host indices are checked against the fabric in fabric.ts.
    pairs: z
      .array(z.tuple([hostIndex(), hostIndex()], { error: expected('a pair [src, dst] of host indices') }), {
        error: expected('a list of [src, dst] host pairs'),
      })
      .min(1, { error: 'expected at least one [src, dst] pair, got an empty list' })
      .optional(),
    size: size().optional(),
    start: duration('non-negative').optional(),
  },
  'a mapping',
  { load: saturating('long-lived') },
).superRefine((w, ctx) => {
  if (w.flows === undefined && w.pairs === undefined) {
    ctx.addIssue({ code: 'custom', path: [], message: 'kind long-lived needs flows: <count> (random pairs) or pairs: [[src, dst], ...]', input: w })
  } else if (w.flows !== undefined && w.pairs !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['flows'], message: 'give flows (random pairs) or pairs, not both', input: w.flows })
  }
})

const permutation = mapping(
  {
    kind: z.literal('permutation'),
    size: size().optional(),
    start: duration('non-negative').optional(),
  },
  'a mapping',
  { load: saturating('permutation') },
)

export const workloadSchema = z.discriminatedUnion('kind', [poisson, incast, longLived, permutation], {
  error: kindError(WORKLOAD_KINDS, `a mapping with kind: ${WORKLOAD_KINDS.join(', ')}`),
})

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

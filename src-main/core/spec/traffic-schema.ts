// transport:, buffer: and workload: in an experiment file: what the hosts send and how the
// switches hold it.
import { z } from 'zod'
import { DESTINATIONS, type Destinations } from '../../model/topology/destinations'
import { parseEventRate, parseSize } from '../../model/units'
import { SERVER_CHOICES } from '../../sim/types'
import { expected } from './messages'
import { duration, either, integer, kindError, load, mapping, oneOrMany, positiveInt, quantity, rate, size, text } from './fields'
import { CDF_KINDS, DEFAULT_FAN_IN, WORKLOAD_KINDS, type CdfKind } from './types'

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

export const transport = z
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

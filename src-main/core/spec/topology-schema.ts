// topology: in an experiment file: the generated fabrics (leaf-spine, fat-tree, three-tier)
// and custom graphs, with the fields every kind shares.
import { z } from 'zod'
import { leafSpineUplinkBps } from '../../model/topology/build'
import { NODE_NAME_RE } from '../../model/topology/names'
import { DEFAULT_HOST_QUEUE_PACKETS } from '../../sim/types'
import { describeValue, expected } from './messages'
import { duration, integer, kindError, linkName, mapping, positiveInt, rate, text } from './fields'
import { TOPOLOGY_KINDS } from './types'

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

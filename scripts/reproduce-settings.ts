// What each paper gives about its setting and what it leaves open, per template of
// `npm run reproduce`. The open settings are swept (reproduce-sweep.ts) for every claim that
// misses the paper's number by more than ±30 %, one setting at a time, so a reader sees how
// far each moves the ratio instead of a setting tuned in silence. Each open setting names the
// template's value and why it was chosen; its variants are overrides of the experiment file
// at a dotted path (null removes the field, e.g. `buffer: null` for per-port queues).
import { isMap, isScalar, parseDocument } from 'yaml'
import type { Results } from './reproduce-results'

export interface Variant {
  /** How the value reads in the page ("200ms", "shared 4 MB"). */
  label: string
  /** The value written at the setting's path; null removes the field. */
  value: unknown
}

export interface OpenSetting {
  /** Dotted path into the experiment file (`transport.minRto`). */
  path: string
  /** The template's value, as the page shows it. */
  default: string
  /** Why the template uses that value: what the paper's text implies. */
  reason: string
  /** The values swept, the template's own among them. Empty: declared, not swept yet (see `note`). */
  variants: Variant[]
  note?: string
}

/** The figure's schemes in the paper's order, best first, by a lower-is-better value. */
export interface PaperOrder {
  /** What is compared ("mean FCT at 70 % load"). */
  what: string
  schemes: string[]
  value: (r: Results, scheme: string) => number
}

export interface FigureSpec {
  /** fct-vs-load: the metric against load per scheme, band across seeds; fct-cdf: the FCT CDF per scheme at one load, log x. */
  kind: 'fct-vs-load' | 'fct-cdf'
  metric?: 'mean' | 'p99' | 'probeOverhead'
  /** The paper's figure this stands for ("HULA Fig. 5a"). */
  paperFigure: string
  /** How ours differs from the paper's figure, for the page. */
  note?: string
}

export interface TemplateSettings {
  /** The paper, by title and venue. */
  paper: string
  /** Settings the paper states, as "what: value (where)". */
  given: string[]
  open: OpenSetting[]
  order?: PaperOrder
  figure?: FigureSpec
}

const ms = (v: string): Variant => ({ label: v, value: v })
const MIN_RTO = (def: string, reason: string): OpenSetting => ({ path: 'transport.minRto', default: def, reason, variants: [ms('1ms'), ms('200ms')] })
const PACKETS = (def: number): OpenSetting => ({
  path: 'topology.queuePackets',
  default: `${def} packets per port`,
  reason: 'not given by the paper; 100-600 packets per port is the usual range of switch simulations',
  variants: [100, 250, 600].map((n) => ({ label: `${n} packets`, value: n })),
})
/** A shared buffer per switch holding about what 250-packet queues on a ToR's ten ports do (3.75 MB). */
const SHARING: OpenSetting = {
  path: 'buffer',
  default: 'per-port drop-tail queues',
  reason: 'the paper describes no switch buffer; per-port queues are what the simulator ran before it had a shared buffer',
  variants: [
    { label: 'per-port queues', value: null },
    { label: 'shared 4 MB per switch, dynamic thresholds α = 1', value: { kind: 'shared', size: '4MB', alpha: 1 } },
  ],
}
const TRANSPORT = (def: string): OpenSetting => ({
  path: 'transport.kind',
  default: def,
  reason: 'the paper names TCP without its variant; NewReno is the simulators\' default TCP',
  variants: [ms('newreno'), ms('dctcp')],
})
const DESTINATIONS = (def: string, reason: string, values: string[]): OpenSetting => ({
  path: 'workload.destinations',
  default: def,
  reason,
  variants: values.map(ms),
})
/**
 * How the HULA paper's clients choose servers. Its words fit three traffic models, all swept:
 * one server per client drawn on its own (as written), one per client with no server chosen
 * twice, or every server of the destination set with its own connections (each flow's server
 * then random, as in the public ns-2 harness with connections per client-server pair).
 */
const SERVER_CHOICE: OpenSetting = {
  path: 'workload.connections',
  default: 'one random server per client, three connections to it (choice: random); a server may have several clients',
  reason:
    'the HULA paper (§6): "each client chooses a server at random and initiates three persistent TCP connections to the server", read as written: ' +
    'a client keeps one server. It says neither whether two clients may choose one server nor whether a client keeps its server for the whole run; ' +
    'the public ns-2 harness of the load-balancing simulations of its time (connections_per_pair) gives every client-server pair its own ' +
    'persistent connections and Poisson arrivals, so that each flow\'s server is random',
  variants: [
    { label: 'one random server per client (choice: random)', value: { perServer: 3, choice: 'random' } },
    { label: 'one server per client, no server chosen twice (choice: permutation)', value: { perServer: 3, choice: 'permutation' } },
    { label: 'every server of the other pod, three connections each (servers: 16)', value: { perServer: 3, servers: 16 } },
  ],
}

const HULA_PAPER = 'HULA: Scalable Load Balancing Using Programmable Data Planes (ACM SOSR 2016)'
const HULA_GIVEN = [
  'fabric: 2 spines, 2 pods of 2 aggregation switches and 2 ToRs, 8 servers per ToR (Fig. 4)',
  'links: 10G to servers, 40G between switches',
  'HULA: probe period 200 µs, flowlet gap 100 µs, keep-alive 5 probe periods',
  'traffic: clients choose a server at random and open three persistent TCP connections to it (§6)',
]
const HULA_DESTINATIONS = DESTINATIONS(
  'other-pods',
  'the paper says the S2–A3 link "incurs pressure once the network load reaches 50 %" in the asymmetric fabric, which needs all traffic to cross pods; with other-racks the spine layer runs at 2/3 of the load',
  ['other-racks', 'other-pods'],
)
const HULA_MIN_RTO = MIN_RTO('1ms', 'not given by the paper; ns-2 and Linux default to 200 ms, datacenter studies lower it to 1 ms or less, as the sub-millisecond RTTs of this fabric call for')
const HULA_OPEN = [HULA_MIN_RTO, PACKETS(250), SHARING, HULA_DESTINATIONS, TRANSPORT('newreno'), SERVER_CHOICE]
/** Fig. 9a and 9c keep one new connection per flow: their page must not claim the §6 model for them. */
const PER_FLOW_CONNECTIONS: OpenSetting = {
  path: 'workload.connections',
  default: 'none: a new connection, so a new 5-tuple and window, per flow',
  reason: 'the paper\'s §6 model applies to these figures too; these templates time the fabric\'s reaction (a failure, the probe period) and were written with one connection per flow, which spares ECMP the collisions of persistent connections',
  variants: [],
  note: 'not swept: `connections: { perServer: 3, choice: random }` under `workload:` runs a copy of the file with the §6 model',
}
const HULA_OPEN_PER_FLOW = [HULA_MIN_RTO, PACKETS(250), SHARING, HULA_DESTINATIONS, TRANSPORT('newreno'), PER_FLOW_CONNECTIONS]
const hulaOrder = (what: string, schemes: string[], load: number | undefined): PaperOrder => ({ what, schemes, value: (r, s) => r.fct(s, load, 'meanNs') })

const DHLB_PAPER = 'DHLB: a distributed hop-by-hop load balancing architecture based on in-band network telemetry'
const DHLB_GIVEN = ['fabric: k=4 fat-tree, 100 Mbps to hosts, 200 Mbps between switches (Mininet/BMv2)', 'traffic: web-search flow sizes']
const DHLB_OPEN = [
  MIN_RTO('5ms', 'not given by the paper; 5 ms keeps the RTO above the RTTs of a 100 Mbps fabric whose queues hold several ms'),
  { ...PACKETS(100), default: '100 packets per port', variants: [100, 250].map((n) => ({ label: `${n} packets`, value: n })) },
  DESTINATIONS('other-racks (the simulator\'s default)', 'not given by the paper; uniform over other racks is the usual choice', ['other-racks', 'other-pods']),
  TRANSPORT('newreno'),
]

const FLOODGATE_PAPER = 'Floodgate: Taming Incast in Datacenter Networks (ACM CoNEXT 2021)'

export const SETTINGS: Record<string, TemplateSettings> = {
  'hula-fig5a-websearch': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'workload: web-search, loads 10-90 %'],
    open: HULA_OPEN,
    order: hulaOrder('mean FCT at 70 % load', ['hula', 'conga-prime', 'ecmp'], 0.7),
    figure: { kind: 'fct-vs-load', metric: 'mean', paperFigure: 'HULA Fig. 5a' },
  },
  'hula-fig5b-datamining': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'workload: data-mining'],
    open: HULA_OPEN,
    order: hulaOrder('mean FCT at 80 % load', ['hula', 'ecmp'], 0.8),
    figure: { kind: 'fct-vs-load', metric: 'mean', paperFigure: 'HULA Fig. 5b' },
  },
  'hula-fig6-asymmetric': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'asymmetry: link S2–A4 disabled', 'workload: web-search at 60 % load'],
    open: HULA_OPEN,
    order: hulaOrder('mean FCT at 60 % load', ['hula', 'conga-prime', 'ecmp'], 0.6),
    figure: { kind: 'fct-cdf', paperFigure: 'HULA Fig. 6', note: 'the paper gives bars; here the FCT CDF behind them' },
  },
  'hula-fig7-datamining-asymmetric': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'the Fig. 6 setting (S2–A4 disabled)', 'data-mining flow sizes'],
    open: HULA_OPEN,
    order: hulaOrder('mean FCT at 80 % load', ['hula', 'conga-prime', 'ecmp'], 0.8),
    figure: { kind: 'fct-vs-load', metric: 'mean', paperFigure: 'HULA Fig. 7' },
  },
  'hula-fig8-queues': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'the Fig. 6 setting (S2–A4 disabled, 60 % load)', 'queue sampled every 100 µs'],
    open: HULA_OPEN,
    order: { what: 'p95 of the bottleneck queue', schemes: ['hula', 'conga-prime', 'ecmp'], value: (r, s) => r.queueAt(s, 'ecmp').p95 },
  },
  'hula-fig9-failure': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'a link fails mid-run and comes back'],
    open: HULA_OPEN_PER_FLOW,
    order: hulaOrder('mean FCT over the run', ['hula', 'ecmp'], undefined),
    figure: { kind: 'fct-cdf', paperFigure: 'HULA Fig. 9', note: 'the paper plots the failure over time; here the FCT CDF of the run' },
  },
  'hula-fig9b-long-flows': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'long-running flows across the bottleneck link, which fails and comes back'],
    // The flows cut off by the failure stall until their retransmission timer fires, so the
    // deflection follows the minimum RTO: sweep it below 1 ms too (200 ms alone says nothing here).
    open: [{ ...HULA_MIN_RTO, variants: [ms('1ms'), ms('500us'), ms('200us'), ms('200ms')] }, PACKETS(250), SHARING, TRANSPORT('newreno')],
  },
  'hula-fig9c-probes-ideal': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'the Fig. 6 setting (S2–A4 disabled), web-search', 'the ideal probe period (the baseline of the ×10 runs)'],
    open: HULA_OPEN_PER_FLOW,
  },
  'hula-fig9c-probes-10x': {
    paper: HULA_PAPER,
    given: [...HULA_GIVEN, 'the Fig. 6 setting (S2–A4 disabled), web-search', 'probes 10× more often than the ideal period'],
    open: HULA_OPEN_PER_FLOW,
  },
  'dhlb-fig4-probe-overhead': {
    paper: DHLB_PAPER,
    given: [...DHLB_GIVEN, 'probe overhead against load'],
    open: DHLB_OPEN,
    order: { what: 'probe bytes per second at 10 % load', schemes: ['dhlb', 'hula'], value: (r, s) => r.counter(s, 0.1, 'controlBytes') / r.counter(s, 0.1, 'simTimeNs') },
    figure: { kind: 'fct-vs-load', metric: 'probeOverhead', paperFigure: 'DHLB Fig. 4' },
  },
  'dhlb-fig5-fct': {
    paper: DHLB_PAPER,
    given: [...DHLB_GIVEN, 'mean FCT against load'],
    open: DHLB_OPEN,
    order: { what: 'mean FCT at 90 % load', schemes: ['dhlb', 'hula'], value: (r, s) => r.fct(s, 0.9, 'meanNs') },
    figure: { kind: 'fct-vs-load', metric: 'mean', paperFigure: 'DHLB Fig. 5' },
  },
  'conga-asymmetric-leafspine': {
    paper: 'CONGA: Distributed Congestion-Aware Load Balancing for Datacenters (ACM SIGCOMM 2014)',
    given: ['testbed: 2 leaves × 2 spines, 10G hosts, 40G fabric, one of two parallel links failed', 'workload: web-search'],
    open: [
      MIN_RTO('1ms', 'not given for the testbed; its hosts ran Linux, whose default is 200 ms, while the paper\'s simulations lower it'),
      PACKETS(250),
      DESTINATIONS('other-racks (the simulator\'s default)', 'the testbed sends between the two leaves', ['other-racks', 'any']),
      TRANSPORT('newreno'),
    ],
    order: { what: 'mean FCT at 50 % load', schemes: ['conga', 'ecmp'], value: (r, s) => r.fct(s, 0.5, 'meanNs') },
    figure: { kind: 'fct-vs-load', metric: 'mean', paperFigure: 'CONGA testbed FCT' },
  },
  'floodgate-incast-mix': {
    paper: FLOODGATE_PAPER,
    given: ['a lossless fabric with PFC and DCQCN', 'incast (fan-in 1, 5 or 10, 64 KB each) on web-search background at 80 % load', 'credits every 10 µs'],
    open: [
      {
        path: 'buffer.size',
        default: '1 MB per switch',
        reason: 'not given by the paper; small enough that an incast fills it and PFC pauses upstream, the case Floodgate is for',
        variants: ['512KB', '1MB', '4MB'].map(ms),
      },
      {
        path: 'buffer.pfc.alpha',
        default: 'α_pfc = 1/8',
        reason: 'not given by the Floodgate or DCQCN papers; 1/8 is a common switch setting',
        variants: [1 / 16, 1 / 8, 1 / 2].map((a) => ({ label: `α_pfc = ${a}`, value: a })),
      },
      MIN_RTO('1ms', 'not given by the paper; in a lossless fabric a timeout follows only a lost control packet'),
      {
        path: 'params.windowBdpFactor',
        default: '1.5 × hop BDP (+ C × T)',
        reason: 'the paper\'s text sizes the window as the next hop\'s BDP plus C × T; the authors\' public simulator code uses 1.5 × BDP. Here C × T (50 KB at 40G) outweighs either BDP term (10 KB)',
        variants: [1, 1.5].map((f) => ({ label: `${f} × hop BDP (+ C × T)`, value: f })),
      },
      {
        path: 'params.creditOnBytes',
        default: 'on the 10 µs timer alone',
        reason: 'the paper returns credits every credit interval; the public code also sends them as soon as 10,240 B are owed to one destination',
        variants: [{ label: 'on the 10 µs timer alone', value: false }, { label: 'timer, or 10,240 B owed to one destination', value: true }],
      },
    ],
    order: {
      what: 'mean FCT of non-incast flows',
      schemes: ['floodgate', 'ecmp'],
      value: (r, s) => {
        const w = r.spec.workload
        const incast = w.kind === 'incast' ? w.incast.flowBytes : -1
        return r.flowMean(s, (b) => b !== incast, 'mean')
      },
    },
    figure: { kind: 'fct-cdf', paperFigure: 'Floodgate FCT', note: 'all flows, the incast ones included' },
  },
}

/**
 * The template's text with `overrides` written at their dotted paths (null deletes). Throws,
 * naming the path, when a path runs through a value that is not a mapping.
 */
export function applyOverrides(text: string, overrides: Record<string, unknown>): string {
  const doc = parseDocument(text)
  for (const [path, value] of Object.entries(overrides)) {
    const keys = path.split('.')
    for (let i = 1; i < keys.length; i++) {
      const parent = doc.getIn(keys.slice(0, i), true)
      if (parent !== undefined && !isMap(parent) && !(isScalar(parent) && parent.value === null)) {
        throw new Error(`override ${path}: ${keys.slice(0, i).join('.')} is not a mapping in the experiment file`)
      }
    }
    if (value === null) doc.deleteIn(keys)
    else doc.setIn(keys, doc.createNode(value))
  }
  return doc.toString()
}

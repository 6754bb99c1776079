// The telemetry vocabulary (DESIGN §6): every series kind p4lab stores, the keys of its entity
// and its unit. The simulator, the BMv2 and Tofino pollers and the INT collector all emit these
// kinds; test/telemetry/vocabulary.test.ts holds each of them to this list. The simulator cannot
// import core (src-main/sim is pure), so it writes the same strings and the test checks them.
//
// Units:
//   ratio    0..1 (utilization, DRE estimates, DCTCP's alpha)
//   packets  a number of packets at an instant (queue depth)
//   bytes    a number of bytes at an instant (a window), or bytes in the sampling interval
//   count    events counted in the sampling interval (drops, marks, retransmits, best-hop changes)
//   port     a port number (a choice, not a quantity: never averaged in a view)
//   level    a quantised congestion level as a switch holds it (CONGA's 3-bit metric; HULA's
//            8-bit path utilization on BMv2/Tofino, 0 idle .. 255 saturated)
//   degree   DHLB's load degree (0..7)
//   ns       nanoseconds
//   cores    CPU time per second of a process (1 = one core busy the whole interval)
//   bps      bits per second over the interval

export type SeriesUnit = 'ratio' | 'packets' | 'bytes' | 'count' | 'port' | 'level' | 'degree' | 'ns' | 'cores' | 'bps'

export interface SeriesKindDef {
  /** The entity's keys, in the order they are written. */
  entity: readonly string[]
  /** Accepted units: most kinds have one; a kind read from hardware may hold a quantised form. */
  units: readonly SeriesUnit[]
  /** Also accepted with an empty entity {}: the fabric-wide total of the kind. */
  fabricWide?: boolean
  /** A choice (a port), not a quantity: views show the last value, roll-ups keep min/max only meaningfully. */
  categorical?: boolean
  what: string
}

export const SERIES_KINDS = {
  // per port (the sim's sampler; BMv2/Tofino poll Egress.portTx)
  'link.util': { entity: ['switch', 'port'], units: ['ratio'], what: 'utilization of the link out of a switch port' },
  'queue.depth': { entity: ['switch', 'port'], units: ['packets'], what: 'egress queue depth at the sampling instant' },
  'queue.maxDepth': { entity: ['switch', 'port'], units: ['packets'], what: 'deepest the egress queue got in the interval' },
  drops: { entity: ['switch', 'port'], units: ['count'], what: 'packets dropped (tail drop) at a port in the interval' },
  'ecn.marks': { entity: ['switch', 'port'], units: ['count'], what: 'packets ECN-marked at a port in the interval' },
  // the host a software switch runs on (BMv2: targets/bmv2/hostload.ts)
  'switch.cpu': { entity: ['switch'], units: ['cores'], what: "CPU the software switch's process used in the interval (all its threads)" },
  'switch.drops': { entity: ['switch'], units: ['count'], what: "packets that entered a software switch's interfaces and did not leave them in the interval" },
  'host.sent': { entity: ['host'], units: ['bps'], what: 'throughput a host put on its link into the fabric' },
  'host.received': { entity: ['host'], units: ['bps'], what: 'throughput the fabric delivered to a host (achieved)' },
  // fabric-wide transport
  'tcp.retransmits': { entity: [], units: ['count'], what: 'TCP segments retransmitted in the interval' },
  'tcp.dctcpAlpha': { entity: [], units: ['ratio'], what: "mean DCTCP alpha over active senders" },
  // probes
  'probe.count': { entity: ['link'], units: ['count'], fabricWide: true, what: 'probe packets sent in the interval' },
  'probe.bytes': { entity: ['link'], units: ['bytes'], fabricWide: true, what: 'probe bytes sent in the interval' },
  // HULA
  'hula.bestHop': { entity: ['switch', 'dstTor'], units: ['port'], categorical: true, what: 'best next hop toward a ToR' },
  'hula.pathUtil': { entity: ['switch', 'dstTor'], units: ['ratio', 'level'], what: 'utilization of the best path toward a ToR (sim: ratio; BMv2/Tofino register: 8-bit level)' },
  'hula.bestHopChanges': { entity: [], units: ['count'], what: 'best-hop changes in the interval, fabric-wide' },
  // CONGA
  'conga.metric': { entity: ['leaf', 'dstLeaf', 'uplink'], units: ['level'], what: 'congestion-to-leaf table entry (3-bit metric)' },
  'conga.dre': { entity: ['switch', 'port'], units: ['ratio'], what: "a port's DRE utilization estimate" },
  // DHLB
  'dhlb.loadDegree': { entity: ['switch', 'dstTor', 'port'], units: ['degree'], what: 'load-information table: degree of the path via a port toward a ToR' },
  'dhlb.probePeriod': { entity: [], units: ['ns'], what: 'the adaptive probe period' },
  'dhlb.meanLoad': { entity: [], units: ['ratio'], what: 'mean fabric load the probe period adapts to' },
  // Floodgate
  'floodgate.window': { entity: ['switch', 'dst'], units: ['bytes'], what: 'per-destination window in flight' },
  'floodgate.voq': { entity: ['switch', 'dst'], units: ['packets'], what: 'per-destination VOQ length' },
  'floodgate.creditBytes': { entity: [], units: ['count'], what: 'credit bytes sent in the interval' },
  'floodgate.voqDrops': { entity: [], units: ['count'], what: 'VOQ drops in the interval' },
  'floodgate.pauseFrames': { entity: [], units: ['count'], what: 'pause frames in the interval' },
  // INT (the collector; switch = the hop's Switch ID, or the reporting Node ID)
  'int.hopLatency': { entity: ['switch'], units: ['ns'], what: "INT Hop latency of a hop (the device's unit; p4lab's v1model option writes ns)" },
  'int.queue': { entity: ['switch', 'queue'], units: ['packets'], what: 'INT Queue occupancy seen by a hop, per Queue ID (BMv2: packets)' },
  'int.txUtil': { entity: ['switch', 'port'], units: ['level'], what: "INT Egress port Tx utilization as the device reports it (the spec leaves its scale to the device)" },
  'int.buffer': { entity: ['switch', 'buffer'], units: ['packets'], what: 'INT Buffer occupancy per Buffer ID (BMv2: packets)' },
  'int.e2eDelay': { entity: ['src', 'dst'], units: ['ns'], what: 'end-to-end delay per flow: sum of hop latencies of a report' },
} as const satisfies Record<string, SeriesKindDef>

export type SeriesKind = keyof typeof SERIES_KINDS

export interface SeriesDef {
  kind: string
  entity: Record<string, string | number>
  unit: string
}

export function isSeriesKind(kind: string): kind is SeriesKind {
  return Object.prototype.hasOwnProperty.call(SERIES_KINDS, kind)
}

/** Why a series definition does not follow the vocabulary, or null when it does. */
export function seriesProblem(d: SeriesDef): string | null {
  if (!isSeriesKind(d.kind)) return `unknown series kind '${d.kind}'`
  const def: SeriesKindDef = SERIES_KINDS[d.kind]
  const keys = Object.keys(d.entity)
  const wanted = def.entity
  const fabricWide = def.fabricWide === true && keys.length === 0
  if (!fabricWide && (keys.length !== wanted.length || wanted.some((k) => !keys.includes(k)))) {
    return `${d.kind}: entity keys {${keys.join(',')}} (expected {${wanted.join(',')}}${def.fabricWide ? ' or {}' : ''})`
  }
  if (!(def.units as readonly string[]).includes(d.unit)) return `${d.kind}: unit '${d.unit}' (expected ${def.units.join(' or ')})`
  return null
}

/** Builds a series definition, checked at compile time against the vocabulary. */
export function series<K extends SeriesKind>(
  kind: K,
  entity: { [P in (typeof SERIES_KINDS)[K]['entity'][number]]: string | number },
  unit: (typeof SERIES_KINDS)[K]['units'][number],
): SeriesDef {
  return { kind, entity: entity as Record<string, string | number>, unit }
}

/** `kind{k=v,...}`, the way logs and the CLI name a series. */
export function seriesName(d: { kind: string; entity: Record<string, string | number> }): string {
  const e = Object.entries(d.entity)
  return e.length === 0 ? d.kind : `${d.kind}{${e.map(([k, v]) => `${k}=${v}`).join(',')}}`
}

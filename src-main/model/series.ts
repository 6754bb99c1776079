// The shared telemetry vocabulary: every series kind p4lab stores that is not one scheme's own,
// the keys of its entity and its unit. Each scheme declares its own kinds in its descriptor
// (src-main/schemes/<name>/series.ts); src-main/schemes/index.ts joins the two into SERIES_KINDS,
// with the checks (series, seriesProblem). The simulator, the BMv2 and Tofino pollers and the INT
// collector all emit these kinds; test/telemetry/vocabulary.test.ts holds each of them to it.
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
  // per port (the sim's sampler; BMv2/Tofino poll MyEgress.portTx)
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
  'drops.unroutable': { entity: [], units: ['count'], what: 'packets dropped in the interval for lack of a live route (sent into a dead end after a failure)' },
  'tcp.dctcpAlpha': { entity: [], units: ['ratio'], what: "mean DCTCP alpha over active senders" },
  'tcp.dcqcnRate': { entity: [], units: ['bps'], what: 'mean DCQCN current rate (Rc) over active senders, at the sampling instant' },
  // a switch's shared buffer (the sim's `buffer: shared`)
  'buffer.used': { entity: ['switch'], units: ['bytes'], what: "bytes in a switch's shared buffer (shared pool and PFC headroom) at the sampling instant" },
  // probes
  'probe.count': { entity: ['link'], units: ['count'], fabricWide: true, what: 'probe packets sent in the interval' },
  'probe.bytes': { entity: ['link'], units: ['bytes'], fabricWide: true, what: 'probe bytes sent in the interval' },
  // INT (the collector; switch = the hop's Switch ID, or the reporting Node ID)
  'int.hopLatency': { entity: ['switch'], units: ['ns'], what: "INT Hop latency of a hop (the device's unit; p4lab's v1model option writes ns)" },
  'int.queue': { entity: ['switch', 'queue'], units: ['packets'], what: 'INT Queue occupancy seen by a hop, per Queue ID (BMv2: packets)' },
  'int.txUtil': { entity: ['switch', 'port'], units: ['level'], what: "INT Egress port Tx utilization as the device reports it (the spec leaves its scale to the device)" },
  'int.buffer': { entity: ['switch', 'buffer'], units: ['packets'], what: 'INT Buffer occupancy per Buffer ID (BMv2: packets)' },
  'int.e2eDelay': { entity: ['src', 'dst'], units: ['ns'], what: 'end-to-end delay per flow: sum of hop latencies of a report' },
} as const satisfies Record<string, SeriesKindDef>

/** A series before the store gives it an id (the contract's SeriesSpec). */
export type { SeriesSpec as SeriesDef } from '../contract/schemas'

/** `kind{k=v,...}`, the way logs and the CLI name a series. */
export function seriesName(d: { kind: string; entity: Record<string, string | number> }): string {
  const e = Object.entries(d.entity)
  return e.length === 0 ? d.kind : `${d.kind}{${e.map(([k, v]) => `${k}=${v}`).join(',')}}`
}

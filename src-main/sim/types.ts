// The simulator's public surface: what a run is configured with and what it returns.
// Everything here is plain data so it crosses a worker_threads boundary unchanged.
// Units: bits per second, bytes, and nanoseconds at the boundary (the engine itself
// keeps integer picoseconds).

import type { SeriesDef } from '../model/series'
import type { Destinations } from '../model/topology/destinations'
import type { CustomSpec, FabricSpec, FatTreeSpec, LeafSpineSpec, ThreeTierSpec } from '../model/topology/types'

/** What the simulator adds to a fabric graph: its buffers. */
export interface QueueParams {
  /** Drop-tail capacity of each switch output queue, in packets. */
  queuePackets: number
  /**
   * Most data packets a host's NIC queue holds; a sender that finds it full waits (TCP
   * Small Queues / qdisc backpressure), it never drops. Default DEFAULT_HOST_QUEUE_PACKETS.
   */
  hostQueuePackets?: number
}

/** A two-tier leaf-spine; the original topology of the simulator, kept as it was. */
export interface LeafSpineTopology extends LeafSpineSpec, QueueParams {}
export interface FatTreeTopology extends FatTreeSpec, QueueParams {}
export interface ThreeTierTopology extends ThreeTierSpec, QueueParams {}
export interface CustomTopology extends CustomSpec, QueueParams {}

/**
 * Any fabric the topology module builds (src-main/topology), plus buffer sizes. Links
 * removed or slowed by name (`remove`, `rates`) are applied before the run; failures
 * during the run are `SimConfig.linkEvents`.
 */
export type Topology = LeafSpineTopology | FatTreeTopology | ThreeTierTopology | CustomTopology
export type { FabricSpec }

/**
 * Default host NIC limit, in data packets: twice the usual initial window of 10. A new
 * flow on an idle host can hand its whole initial window to the NIC at once (so an idle
 * network behaves as with an unbounded NIC), while a packet waits behind at most 20
 * others at its own host (24 us at 10G, about two base RTTs of a small fabric) instead of
 * behind a large flow's whole window. Linux sits in the same range: BQL keeps a 10G NIC's
 * ring at tens of KB, and TSQ holds a socket's packets back once ~2 are queued (or ~1 ms at
 * its pacing rate), leaving the rest in the socket, interleaved with other flows by the qdisc.
 * Measured on the quickstart scenario (web-search 0.3/0.6, ECMP and RPS): limits of 2 to 20
 * give the same FCTs within noise; 40 and 100 raise drops, timeouts and FCTs (p50 at 0.3:
 * 235 us at 20, 290 us at 40, 425 us at 100), since a flow's usable window is its path's
 * BDP plus this limit.
 */
export const DEFAULT_HOST_QUEUE_PACKETS = 20

/** DCTCP's marking threshold at 10G; the default scales it with each port's rate. */
export const DCTCP_K_AT_10G = 65

export interface PfcConfig {
  /** XOFF at α_pfc × (free shared bytes) of one ingress port's lossless bytes. */
  alpha: number
  /** Resume once the port's lossless bytes are this far below XOFF (and its headroom is empty). */
  xonOffsetBytes: number
  /**
   * Headroom per ingress port, bytes. Default: what can still arrive after XOFF, i.e. the
   * link's rate × (2 × delay) plus three MTUs (the packet in serialization at each end and the
   * one that crossed the threshold) plus the pause frame.
   */
  headroomBytes?: number
}

/** SimConfig.buffer: a shared buffer per switch instead of per-port queues (net/buffer.ts). */
export interface BufferConfig {
  kind: 'shared'
  /** Buffer of every switch, bytes (headroom included). */
  sizeBytes: number
  /** Dynamic-threshold α of the lossy class. */
  alpha: number
  pfc?: PfcConfig
}

/** A scheme's name; the stage that implements it is passed in (src-main/schemes). */
export type SchemeName = string

/**
 * DCQCN's parameters ("Congestion Control for Large-Scale RDMA Deployments", ACM SIGCOMM
 * 2015); every one has the paper's value as its default (DCQCN_DEFAULTS, tcp/dcqcn.ts).
 */
export interface DcqcnParams {
  /** Switch RED marking on the egress queue's bytes: none below Kmin, probability rising to Pmax at Kmax, all above. */
  kminBytes: number
  kmaxBytes: number
  pmax: number
  /** α's gain. */
  g: number
  /** The receiver sends at most one CNP per flow per this interval. */
  cnpIntervalNs: number
  /** α decays by (1 − g) every this long without a CNP. */
  alphaTimerNs: number
  /** Rate-increase timer and byte counter: each expiry is one increase event. */
  rateTimerNs: number
  byteCounterBytes: number
  /** Increase events of fast recovery before additive increase (F). */
  fastRecoverySteps: number
  /** Additive and hyper increase steps of the target rate. */
  raiBps: number
  rhaiBps: number
  /** The rate never drops below this. */
  minRateBps: number
}

export interface TransportConfig {
  /**
   * 'dctcp': ECN-capable senders, switches mark CE at the threshold, cwnd × (1 − α/2) per window.
   * 'dcqcn': RoCE-style rate-based senders (tcp/dcqcn.ts), RED marking at switches, CNPs.
   */
  kind: 'newreno' | 'dctcp' | 'dcqcn'
  /** TCP payload bytes per segment; the wire packet adds 40 B of TCP/IP header. */
  mssBytes: number
  initCwndPackets: number
  minRtoNs: number
  /**
   * DCTCP only: every switch port marks an ECN-capable packet CE when it arrives to find
   * at least this many packets queued. Default: round(65 × port rate / 10G) per port
   * (K = 65 at 10G, scaled with the link speed as the DCTCP paper's guidance does).
   */
  ecnThresholdPackets?: number
  /** DCTCP's EWMA gain g for α; default 1/16. */
  dctcpG?: number
  /** DCQCN only: any parameter left out takes the DCQCN paper's value. */
  dcqcn?: Partial<DcqcnParams>
}

export interface ExplicitFlow {
  src: number
  dst: number
  sizeBytes: number
  startNs: number
  /**
   * Flows given the same label share one persistent connection (one 5-tuple and one
   * congestion state), sent one after another in arrival order; omitted: a connection of its own.
   */
  connection?: number
}

export interface PoissonWorkload {
  kind: 'poisson'
  /** Flow-size CDF as [bytes, cumulative probability] points, interpolated linearly. */
  cdf: Array<[number, number]>
  /** Offered load relative to the host link, in (0, 1]. */
  load: number
  /** Number of flows to generate. */
  flows: number
  /** Whom a source sends to: hosts of other racks (default), of other pods, or any other host. */
  destinations?: Destinations
  /**
   * The HULA paper's client-server model (its §6): each host, as a client, picks `servers`
   * servers at random (default 1) and opens `perServer` persistent connections to each;
   * flows are Poisson per connection and queue FIFO on it. Omitted: one new connection per
   * flow, Poisson per host.
   */
  connections?: ClientServerConnections
}

/**
 * How clients choose their servers. `random`: each client draws its own, independently, so
 * a server may be chosen by several clients (and then its downlink is offered a multiple
 * of the load) or by none. `permutation`: a random one-to-one assignment over the
 * destination set, so each server has exactly `servers` clients and every downlink is
 * offered the load itself.
 */
export const SERVER_CHOICES = ['random', 'permutation'] as const
export type ServerChoice = (typeof SERVER_CHOICES)[number]

export interface ClientServerConnections {
  perServer: number
  servers?: number
  /** Omitted: random. */
  choice?: ServerChoice
}

/**
 * Incast on top of Poisson background traffic (Floodgate's mix). Incast events arrive as
 * a Poisson process at `ratePerSec` over the whole fabric; each picks a receiver uniformly,
 * a fan-in N from `fanIn`, and N distinct senders (on other racks when there are enough
 * hosts there), each of which sends `flowBytes` to the receiver at the event's instant.
 */
export interface IncastWorkload {
  kind: 'incast'
  /** Background traffic, generated exactly as a 'poisson' workload with these settings. */
  background: Omit<PoissonWorkload, 'kind'>
  incast: {
    /** Number of incast events. */
    events: number
    ratePerSec: number
    flowBytes: number
    /** A fixed fan-in, or [fanIn, weight] choices ([[1,10],[5,60],[10,30]]). */
    fanIn: number | Array<[number, number]>
  }
}

/**
 * Long-lived flows: they never finish (or finish at sizeBytes). FCT means nothing for
 * them; SimFlows.deliveredBytes and the throughput counters do.
 */
export interface LongLivedWorkload {
  kind: 'long-lived'
  /** Explicit [src, dst] host pairs; otherwise `flows` random pairs on different racks. */
  pairs?: Array<[number, number]>
  flows?: number
  /** Finite size in bytes; omitted means unbounded (reported as sizeBytes = -1). */
  sizeBytes?: number
  /** All flows start here (default 0). */
  startNs?: number
}

/** Every host sends one flow to a distinct host: a random derangement of the hosts. */
export interface PermutationWorkload {
  kind: 'permutation'
  /** Omitted means unbounded: the flows run until maxSimTimeNs. */
  sizeBytes?: number
  startNs?: number
}

export type WorkloadConfig =
  | PoissonWorkload
  | { kind: 'explicit'; flows: ExplicitFlow[] }
  | IncastWorkload
  | LongLivedWorkload
  | PermutationWorkload

/**
 * Forwarding state of the fabric, as data. The control plane (core) renders it from its
 * own computation; when SimConfig.routes is absent the simulator computes the same thing
 * from the topology (shortest paths, `distancesTo` / `shortestNextHops`).
 *
 * `switches[nodeId]` is the table of the switch that is node `nodeId` of the Fabric
 * (`buildFabric(config.topology)`); every switch must have one. Ports are that node's
 * port numbers (down-facing first, then up-facing, as in the fabric graph).
 *
 * A packet's path: destination host → its ToR → at a switch that is not that ToR, the
 * candidate group `toTor[dstTorIndex]` (the ECMP group); at the destination ToR, the host's
 * port from `hosts`. The scheme's forwarding stage picks one member of the group.
 */
export interface SimRoutes {
  switches: Record<number, SwitchRoutes>
}

export interface SwitchRoutes {
  /**
   * toTor[t] = candidate egress ports toward ToR t, where t indexes Fabric.tors. An empty
   * list means no route (packets are dropped and counted as unroutable). A ToR's own
   * entry is ignored.
   */
  toTor: number[][]
  /** ToRs only: [host index, port] for each directly attached host. */
  hosts?: Array<[number, number]>
}

/** A link going down or coming back during the run. Down drops what it holds. */
export interface LinkEvent {
  /** Link name as in the fabric graph ("spine1-agg3"), either order. */
  link: string
  atNs: number
  up: boolean
}

export interface SimConfig {
  topology: Topology
  scheme: SchemeName
  /** Scheme parameters (flowletGapNs, probePeriodNs, ...), read by the scheme's stage. */
  schemeParams?: Record<string, number>
  transport: TransportConfig
  workload: WorkloadConfig
  /** Forwarding tables; computed from the topology when absent. */
  routes?: SimRoutes
  /** Link failures and recoveries at given times. */
  linkEvents?: LinkEvent[]
  /**
   * What routing does when a link goes down (or comes back), at that instant:
   * 'global' (default) withdraws every candidate port that can no longer reach the
   * destination ToR over live links (routing has converged); 'local' only removes the dead
   * port from its own two switches' groups (data-plane fast failover), so a switch further
   * up may still send into a dead end, where packets are dropped as unroutable.
   */
  failover?: 'global' | 'local'
  seed: number
  /** Sampling interval of the telemetry series; 0 turns sampling off. */
  telemetryIntervalNs: number
  /** Hard stop; flows unfinished by then are reported with finishNs = -1. */
  maxSimTimeNs: number
  /**
   * Switch buffers: absent means per-port drop-tail queues of topology.queuePackets (the
   * default); 'shared' gives each switch one buffer with dynamic thresholds, and PFC if set.
   */
  buffer?: BufferConfig
}

/**
 * A series the run will emit, in the telemetry vocabulary (model/series.ts and each scheme's
 * own kinds). Port series have entity {switch, port}; fabric-wide ones {}.
 */
export type SimSeriesDef = SeriesDef

export interface SimHooks {
  /** Called once, before the first telemetry call. */
  onSeries?(defs: SimSeriesDef[]): void
  /**
   * A batch of samples: t holds n instants (ns); values holds defs.length × n numbers,
   * series-major (values[i * n + j] is series i at t[j]). The arrays are not reused by
   * the simulator after the call, so they may be transferred.
   */
  onTelemetry?(t: Float64Array, values: Float64Array): void
  onProgress?(p: { simTimeNs: number; flowsDone: number; flowsTotal: number }): void
  /**
   * Flows that finished since the last call, in finish order, with their ids (index in the
   * run's flow list), so a store can keep them before the run ends. Values as in SimFlows.
   * The arrays are not reused, so they may be transferred.
   */
  onFlows?(batch: SimFlowBatch): void
}

export interface SimFlowBatch {
  id: Int32Array
  src: Int32Array
  dst: Int32Array
  sizeBytes: Float64Array
  startNs: Float64Array
  finishNs: Float64Array
}

export interface SimFlows {
  src: Int32Array
  dst: Int32Array
  /** -1 for an unbounded (long-lived or permutation) flow. */
  sizeBytes: Float64Array
  startNs: Float64Array
  /** -1 for a flow that had not finished at maxSimTimeNs. */
  finishNs: Float64Array
  /** Payload bytes the receiver got in order by the end of the run. */
  deliveredBytes: Float64Array
  /** Incast event of the flow (0, 1, ...), or -1 for any other flow. */
  group: Int32Array
}

export interface SimCounters {
  events: number
  /** Packets carried across one link (data, ACKs and control packets). */
  packetHops: number
  dataPacketsSent: number
  ackPacketsSent: number
  /** Every packet lost: full queues, dead links and unroutable packets. */
  drops: number
  /** Of drops: packets a link held (queued or on the wire) when it went down, or offered to it while down. */
  linkDownDrops: number
  /** Packets lost on the wire of lossy links (custom topologies), part of drops; absent when none. */
  lossDrops?: number
  /** Of drops: packets with no live candidate port at some switch. */
  unroutableDrops: number
  /** Packets marked CE by switch queues (DCTCP). */
  ecnMarks: number
  retransmits: number
  timeouts: number
  fastRetransmits: number
  /** First transmissions that reached the receiver behind a higher sequence number. */
  reorderedPackets: number
  payloadBytesSent: number
  payloadBytesDelivered: number
  /** payloadBytesDelivered × 8 / simulated time: the fabric's goodput (long-lived runs). */
  goodputBps: number
  /** Probe and credit packets put on links by the forwarding stage, counted per hop, and their bytes. */
  controlPackets: number
  controlBytes: number
  simTimeNs: number
  /** Peak number of pending events (bounded by the element count, not the traffic). */
  maxHeapSize?: number
  /** Peak number of live packets in the pool (in queues, on wires). */
  maxPacketsInFlight?: number
  /** Peak number of data packets in one host NIC queue (ACKs excluded); at most hostQueuePackets. */
  maxHostQueuePackets?: number
  /** Shared buffer only: the most bytes one switch held at once, over all switches (never above buffer.size). */
  maxSwitchBufferBytes?: number
  /** Shared buffer only: drops of lossless-class packets (0 under PFC with enough headroom) and of lossy ones. */
  losslessDrops?: number
  lossyDrops?: number
  /** PFC: PAUSE and resume frames sent, and the longest time from a pause's decision to its taking effect upstream (ns). */
  pfcPauseFrames?: number
  pfcResumeFrames?: number
  pfcMaxPauseLagNs?: number
  /**
   * The most bytes held at once for one egress port, per tier: ToR ports toward the
   * fabric, ToR ports toward hosts, and every other switch's ports (the Floodgate paper's
   * ToR-up, ToR-down and core). Held: the port's queue plus the bytes its switch keeps for
   * it outside the queue (Floodgate's VOQs of that port, those charged to the switch; what
   * PAUSE leaves waiting at the sender is not); for schemes without VOQs, the queue alone.
   */
  maxQueueBytesTorUp?: number
  maxQueueBytesTorDown?: number
  maxQueueBytesCore?: number
  /** Bytes serialized on links between two switches, and controlBytes' share of them (Floodgate's credit overhead). */
  switchLinkBytes?: number
  controlShare?: number
}

export interface SimEvent {
  tNs: number
  /** 'link.down', 'link.up', and scheme events ('hula.bestHop', ...). */
  kind: string
  detail: string
}

export interface SimResult {
  flows: SimFlows
  counters: SimCounters
  /** At most MAX_SIM_EVENTS entries; later ones are counted in eventsDropped. */
  events: SimEvent[]
  eventsDropped: number
}

export const MAX_SIM_EVENTS = 10_000

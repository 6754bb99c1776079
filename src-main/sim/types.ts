// The simulator's public surface: what a run is configured with and what it returns.
// Everything here is plain data so it crosses a worker_threads boundary unchanged.
// Units: bits per second, bytes, and nanoseconds at the boundary (the engine itself
// keeps integer picoseconds).

export interface LeafSpineTopology {
  kind: 'leaf-spine'
  leaves: number
  spines: number
  hostsPerLeaf: number
  hostLinkBps: number
  fabricLinkBps: number
  /** Propagation delay of every link. */
  linkDelayNs: number
  /** Drop-tail capacity of each switch output queue, in packets. */
  queuePackets: number
  /**
   * Most data packets a host's NIC queue holds; a sender that finds it full waits (TCP
   * Small Queues / qdisc backpressure), it never drops. Default DEFAULT_HOST_QUEUE_PACKETS.
   */
  hostQueuePackets?: number
}

export type Topology = LeafSpineTopology

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

export type SchemeName = 'ecmp' | 'rps'

export interface TransportConfig {
  kind: 'newreno'
  /** TCP payload bytes per segment; the wire packet adds 40 B of TCP/IP header. */
  mssBytes: number
  initCwndPackets: number
  minRtoNs: number
}

export interface ExplicitFlow {
  src: number
  dst: number
  sizeBytes: number
  startNs: number
}

export type WorkloadConfig =
  | {
      kind: 'poisson'
      /** Flow-size CDF as [bytes, cumulative probability] points, interpolated linearly. */
      cdf: Array<[number, number]>
      /** Offered load relative to the host link, in (0, 1]. */
      load: number
      /** Number of flows to generate. */
      flows: number
    }
  | { kind: 'explicit'; flows: ExplicitFlow[] }

export interface SimConfig {
  topology: Topology
  scheme: SchemeName
  transport: TransportConfig
  workload: WorkloadConfig
  seed: number
  /** Sampling interval of the link-utilization and queue-depth series. */
  telemetryIntervalNs: number
  /** Hard stop; flows unfinished by then are reported with finishNs = -1. */
  maxSimTimeNs: number
}

/** A series the run will emit, in the telemetry vocabulary of DESIGN §6. */
export interface SimSeriesDef {
  kind: 'link.util' | 'queue.depth'
  entity: { switch: string; port: number }
  unit: 'ratio' | 'packets'
}

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
}

export interface SimFlows {
  src: Int32Array
  dst: Int32Array
  sizeBytes: Float64Array
  startNs: Float64Array
  /** -1 for a flow that had not finished at maxSimTimeNs. */
  finishNs: Float64Array
}

export interface SimCounters {
  events: number
  /** Packets carried across one link (data and ACKs). */
  packetHops: number
  dataPacketsSent: number
  ackPacketsSent: number
  drops: number
  retransmits: number
  timeouts: number
  fastRetransmits: number
  /** First transmissions that reached the receiver behind a higher sequence number. */
  reorderedPackets: number
  payloadBytesSent: number
  payloadBytesDelivered: number
  simTimeNs: number
  /** Peak number of pending events (bounded by the element count, not the traffic). */
  maxHeapSize?: number
  /** Peak number of live packets in the pool (in queues, on wires). */
  maxPacketsInFlight?: number
  /** Peak number of data packets in one host NIC queue (ACKs excluded); at most hostQueuePackets. */
  maxHostQueuePackets?: number
}

export interface SimResult {
  flows: SimFlows
  counters: SimCounters
}

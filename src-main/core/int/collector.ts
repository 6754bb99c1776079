// The INT collector: a UDP socket that decodes Telemetry Report v2.0 packets (decode.ts), counts
// and skips malformed ones, keeps the last reports for the UI, and turns every hop into samples
// of the telemetry vocabulary through the ingest path:
//
//   int.hopLatency{switch}        Hop latency (ns as p4lab's v1model option writes it)
//   int.queue{switch,queue}       Queue occupancy per Queue ID
//   int.txUtil{switch,port}       Egress port Tx utilization, per Level 1 Egress Port ID
//   int.buffer{switch,buffer}     Buffer occupancy per Buffer ID
//   int.e2eDelay{src,dst}         sum of a report's hop latencies, per inner flow (IP addresses)
//
// switch is the hop's Switch ID (a report's own metadata: the reporting Node ID), in decimal, or
// the name `switchName` gives it (a BMv2 run names its switches as its other series do). A hop
// without one (bit 0 not requested) feeds no per-switch series. The all-ones value, which the
// INT spec reserves for "not available", is skipped. `e2eDelay: false` leaves int.e2eDelay out
// (postcards carry one hop each, so their sum is no end-to-end delay).
//
// Samples are timed by the collector's clock (ns since start), or by the arrival time the caller
// gives receive() (a relay that timestamped the datagram where it arrived); two samples of one
// series are at least 1 ns apart, so reports that arrive together are all kept.
//
// UDP has no flow control. When the store falls behind, ingest blocks in synchronous writes
// (it never drops), the kernel's socket buffer fills and the kernel drops datagrams. Those
// losses are counted from gaps in each (Node ID, hw_id)'s Sequence Number (`lost`).
import { createSocket, type Socket } from 'node:dgram'
import { IntDecoder, reportToJson, type DecodeOptions, type IndividualReport, type TelemetryReportPacket } from './decode'
import type { Ingest } from '../telemetry/ingest'
import type { SeriesDef } from '../../model/series'

/** Where samples go: an Ingest, or anything that defines series and takes points the same way. */
export type IntSampleSink = Pick<Ingest, 'seriesCount' | 'defineSeries' | 'pushPoints'>

export interface CollectorOptions {
  port: number
  /** Address to bind; default 0.0.0.0 (switches report from other hosts or namespaces). */
  host?: string
  decode?: DecodeOptions
  /** When given, hops become samples of the run this ingest belongs to. */
  ingest?: IntSampleSink
  /** The series' switch name for a Switch ID (default: the ID in decimal; also when this returns undefined). */
  switchName?: (switchId: number) => string | undefined
  /** Emit int.e2eDelay per inner flow (default true). */
  e2eDelay?: boolean
  /** How many decoded reports to keep for the UI (default 100). */
  keepReports?: number
  /** Called for every decoded individual report. */
  onReport?: (packet: TelemetryReportPacket, report: IndividualReport) => void
  /** Called for every malformed datagram. */
  onMalformed?: (reason: string, bytes: number) => void
  /** ns clock for samples; default: process.hrtime since start. */
  clockNs?: () => number
}

export interface CollectorCounts {
  packets: number
  decoded: number
  malformed: number
  reports: number
  hops: number
  samples: number
  /** Reports missing by their group headers' Sequence Numbers. */
  lost: number
}

export interface KeptReport {
  /** Receive time (ms since the epoch). */
  at: number
  /** The JSON line of the report (reportToJson). */
  json: string
}

const SEQ_MOD = 1 << 22
const ALL_ONES_32 = 0xffffffff

export class IntCollector {
  readonly decoder: IntDecoder
  private socket: Socket | null = null
  private readonly kept: KeptReport[] = []
  private readonly seriesIndex = new Map<string, number>()
  private readonly lastT: number[] = []
  private readonly lastSeq = new Map<string, number>()
  private lostReports = 0
  private sampleCount = 0
  private readonly clock: () => number
  // one pushPoints per datagram
  private ps: number[] = []
  private pt: number[] = []
  private pv: number[] = []

  constructor(private readonly opts: CollectorOptions) {
    this.decoder = new IntDecoder(opts.decode ?? {})
    const t0 = process.hrtime.bigint()
    this.clock = opts.clockNs ?? (() => Number(process.hrtime.bigint() - t0))
  }

  get counts(): CollectorCounts {
    return { ...this.decoder.counts, samples: this.sampleCount, lost: this.lostReports }
  }

  /** Binds the socket; resolves with the port it listens on (useful with port 0). */
  start(): Promise<number> {
    const socket = createSocket({ type: 'udp4', reuseAddr: false })
    this.socket = socket
    socket.on('message', (msg) => this.receive(msg))
    return new Promise((resolve, reject) => {
      socket.once('error', reject)
      socket.bind(this.opts.port, this.opts.host ?? '0.0.0.0', () => {
        socket.off('error', reject)
        // Socket errors after binding (e.g. ICMP) must not kill the collector.
        socket.on('error', () => {})
        resolve(socket.address().port)
      })
    })
  }

  async stop(): Promise<void> {
    const s = this.socket
    this.socket = null
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()))
  }

  /** The last decoded reports, oldest first. */
  lastReports(): KeptReport[] {
    return [...this.kept]
  }

  /**
   * Handles one datagram (the socket calls this; tests and relays may too). `atNs` times its
   * samples (ns on the run's time axis) instead of the collector's clock.
   */
  receive(buf: Uint8Array, atNs?: number): void {
    const r = this.decoder.decode(buf)
    if (!r.ok) {
      this.opts.onMalformed?.(r.reason, buf.length)
      return
    }
    const p = r.packet
    this.countLoss(p)
    const keep = this.opts.keepReports ?? 100
    for (const rep of p.reports) {
      if (keep > 0) {
        this.kept.push({ at: Date.now(), json: reportToJson(p, rep) })
        if (this.kept.length > keep) this.kept.shift()
      }
      this.opts.onReport?.(p, rep)
      if (this.opts.ingest) this.samplesOf(rep, atNs ?? this.clock())
    }
    if (this.opts.ingest && this.ps.length > 0) {
      this.opts.ingest.pushPoints(this.ps, this.pt, this.pv)
      this.sampleCount += this.ps.length
      this.ps = []
      this.pt = []
      this.pv = []
    }
  }

  private countLoss(p: TelemetryReportPacket): void {
    const key = `${p['Node ID']}/${p.hw_id}`
    const seq = p['Sequence Number']
    const last = this.lastSeq.get(key)
    this.lastSeq.set(key, seq)
    if (last === undefined) return
    const gap = (seq - last - 1 + SEQ_MOD) % SEQ_MOD
    // A jump of more than half the sequence space is a restart or reordering, not loss.
    if (gap < SEQ_MOD / 2) this.lostReports += gap
  }

  private samplesOf(rep: IndividualReport, now: number): void {
    let e2e = 0
    let latencies = 0
    for (const hop of rep.hops) {
      const sw = hop['Switch ID']
      const lat = hop['Hop latency']
      if (lat !== undefined && lat !== ALL_ONES_32) {
        e2e += lat
        latencies++
      }
      if (sw === undefined) continue
      const name = this.opts.switchName?.(sw) ?? String(sw)
      if (lat !== undefined && lat !== ALL_ONES_32) this.sample({ kind: 'int.hopLatency', entity: { switch: name }, unit: 'ns' }, lat, now)
      const q = hop['Queue occupancy']
      if (q !== undefined && q !== 0xffffff) this.sample({ kind: 'int.queue', entity: { switch: name, queue: hop['Queue ID'] ?? 0 }, unit: 'packets' }, q, now)
      const util = hop['Egress port Tx utilization']
      if (util !== undefined && util !== ALL_ONES_32) {
        this.sample({ kind: 'int.txUtil', entity: { switch: name, port: hop['Level 1 Egress Port ID'] ?? 'all' }, unit: 'level' }, util, now)
      }
      const buf = hop['Buffer occupancy']
      if (buf !== undefined && buf !== 0xffffff) this.sample({ kind: 'int.buffer', entity: { switch: name, buffer: hop['Buffer ID'] ?? 0 }, unit: 'packets' }, buf, now)
    }
    if (rep.inner && latencies > 0 && this.opts.e2eDelay !== false) this.sample({ kind: 'int.e2eDelay', entity: { src: rep.inner.src, dst: rep.inner.dst }, unit: 'ns' }, e2e, now)
  }

  private sample(def: SeriesDef, value: number, now: number): void {
    const ingest = this.opts.ingest!
    const key = `${def.kind}|${JSON.stringify(def.entity)}`
    let index = this.seriesIndex.get(key)
    if (index === undefined) {
      index = ingest.seriesCount
      ingest.defineSeries([def])
      this.seriesIndex.set(key, index)
      this.lastT[index] = -1
    }
    const t = Math.max(now, this.lastT[index] + 1)
    this.lastT[index] = t
    this.ps.push(index)
    this.pt.push(t)
    this.pv.push(value)
  }
}

// The INT collector of a BMv2 run (telemetry.int on). The switches send their postcard reports
// out of their collector ports into the run's collector namespace (netns.ts); there the agent's
// relay mode (resources/agent/p4lab_agent.py `relay`), a detached process of the run like the
// traffic agents, binds the report port and writes one line per datagram (arrival time, base64).
// This side reads that output back as it grows, by byte offset (complete lines only, so a read
// that fails or races a write is simply repeated from the same offset: every datagram is
// decoded exactly once), in a loop of its own every few hundred ms (so the poll rounds keep
// their interval and the relay's output is read and decoded while a round runs), decodes each
// with the INT decoder (malformed ones counted, never fatal) and hands it to the IntCollector,
// whose int.* samples become 'series' and 'points' messages of the run's telemetry stream. The
// messages are handed on between poll rounds (take(), every read period while the poller waits
// for its next round), not during one: the orchestrator puts them through the same ingest as the
// poller's frames.
//
// Sample times: the relay's arrival time (the switch host's clock) minus the instant the traffic
// clients start (also the switch host's clock), so INT samples share the poller's time axis.
import { IntCollector, type IntSampleSink } from '../../int/collector'
import { reportToJson, type IndividualReport, type TelemetryReportPacket } from '../../int/decode'
import type { RemoteProcesses } from '../../ssh'
import type { SeriesDef } from '../../../model/series'
import { agentRelayArgv, type AgentLocation } from '../remote/agent'
import { CancelledError, type RunTestbedHost, type TargetFacts, type TargetMessage } from '../driver'
import { completeLines, parseRelayLine, type RelaySummary } from '../remote/relay-output'
import { waitListening } from './agents'
import { sleep, type RemoteRun } from '../remote/remote'

const INT_RELAY_PROCESS = 'int-relay'
/** Bytes of relay output read per request at most (about 25 000 reports). */
const INT_READ_LIMIT = 4 << 20
/** Socket buffer the relay asks for: a burst of reports waits there, not in the switch. */
const RELAY_RCVBUF = 8 << 20

/** Decoded reports kept as `int.report` events per wall-clock second, at most. */
export const REPORT_EVENTS_PER_S = 10

/** Samples made and not yet taken past which the reading loop waits (the consumer is behind). */
const MAX_PENDING_SAMPLES = 1 << 20

/**
 * Collects the collector's series and points as telemetry messages, indexed after the poller's
 * series. Points are gathered into one message until the next series or take(), so a message
 * carries many reports rather than one each; a 'series' message always precedes the points that
 * use it.
 */
class MessageSink implements IntSampleSink {
  private readonly out: TargetMessage[] = []
  private series: number[] = []
  private t: number[] = []
  private values: number[] = []
  pendingSamples = 0
  constructor(public seriesCount: number) {}

  defineSeries(defs: SeriesDef[]): number[] {
    this.flush()
    const ids = defs.map((_, i) => this.seriesCount + i)
    this.seriesCount += defs.length
    this.out.push({ type: 'series', defs: defs.map((d) => ({ kind: d.kind, entity: { ...d.entity }, unit: d.unit })) })
    return ids
  }

  pushPoints(series: ArrayLike<number>, t: ArrayLike<number>, values: ArrayLike<number>): void {
    for (let i = 0; i < series.length; i++) {
      this.series.push(series[i])
      this.t.push(t[i])
      this.values.push(values[i])
    }
    this.pendingSamples += series.length
  }

  private flush(): void {
    if (this.series.length === 0) return
    // New arrays each time: the ingest keeps the ones it is given until they are written.
    this.out.push({ type: 'points', series: this.series, t: this.t, values: this.values })
    this.series = []
    this.t = []
    this.values = []
  }

  take(): TargetMessage[] {
    this.flush()
    this.pendingSamples = 0
    return this.out.splice(0)
  }
}

export interface IntRelayOptions {
  /** The collector namespace and the report port. */
  ns: string
  port: number
  loc: AgentLocation
  /** Node ID → switch name (controlplane intNodeNames). */
  names: ReadonlyMap<number, string>
}

export interface IntRelayCounts {
  /** Datagram lines the relay wrote and were read back. */
  datagrams: number
  /** Of them: decoded as Telemetry Reports / malformed. */
  decoded: number
  malformed: number
  /** Individual reports, and per switch (by Node ID, named). */
  reports: number
  perSwitch: Record<string, number>
  /** Reports whose Node ID is no switch of the run. */
  unknownNode: number
  /** Missing by the switches' Sequence Numbers. */
  lost: number
  samples: number
  /** Lines of the relay's output that were neither a datagram nor its own JSON (warnings on stderr). */
  otherLines: number
  /** Reads of the output that failed (retried from the same offset). */
  readErrors: number
}

export class IntRelay {
  readonly name = INT_RELAY_PROCESS
  private offset = 0
  private sink: MessageSink | null = null
  private collector: IntCollector | null = null
  private t0Ns = 0n
  private readonly perSwitch = new Map<string, number>()
  private unknownNode = 0
  private datagrams = 0
  private otherLines = 0
  private readErrors = 0
  private lastReadError = ''
  private loop: Promise<void> | null = null
  private halted = false
  private loopError: Error | null = null
  /** The relay's first line (address and socket buffer) and last (its own counts). */
  listening: { address: string; rcvbuf: number | null } | null = null
  summary: RelaySummary | null = null

  constructor(
    private readonly run: RemoteRun,
    private readonly h: RunTestbedHost,
    private readonly o: IntRelayOptions,
  ) {}

  private log(line: string): void {
    this.run.ctx.log('int', line)
  }

  private procs(): Promise<RemoteProcesses> {
    return this.run.processes(this.h)
  }

  private reportSecond = 0
  private reportsThisSecond = 0

  /**
   * Some decoded reports, as `int.report` events (the JSON line `p4lab int listen --json` prints), for
   * the INT view's table of raw reports: at most REPORT_EVENTS_PER_S per wall-clock second, so
   * a busy fabric does not turn every report into a row.
   */
  private keepReport(p: TelemetryReportPacket, r: IndividualReport): void {
    const second = Math.floor(Date.now() / 1000)
    if (second !== this.reportSecond) {
      this.reportSecond = second
      this.reportsThisSecond = 0
    }
    if (this.reportsThisSecond++ >= REPORT_EVENTS_PER_S) return
    this.run.ctx.event?.('int.report', reportToJson(p, r))
  }

  /** Starts the relay in the collector namespace; returns once it listens (or throws with its output). */
  async start(timeoutMs = 15_000): Promise<void> {
    const procs = await this.procs()
    const argv = ['ip', 'netns', 'exec', this.o.ns, ...agentRelayArgv(this.o.loc, { port: this.o.port, bind: '0.0.0.0', rcvbufBytes: RELAY_RCVBUF })]
    const p = await procs.start(this.name, argv)
    this.run.ctx.log(this.h.name, `INT collector: relay on udp port ${this.o.port} in ${this.o.ns}, pid ${p.pid}`)
    const l = await waitListening(this.run, this.h, this.name, {
      what: `the INT relay in ${this.o.ns}`,
      timeoutMs,
      pollMs: 100,
      listening: (log) => log.split('\n').map(parseRelayLine).find((x) => x.kind === 'listening'),
      exitDetail: (log) => log.trim().split('\n').slice(-3).join(' / ') || 'no output',
    })
    this.listening = { address: l.address, rcvbuf: l.rcvbuf }
    this.log(`relay listening on ${l.address} in ${this.o.ns} (socket buffer ${l.rcvbuf ?? '?'} bytes)`)
  }

  /**
   * From now on datagrams become samples: series are numbered after the first `seriesBase`
   * (the poller's), times are relative to `t0Ns` (epoch ns on the switch host).
   */
  attach(seriesBase: number, t0Ns: bigint): void {
    this.t0Ns = t0Ns
    this.sink = new MessageSink(seriesBase)
    this.collector = new IntCollector({
      port: 0,
      ingest: this.sink,
      keepReports: 0,
      // Postcards carry one hop: a report's sum of hop latencies is not an end-to-end delay.
      e2eDelay: false,
      switchName: (id) => this.o.names.get(id),
      onReport: (p: TelemetryReportPacket, r: IndividualReport) => {
        const name = this.o.names.get(p['Node ID'])
        if (name === undefined) {
          this.unknownNode++
          if (this.unknownNode <= 3) this.log(`a report from Node ID ${p['Node ID']}, which is no switch of this run`)
          return
        }
        this.perSwitch.set(name, (this.perSwitch.get(name) ?? 0) + 1)
        this.keepReport(p, r)
      },
      onMalformed: (reason, bytes) => {
        const n = this.collector?.decoder.counts.malformed ?? 0
        if (n <= 5) this.log(`malformed report (${bytes} bytes): ${reason}`)
      },
    })
  }

  /** The messages made since the last call (series before the points that use them). Throws what broke the reading loop. */
  take(): TargetMessage[] {
    if (this.loopError) throw this.loopError
    return this.sink ? this.sink.take() : []
  }

  /** Reads every `periodMs` (sooner while a read comes back full) until halt() or stop(); take() hands out what it made. */
  startReading(periodMs: number): void {
    if (this.loop) return
    const signal = this.run.ctx.signal
    this.loop = (async () => {
      while (!this.halted && !signal.aborted) {
        if ((this.sink?.pendingSamples ?? 0) > MAX_PENDING_SAMPLES) {
          await sleep(20, signal)
          continue
        }
        if (await this.read()) continue
        await sleep(periodMs, signal)
      }
    })().catch((e: unknown) => {
      if (!(e instanceof CancelledError)) this.loopError = e instanceof Error ? e : new Error(String(e))
    })
  }

  /** Ends the reading loop (after its current read); idempotent. */
  async halt(): Promise<void> {
    this.halted = true
    await this.loop
    this.loop = null
  }

  /**
   * Reads what the relay wrote since the last read and decodes it. Returns true when the read
   * was cut at INT_READ_LIMIT (more is waiting). A failed read is logged and repeated next time.
   */
  private async read(): Promise<boolean> {
    return (await this.readOnce()) === 'full'
  }

  private async readOnce(): Promise<'full' | 'done' | 'failed'> {
    if (!this.collector) throw new Error('IntRelay.read before attach')
    const procs = await this.procs()
    let out: Buffer
    try {
      out = await procs.readLogFrom(this.name, this.offset, INT_READ_LIMIT, { signal: this.run.ctx.signal })
    } catch (e) {
      if (this.run.ctx.signal.aborted) throw new CancelledError()
      this.readErrors++
      this.lastReadError = (e as Error).message
      if (this.readErrors <= 3) this.log(`reading the relay's output failed (read again from byte ${this.offset}): ${this.lastReadError}`)
      return 'failed'
    }
    const { lines, bytes } = completeLines(out, INT_READ_LIMIT)
    this.offset += bytes
    for (const line of lines) this.handle(line)
    return out.length >= INT_READ_LIMIT ? 'full' : 'done'
  }

  /** Decodes one line of the relay's output. */
  private handle(line: string): void {
    const p = parseRelayLine(line)
    switch (p.kind) {
      case 'datagram':
        this.datagrams++
        this.collector!.receive(p.payload, Number(p.atNs - this.t0Ns))
        return
      case 'listening':
        this.listening = { address: p.address, rcvbuf: p.rcvbuf }
        return
      case 'summary':
        this.summary = p.summary
        return
      case 'other':
        if (p.line.trim() === '') return
        this.otherLines++
        if (this.otherLines <= 5) this.log(`relay: ${p.line.slice(0, 300)}`)
    }
  }

  /**
   * Stops the relay (TERM: it writes its counts and exits) and reads its output to the end.
   * Reports still on their way from the switches are waited for `drainMs` first.
   */
  async stop(drainMs = 1000): Promise<void> {
    if (drainMs > 0) await sleep(drainMs, this.run.ctx.signal)
    await this.halt()
    if (this.loopError) throw this.loopError
    this.run.throwIfCancelled()
    const procs = await this.procs()
    const st = await procs.stop(this.name)
    if (st.signalled === 'none') this.log('the relay had exited before the end of the traffic')
    else if (st.signalled === 'KILL') this.log('the relay did not stop on TERM and was killed: its own counts are missing')
    if (this.collector) {
      // To the end of the file; a failed read is tried again (three times) before the rest is given up.
      let failures = 0
      for (;;) {
        const r = await this.readOnce()
        if (r === 'done') break
        if (r === 'failed') {
          if (++failures >= 3) {
            this.log(`the end of the relay's output could not be read (from byte ${this.offset}): ${this.lastReadError}`)
            break
          }
          await sleep(500, this.run.ctx.signal)
          this.run.throwIfCancelled()
        }
      }
    }
    if (!this.summary) this.log('the relay wrote no summary line (it did not end on TERM)')
  }

  get counts(): IntRelayCounts {
    const c = this.collector?.counts
    return {
      datagrams: this.datagrams,
      decoded: c?.decoded ?? 0,
      malformed: c?.malformed ?? 0,
      reports: c?.reports ?? 0,
      perSwitch: Object.fromEntries([...this.perSwitch].sort(([a], [b]) => a.localeCompare(b))),
      unknownNode: this.unknownNode,
      lost: c?.lost ?? 0,
      samples: c?.samples ?? 0,
      otherLines: this.otherLines,
      readErrors: this.readErrors,
    }
  }

  /** The malformed reasons, most frequent first (at most 10). */
  malformedReasons(): Array<[string, number]> {
    return [...(this.collector?.decoder.malformedReasons ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]).slice(0, 10)
  }

  /** The run's facts about INT (stored with its results). */
  facts(): TargetFacts {
    const c = this.counts
    const f: TargetFacts = {
      intDatagrams: c.datagrams,
      intReports: c.reports,
      intMalformed: c.malformed,
      intLost: c.lost,
      intSamples: c.samples,
    }
    if (this.summary?.kernelDrops != null) f.intKernelDrops = this.summary.kernelDrops
    if (c.unknownNode) f.intUnknownNode = c.unknownNode
    if (c.readErrors) f.intReadErrors = c.readErrors
    return f
  }

  /** One line for the run's log. */
  summaryText(): string {
    const c = this.counts
    const sw = Object.entries(c.perSwitch)
    return (
      `${c.datagrams} datagrams: ${c.reports} reports (${sw.length ? sw.map(([n, k]) => `${n} ${k}`).join(', ') : 'none'}), ${c.malformed} malformed` +
      `, ${c.lost} lost by sequence number` +
      (this.summary ? `; the relay received ${this.summary.datagrams}, kernel drops ${this.summary.kernelDrops ?? 'unknown'}` : '; no count from the relay') +
      (c.unknownNode ? `; ${c.unknownNode} from unknown Node IDs` : '') +
      (c.otherLines ? `; ${c.otherLines} other lines in its output` : '') +
      (c.readErrors ? `; ${c.readErrors} failed reads (last: ${this.lastReadError})` : '')
    )
  }
}

// The BMv2 run's telemetry stream (the session's telemetry(), bmv2/driver.ts): what each switch
// is polled for and the series it feeds (seriesPlan, pure), the poll rounds (pollLoop: one
// simple_switch_CLI per switch per round with every read, until the traffic clients are done),
// and with telemetry.int the INT relay (int.ts) alongside: its reading loop runs on its own, its
// messages are handed on between the rounds; at the end it is stopped, read to the end, and its
// counts recorded (recordInt).
//
//   series    link.util per switch port (MyEgress.portTx bytes over the scaled link rate), and what
//             the scheme's descriptor says its program's registers hold (poll; HULA: hula.bestHop
//             and hula.pathUtil per switch and other ToR); the switch host's load beside them
//             (hostload.ts: switch.cpu, switch.drops, host.sent, host.received), and at the end
//             its verdict: a warning event when the switches, not the links, were the bottleneck
//   times     poll frames from the clients' start on this machine's clock; INT samples from
//             their start on the switch host's clock (IntRelay.attach)
import type { Bmv2QueueMapping, ControlPlaneState } from '../../controlplane'
import { schemeOf } from '../../../schemes'
import type { RunTestbedHost, SeriesSpec, TargetFacts, TargetMessage } from '../driver'
import { activeBps, emptyTally, hostLoadPlan, loadVerdict, sampleHost, tallyRound, type HostLoadPlan, type HostSample, type LoadTally } from './hostload'
import type { IntRelay } from './int'
import type { NetnsPlan } from '../shared/netns'
import { pollKey, type PollRead } from './output'
import { sleep, type RemoteRun } from '../shared/remote'
import { pollSwitch } from './steps'

/** One poll round's values: switch name → pollKey → value (a counter's bytes, a register's value; packetsKey: a counter's packets). */
export type PollValues = Map<string, Map<string, number>>

/** Where a round keeps a counter's packets (its bytes are under the counter's pollKey). */
const packetsKey = (key: string): string => `${key}/packets`

/** A series' value from this round and the one before (null at the first), `dtS` seconds apart; NaN when it has none. */
export type SeriesValue = (rounds: PollValues, prev: PollValues | null, dtS: number) => number

export interface SeriesPlan {
  defs: SeriesSpec[]
  /** One per def, in their order. */
  value: SeriesValue[]
  /** Switch name → what each round reads from it. */
  reads: Map<string, PollRead[]>
}

/** Reads per switch, and the series they feed. */
export function seriesPlan(state: ControlPlaneState, mapping: Bmv2QueueMapping, scheme: string): SeriesPlan {
  const reads = new Map<string, PollRead[]>()
  const defs: SeriesSpec[] = []
  const value: SeriesValue[] = []
  const d = schemeOf(scheme)
  const iface = d.controlPlane.iface('bmv2')
  for (const sw of state.switches) {
    const swReads: PollRead[] = sw.ports.map((p) => ({ kind: 'counter', name: 'MyEgress.portTx', index: p.port }))
    const polled = d.poll?.(sw, state, iface) ?? []
    for (const c of polled) if ('counter' in c) swReads.push({ kind: 'counter', name: c.counter, index: c.index })
    for (const register of new Set(polled.flatMap((c) => ('register' in c ? [c.register] : [])))) swReads.push({ kind: 'register', name: register })
    reads.set(sw.name, swReads)
    for (const p of sw.ports) {
      const scaled = mapping.ports.find((q) => q.switch === sw.name && q.port === p.port)?.scaledBps ?? p.bps * mapping.scale
      defs.push({ kind: 'link.util', entity: { switch: sw.name, port: p.port }, unit: 'ratio' })
      const key = pollKey('MyEgress.portTx', p.port)
      value.push((r, prev, dtS) => {
        const now = r.get(sw.name)?.get(key)
        const before = prev?.get(sw.name)?.get(key)
        if (now === undefined || before === undefined || dtS <= 0) return NaN
        return ((now - before) * 8) / (dtS * scaled)
      })
    }
    for (const c of polled) {
      defs.push(c.def)
      if ('counter' in c) {
        const key = packetsKey(pollKey(c.counter, c.index))
        value.push((round, prev) => {
          const now = round.get(sw.name)?.get(key)
          const before = prev?.get(sw.name)?.get(key)
          return now === undefined || before === undefined ? NaN : now - before
        })
      } else {
        const key = pollKey(c.register, c.index)
        const decode = c.value
        value.push((round) => {
          const v = round.get(sw.name)?.get(key)
          return v === undefined ? NaN : decode(v)
        })
      }
    }
  }
  return { defs, value, reads }
}

/** What the telemetry of a deployed run with its traffic started needs. */
export interface TelemetryRun {
  run: RemoteRun
  /** The switch host. */
  h: RunTestbedHost
  plan: NetnsPlan
  state: ControlPlaneState
  mapping: Bmv2QueueMapping
  /** The traffic clients: the rounds go on while one of them runs (`h`: its host, when not the switch host). */
  clients: ReadonlyArray<{ name: string; h?: RunTestbedHost }>
  /**
   * A fabric over several switch hosts: each host and its part of the plan (its switches, in its
   * switch namespace). Each switch is polled on its own host; `h` and `plan` stand for the first.
   */
  parts?: ReadonlyArray<{ h: RunTestbedHost; plan: NetnsPlan }>
  /** When the clients start, on this machine's clock (ms): the poll frames' time axis. */
  trafficStartMs: number
  /** When the clients start, on the switch host's clock (epoch ns): the INT samples' time axis. */
  trafficStartNs: bigint
  /** The INT collector, with telemetry.int on. */
  relay?: IntRelay
  /** The run's facts: the poll interval, poll errors and INT counts go into them. */
  facts: TargetFacts
  /** ms between poll rounds at the least. Default 1000. */
  minPollMs?: number
  /** ms between reads of the INT relay's output. Default 250. */
  intReadMs?: number
  /** ms the INT relay keeps receiving after the traffic ends. Default 1000. */
  intDrainMs?: number
  /** The switch host's load is sampled each round when set: each switch's process name, and what the agents offer (bit/s). */
  hostLoad?: { proc: (switchName: string) => string; offeredBps: number }
}

/** The run's telemetry messages: the poller's series, its frames, and the INT relay's series and points. */
export async function* bmv2Telemetry(t: TelemetryRun): AsyncGenerator<TargetMessage> {
  const sp = seriesPlan(t.state, t.mapping, t.run.ctx.plan.scheme)
  const lp = t.hostLoad ? hostLoadPlan(t.plan, t.hostLoad.proc) : undefined
  const defs = [...sp.defs, ...(lp?.defs ?? [])]
  yield { type: 'series', defs }
  // INT series are numbered after the poller's, INT times from the clients' start.
  const relay = t.relay
  relay?.attach(defs.length, t.trafficStartNs)
  const intReadMs = t.intReadMs ?? 250
  try {
    relay?.startReading(intReadMs)
    yield* pollLoop(t, sp, intReadMs, lp)
    if (relay) {
      await relay.stop(t.intDrainMs ?? 1000)
      yield* relay.take()
      recordInt(t, relay)
    }
  } finally {
    // A failed or cancelled run: the reading loop ends here (teardown stops the relay itself).
    await relay?.halt()
  }
}

/** Poll rounds until the clients are done; the INT relay's messages are handed on between and during the waits. */
export async function* pollLoop(t: TelemetryRun, sp: SeriesPlan, intReadMs: number, lp?: HostLoadPlan): AsyncGenerator<TargetMessage> {
  const { run, h, plan, relay } = t
  const { ctx } = run
  // Where each switch is polled: its host and its switch namespace.
  const where = new Map<string, { h: RunTestbedHost; ns: string }>()
  for (const p of t.parts ?? [{ h, plan }]) for (const s of p.plan.switches) where.set(s.name, { h: p.h, ns: p.plan.switchNs })
  const switches = (t.parts ?? [{ h, plan }]).flatMap((p) => p.plan.switches)
  const intervalMs = Math.max(t.minPollMs ?? 1000, ctx.plan.spec.telemetryIntervalNs / 1e6)
  t.facts.telemetryIntervalMs = intervalMs
  // Wall-clock cap: the experiment's stopAfter stretched by the rate scale, plus a minute.
  const capMs = ctx.plan.spec.stopAfterNs / 1e6 / Math.max(t.mapping.scale, 1e-6) + 60_000
  let prev: PollValues | null = null
  let prevT = 0
  let pollErrors = 0
  // The host's load: the last good sample (its deltas span a failed round), the verdict's tally.
  let prevSample: HostSample | null = null
  let sample: HostSample | null = null
  let sampleErrors = 0
  const tally = emptyTally()
  const utilIndexes = sp.defs.flatMap((d, i) => (d.kind === 'link.util' ? [i] : []))
  const width = sp.defs.length + (lp?.defs.length ?? 0)
  for (;;) {
    run.throwIfCancelled()
    const roundStart = Date.now()
    const rounds: PollValues = new Map()
    const sampling = lp
      ? sampleHost(run, h, plan, lp).then(
          (x) => (sample = x),
          () => (sample = null),
        )
      : null
    await Promise.all([
      sampling,
      ...switches.map(async (s) => {
        const reads = sp.reads.get(s.name) ?? []
        const at = where.get(s.name)!
        const r = await pollSwitch(run, at.h, reads, { ns: at.ns, thriftPort: s.thriftPort })
        const m = new Map<string, number>()
        for (const [k, v] of r.registers) m.set(k, v)
        for (const [k, v] of r.counters) {
          m.set(k, v.bytes)
          m.set(packetsKey(k), v.packets)
        }
        rounds.set(s.name, m)
        if (r.connectError || r.errors.length) {
          pollErrors++
          if (pollErrors <= 5) ctx.log(at.h.name, `poll ${s.name}: ${r.connectError ?? r.errors.slice(0, 2).map((e) => `${e.command}: ${e.error.message}`).join('; ')}`)
        }
      }),
    ])
    const now = Date.now()
    const cur = sample as HostSample | null
    if (lp && !cur && ++sampleErrors <= 3) ctx.log(h.name, 'could not read the switch host\'s load this round (simple_switch CPU, interface counters)')
    if (prev) {
      const dtS = (now - prevT) / 1000
      const values = new Float64Array(width).fill(NaN)
      sp.value.forEach((f, i) => (values[i] = f(rounds, prev, dtS)))
      const load = lp && cur ? lp.values(cur, prevSample) : null
      if (load) {
        values.set(load.values, sp.defs.length)
        const maxUtil = Math.max(0, ...utilIndexes.map((i) => values[i]).filter(Number.isFinite))
        tallyRound(tally, load.round, maxUtil, activeBps(t.hostLoad?.offeredBps ?? 0))
      }
      yield { type: 'telemetry', t: new Float64Array([(now - t.trafficStartMs) * 1e6]), values }
    }
    prev = rounds
    prevT = now
    if (cur) prevSample = cur
    let running = 0
    for (const c of t.clients) if ((await (await run.processes(c.h ?? h)).status(c.name)).alive) running++
    if (running === 0) break
    if (now - t.trafficStartMs > capMs) {
      ctx.log(h.name, `traffic still running after ${Math.round(capMs / 1000)} s: stopping the clients (their unfinished flows are recorded)`)
      for (const c of t.clients) await (await run.processes(c.h ?? h)).stop(c.name)
      break
    }
    if (!relay) {
      await sleep(Math.max(0, intervalMs - (Date.now() - roundStart)), ctx.signal)
      continue
    }
    // Until the next round, what the INT reading loop made is handed on as it comes.
    for (;;) {
      yield* relay.take()
      const left = roundStart + intervalMs - Date.now()
      if (left <= 0) break
      await sleep(Math.min(intReadMs, left), ctx.signal)
      run.throwIfCancelled()
    }
  }
  t.facts.pollErrors = pollErrors
  if (lp && t.hostLoad) recordLoad(t, tally, t.hostLoad.offeredBps, sampleErrors)
}

/** The verdict on the switch host's load goes into the facts, a 'bmv2.load' event, and a warning when the switches were the bottleneck. */
export function recordLoad(t: Pick<TelemetryRun, 'run' | 'h' | 'facts'>, tally: LoadTally, offeredBps: number, sampleErrors = 0): void {
  const v = loadVerdict(tally, offeredBps)
  const { ctx } = t.run
  Object.assign(t.facts, {
    bottleneck: v.bottleneck,
    switchPinnedShare: Number(v.pinnedShare.toFixed(3)),
    switchLossRatio: Number(v.lossRatio.toPrecision(3)),
    achievedBps: Math.round(v.achievedBps),
    offeredBps: Math.round(offeredBps),
    ...(tally.maxCpu ? { switchMaxCores: Number(tally.maxCpu.cores.toFixed(2)) } : {}),
  })
  ctx.event?.('bmv2.load', { ...v, rounds: tally.rounds, pinnedRounds: tally.pinnedRounds, saturatedRounds: tally.saturatedRounds, packetsIn: tally.packetsIn, packetsLost: tally.packetsLost, maxCpu: tally.maxCpu, sampleErrors })
  if (v.bottleneck === 'switches') {
    ctx.event?.('warning', { source: 'bmv2', code: 'switch-bottleneck', message: v.message })
    ctx.log(t.h.name, `WARNING: ${v.message}`)
  } else ctx.log(t.h.name, `switch host load: ${v.message}`)
}

/** The INT counts go into the run's facts, an 'int' event and its log. */
export function recordInt(t: Pick<TelemetryRun, 'run' | 'facts'>, relay: IntRelay): void {
  Object.assign(t.facts, relay.facts())
  const counts = relay.counts
  t.run.ctx.event?.('int', { ...counts, malformedReasons: Object.fromEntries(relay.malformedReasons()), relay: relay.summary })
  t.run.ctx.log('int', `INT: ${relay.summaryText()}`)
}

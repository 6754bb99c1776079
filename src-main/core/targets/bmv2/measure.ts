// The SSH half of the rate calibration (calibrate.ts is the pure half): a short iperf3 between
// two host namespaces on the switch host, through whatever forwards between them (the deployed
// switches in a run; a shaped Linux bridge in the test), and the scale chosen from it.
import { iperf3ClientArgv, iperf3ServerArgv, parseIperf3Json, type Iperf3Result } from '../shared/agent'
import { CancelledError, type RunContext, type RunTestbedHost, type TargetFacts } from '../driver'
import { waitListening } from './agents'
import { chooseRateScale, type CalibrationPath, type OfferedLoad, type ScaleChoice, type ScaleInput } from './calibrate'
import { ToolMissingError, WITH_PATH, type RemoteRun } from '../shared/remote'

export interface MeasureOptions {
  /** The sending end: its namespace on the switch host. */
  src: { name: string; ns: string }
  /** The receiving end: its namespace and address. */
  dst: { name: string; ns: string; ip: string }
  /** Seconds measured, after omitSeconds more of warm-up. Default 2 and 1. */
  seconds?: number
  omitSeconds?: number
  /** TCP streams at once (one stream's window should not be what is measured). Default 4. */
  parallel?: number
  port?: number
  /** Seconds the client may take in all before it is killed. Default seconds + omitSeconds + 15. */
  timeoutS?: number
}

export interface Measurement {
  /** What arrived at the receiver, bit/s. */
  bps: number
  iperf: Iperf3Result
  src: string
  dst: string
}

const SERVER = 'cal-iperf3'

/**
 * Runs iperf3 from src to dst on the switch host and returns the receiver's throughput. Throws
 * ToolMissingError when the host has no iperf3, and a plain Error, naming both ends, when no
 * data crossed (the path does not forward TCP).
 */
export async function measureThroughput(run: RemoteRun, h: RunTestbedHost, o: MeasureOptions): Promise<Measurement> {
  const missing = await run.missingTools(h, ['iperf3', 'timeout'])
  if (missing.length) throw new ToolMissingError(missing, `${h.name} (${h.user}@${h.address})`)
  const port = o.port ?? 5201
  const seconds = o.seconds ?? 2
  const omit = o.omitSeconds ?? 1
  const procs = await run.processes(h)
  const what = `iperf3 from ${o.src.name} to ${o.dst.name}`
  await procs.start(SERVER, ['sh', '-c', WITH_PATH, 'p4lab-iperf3', 'ip', 'netns', 'exec', o.dst.ns, ...iperf3ServerArgv({ port, bind: o.dst.ip, oneOff: true })])
  try {
    await waitListening(run, h, SERVER, {
      what: `the calibration's iperf3 server in ${o.dst.name}`,
      timeoutMs: 10_000,
      pollMs: 100,
      listening: (log) => (log.includes('Server listening') ? true : undefined),
      exitDetail: (log) => log.trim().split('\n').slice(-3).join(' / ') || 'no output',
    })
    // `timeout` bounds a path that drops everything (TCP would keep retrying its SYN for minutes).
    const limitS = o.timeoutS ?? seconds + omit + 15
    const argv = ['timeout', '-k', '2', String(limitS), 'ip', 'netns', 'exec', o.src.ns, ...iperf3ClientArgv({ server: o.dst.ip, port, seconds, omitSeconds: omit, parallel: o.parallel ?? 4 })]
    const r = await run.script(h, 'p4lab-iperf3', WITH_PATH, argv, { check: false, logOutput: false })
    if (r.code === 124 || r.code === 137) throw new Error(`${what} did not finish within ${limitS} s: the fabric did not carry its TCP connection`)
    const res = parseIperf3Json(r.stdout.toString('utf8'))
    if (!res.ok) {
      const err = r.stderr.toString('utf8').trim().split('\n').slice(-2).join(' / ')
      throw new Error(`${what} failed: ${res.error}${err ? ` (${err})` : ''}`)
    }
    if (!(res.result.receivedBps > 0)) throw new Error(`${what}: nothing arrived in ${res.result.seconds} s: the fabric did not forward its packets`)
    return { bps: res.result.receivedBps, iperf: res.result, src: o.src.name, dst: o.dst.name }
  } finally {
    await procs.stop(SERVER).catch(() => undefined)
  }
}

export interface Calibration {
  choice: ScaleChoice
  /** Absent when nothing was measured (off, fixed without iperf3, or iperf3 missing). */
  measurement?: Measurement
}

/**
 * Measures (when `measure` is set) and chooses the scale. A host without iperf3 is not an error:
 * the ceiling's (or the fixed) scale is kept and the choice carries a warning saying why.
 */
export async function calibrate(
  run: RemoteRun,
  h: RunTestbedHost,
  input: Omit<ScaleInput, 'capacityBps' | 'unmeasured'>,
  measure: MeasureOptions | null,
  unmeasured: { why: string; warn: boolean } = { why: "calibration is off in the testbed's settings", warn: false },
): Promise<Calibration> {
  if (!measure) return { choice: chooseRateScale({ ...input, capacityBps: null, unmeasured }) }
  let m: Measurement
  try {
    m = await measureThroughput(run, h, measure)
  } catch (e) {
    if (e instanceof ToolMissingError) return { choice: chooseRateScale({ ...input, capacityBps: null, unmeasured: { why: e.message, warn: true } }) }
    if (e instanceof CancelledError || run.ctx.signal.aborted) throw e
    // No TCP across the fabric: every flow of the run would fail the same way.
    throw new Error(
      `calibrating the rates: ${(e as Error).message}. The deployed switches do not carry TCP between two hosts, so the run's flows would fail too; ` +
        "see the deploy log (checksum offloads stay on without ethtool), or set calibrate to false in the testbed's settings to run without this check",
      { cause: e },
    )
  }
  return { choice: chooseRateScale({ ...input, capacityBps: m.bps }), measurement: m }
}

/** The run's record of the scale: facts, a 'bmv2.rate-scale' event, the log, and a 'warning' event when the choice has one. */
export function recordCalibration(
  ctx: RunContext,
  h: RunTestbedHost,
  facts: TargetFacts,
  { choice, measurement: m }: Calibration,
  o: { path: CalibrationPath; offered: OfferedLoad; commandsSent: number },
): void {
  if (m) ctx.log(h.name, `calibration: ${m.src} → ${m.dst} across ${o.path.switches} switches carried ${(m.bps / 1e6).toFixed(1)} Mb/s (${m.iperf.retransmits ?? '?'} retransmits)`)
  Object.assign(facts, {
    rateScale: choice.scale,
    rateScaleReason: choice.reason,
    rateScaleWhy: choice.why,
    offeredBps: Math.round(choice.offeredBps),
    ...(m ? { calibratedBps: Math.round(m.bps), calibrationPath: `${m.src} → ${m.dst} (${o.path.switches} switches)` } : {}),
  })
  ctx.event?.('bmv2.rate-scale', {
    ...choice,
    senders: o.offered.senders,
    perHostOfferedBps: o.offered.perHostBps * choice.scale,
    ...(m ? { measurement: { src: m.src, dst: m.dst, switches: o.path.switches, bps: m.bps, sentBps: m.iperf.sentBps, seconds: m.iperf.seconds, retransmits: m.iperf.retransmits } } : {}),
    commandsSent: o.commandsSent,
  })
  ctx.log(h.name, `rate scale ${choice.scale}: ${choice.why}`)
  if (choice.warning) {
    ctx.event?.('warning', { source: 'bmv2', code: choice.reason === 'fixed' ? 'rate-scale-over-capacity' : 'rate-scale-not-calibrated', message: choice.warning })
    ctx.log(h.name, `WARNING: ${choice.warning}`)
  }
}

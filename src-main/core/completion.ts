// Whether a run that went to its end is `done`, or `incomplete`, and why: one rule for every
// target (README, "An honest status"). Every FCT statistic is taken over the finished flows,
// and the flows that did not finish are the slowest ones; the highest percentile p4lab reports
// is the p99, so once more than 1 % of the flows are missing the p99 (and the mean) describe
// the survivors, not the run. The likely cause is read from what the run recorded: the agents'
// error texts, the run's own log, its counters and the flows' start times. Nothing else.
import { COMPLETE_SHARE, completionNumbers, type RunCompletion } from '../contract'
import { formatNs } from '../plots/format'

export interface CompletionInput {
  /** Per flow: size in bytes (-1: no size, runs until the stop), start and finish (-1: not finished). */
  flows: { sizeBytes: ArrayLike<number>; startNs: ArrayLike<number>; finishNs: ArrayLike<number> }
  /** Per flow, the traffic generator's error for a flow that failed (a testbed's agents), else null. */
  errors?: ReadonlyArray<string | null>
  counters: Record<string, number>
  /** The run's facts: on a testbed, `flowsPerHost` says how many flows the agents were given. */
  facts?: Record<string, unknown>
  /** The experiment's stopAfter, in ns. */
  stopAfterNs: number
  /** The run's log lines so far; asked for only when the run is incomplete. */
  log?: () => readonly string[]
}

const PERCENT = Math.round(COMPLETE_SHARE * 100)

/** How many flows the traffic agents were given (the `flowsPerHost` fact), when a testbed recorded it. */
function plannedFlows(facts: Record<string, unknown> | undefined): number | null {
  const f = facts?.flowsPerHost
  if (typeof f !== 'string' || !/^\d+( \d+)*$/.test(f.trim())) return null
  return f.trim().split(' ').reduce((a, b) => a + Number(b), 0)
}

/** How a run's flows ended, counted: what judgeCompletion needs (the store's upgrade counts the same from its tables). */
export interface FlowCounts {
  /** Flows recorded. */
  n: number
  finished: number
  failed: number
  unbounded: number
  /** Flows with a size that neither finished nor failed. */
  unfinished: number
  /** Of those, the ones due to start after the simulation stopped. */
  notStarted: number
  lastStartNs: number
  /** The failed flows' error texts and how often each came. */
  errors: Map<string, number>
}

/** The simulator's stop (simTimeNs says when it stopped); null on a testbed. */
export function simStopNs(counters: Record<string, number> | null | undefined): number | null {
  return typeof counters?.simTimeNs === 'number' ? counters.simTimeNs : null
}

export function countFlows(input: Pick<CompletionInput, 'flows' | 'errors' | 'counters'>): FlowCounts {
  const { sizeBytes, startNs, finishNs } = input.flows
  const stopNs = simStopNs(input.counters)
  const c: FlowCounts = { n: sizeBytes.length, finished: 0, failed: 0, unbounded: 0, unfinished: 0, notStarted: 0, lastStartNs: -Infinity, errors: new Map() }
  for (let i = 0; i < c.n; i++) {
    const error = input.errors?.[i] ?? null
    c.lastStartNs = Math.max(c.lastStartNs, startNs[i])
    if (error !== null) {
      c.failed++
      const text = error.trim().slice(0, 120) || 'no error text'
      c.errors.set(text, (c.errors.get(text) ?? 0) + 1)
    } else if (finishNs[i] >= 0) c.finished++
    else if (sizeBytes[i] < 0) c.unbounded++
    else {
      c.unfinished++
      // A flow due to start after the simulation stopped never started.
      if (stopNs !== null && startNs[i] >= stopNs) c.notStarted++
    }
  }
  return c
}

export function assessCompletion(input: CompletionInput): RunCompletion {
  return judgeCompletion(countFlows(input), input)
}

export function judgeCompletion(counts: FlowCounts, input: Omit<CompletionInput, 'flows' | 'errors'>): RunCompletion {
  const { n, finished, failed, unbounded, notStarted, lastStartNs } = counts
  const stopNs = simStopNs(input.counters)
  // Flows the agents were given but wrote no line for count as unfinished: they are not known to have finished.
  const planned = plannedFlows(input.facts)
  const missing = planned !== null && planned > n ? planned - n : 0
  const unfinished = counts.unfinished + missing
  const flows = n + missing
  // Integer test: finished + unbounded >= 99 % of flows. A run with no flows at all has nothing missing.
  const complete = (finished + unbounded) * 100 >= PERCENT * flows
  const c: RunCompletion = { flows, finished, failed, unfinished, unbounded, complete, cause: null }
  if (complete) return c
  const errorCounts = counts.errors

  const causes: string[] = []
  const log = input.log?.() ?? []
  if (failed > 0) {
    const top = [...errorCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3)
    const texts = top.length ? ` (${top.map(([t, k]) => `${k} × "${t}"`).join(', ')}${errorCounts.size > 3 ? ', …' : ''})` : ''
    causes.push(`the traffic agents reported ${failed} failed flows${texts}`)
    const offload = log.find((l) => /checksum offloads stay on|ethtool -K \S+ failed/.test(l))
    if (offload !== undefined) {
      causes.push(
        `the deploy log says checksum offloads stayed on ("${offload.replace(/^!\s*/, '').trim()}"): TCP through simple_switch on veth needs them off, so its segments arrive with bad checksums (install ethtool on the switch host)`,
      )
    }
  }
  if (unfinished > 0) {
    if (stopNs !== null) {
      if (notStarted > 0) {
        causes.push(
          `arrivals outran the simulated time: ${notStarted} flows were due to start after the simulation stopped at ${formatNs(stopNs)} (stopAfter ${formatNs(input.stopAfterNs)}), the last at ${formatNs(lastStartNs)}; raise stopAfter or run fewer flows`,
        )
      }
      const inFlight = unfinished - notStarted
      if (inFlight > 0) {
        const drops = input.counters.drops ?? 0
        const timeouts = input.counters.timeouts ?? 0
        causes.push(
          `${inFlight} flows were still in flight when the simulation stopped at ${formatNs(stopNs)}${drops || timeouts ? ` (the run recorded ${drops} drops and ${timeouts} retransmission timeouts)` : ''}`,
        )
      }
    } else {
      if (missing > 0) causes.push(`the traffic agents wrote no line for ${missing} of the ${planned} flows they were given`)
      const capped = log.find((l) => /traffic still running after \d+ s: stopping the clients/.test(l))
      const open = unfinished - missing
      if (open > 0) {
        causes.push(
          capped !== undefined
            ? `${open} flows had not finished when the traffic was stopped at the run's wall-clock cap ("${capped.trim()}")`
            : `${open} flows had not finished when the agents' clients ended`,
        )
      }
    }
  }
  // What else the run's own scripts warned about on the hosts (their stderr lines begin "! p4lab:").
  const warnings = [...new Set(log.filter((l) => /^! p4lab: /.test(l) && !/checksum offloads stay on|ethtool -K/.test(l)).map((l) => l.slice(2).trim()))].slice(0, 2)
  if (warnings.length > 0) causes.push(`the run's log warned: ${warnings.map((w) => `"${w}"`).join('; ')}`)
  if (causes.length === 0) causes.push('nothing the run recorded says why')
  c.cause = causes.join('; ')
  return c
}

/** The run's `error` text for an incomplete run: the numbers, the rule, and the likely cause. */
export function incompleteReason(c: RunCompletion): string {
  return `${completionNumbers(c)}; a run is done when at least ${PERCENT} % finish. Likely cause: ${c.cause ?? 'unknown'}`
}

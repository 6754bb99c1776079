// The rule a run ends by (done only when at least 99 % of its flows finished) and the likely
// cause an incomplete run is given, from what the run recorded: the real traffic agent's
// failure lines, the run's log, the simulator's counters and the flows' start times.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { assessCompletion, incompleteReason } from '../../src-main/core/completion'
import { parseAgentOutput } from '../../src-main/core/targets/shared/agent-output'
import { ROOT } from '../helpers/start'

/** n flows of 1000 bytes starting 1 µs apart; `finished` of them finish, the rest are open. */
function flows(n: number, finished: number, o: { unbounded?: number } = {}) {
  const sizeBytes = new Float64Array(n).fill(1000)
  const startNs = Float64Array.from({ length: n }, (_, i) => i * 1000)
  const finishNs = Float64Array.from({ length: n }, (_, i) => (i < finished ? i * 1000 + 500 : -1))
  for (let i = n - (o.unbounded ?? 0); i < n; i++) sizeBytes[i] = -1
  return { sizeBytes, startNs, finishNs }
}

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as { port: number }).port
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

describe('a run is done only when at least 99 % of its flows finished', () => {
  it('draws the line at 99 %: 594 of 600 is done, 593 is not', () => {
    expect(assessCompletion({ flows: flows(600, 594), counters: {}, stopAfterNs: 1e9 })).toMatchObject({ flows: 600, finished: 594, unfinished: 6, complete: true, cause: null })
    const c = assessCompletion({ flows: flows(600, 593), counters: {}, stopAfterNs: 1e9 })
    expect(c).toMatchObject({ flows: 600, finished: 593, failed: 0, unfinished: 7, complete: false })
    expect(c.cause).toMatch(/7 flows had not finished when the agents' clients ended/)
  })

  it('counts flows without a size (long-lived) as complete when they ran to the end', () => {
    const c = assessCompletion({ flows: flows(10, 0, { unbounded: 10 }), counters: { simTimeNs: 1e6 }, stopAfterNs: 1e6 })
    expect(c).toMatchObject({ flows: 10, finished: 0, unbounded: 10, unfinished: 0, complete: true })
  })

  it('says arrivals outran the simulated time when flows were due after the simulation stopped', () => {
    // 100 flows 1 µs apart, the simulation stopped at 20 µs: 80 never started, 10 were in flight.
    const c = assessCompletion({ flows: flows(100, 10), counters: { simTimeNs: 20_000, drops: 3, timeouts: 1 }, stopAfterNs: 20_000 })
    expect(c).toMatchObject({ flows: 100, finished: 10, unfinished: 90, complete: false })
    expect(c.cause).toMatch(/arrivals outran the simulated time: 80 flows were due to start after the simulation stopped at 20\.0 µs \(stopAfter 20\.0 µs\), the last at 99\.0 µs/)
    expect(c.cause).toMatch(/10 flows were still in flight when the simulation stopped at 20\.0 µs \(the run recorded 3 drops and 1 retransmission timeouts\)/)
    expect(incompleteReason(c)).toMatch(/^10 of 100 flows finished \(0 failed, 90 unfinished\); a run is done when at least 99 % finish\. Likely cause: arrivals outran/)
  })

  it('counts flows the agents were given but wrote no line for as unfinished', () => {
    const c = assessCompletion({ flows: flows(500, 500), counters: {}, facts: { flowsPerHost: '150 150 150 150' }, stopAfterNs: 1e9 })
    expect(c).toMatchObject({ flows: 600, finished: 500, unfinished: 100, complete: false })
    expect(c.cause).toMatch(/the traffic agents wrote no line for 100 of the 600 flows they were given/)
  })

  it("names the real agent's failures and the deploy log's offload warning, and nothing it did not record", async () => {
    // The real traffic agent, its every flow refused: what a BMv2 host gives when TCP cannot get through.
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-completion-'))
    const out = join(dir, 'flows-h0.jsonl')
    const port = await closedPort()
    const r = spawnSync('python3', [join(ROOT, 'resources/agent/p4lab_agent.py'), 'client', '--dsts', `127.0.0.1:${port}`, '--out', out,
      '--cdf', join(ROOT, 'resources/workloads/web-search.cdf'), '--load', '0.5', '--link-bps', '1e9', '--flows', '30', '--seed', '1', '--connect-timeout', '2'], { encoding: 'utf8', timeout: 60_000 })
    expect(r.status, r.stderr).toBe(0)
    const agent = parseAgentOutput(readFileSync(out, 'utf8'), { hostOf: (ip) => (ip === '127.0.0.1' ? 1 : undefined), srcHost: 0, source: 'h0' })
    expect(agent.failed).toBe(30)
    const facts = { flowsPerHost: '30' }
    const bare = assessCompletion({ flows: agent.flows, errors: agent.flows.errors, counters: { flowsFailed: agent.failed }, facts, stopAfterNs: 1e9, log: () => [] })
    expect(bare).toMatchObject({ flows: 30, finished: 0, failed: 30, unfinished: 0, complete: false })
    expect(bare.cause).toMatch(/^the traffic agents reported 30 failed flows \(30 × "connect: \[Errno 111\] Connection refused"\)$/)
    // The line the deploy step logs when ethtool is missing on the switch host (stderr lines are stored with "! ").
    const log = ['sw1: $ sh -c <p4lab-host> p4abc-h0', '! p4lab: ethtool not found: checksum offloads stay on (TCP through BMv2 may see bad checksums)', '! p4lab: could not turn IPv6 off in p4abc-sw']
    const c = assessCompletion({ flows: agent.flows, errors: agent.flows.errors, counters: {}, facts, stopAfterNs: 1e9, log: () => log })
    expect(c.cause).toMatch(/the deploy log says checksum offloads stayed on \("p4lab: ethtool not found: checksum offloads stay on/)
    expect(c.cause).toMatch(/the run's log warned: "p4lab: could not turn IPv6 off in p4abc-sw"/)
  })
})

// Running the port bring-up and the frame check on the SDE hosts of a run (the scripts, their
// parsers and the judgement are in ports.ts and frames.ts). The driver hands each switch's
// bfshell over as a function: this module only decides what runs when, what it logs, and when
// the run must stop, so it is the same with real switches and with the tests' stand-in bfshell.
import type { TofinoPortMapping } from '../../../contract/testbed-mapping'
import type { RunContext, TargetFacts } from '../driver'
import { sleep } from '../shared/remote'
import { countersScript, framesError, judgeFrames, parseCounters, parseSent, sendScript, type FramePlan, type FrameReport, type FrameRound, type PortCounters } from './frames'
import { parsePortStatus, portsNotUp } from './ports'

/** One switch as the bring-up sees it: its SDE host, and `run_bfshell.sh -b FILE` there (stdout and stderr). */
export interface SwitchShell {
  sw: string
  host: string
  /** The folder on the SDE host holding this switch's scripts (ports.py, ports-up.py, frames/). */
  dir: string
  bfshell(file: string): Promise<string>
}

/** Reads $PORT_UP until every mapped port is up; traffic never starts on a port that is down. */
export async function waitPortsUp(ctx: RunContext, sh: SwitchShell, ports: readonly TofinoPortMapping[], o: { timeoutMs: number; pollMs?: number }): Promise<void> {
  const deadline = Date.now() + o.timeoutMs
  let last = ''
  for (;;) {
    if (ctx.signal.aborted) throw new Error('cancelled')
    const text = await sh.bfshell(`${sh.dir}/ports-up.py`)
    const st = parsePortStatus(sh.sw, text, ports)
    const why = portsNotUp(sh.sw, st)
    // A read cut short says why in its last lines (a traceback, a bfrt error).
    if (why && !st.complete) ctx.log(sh.host, `${sh.sw}: the port status read ended with: ${tail(text)}`)
    if (!why) {
      ctx.log(sh.host, `${sh.sw}: all ${ports.length} front-panel ports up`)
      ctx.event?.('deploy', { part: 'ports-up', switch: sh.sw, ports: st.up })
      return
    }
    if (why !== last) ctx.log(sh.host, `${why}; waiting`)
    last = why
    if (Date.now() > deadline) throw new Error(`${why} (waited ${o.timeoutMs / 1000} s on ${sh.host}). The scheme's program was not configured and no traffic was sent.`)
    await sleep(o.pollMs ?? 2000, ctx.signal)
  }
}

function tail(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ') || 'no output'
}

/** The frame check's scripts of one switch, by path under the run directory. */
export function frameFiles(plan: FramePlan, sw: string, tag: number): Record<string, string> {
  const s = plan.switches.find((x) => x.name === sw)
  if (!s) throw new Error(`switch ${sw} is not in the frame check's plan`)
  const files: Record<string, string> = { 'frames/counters.py': countersScript(s) }
  for (let r = 0; r < plan.rounds; r++) {
    const text = sendScript(s, r, tag + r)
    if (text) files[`frames/send-${r}.py`] = text
  }
  return files
}

export interface FrameCheckOptions {
  /** ms between the bursts and the counter read after them. Default 1000. */
  settleMs?: number
}

/**
 * The frame check on switches whose ports are up under the check program: per round, every
 * switch's counters, one burst per switch (all at once), the counters again. Progress goes to
 * the run log; the report says which burst reached which port.
 */
export async function checkFrames(ctx: RunContext, plan: FramePlan, shells: readonly SwitchShell[], o: FrameCheckOptions = {}): Promise<FrameReport> {
  const shellOf = new Map(shells.map((s) => [s.sw, s]))
  for (const s of plan.switches) if (!shellOf.has(s.name)) throw new Error(`switch ${s.name} has no SDE host in this run`)
  const read = async (): Promise<Map<string, Map<number, PortCounters>>> => {
    const out = new Map<string, Map<number, PortCounters>>()
    await Promise.all(
      plan.switches.map(async (s) => {
        const sh = shellOf.get(s.name)!
        const text = await sh.bfshell(`${sh.dir}/frames/counters.py`).catch((e: Error) => `error ${e.message}`)
        const c = parseCounters(s, text)
        if (c.complete) out.set(s.name, c.ports)
        else ctx.log(sh.host, `${s.name}: the frame counters read did not finish${text.startsWith('error ') ? `: ${text.slice(6)}` : ''}`)
      }),
    )
    return out
  }
  const links = plan.switches.reduce((n, s) => n + s.ports.length, 0)
  ctx.log('frames', `frame check: ${plan.rounds} round(s), one burst per switch per round (${plan.switches.map((s) => `${s.name} ${s.burst} frames`).join(', ')}), ${links} ports`)
  const rounds: FrameRound[] = []
  let before = await read()
  for (let r = 0; r < plan.rounds; r++) {
    if (ctx.signal.aborted) throw new Error('cancelled')
    const notSent = new Set<string>()
    const senders = plan.switches.filter((s) => s.ports[r])
    await Promise.all(
      senders.map(async (s) => {
        const sh = shellOf.get(s.name)!
        const text = await sh.bfshell(`${sh.dir}/frames/send-${r}.py`).catch((e: Error) => `error ${e.message}`)
        if (!parseSent(s, text)) {
          notSent.add(s.name)
          ctx.log(sh.host, `${s.name}: round ${r + 1}: the burst out of port ${s.ports[r].port} was not sent${text.startsWith('error ') ? `: ${text.slice(6)}` : ''}`)
        }
      }),
    )
    await sleep(o.settleMs ?? 1000, ctx.signal)
    const after = await read()
    rounds.push({ round: r, before, after, notSent })
    const sent = senders.map((s) => `${s.name} port ${s.ports[r].port}`).join(', ')
    ctx.log('frames', `round ${r + 1} of ${plan.rounds}: bursts out of ${sent}`)
    ctx.event?.('cabling', { step: 'frames', round: r + 1, rounds: plan.rounds })
    before = after
  }
  const report = judgeFrames(plan, rounds)
  ctx.event?.('cabling', { ok: report.ok, looked: report.looked, ports: report.links.length, problems: report.problems })
  if (report.ok) ctx.log('frames', `every mapped port's frames arrived where the fabric says (${report.links.length} ports)`)
  else for (const p of report.problems) ctx.log('frames', p)
  return report
}

/** Throws the run's error when the check did not pass. */
export function requireFrames(r: FrameReport): void {
  if (!r.ok) throw new Error(framesError(r))
}

/** One switch during the check, as the driver runs it. */
export interface CheckSwitch {
  shell: SwitchShell
  /** run_switchd.sh with the check program, detached. */
  start(): Promise<void>
  /** Returns once bfshell sees the check program. */
  ready(): Promise<void>
  /** Adds the mapped ports, then waits until each is up. */
  portsUp(): Promise<void>
  /** Stops the check program's switchd (the scheme's program takes the device next). */
  stop(): Promise<void>
}

/**
 * Before the scheme's program, on hardware with a mapping: every switch runs the check program
 * with its mapped ports added; each must come up (a port that does not is named with its
 * front-panel port), then every link carries a frame (a crossed or dark cable is named). Either
 * failure throws here, with the check program still running (teardown stops it): the scheme's
 * program is neither started nor configured.
 */
export async function linksBeforeDeploy(ctx: RunContext, plan: FramePlan, switches: readonly CheckSwitch[], facts: TargetFacts, o: FrameCheckOptions = {}): Promise<void> {
  for (const s of switches) {
    if (ctx.signal.aborted) throw new Error('cancelled')
    ctx.log(s.shell.host, `${s.shell.sw}: starting the check program to bring the ports up and send the frame check`)
    await s.start()
  }
  for (const s of switches) {
    await s.ready()
    ctx.event?.('cabling', { host: s.shell.host, switch: s.shell.sw, step: 'ports' })
    await s.portsUp()
  }
  const report = await checkFrames(ctx, plan, switches.map((s) => s.shell), o)
  facts.cablingLinks = report.links.length
  facts.cabling = report.ok ? 'ok' : report.looked ? 'miswired' : 'unchecked'
  requireFrames(report)
  for (const s of switches) await s.stop()
}

// The deploy phase is a fixed sequence of remote procedures (upload, start, configure); kept apart from the session so the driver reads as the order of phases and what each leaves in the facts.

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { uploadDir } from '../../ssh'
import { copyAgent } from '../shared/agent'
import { CancelledError, type RunTestbedHost } from '../driver'
import type { NetnsPlan } from '../shared/netns'
import type { RemoteRun } from '../shared/remote'
import { rescaleCommands } from './rescale'
import { cliInput } from './output'
import { configureSwitch, simpleSwitchArgv, waitSwitchReady, type SwitchFiles } from './steps'

/** What goes into the run directory, from this machine. */
export interface RunFiles {
  /** resources/agent/p4lab_agent.py (its modules beside it go too) */
  agentFile: string
  /** The compiled program's JSON, uploaded as `<programName>.json`. */
  programJson: string
  programName: string
  /** switch name → command lines, uploaded as cli/<switch>.cli. */
  commands: ReadonlyMap<string, readonly string[]>
  /** The workload's CDF file, uploaded as workload.cdf, when it has one. */
  workloadCdf?: string
  /** Written as run.json. */
  runJson: Record<string, unknown>
}

/** Stages the run's files in a local temporary folder and uploads it to `dir` on h in one go. */
export async function uploadRunFiles(run: RemoteRun, h: RunTestbedHost, dir: string, files: RunFiles): Promise<void> {
  const stage = mkdtempSync(join(tmpdir(), 'p4lab-bmv2-'))
  try {
    copyAgent(files.agentFile, stage)
    copyFileSync(files.programJson, join(stage, `${files.programName}.json`))
    mkdirSync(join(stage, 'cli'))
    for (const [sw, cmds] of files.commands) writeFileSync(join(stage, 'cli', `${sw}.cli`), cmds.join('\n') + '\n')
    if (files.workloadCdf !== undefined) copyFileSync(files.workloadCdf, join(stage, 'workload.cdf'))
    writeFileSync(join(stage, 'run.json'), JSON.stringify(files.runJson, null, 1))
    run.throwIfCancelled()
    const up = await uploadDir(await run.host(h), stage, dir, { signal: run.ctx.signal })
    run.ctx.log(h.name, `uploaded ${up.uploaded.length} files to ${dir} (${up.skipped.length} unchanged)`)
  } catch (e) {
    if (run.ctx.signal.aborted) throw new CancelledError()
    throw e
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

/** The detached process of a switch's simple_switch (RemoteProcesses name). */
export const switchProcName = (switchName: string): string => `ss-${switchName}`

/** One simple_switch per switch, detached, in the switch namespace; returns once every one answers its CLI. */
export async function startSwitches(run: RemoteRun, h: RunTestbedHost, plan: NetnsPlan, files: SwitchFiles): Promise<void> {
  await run.requireTools(h, ['simple_switch', 'simple_switch_CLI'])
  const procs = await run.processes(h)
  for (const s of plan.switches) {
    run.throwIfCancelled()
    const argv = simpleSwitchArgv(s, plan, files)
    const p = await procs.start(switchProcName(s.name), ['sh', '-c', 'PATH="$PATH:/usr/local/bin:/usr/sbin:/sbin"; exec "$@"', 'p4lab-ss', ...argv])
    run.ctx.log(h.name, `started simple_switch for ${s.name}: device ${s.deviceId}, thrift ${s.thriftPort} (in ${plan.switchNs}), pid ${p.pid}`)
  }
  for (const s of plan.switches) await waitSwitchReady(run, h, s.name, switchProcName(s.name), { ns: plan.switchNs, thriftPort: s.thriftPort })
}

/** Each switch's command file (uploaded to `<dir>/cli/`) piped into simple_switch_CLI, the transcript parsed. */
export async function configureSwitches(run: RemoteRun, h: RunTestbedHost, plan: NetnsPlan, dir: string, commands: ReadonlyMap<string, readonly string[]>): Promise<void> {
  for (const s of plan.switches) {
    run.throwIfCancelled()
    await configureSwitch(run, h, s.name, `${dir}/cli/${s.name}.cli`, commands.get(s.name) ?? [], { ns: plan.switchNs, thriftPort: s.thriftPort })
  }
}

/**
 * Brings every switch, configured with `configured` (its file without the queue rates), to `final`
 * (its file at the chosen rate scale): queue rates, registers and scale-dependent tables (rescale.ts).
 */
export async function rescaleSwitches(
  run: RemoteRun,
  h: RunTestbedHost,
  plan: NetnsPlan,
  configured: ReadonlyMap<string, readonly string[]>,
  final: ReadonlyMap<string, readonly string[]>,
): Promise<number> {
  let sent = 0
  for (const s of plan.switches) {
    run.throwIfCancelled()
    const cmds = rescaleCommands(configured.get(s.name) ?? [], final.get(s.name) ?? [])
    if (cmds.length === 0) continue
    await configureSwitch(run, h, s.name, { stdin: cliInput(cmds) }, cmds, { ns: plan.switchNs, thriftPort: s.thriftPort })
    sent += cmds.length
  }
  return sent
}

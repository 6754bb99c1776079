// One switch on its SDE host, as the Tofino session drives it: bf_switchd started from the SDE's
// run_switchd.sh, and bfshell scripts run with run_bfshell.sh -b (the scripts expect $SDE and
// $SDE_INSTALL exported, and to be started from $SDE). Used for the scheme's program (driver.ts),
// for p4lab's check program (bringup.ts, through switchShell), and for the poll rounds.
import type { ExecResult } from '../../ssh'
import type { RunTestbedHost } from '../driver'
import { sleep, type RemoteRun } from '../shared/remote'
import { parseBfshellOutput } from './output'
import type { SwitchShell } from './bringup'

/** One switch on one SDE host. */
export interface Placement {
  sw: string
  switchIndex: number
  host: RunTestbedHost
  sde: string
  sdeInstall: string
}

/** In $SDE ($1) with SDE=$2 and SDE_INSTALL=$3 exported: exec "$@" (the SDE's scripts expect both). */
const SDE_EXEC = 'cd -- "$1" && shift && SDE=$1 && SDE_INSTALL=$2 && export SDE SDE_INSTALL && shift 2 && exec "$@"'

/** A bfshell script that says whether bf_switchd has loaded `program`. */
export const READY_SCRIPT = (program: string) => `print("p4lab-ready" if hasattr(bfrt, ${JSON.stringify(program)}) else "p4lab-not-ready")\n`

/** run_bfshell.sh -b FILE on the switch's SDE host; its exit status is the caller's to judge. */
export function runBfshell(run: RemoteRun, p: Placement, file: string, name = 'p4lab-bfshell'): Promise<ExecResult> {
  return run.script(p.host, name, SDE_EXEC, [p.sde, p.sde, p.sdeInstall, `${p.sde}/run_bfshell.sh`, '-b', file], { check: false, logOutput: false })
}

/** run_switchd.sh -c CONF, detached, as the run's process `proc`. */
export async function startSwitchd(run: RemoteRun, p: Placement, proc: string, conf: string): Promise<void> {
  await (await run.processes(p.host)).start(proc, [`${p.sde}/run_switchd.sh`, '-c', conf], { cwd: p.sde, env: { SDE: p.sde, SDE_INSTALL: p.sdeInstall } })
}

/** Runs `readyFile` until bf_switchd (`proc`) answers that it has loaded `program`; fails when it exits or the time is up. */
export async function waitBfshell(run: RemoteRun, p: Placement, o: { proc: string; readyFile: string; program: string; timeoutMs: number }): Promise<void> {
  const deadline = Date.now() + o.timeoutMs
  const procs = await run.processes(p.host)
  for (;;) {
    run.throwIfCancelled()
    const st = await procs.status(o.proc)
    if (!st.alive) throw new Error(`bf_switchd for ${p.sw} on ${p.host.name} exited: ${(await procs.readLog(o.proc, 4096)).trim().split('\n').slice(-5).join(' / ')}`)
    const r = await runBfshell(run, p, o.readyFile)
    if (r.stdout.toString('utf8').includes('p4lab-ready')) return
    if (Date.now() > deadline) throw new Error(`bf_switchd for ${p.sw} on ${p.host.name} did not load ${o.program} within ${o.timeoutMs / 1000} s`)
    await sleep(2000, run.ctx.signal)
  }
}

/** The switch's bfshell for bringup.ts: `run_bfshell.sh -b FILE`, stdout and stderr; `dir` holds the switch's scripts. */
export function switchShell(run: RemoteRun, p: Placement, dir: string): SwitchShell {
  return {
    sw: p.sw,
    host: p.host.name,
    dir,
    bfshell: async (file) => {
      const r = await runBfshell(run, p, file)
      return r.stdout.toString('utf8') + r.stderr.toString('utf8')
    },
  }
}

/** run_bfshell.sh -b SCRIPT, its output parsed: an exception, a bfrt error or an unfinished script fails the step. */
export async function bfshellStep(run: RemoteRun, p: Placement, script: string, what: string): Promise<void> {
  const { ctx } = run
  const r = await runBfshell(run, p, script)
  const out = parseBfshellOutput(r.stdout.toString('utf8') + r.stderr.toString('utf8'))
  for (const e of out.driverErrors.slice(0, 10)) ctx.log(p.host.name, `${p.sw}: driver: ${e.module}: ${e.message}`)
  const errs = out.errors
  if (errs.length || !out.completed) {
    for (const e of errs.slice(0, 10)) ctx.log(p.host.name, `${p.sw}: line ${e.line}: ${e.message}`)
    throw new Error(`${what} ${p.sw}: ${errs.length ? `${errs.length} error(s) in bfshell output, first: line ${errs[0].line}: ${errs[0].exception ? `${errs[0].exception}: ` : ''}${errs[0].message}` : 'bfshell did not reach the end of the script'}`)
  }
  ctx.log(p.host.name, `${p.sw}: ${what} script ran to the end`)
}

import { constants } from 'node:os'
import { parseArgs } from 'node:util'
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { quote } from 'shell-quote'
import { workloadsDir } from '../../core/paths'
import { toRun } from '../../core/services'
import { sweepService } from '../../core/handlers/sweeps'
import { parseExperiment } from '../../core/spec'
import { withTestbed } from '../../core/testbeds'
import { dbFile, fail, openCore, problem, readSpecFile, savedTestbeds, COMMON_OPTIONS, runResult, runsTable, UsageError, type Command } from '../common'
import { paramsHelp, schemesHelp } from '../schemes'
import { SLURM_RUN_OPTIONS, SLURM_RUN_USAGE, namedCluster, runOnSlurm, slurmFlagsAlone, slurmTarget, unknownCluster, type SlurmRunValues } from '../slurm'

function parseParallel(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--parallel must be a positive integer, got '${text}'`)
  return n
}

type RunMode = 'all' | 'resume' | 'rerun-failed'

/** What cancels a local run: Ctrl-C, `kill`, a terminal closed. */
const RUN_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * --resume: every cell with no done run (never run, held, failed, cancelled, or interrupted by a
 * killed process) runs; done cells never run again, nor cells whose latest run ended
 * incomplete (it ran to its end). --rerun-failed: only cells whose latest run failed, ended
 * incomplete, was cancelled or interrupted. Both work on the experiment with this file's text.
 */
function continueSweep(core: ReturnType<typeof openCore>, experimentId: number, mode: Exclude<RunMode, 'all'>) {
  const sweeps = sweepService({
    store: core.opts.store,
    orchestrator: core.orchestrator,
    parse: (yaml, file) => core.parseOrThrow(yaml, file),
    notRunnable: (tb) => (core.opts.drivers[tb] ? null : core.testbeds.notRunnable(tb)),
    dataDir: core.dataDir(),
  })
  if (mode === 'rerun-failed') {
    const r = sweeps.rerunFailed(experimentId)
    process.stderr.write(`p4lab: re-running ${r.runs.length} failed, incomplete, cancelled, interrupted or held cell(s) of ${r.cells}\n`)
    return r.runs
  }
  const r = sweeps.resume(experimentId)
  const left = r.incomplete ? `, ${r.incomplete} incomplete left alone (--rerun-failed runs them again)` : ''
  process.stderr.write(`p4lab: resuming: ${r.done} of ${r.cells} cell(s) already done${left}, ${r.runs.length} to run\n`)
  return r.runs
}

/**
 * The command that resumes this one: the file and every flag that says where and how its runs
 * ran (database, testbed, runner, parallelism). Without them --resume finds no such experiment in
 * the default database, or saves another revision back on the file's testbed (the held runs stale).
 */
function resumeCommand(file: string, db: string | undefined, parallel: number | undefined, testbed: string | undefined, on: string | undefined): string {
  const argv = ['p4lab', 'run', file]
  if (db !== undefined) argv.push('--db', db)
  if (testbed !== undefined) argv.push('--testbed', testbed)
  if (on !== undefined) argv.push('--on', on)
  if (parallel !== undefined) argv.push('--parallel', String(parallel))
  return quote([...argv, '--resume'])
}

async function cmdRun(file: string, db: string | undefined, json: boolean, parallel: number | undefined, testbed?: string, mode: RunMode = 'all', slurmValues: SlurmRunValues = {}): Promise<number> {
  const path = resolve(file)
  let yaml: string
  try {
    // Read up to the budget: a file far over it is never loaded, nor a device that never ends.
    const read = readSpecFile(path)
    if (read.over !== undefined) {
      problem(`${file}:1:1: document: ${read.over}`)
      return 2
    }
    yaml = read.text
  } catch (err) {
    fail(`cannot read experiment file ${file}: ${(err as Error).message}`)
  }
  // Validate before the database is even opened: bad input writes nothing. The testbed
  // names come from the database when it exists (without creating it).
  const testbeds = savedTestbeds(db)
  if (testbed !== undefined) {
    if (!testbeds.includes(testbed)) fail(`--testbed: unknown testbed '${testbed}'; known testbeds: ${testbeds.join(', ')}`)
    // The stored experiment says where it ran: only its testbed value changes.
    yaml = withTestbed(yaml, testbed)
  }
  const parsed = parseExperiment(yaml, { file, baseDir: dirname(path), workloadsDir: workloadsDir(), testbeds })
  if (!parsed.ok) {
    for (const e of parsed.errors) problem(`${e.file}:${e.line}:${e.column}: ${e.path}: ${e.message}`)
    return 2
  }
  // --on slurm, or the file's runner: (unless --on local); the flags override the file.
  const onSlurm = slurmValues.on === 'slurm' || (slurmValues.on === undefined && parsed.spec.runner?.kind === 'slurm')
  slurmFlagsAlone(slurmValues, onSlurm, '--on slurm (or a runner: { kind: slurm } in the file)')
  if (onSlurm && mode === 'rerun-failed') throw new UsageError('--rerun-failed runs locally; on Slurm use --resume')
  // A cluster named where no database exists yet: refused before the database is created.
  const named = onSlurm ? namedCluster(slurmValues, parsed.spec.runner) : undefined
  if (named !== undefined && !existsSync(dbFile(db))) throw unknownCluster(slurmValues, named, [])
  const core = openCore(db, { parallelRuns: parallel })
  let slurm: ReturnType<typeof slurmTarget> | undefined
  try {
    slurm = onSlurm ? slurmTarget(core, slurmValues, parsed.spec.runner) : undefined
  } catch (err) {
    core.opts.store.close()
    throw err
  }
  const refused = core.opts.drivers[parsed.spec.testbed] ? null : core.testbeds.notRunnable(parsed.spec.testbed)
  if (refused) {
    core.opts.store.close()
    problem(`p4lab: ${refused}`)
    return 1
  }
  const store = core.opts.store
  const before = store.findExperimentByName(parsed.spec.name)
  const elsewhere = before ? undefined : store.listExperiments().find((e) => e.file === path)
  const exp = core.findOrCreateExperiment(yaml, path)
  if (before && exp.revision !== before.revision) {
    // The file as it is, but run on another testbed than last time: say that, not that the file changed.
    const last = store.getRevision(exp.id, before.revision)?.yaml
    const onlyTestbed = testbed !== undefined && last !== undefined && withTestbed(last, testbed) === yaml
    process.stderr.write(
      onlyTestbed
        ? `p4lab: --testbed ${testbed}: experiment ${exp.name} last ran on another testbed (revision ${before.revision}); saved as revision ${exp.revision} with testbed: ${testbed}; runs on the other one are now stale\n`
        : `p4lab: ${file} differs from experiment ${exp.name} as last saved (revision ${before.revision}): saved as revision ${exp.revision}; runs that ran differently are now stale\n`,
    )
  }
  if (elsewhere) {
    process.stderr.write(`p4lab: ${file} was last run as experiment '${elsewhere.name}'; its new name makes this a new experiment '${exp.name}' (to rename instead: p4lab rename '${elsewhere.name}' '${exp.name}')\n`)
  }
  if (slurm) {
    try {
      return await runOnSlurm(core, exp, mode === 'resume', slurm, slurmValues)
    } finally {
      store.close()
    }
  }
  // Ctrl-C, `kill` (SIGTERM) and a terminal closed (SIGHUP) are caught before the runs are
  // stored, not after: until a handler is set each ends the process at once, and runs stored by
  // then would stay `running` until another p4lab marked them interrupted. Set here, a signal
  // during the (synchronous) start is handled at the first await, with the runs there to cancel;
  // one before this line finds no run of this command. The exit status is 128 + the first one's number.
  let caught: NodeJS.Signals | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    caught ??= signal
    process.stderr.write(`\np4lab: ${signal === 'SIGINT' ? '' : `${signal}: `}cancelling...\n`)
    core.orchestrator.cancelAll()
  }
  for (const s of RUN_SIGNALS) process.on(s, onSignal)
  // Listening before the runs start: the first ones go to deploying while they are being
  // started, and those changes were missed (a run's first line read 'running'). Every run is
  // queued at the start, so that one is not printed.
  type StatusChange = { runId: number; status: string; error: string | null }
  let ids: number[] | null = null
  const early: StatusChange[] = []
  const print = (p: StatusChange) => {
    if (p.status === 'queued' || !ids!.includes(p.runId)) return
    const r = store.getRun(p.runId)!
    // A held run's reason is the same for every run held with it: said once, at the end.
    process.stderr.write(`run ${p.runId} ${r.scheme} load=${r.load} seed=${r.seed}: ${p.status}${p.error && p.status !== 'held' ? ` (${p.error})` : ''}\n`)
  }
  core.bus.subscribe((event, payload) => {
    if (event !== 'run.status') return
    if (ids === null) early.push(payload as StatusChange)
    else print(payload as StatusChange)
  })
  const runs = mode === 'all' ? core.runExperiment(exp.id) : continueSweep(core, exp.id, mode)
  ids = runs.map((r) => r.id)
  for (const p of early.splice(0)) print(p)
  await core.orchestrator.wait(ids)
  const finished = ids.map((id) => toRun(store.getRun(id)!))
  if (json) {
    process.stdout.write(JSON.stringify({ experiment: exp.name, runs: finished.map(runResult) }, null, 2) + '\n')
  } else {
    process.stdout.write(`experiment ${exp.id} ${exp.name}  (database ${store.file})\n${runsTable(finished)}\n`)
  }
  store.close()
  const held = finished.filter((r) => r.status === 'held')
  if (held.length) {
    process.stderr.write(`p4lab: ${held.length} run(s) held: ${held[0].error ?? 'their testbed could not be reached'}\np4lab: once the testbed is reachable: ${resumeCommand(file, db, parallel, testbed, slurmValues.on === 'local' ? 'local' : undefined)}\n`)
  }
  if (finished.some((r) => r.status === 'cancelled' || r.status === 'interrupted')) return 128 + constants.signals[caught ?? 'SIGINT']
  // An incomplete run is not a success either: scripts that trust exit 0 get only done runs.
  return finished.every((r) => r.status === 'done') ? 0 : 1
}

export const runCommand: Command = {
  name: 'run',
  usage: [
    'run FILE [--db PATH] [--json] [--parallel N] [--testbed NAME] [--resume | --rerun-failed]',
    '    run every cell of an experiment file on its target',
    '    (sim runs in parallel, one per core unless --parallel; --testbed overrides the file\'s testbed)',
    '    --resume runs only the cells with no done run (an interrupted sweep; incomplete cells are left alone);',
    '    --rerun-failed only failed/incomplete/cancelled/interrupted/held ones',
    '    (runs on a testbed that cannot be reached are held, not started: --resume runs them once it is fixed)',
    ...SLURM_RUN_USAGE,
  ],
  details: () => [...schemesHelp(), '', ...paramsHelp()],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...COMMON_OPTIONS, parallel: { type: 'string', short: 'j' }, testbed: { type: 'string' }, resume: { type: 'boolean', default: false }, 'rerun-failed': { type: 'boolean', default: false }, ...SLURM_RUN_OPTIONS } })
    if (positionals.length !== 1) throw new UsageError('run takes one experiment file')
    if (values.resume && values['rerun-failed']) throw new UsageError('give --resume or --rerun-failed, not both')
    const mode: RunMode = values.resume ? 'resume' : values['rerun-failed'] ? 'rerun-failed' : 'all'
    if (values.on !== undefined && values.on !== 'slurm' && values.on !== 'local') throw new UsageError(`--on takes slurm or local, got '${values.on}'`)
    return cmdRun(positionals[0], values.db, values.json, parseParallel(values.parallel), values.testbed, mode, values)
  },
}

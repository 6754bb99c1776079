// `npm run reproduce [-- --quick] [--only NAME | --skip NAME,...] [--db PATH] [--fresh] [--plan] [--parallel N] [--out FILE]`:
// runs every paper template on the embedded fabric through the same core as the app, then writes
// docs/results.md (reproduce-run.ts): each claim with the paper's number, ours, ours over the
// paper's and whether it lands within ±30 %; each figure's order of schemes against the paper's;
// a sensitivity sweep over the settings the paper leaves open for every claim that misses or does not hold; the
// figures as SVG in docs/figures/. --quick runs a quarter of the flows and one seed per
// template (and smaller sweeps); --only NAME redoes one template and replaces its rows and
// section in the existing page; --skip NAME,... leaves templates out (their rows say "not run" and
// their sections what running them takes, for a later --only).
//
// The full run takes many hours, so it resumes: runs go to a database that stays
// (.reproduce/reproduce.db under the project, or --db PATH), and a run already `done` there for
// the identical resolved spec on the identical simulator is reused (reproduce-runner.ts,
// reproduce-ledger.ts). --fresh ignores earlier runs; --plan prints what would run and what would
// be reused, with an estimate, and runs nothing. Ctrl-C cancels the runs under way and keeps the
// finished ones; the next invocation continues from there, and so do `kill` (SIGTERM) and a
// terminal closed (SIGHUP), the exit status 128 + the first signal's number. --on slurm sends the runs to a
// Slurm cluster instead, with `p4lab run --on slurm`'s flags (reproduce-slurm.ts).
import { availableParallelism, constants } from 'node:os'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { createNodeCore } from '../src-main/core'
import { packageRoot } from '../src-main/core/paths'
import { CLAIMS } from './reproduce-claims'
import { Ledger, simulatorFingerprint } from './reproduce-ledger'
import { reproduce } from './reproduce-run'
import { Interrupted } from './reproduce-runner'
import { REPRODUCE_SLURM_OPTIONS, REPRODUCE_SLURM_USAGE, reproduceSlurm, type SlurmPlace } from './reproduce-slurm'
import { UsageError } from '../src-main/cli/common'
import { surviveClosedTerminal } from '../src-main/cli/terminal'
import { SETTINGS } from './reproduce-settings'

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    skip: { type: 'string' },
    db: { type: 'string' },
    fresh: { type: 'boolean', default: false },
    plan: { type: 'boolean', default: false },
    parallel: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', default: false },
    ...REPRODUCE_SLURM_OPTIONS,
  },
})
const root = packageRoot()
const dbPath = values.db ?? join(root, '.reproduce', 'reproduce.db')
const parallelRuns = values.parallel ? Number(values.parallel) : availableParallelism()
if (!Number.isInteger(parallelRuns) || parallelRuns < 1) throw new Error(`--parallel ${values.parallel}: give a whole number of runs at a time, 1 or more`)

/** Ctrl-C, `kill`, a terminal closed: each cancels the runs under way and keeps the finished ones. */
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']
/** The first signal caught: the exit status is 128 + its number. */
let caught: NodeJS.Signals = 'SIGINT'
// A closed terminal's SIGHUP is caught, and the writes after it fail (EIO): dropped, not thrown.
surviveClosedTerminal()

async function main(): Promise<void> {
  if (values.help) {
    process.stdout.write(`npm run reproduce [-- --quick] [--only NAME] [--db PATH] [--fresh] [--plan] [--parallel N] [--out FILE]\n${REPRODUCE_SLURM_USAGE.join('\n')}\n`)
    return
  }
  mkdirSync(dirname(dbPath), { recursive: true })
  const core = createNodeCore({ dbPath, parallelRuns })
  let slurm: SlurmPlace | undefined
  try {
    slurm = reproduceSlurm(core, values)
  } catch (err) {
    core.opts.store.close()
    throw err
  }
  core.start()
  const ledger = new Ledger(dbPath)
  const abort = new AbortController()
  // Left to their default, SIGTERM and SIGHUP end the process at once, its runs left `running`
  // (Slurm's queued for ever) until a later start marks them interrupted; caught, they cancel.
  const onSignal = (signal: NodeJS.Signals) => {
    if (abort.signal.aborted) {
      const left = slurm ? `the Slurm jobs not yet cancelled go on: p4lab slurm cancel --db ${dbPath} cancels them, p4lab slurm follow --db ${dbPath} merges them` : 'runs still under way are marked interrupted on the next start'
      process.stderr.write(`reproduce: second ${signal}, leaving now; ${left}\n`)
      process.exit(128 + constants.signals[signal])
    }
    caught = signal
    process.stderr.write(`reproduce: ${signal}: cancelling the runs under way${slurm ? ' (scancel)' : ''}, keeping the finished ones (Ctrl-C again to leave at once)\n`)
    abort.abort()
  }
  for (const s of SIGNALS) process.on(s, onSignal)
  try {
    const fingerprint = simulatorFingerprint(root)
    process.stderr.write(`reproduce: database ${dbPath}, simulator ${fingerprint}${values.fresh ? ', --fresh: earlier runs ignored' : ''}${slurm ? `, runs on Slurm (${slurm.name})` : ''}\n`)
    await reproduce({
      core,
      templatesDir: join(root, 'resources', 'experiments'),
      claims: CLAIMS,
      settings: SETTINGS,
      quick: values.quick,
      only: values.only,
      skip: values.skip ? values.skip.split(',').map((n) => n.trim()).filter(Boolean) : undefined,
      outFile: values.out ?? join(root, 'docs', 'results.md'),
      parallelRuns,
      log: (line) => process.stderr.write(`${line}\n`),
      ledger,
      fingerprint,
      fresh: values.fresh,
      planOnly: values.plan,
      signal: abort.signal,
      args: process.argv.slice(2).join(' '),
      ...(slurm ? { slurm } : {}),
    })
  } finally {
    for (const s of SIGNALS) process.off(s, onSignal)
    slurm?.close()
    ledger.close()
    core.opts.store.close()
  }
}

main().catch((err) => {
  if (err instanceof Interrupted) {
    process.stderr.write(`reproduce: ${err.message}\n`)
    process.exitCode = 128 + constants.signals[caught]
    return
  }
  if (err instanceof UsageError) {
    process.stderr.write(`reproduce: ${err.message}\n`)
    process.exitCode = 2
    return
  }
  process.stderr.write(`reproduce: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exitCode = 1
})

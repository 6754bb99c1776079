// The p4lab command: headless access to the same core the app uses.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { Run } from '../contract'
import { createNodeCore, type Core } from '../core'
import { defaultDbPath, packageVersion, rendererDir, workloadsDir } from '../core/paths'
import { toRun } from '../core/services'
import { parseExperiment } from '../core/spec'
import { startServer } from '../server/server'
import { formatNs, table } from './format'

const USAGE = `usage: p4lab <command> [options]

commands:
  run FILE [--db PATH] [--json] [--parallel N]
                                  run every cell of an experiment file on its target
                                  (sim runs in parallel, one per core unless --parallel)
  list [--db PATH] [--json]       list experiments and their runs
  show RUN [--db PATH] [--json]   show one run: status, FCT statistics, counters, events
  serve [--port N] [--db PATH]    serve the app on 127.0.0.1 and print its URL

The database defaults to ${defaultDbPath()} (set P4LAB_HOME to move it).`

class UsageError extends Error {}

function fail(message: string, code = 2): never {
  process.stderr.write(`p4lab: ${message}\n`)
  process.exit(code)
}

function runsTable(runs: Run[]): string {
  return table(
    ['run', 'scheme', 'load', 'seed', 'status', 'flows', 'mean FCT', 'p50', 'p99', '<100KB mean', '>10MB mean'],
    runs.map((r) => [
      r.id,
      r.scheme,
      r.load,
      r.seed,
      r.status,
      r.stats ? `${r.stats.finished}/${r.stats.flows}` : '-',
      formatNs(r.stats?.meanNs),
      formatNs(r.stats?.p50Ns),
      formatNs(r.stats?.p99Ns),
      formatNs(r.stats?.smallMeanNs),
      formatNs(r.stats?.largeMeanNs),
    ]),
  )
}

/** The part of a run that depends only on the experiment and seed: stable across repeats. */
function runResult(r: Run) {
  return {
    scheme: r.scheme,
    load: r.load,
    seed: r.seed,
    status: r.status,
    error: r.error,
    flows: r.stats?.flows ?? 0,
    finished: r.stats?.finished ?? 0,
    fct: r.stats
      ? {
          meanNs: r.stats.meanNs,
          p50Ns: r.stats.p50Ns,
          p99Ns: r.stats.p99Ns,
          smallMeanNs: r.stats.smallMeanNs,
          largeMeanNs: r.stats.largeMeanNs,
        }
      : null,
    counters: r.counters,
  }
}

function openCore(db: string | undefined, parallelRuns?: number): Core {
  const core = createNodeCore({ dbPath: resolve(db ?? defaultDbPath()), parallelRuns })
  const interrupted = core.start()
  if (interrupted.length > 0) {
    process.stderr.write(`p4lab: marked ${interrupted.length} run(s) cut off earlier as interrupted: ${interrupted.join(', ')}\n`)
  }
  return core
}

async function cmdRun(file: string, db: string | undefined, json: boolean, parallel: number | undefined): Promise<number> {
  const path = resolve(file)
  let yaml: string
  try {
    yaml = readFileSync(path, 'utf8')
  } catch (err) {
    fail(`cannot read experiment file ${file}: ${(err as Error).message}`)
  }
  // Validate before the database is even opened: bad input writes nothing.
  const parsed = parseExperiment(yaml, { file, baseDir: dirname(path), workloadsDir: workloadsDir(), testbeds: ['sim'] })
  if (!parsed.ok) {
    for (const e of parsed.errors) process.stderr.write(`${e.file}:${e.line}:${e.column}: ${e.path}: ${e.message}\n`)
    return 2
  }
  const core = openCore(db, parallel)
  const store = core.opts.store
  const exp = core.findOrCreateExperiment(yaml, path)
  const runs = core.runExperiment(exp.id)
  const ids = runs.map((r) => r.id)
  process.on('SIGINT', () => {
    process.stderr.write('\np4lab: cancelling...\n')
    core.orchestrator.cancelAll()
  })
  core.bus.subscribe((event, payload) => {
    if (event !== 'run.status') return
    const p = payload as { runId: number; status: string; error: string | null }
    if (!ids.includes(p.runId)) return
    const r = store.getRun(p.runId)!
    process.stderr.write(
      `run ${p.runId} ${r.scheme} load=${r.load} seed=${r.seed}: ${p.status}${p.error ? ` (${p.error})` : ''}\n`,
    )
  })
  await core.orchestrator.wait(ids)
  const finished = ids.map((id) => toRun(store.getRun(id)!))
  if (json) {
    process.stdout.write(JSON.stringify({ experiment: exp.name, runs: finished.map(runResult) }, null, 2) + '\n')
  } else {
    process.stdout.write(`experiment ${exp.id} ${exp.name}  (database ${store.file})\n${runsTable(finished)}\n`)
  }
  store.close()
  if (finished.some((r) => r.status === 'cancelled' || r.status === 'interrupted')) return 130
  return finished.every((r) => r.status === 'done') ? 0 : 1
}

function cmdList(db: string | undefined, json: boolean): number {
  const core = openCore(db)
  const store = core.opts.store
  const experiments = store.listExperiments().map((e) => ({
    id: e.id,
    name: e.name,
    createdAt: e.createdAt,
    runs: store.listRuns({ experimentId: e.id }).map(toRun),
  }))
  if (json) process.stdout.write(JSON.stringify(experiments, null, 2) + '\n')
  else if (experiments.length === 0) process.stdout.write(`no experiments yet in ${store.file}\n`)
  else {
    for (const e of experiments) {
      process.stdout.write(`experiment ${e.id} ${e.name}  (created ${e.createdAt})\n${runsTable(e.runs)}\n\n`)
    }
  }
  store.close()
  return 0
}

function cmdShow(idText: string, db: string | undefined, json: boolean): number {
  const id = Number(idText)
  if (!Number.isInteger(id) || id <= 0) throw new UsageError(`RUN must be a run id (a positive integer), got '${idText}'`)
  const core = openCore(db)
  const store = core.opts.store
  const row = store.getRun(id)
  if (!row) fail(`run ${id} does not exist in ${store.file}`, 1)
  const events = store.listEvents(id)
  const series = store.listSeries(id)
  if (json) {
    process.stdout.write(JSON.stringify({ ...toRun(row), facts: row.facts, events, series: series.length }, null, 2) + '\n')
  } else {
    const lines = [
      `run ${row.id}: ${row.experimentName}, ${row.scheme}, load ${row.load}, seed ${row.seed} on ${row.target}`,
      `status    ${row.status}${row.error ? `: ${row.error}` : ''}`,
      `created   ${row.createdAt}`,
      `started   ${row.startedAt ?? '-'}`,
      `finished  ${row.finishedAt ?? '-'}`,
      '',
      runsTable([toRun(row)]),
      '',
      'counters',
      ...Object.entries(row.counters ?? {}).map(([k, v]) => `  ${k.padEnd(24)} ${v}`),
      '',
      `series    ${series.length}`,
      'events',
      ...events.map((e) => `  ${e.at}  ${e.kind}  ${JSON.stringify(e.detail)}`),
    ]
    process.stdout.write(lines.join('\n') + '\n')
  }
  store.close()
  return 0
}

async function cmdServe(port: number, db: string | undefined): Promise<number> {
  const core = openCore(db)
  const server = await startServer(core, { port, rendererDir: rendererDir() })
  process.stdout.write(`p4lab ${packageVersion()} is serving the app (database ${core.opts.store.file})\n`)
  process.stdout.write(`open ${server.url}\n`)
  const stop = async () => {
    core.orchestrator.cancelAll()
    await server.close()
    core.opts.store.close()
    process.exit(0)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  return new Promise<number>(() => {})
}

function parseParallel(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--parallel must be a positive integer, got '${text}'`)
  return n
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      json: { type: 'boolean', default: false },
      port: { type: 'string' },
      parallel: { type: 'string', short: 'j' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', default: false },
    },
  })
  const [command, ...rest] = positionals
  if (values.version) {
    process.stdout.write(`${packageVersion()}\n`)
    return 0
  }
  if (values.help || !command) {
    process.stdout.write(USAGE + '\n')
    return command || values.help ? 0 : 2
  }
  switch (command) {
    case 'run':
      if (rest.length !== 1) throw new UsageError('run takes one experiment file')
      return cmdRun(rest[0], values.db, values.json, parseParallel(values.parallel))
    case 'list':
      return cmdList(values.db, values.json)
    case 'show':
      if (rest.length !== 1) throw new UsageError('show takes one run id')
      return cmdShow(rest[0], values.db, values.json)
    case 'serve': {
      const port = values.port === undefined ? 0 : Number(values.port)
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535, got '${values.port}'`)
      return cmdServe(port, values.db)
    }
    default:
      throw new UsageError(`unknown command '${command}'`)
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err) => {
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      fail(`${(err as Error).message}\n\n${USAGE}`)
    }
    fail(err instanceof Error ? err.message : String(err), 1)
  },
)

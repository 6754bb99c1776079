// What every p4lab command shares: errors, opening the core, run tables.
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { completionNumbers, type Run } from '../contract'
import { createNodeCore, type Core } from '../core'
import { defaultDbPath, makeDirs } from '../core/paths'
import { EnvSettingError } from '../core/run-limits'
import { notWritable } from '../core/store'
import { cutOffSubmissions } from '../core/slurm'
import { CoreError, printableOrRefuse } from '../core/errors'
import { SPEC_LIMITS, yamlBytesProblem } from '../core/spec'
import { storedTestbedNames } from '../core/testbeds'
import { formatNs, table } from './format'
import { formatSlowdown } from '../plots/format'

/** Bad arguments: main prints the message and the usage, and exits 2. */
export class UsageError extends Error {}

/** More lines (the usage) go to stderr only, after the message. */
export function fail(message: string, code = 2, more = ''): never {
  problem(`p4lab: ${message}`)
  jsonError()
  if (more) process.stderr.write(more)
  process.exit(code)
}

/**
 * What a failing command said, kept when the command line has --json: a script reading stdout
 * gets `{"error": ...}` instead of nothing. Main records whether stdout was written; `problems`
 * are the lines the command failed with (problem, fail), not its notices and progress on stderr.
 */
export const printed = { json: false, stdout: false, problems: [] as string[] }

/** Lines of what the command fails with: to stderr as given, and kept for jsonError. */
export function problem(text: string): void {
  process.stderr.write(`${text}\n`)
  printed.problems.push(text)
}

/** Under --json, with nothing yet on stdout: what the command failed with, as one JSON object. */
export function jsonError(): void {
  if (!printed.json || printed.stdout) return
  const error = printed.problems.join('\n').trim().split('\n').map((l) => l.replace(/^p4lab: /, '')).join('\n')
  process.stdout.write(JSON.stringify({ error: error || 'failed' }, null, 2) + '\n')
}

/**
 * `text` as given, refused (exit 2) when it holds a control character, as the app and the
 * experiment file refuse them (core/errors.ts printableOrRefuse). Notes may hold line feeds and tabs.
 */
export function printableInput(what: string, text: string, o: { multiLine?: boolean } = {}): string {
  try {
    return printableOrRefuse(what, text, o)
  } catch (err) {
    throw err instanceof CoreError ? new UsageError(err.message) : err
  }
}

/** The folder --out names, created if missing; a file there, or a folder that cannot be made, is named (exit 1). */
export function outFolder(out: string): string {
  const dir = resolve(out)
  try {
    makeDirs(dir)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EEXIST' || code === 'ENOTDIR') fail(`--out ${out}: ${code === 'EEXIST' ? 'that is a file' : 'a part of that path is a file'}; --out takes a folder`, 1)
    fail(`--out ${out}: cannot create that folder: ${(err as Error).message}`, 1)
  }
  return dir
}

/** Why --out FILE cannot be written, as the user's problem: no folder, a folder, no permission. */
export function outFileProblem(out: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return `--out ${out}: the folder ${dirname(resolve(out))} does not exist; create it first`
  if (code === 'EISDIR') return `--out ${out}: that is a folder; give a file name`
  return `--out ${out}: ${(err as Error).message}`
}

/**
 * A text file read up to `max` bytes: a device or pipe that never ends (/dev/zero) stops at the
 * budget instead of filling memory, and a file over it is not loaded. `over` is the problem then.
 */
export function readCapped(path: string, max: number, problem: (bytes: number) => string): { text: string; over?: undefined } | { over: string } {
  const fd = openSync(path, 'r')
  try {
    const st = fstatSync(fd)
    if (st.isDirectory()) throw new Error('it is a folder; give a file')
    if (st.isFile() && st.size > max) return { over: problem(st.size) }
    const buf = Buffer.alloc(max + 1)
    let got = 0
    for (let n = 1; n > 0 && got <= max; got += n) n = readSync(fd, buf, got, buf.length - got, null)
    if (got > max) return { over: st.isFile() ? problem(got) : `it is not a regular file and gave more than ${max.toLocaleString('en-US')} bytes without ending (a device or a pipe?); an experiment file may be at most ${max.toLocaleString('en-US')} bytes` }
    return { text: buf.subarray(0, got).toString('utf8') }
  } finally {
    closeSync(fd)
  }
}

/** An experiment file, read up to the spec's byte budget (readCapped). */
export function readSpecFile(path: string): ReturnType<typeof readCapped> {
  return readCapped(path, SPEC_LIMITS.yamlBytes, (bytes) => yamlBytesProblem(bytes)!)
}

/** The database file --db names, else the default one. */
export function dbFile(db: string | undefined): string {
  return resolve(db ?? defaultDbPath())
}

/** The testbeds saved in the database, to check an experiment's testbed against; one that cannot be opened is named. */
export function savedTestbeds(db: string | undefined): string[] {
  return openingDb(db, () => storedTestbedNames(dbFile(db)))
}

/** A command of the p4lab CLI: one file each under commands/. */
export interface Command {
  name: string
  /** Lines of the usage text, the first being "NAME ARGS [OPTIONS]". */
  usage: string[]
  /** More lines for `p4lab NAME --help` only (the schemes, their parameters). */
  details?(): string[]
  run(argv: string[]): Promise<number> | number
}

/** The options every command takes, spread into each command's own parseArgs options. */
export const COMMON_OPTIONS = {
  db: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const

/**
 * The runs as a table; below it, each run that is not done but has results (incomplete) with
 * its numbers and likely cause, so no listing shows it as if it were done.
 */
export function runsTable(runs: Run[], o: { notes?: boolean; status?: (r: Run) => string } = {}): string {
  const notes = (o.notes ?? true) ? runs.filter((r) => r.status === 'incomplete').map((r) => `  run ${r.id} is incomplete: ${r.error ?? (r.completion ? completionNumbers(r.completion) : 'no numbers recorded')}`) : []
  return [runsTableOnly(runs, o.status ?? ((r) => r.status)), ...notes].join('\n')
}

function runsTableOnly(runs: Run[], status: (r: Run) => string): string {
  return table(
    ['run', 'scheme', 'load', 'seed', 'status', 'flows', 'mean FCT', 'p50', 'p99', '<100KB mean', '>10MB mean', 'slowdown mean', 'p99'],
    runs.map((r) => [
      r.id,
      r.scheme,
      r.load,
      r.seed,
      status(r),
      r.completion ? `${r.completion.finished}/${r.completion.flows}` : r.stats ? `${r.stats.finished}/${r.stats.flows}` : '-',
      formatNs(r.stats?.meanNs),
      formatNs(r.stats?.p50Ns),
      formatNs(r.stats?.p99Ns),
      formatNs(r.stats?.smallMeanNs),
      formatNs(r.stats?.largeMeanNs),
      // n/a is a run with results stored before slowdown was measured; a run without results has none.
      r.stats ? formatSlowdown(r.stats.slowdown?.mean) : '-',
      r.stats ? formatSlowdown(r.stats.slowdown?.p99) : '-',
    ]),
  )
}

export /** The part of a run that depends only on the experiment and seed: stable across repeats. */
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
          slowdown: r.stats.slowdown ?? null,
        }
      : null,
    counters: r.counters,
    completion: r.completion,
  }
}

/**
 * The core on the database `db` names. o.forReading: the command only reads, so a database
 * this user cannot write (read-only media, no permission) is opened read-only instead of refused.
 */
export function openCore(db: string | undefined, o: { parallelRuns?: number; forReading?: boolean } = {}): Core {
  const file = dbFile(db)
  const core = openingDb(db, () => createNodeCore({ dbPath: file, ...o }))
  const { marked, unrecorded } = core.start()
  if (marked.length > 0) {
    process.stderr.write(`p4lab: marked ${marked.length} run(s) cut off earlier as interrupted: ${marked.join(', ')}\n`)
  }
  if (unrecorded.length > 0) {
    process.stderr.write(`p4lab: ${unrecorded.length} run(s) cut off earlier show as interrupted, not as stored: ${unrecorded.join(', ')} (the process that owned them is gone; not recorded: the database is read-only here)\n`)
  }
  const cut = cutOffSubmissions(core.opts.store)
  if (cut.length > 0) {
    const runs = cut.flatMap((s) => s.runIds).join(', ')
    process.stderr.write(`p4lab: ${cut.length} Slurm submission(s) cut off before their job was recorded (for run(s) ${runs}): sbatch may have made a job that nothing follows; p4lab slurm status looks for it on the cluster and adopts it (its runs followed again, or merged if it has ended) or, if they ran again since, cancels it (one that has ended is left unmerged, its folder named)\n`)
  }
  return core
}

/**
 * openCore for a command that reads or changes what is stored: a database that does not exist
 * is named, not created empty (a mistyped --db would leave a new file and answer "not found").
 */
export function openExistingCore(db: string | undefined, o: { forReading?: boolean } = {}): Core {
  const file = dbFile(db)
  if (!existsSync(file)) fail(`no database at ${file}${db === undefined ? '' : ' (--db)'}: nothing was run or imported there (p4lab run or p4lab import creates it)`, 1)
  return openCore(db, o)
}

/** fn, which opens the database `db` names: a failure to open it names the file and why, with exit 1. */
export function openingDb<T>(db: string | undefined, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    // A bad environment variable is bad input of its own; it says nothing about the database.
    if (err instanceof EnvSettingError) fail(err.message, 2)
    const file = dbFile(db)
    fail(`cannot open the database ${file}${db === undefined ? '' : ' (--db)'}: ${whyNotOpened(file, err)}`, 1)
  }
}

/** What SQLite or the file system said, as the user's problem: the file is left as it was. */
function whyNotOpened(file: string, err: unknown): string {
  const code = (err as { code?: string }).code
  const isDir = (() => {
    try {
      return statSync(file).isDirectory()
    } catch {
      return false
    }
  })()
  if (isDir || code === 'EISDIR') return 'it is a folder; give the path of a database file (it is created if missing)'
  if (code === 'SQLITE_NOTADB') return 'it is not a p4lab database (not SQLite); it was left as it is'
  if (code?.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    // The file became read-only after the store looked (the store names the common cases itself).
    const why = existsSync(file) ? notWritable(file) : null
    if (why !== null || code !== 'SQLITE_CANTOPEN') return `it cannot be written here (${why ?? (err as Error).message}); p4lab needs to write the file and its folder`
  }
  const message = err instanceof Error ? err.message : String(err)
  return message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message
}

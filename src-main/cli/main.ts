// The p4lab command: headless access to the same core the app uses. Each command is
// one file under commands/; this file only dispatches.
import { defaultDbPath, packageVersion } from '../core/paths'
import { printableLines } from '../model/printable'
import { fail, jsonError, printed, UsageError, type Command } from './common'
import { compareCommand } from './commands/compare'
import { exportCommand } from './commands/export'
import { importCommand } from './commands/import'
import { intCommand } from './commands/int'
import { listCommand } from './commands/list'
import { archiveCommand, restoreCommand, rmCommand } from './commands/manage'
import { noteCommand, tagCommand } from './commands/tag'
import { p4Command } from './commands/p4'
import { renameCommand } from './commands/rename'
import { runCommand } from './commands/run'
import { serveCommand } from './commands/serve'
import { showCommand } from './commands/show'
import { slurmCommand } from './slurm'
import { clusterCommand } from './cluster'
import { testbedCommand } from './commands/testbed'
import { topologyCommand } from './commands/topology'
import { validateCommand } from './commands/validate'
import { surviveClosedTerminal } from './terminal'

const COMMANDS: Command[] = [runCommand, validateCommand, listCommand, showCommand, renameCommand, tagCommand, noteCommand, rmCommand, archiveCommand, restoreCommand, compareCommand, exportCommand, importCommand, serveCommand, p4Command, testbedCommand, topologyCommand, intCommand, slurmCommand, clusterCommand]

function usage(): string {
  const lines = COMMANDS.flatMap((c) => c.usage.map((l) => `  ${l}`))
  return `usage: p4lab <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nThe database defaults to ${defaultDbPath()} (set P4LAB_HOME to move it).`
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === '--version') {
    process.stdout.write(`${packageVersion()}\n`)
    return 0
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage() + '\n')
    return command === undefined ? 2 : 0
  }
  const found = COMMANDS.find((c) => c.name === command)
  if (!found) throw new UsageError(`unknown command '${command}'`)
  if (rest.includes('--help') || rest.includes('-h')) {
    const details = found.details?.() ?? []
    process.stdout.write(`usage: p4lab ${found.usage.join('\n')}\n${details.length ? `\n${details.join('\n')}\n` : ''}`)
    return 0
  }
  try {
    return await found.run(rest)
  } catch (err) {
    // A mistake in one command's arguments is answered with that command's usage, not all of them.
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) usageOf.set(err as Error, found)
    throw err
  }
}

/** The command a usage error was made in. */
const usageOf = new WeakMap<Error, Command>()

/**
 * Every line the CLI prints passes through here: a stored name or error (from before names
 * were checked, or from a remote host's output) holding ESC, CR or a bidi override is printed
 * as an escape instead of acting on the terminal. Escapes are JSON's, so --json output stays valid.
 */
function guardTerminal(stream: NodeJS.WriteStream, seen: (text: string) => void = () => undefined): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string') seen(chunk)
    return write(typeof chunk === 'string' ? printableLines(chunk) : chunk, ...rest)
  }) as typeof stream.write
}
guardTerminal(process.stdout, () => (printed.stdout = true))
guardTerminal(process.stderr)

// A closed terminal (SIGHUP) or a reader gone ends a command as it would have ended.
surviveClosedTerminal()

const args = process.argv.slice(2)
printed.json = args.slice(0, args.includes('--') ? args.indexOf('--') : undefined).includes('--json')
main(args).then(
  (code) => {
    if (code !== 0) jsonError()
    process.exitCode = code
  },
  (err) => {
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      const command = usageOf.get(err as Error)
      fail((err as Error).message, 2, command ? `\nusage: p4lab ${command.usage.join('\n')}\n(p4lab --help lists every command)\n` : `\n${usage()}\n`)
    }
    fail(err instanceof Error ? err.message : String(err), 1)
  },
)

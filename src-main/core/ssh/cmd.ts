import { quote } from 'shell-quote'
import { SshError } from './errors'

/**
 * The one way p4lab builds a remote command line. sshd hands the line to the user's
 * login shell (`$SHELL -c LINE`), so every argument is quoted with shell-quote: a name
 * with spaces, quotes, `$()`, backticks, newlines, `;` or `*` reaches the program as
 * exactly one argument, and nothing in it is executed or expanded.
 *
 * The few fixed pieces added here (`cd`, `&&`, environment assignments) are constants or
 * validated names; every value is quoted.
 */
export interface CmdOptions {
  /** Run in this directory (`cd -- DIR && …`). Relative paths start at the login directory. */
  cwd?: string
  /** Environment for the command (`NAME=value …`). Names must be shell identifiers. */
  env?: Record<string, string>
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Quote one argument list (no cwd/env). */
export function q(argv: readonly string[]): string {
  for (const a of argv) {
    if (typeof a !== 'string') throw new SshError('usage', `a command argument must be a string, got ${typeof a}`)
    if (a.includes('\0')) throw new SshError('usage', 'a command argument cannot contain a NUL byte')
  }
  return quote([...argv])
}

export function cmd(argv: readonly string[], opts: CmdOptions = {}): string {
  if (argv.length === 0) throw new SshError('usage', 'cmd: empty argument list')
  let line = ''
  if (opts.env) {
    for (const [name, value] of Object.entries(opts.env)) {
      if (!ENV_NAME.test(name)) throw new SshError('usage', `cmd: ${JSON.stringify(name)} is not a valid environment variable name`)
      line += `${name}=${q([value])} `
    }
  }
  line += q(argv)
  if (opts.cwd !== undefined) {
    if (opts.cwd === '') throw new SshError('usage', 'cmd: empty cwd')
    line = `cd -- ${q([opts.cwd])} && ${line}`
  }
  return line
}

/**
 * `sh -c SCRIPT NAME ARGS…` with every piece quoted: for the few fixed scripts this layer
 * runs remotely. The script is a constant; all data goes in as positional parameters.
 */
export function shScript(script: string, name: string, args: readonly string[] = []): string {
  return q(['sh', '-c', script, name, ...args])
}

import { dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { SpecError } from '../../contract/schemas'
import { workloadsDir } from '../../core/paths'
import { expandRuns, formatSpecError, parseExperiment } from '../../core/spec'
import { buildFabric } from '../../model/topology'
import { fail, problem, readSpecFile, savedTestbeds, COMMON_OPTIONS, UsageError, type Command } from '../common'

/** "file:line:col: field: message (node tor0)": what the graph would mark, after the message. */
export function formatValidateError(e: SpecError): string {
  const about = [e.node !== undefined ? `node ${e.node}` : '', e.link !== undefined ? `link ${e.link}` : ''].filter(Boolean).join(', ')
  return `${formatSpecError(e)}${about ? ` (${about})` : ''}`
}

function cmdValidate(file: string, db: string | undefined, json: boolean): number {
  const path = resolve(file)
  let text: string
  try {
    const read = readSpecFile(path)
    if (read.over !== undefined) fail(`${file}: ${read.over}`, 1)
    text = read.text
  } catch (err) {
    fail(`cannot read experiment file ${file}: ${(err as Error).message}`, 1)
  }
  // Testbed names come from the database when it exists; it is never created here.
  const testbeds = savedTestbeds(db)
  const parsed = parseExperiment(text, { file, baseDir: dirname(path), workloadsDir: workloadsDir(), testbeds })
  if (!parsed.ok) {
    if (json) process.stdout.write(JSON.stringify({ valid: false, errors: parsed.errors }, null, 2) + '\n')
    else for (const e of parsed.errors) problem(formatValidateError(e))
    return 1
  }
  const f = buildFabric(parsed.spec.topology)
  const summary = { valid: true, runs: expandRuns(parsed.spec).length, switches: f.switches.length, hosts: f.hosts.length, links: f.links.length }
  if (json) process.stdout.write(JSON.stringify(summary, null, 2) + '\n')
  else {
    const s = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`
    process.stdout.write(`${file}: valid: ${s(summary.runs, 'run')}, ${s(f.nodes.length, 'node')} (${s(summary.switches, 'switch').replace('switchs', 'switches')}, ${s(summary.hosts, 'host')}), ${s(summary.links, 'link')}\n`)
  }
  return 0
}

export const validateCommand: Command = {
  name: 'validate',
  usage: [
    'validate FILE [--db PATH] [--json]',
    '    check an experiment file without running it: every problem as file:line:col, the field, and the node or link at fault; exit 1 on errors',
  ],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS })
    if (positionals.length !== 1) throw new UsageError('validate takes one experiment file')
    return cmdValidate(positionals[0], values.db, values.json)
  },
}

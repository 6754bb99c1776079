// `p4lab rm`, `p4lab archive` and `p4lab restore`: runs and experiments set aside and brought
// back. Nothing is removed for good but by `rm --purge` (the trash); both rm and archive ask
// first, take --yes instead, and refuse without it when there is no terminal to ask on.
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'
import type { Core } from '../../core'
import { ManageError, type ManagedKind, type SetAside, type Store } from '../../core/store'
import { fail, openExistingCore, problem, COMMON_OPTIONS, UsageError, type Command } from '../common'
import { resolveExperiment } from './compare'

const KINDS: Record<string, ManagedKind> = { run: 'runs', runs: 'runs', experiment: 'experiments', experiments: 'experiments' }

/** The runs or experiments named on the line: `run ID...` or `experiment NAME|ID...`. */
export function targets(store: Store, command: string, positionals: string[]): { kind: ManagedKind; ids: number[]; labels: string[] } {
  const [what, ...names] = positionals
  const kind = KINDS[what ?? '']
  if (!kind) throw new UsageError(`${command} takes 'run ID...' or 'experiment NAME|ID...'${what ? `, not '${what}'` : ''}`)
  if (names.length === 0) throw new UsageError(`${command} ${what}: name at least one ${kind === 'runs' ? 'run id' : 'experiment (name or id)'}`)
  if (kind === 'runs') {
    const ids = names.map((n) => {
      if (!/^\d+$/.test(n)) throw new UsageError(`${command} run: '${n}' is not a run id (a number; 'p4lab list' shows them)`)
      const r = store.getRun(Number(n))
      if (!r) fail(`run ${n} does not exist in ${store.file}`, 1)
      return r.id
    })
    const labels = ids.map((id) => {
      const r = store.getRun(id)!
      return `run ${id} (${r.experimentName}: ${r.scheme}, load ${r.load}, seed ${r.seed}, ${r.status})`
    })
    return { kind, ids, labels }
  }
  const ids = names.map((n) => resolveExperiment(store, n))
  const labels = ids.map((id) => {
    const e = store.getExperiment(id)!
    const n = store.listRuns({ experimentId: id, shown: 'all' }).length
    return `experiment ${id} ${e.name} (${n} run${n === 1 ? '' : 's'})`
  })
  return { kind, ids, labels }
}

/** Asks on the terminal; false without one (the caller has already refused then). */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim())
  } finally {
    rl.close()
  }
}

/** --yes, or a yes on the terminal; without a terminal, a refusal saying how to go on. */
async function agreed(verb: string, labels: string[], yes: boolean): Promise<boolean> {
  if (yes) return true
  if (!process.stdin.isTTY) {
    problem(`p4lab: nothing done: there is no terminal to confirm on (stdin is not a TTY); to ${verb} ${labels.join(', ')}, run again with --yes`)
    return false
  }
  process.stdout.write(`${labels.map((l) => `  ${l}`).join('\n')}\n`)
  return confirm(`${verb[0].toUpperCase()}${verb.slice(1)} ${labels.length === 1 ? 'this' : `these ${labels.length}`}? [y/N] `)
}

async function withStore(db: string | undefined, fn: (core: Core, store: Store) => Promise<number>): Promise<number> {
  const core = openExistingCore(db)
  try {
    return await fn(core, core.opts.store)
  } catch (err) {
    if (err instanceof ManageError) fail(err.message, 1)
    throw err
  } finally {
    core.opts.store.close()
  }
}

function setAsideCommand(name: 'rm' | 'archive', how: SetAside): Command {
  const verb = how === 'deleted' ? 'move to the trash' : 'archive'
  return {
    name,
    usage:
      name === 'rm'
        ? [
            'rm run ID... | rm experiment NAME|ID... [--yes] [--db PATH] [--json]',
            '    delete runs or experiments: they go to the trash, hidden but kept (p4lab restore brings them back); asks first,',
            '    --yes does not (without a terminal, --yes is needed). A run that has not ended is refused: cancel it first',
            'rm --purge [--yes]',
            '    empty the trash: what is in it is removed for good',
          ]
        : [
            'archive run ID... | archive experiment NAME|ID... [--yes] [--restore] [--db PATH] [--json]',
            '    archive runs or experiments: hidden from lists, compare and the run matrix, kept; --restore brings them back',
          ],
    run(argv) {
      const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: { ...COMMON_OPTIONS, yes: { type: 'boolean', short: 'y', default: false }, purge: { type: 'boolean', default: false }, restore: { type: 'boolean', default: false } },
      })
      if (values.purge && name !== 'rm') throw new UsageError('--purge belongs to rm')
      if (values.restore && name !== 'archive') throw new UsageError(`--restore belongs to archive; use p4lab restore`)
      if (values.restore) return restoreCommand.run(argv.filter((a) => a !== '--restore'))
      return withStore(values.db, async (_core, store) => {
        if (values.purge) {
          if (positionals.length > 0) throw new UsageError('rm --purge takes no runs or experiments: it empties the whole trash')
          const t = store.trash()
          const labels = [...t.experiments.map((e) => `experiment ${e.id} ${e.name} (${e.runs} runs)`), ...t.runs.map((r) => `run ${r.id} (${r.experimentName}: ${r.scheme})`)]
          if (labels.length === 0) {
            process.stdout.write(values.json ? '{ "runs": 0, "experiments": 0 }\n' : 'the trash is empty\n')
            return 0
          }
          if (!(await agreed('remove for good', labels, values.yes))) return 1
          const r = store.purgeDeleted()
          process.stdout.write(values.json ? JSON.stringify(r, null, 2) + '\n' : `removed for good: ${r.experiments} experiment(s) and ${r.runs} run(s) from the trash\n`)
          return 0
        }
        const t = targets(store, name, positionals)
        // Refused before asking: a question whose yes would fail anyway helps no one.
        store.checkSetAside(t.kind, t.ids, how)
        if (!(await agreed(verb, t.labels, values.yes))) return 1
        const ids = store.setAside(t.kind, t.ids, how)
        const what = t.kind === 'runs' ? 'run' : 'experiment'
        if (values.json) process.stdout.write(JSON.stringify({ kind: t.kind, how, ids }, null, 2) + '\n')
        else if (ids.length === 0) process.stdout.write(`nothing changed: ${t.ids.length === 1 ? `that ${what} was` : `those ${what}s were`} already ${how === 'deleted' ? 'in the trash' : 'archived'}\n`)
        else {
          const done = how === 'deleted' ? 'moved to the trash' : 'archived'
          const back = `p4lab restore ${what} ${ids.join(' ')}`
          process.stdout.write(`${done}: ${what} ${ids.join(', ')}; bring ${ids.length === 1 ? 'it' : 'them'} back with ${back}${how === 'deleted' ? ' (p4lab rm --purge empties the trash)' : ''}\n`)
        }
        return 0
      })
    },
  }
}

export const rmCommand = setAsideCommand('rm', 'deleted')
export const archiveCommand = setAsideCommand('archive', 'archived')

export const restoreCommand: Command = {
  name: 'restore',
  usage: ['restore run ID... | restore experiment NAME|ID... [--db PATH] [--json]', '    bring runs or experiments back from the archive or the trash'],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS })
    return withStore(values.db, async (_core, store) => {
      const t = targets(store, 'restore', positionals)
      const ids = store.restore(t.kind, t.ids)
      const what = t.kind === 'runs' ? 'run' : 'experiment'
      if (values.json) process.stdout.write(JSON.stringify({ kind: t.kind, ids }, null, 2) + '\n')
      else if (ids.length === 0) process.stdout.write(`nothing changed: ${t.ids.length === 1 ? `that ${what} is` : `those ${what}s are`} not archived or deleted\n`)
      else process.stdout.write(`restored ${what} ${ids.join(', ')}\n`)
      return 0
    })
  },
}

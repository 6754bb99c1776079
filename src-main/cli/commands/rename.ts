import { parseArgs } from 'node:util'
import { NameTakenError } from '../../core/store'
import { fail, openExistingCore, printableInput, COMMON_OPTIONS, UsageError, type Command } from '../common'
import { resolveExperiment } from './compare'

function cmdRename(from: string, to: string, db: string | undefined, json: boolean): number {
  const name = to.trim()
  if (name === '') throw new UsageError('NEW must be a non-empty name')
  printableInput(`NEW '${name}'`, name)
  const core = openExistingCore(db)
  const store = core.opts.store
  try {
    const id = resolveExperiment(store, from)
    const before = store.getExperiment(id)!
    let after
    try {
      after = store.renameExperiment(id, name)
    } catch (err) {
      if (err instanceof NameTakenError) fail(err.message, 1)
      throw err
    }
    if (json) process.stdout.write(JSON.stringify({ id, from: before.name, to: after.name, revision: after.revision }, null, 2) + '\n')
    else if (after.revision === before.revision) process.stdout.write(`experiment ${id} is already named ${after.name}\n`)
    else process.stdout.write(`experiment ${id}: renamed ${before.name} -> ${after.name} (revision ${after.revision}; its runs keep what they ran with)\n`)
    return 0
  } finally {
    store.close()
  }
}

export const renameCommand: Command = {
  name: 'rename',
  usage: ['rename OLD NEW [--db PATH] [--json]', '    rename an experiment (by name or id); names are unique, and the rename is kept as a revision'],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS })
    if (positionals.length !== 2) throw new UsageError('rename takes the experiment (name or id) and its new name')
    return cmdRename(positionals[0], positionals[1], values.db, values.json)
  },
}

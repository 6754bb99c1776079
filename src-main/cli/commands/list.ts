import { parseArgs } from 'node:util'
import { toRun } from '../../core/services'
import { openCore, COMMON_OPTIONS, runsTable, type Command } from '../common'

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

export const listCommand: Command = {
  name: 'list',
  usage: ['list [--db PATH] [--json]', '    list experiments and their runs'],
  run(argv) {
    const { values } = parseArgs({ args: argv, allowPositionals: true, options: COMMON_OPTIONS })
    return cmdList(values.db, values.json)
  },
}

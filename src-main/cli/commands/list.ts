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
  // A run on a Slurm cluster shows its task's state as Slurm gave it at the last look.
  const slurm = (r: { id: number }) => {
    const t = store.slurmTaskOfRun(r.id)
    return t ? { job: t.jobId, task: t.arrayIndex, state: t.state, reason: t.reason } : null
  }
  const status = (r: { id: number; status: string }) => {
    const t = slurm(r)
    return t ? `${r.status} (Slurm ${t.state}${t.reason ? `: ${t.reason}` : ''})` : r.status
  }
  if (json) process.stdout.write(JSON.stringify(experiments.map((e) => ({ ...e, runs: e.runs.map((r) => ({ ...r, slurm: slurm(r) })) })), null, 2) + '\n')
  else if (experiments.length === 0) process.stdout.write(`no experiments yet in ${store.file}\n`)
  else {
    for (const e of experiments) {
      process.stdout.write(`experiment ${e.id} ${e.name}  (created ${e.createdAt})\n${runsTable(e.runs, { status })}\n\n`)
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

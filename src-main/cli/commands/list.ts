import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { QueryError, searchRuns } from '../../core/compare'
import { toRun } from '../../core/services'
import type { ExperimentSummaryRow, Shown } from '../../core/store'
import { dbFile, openCore, problem, COMMON_OPTIONS, runsTable, UsageError, type Command } from '../common'

function cmdList(db: string | undefined, json: boolean, shown: Shown, where: string | undefined): number {
  // Listing creates nothing: a database not there yet (a first start, or a mistyped --db) is said so.
  const file = dbFile(db)
  if (!existsSync(file)) {
    process.stdout.write(json ? '[]\n' : `no experiments yet: no database at ${file}${db === undefined ? '' : ' (--db)'}\n`)
    return where === undefined ? 0 : 1
  }
  const core = openCore(db, { forReading: true })
  const store = core.opts.store
  try {
    const row = (e: ExperimentSummaryRow, runs: Shown) => ({
      id: e.id,
      name: e.name,
      createdAt: e.createdAt,
      tags: [...new Set([...e.tags, ...e.storeTags])],
      runs: store.listRuns({ experimentId: e.id, shown: runs }).map(toRun),
    })
    // An archived or deleted experiment shows all its runs; with --archived or --trash, a shown
    // experiment shows those of its runs set aside that way.
    let experiments =
      shown === 'active'
        ? store.listExperiments().map((e) => row(e, 'active'))
        : [...store.listExperiments(shown).map((e) => row(e, 'all')), ...store.listExperiments().map((e) => row(e, shown)).filter((e) => e.runs.length > 0)]
    let nothingMatched = false
    if (shown === 'active' && where !== undefined) {
      // The --where language of compare, across every experiment (as the app's search box).
      let found
      try {
        found = searchRuns(store, where)
      } catch (err) {
        if (!(err instanceof QueryError)) throw err
        problem(`p4lab: --where: ${err.message}\n${err.pointer()}`)
        return 2
      }
      const hits = new Map(found.hits.map((h) => [h.experimentId, new Set(h.runs.map((r) => r.run.id))]))
      experiments = experiments.filter((e) => hits.has(e.id)).map((e) => ({ ...e, runs: e.runs.filter((r) => hits.get(e.id)!.has(r.id)) }))
      for (const h of found.hints) process.stderr.write(`p4lab: --where: ${h}\n`)
      if (found.hits.length === 0 && found.hints.length === 0) process.stderr.write(`p4lab: --where: nothing matches '${where}'\n`)
      // As compare --where (and grep): nothing matched is exit 1.
      if (found.hits.length === 0) nothingMatched = true
    }
    if (shown === 'active') {
      // Runs set aside in a shown experiment are out of the table: say so, not silently.
      for (const e of experiments) {
        const hidden = store.listRuns({ experimentId: e.id, shown: 'all' }).length - store.listRuns({ experimentId: e.id }).length
        if (hidden > 0) Object.assign(e, { hidden })
      }
    }
    // A run on a Slurm cluster shows its task's state as Slurm gave it at the last look.
    const slurm = (r: { id: number }) => {
      const t = store.slurmTaskOfRun(r.id)
      return t ? { job: t.jobId, task: t.arrayIndex, state: t.state, reason: t.reason } : null
    }
    const status = (r: { id: number; status: string; setAside: string | null }) => {
      const t = slurm(r)
      const s = t ? `${r.status} (Slurm ${t.state}${t.reason ? `: ${t.reason}` : ''})` : r.status
      return r.setAside ? `${s}, ${r.setAside}` : s
    }
    const what = shown === 'archived' ? 'archived experiments' : shown === 'deleted' ? 'experiments in the trash' : 'experiments'
    if (json) process.stdout.write(JSON.stringify(experiments.map((e) => ({ ...e, runs: e.runs.map((r) => ({ ...r, slurm: slurm(r) })) })), null, 2) + '\n')
    else if (experiments.length === 0) process.stdout.write(where !== undefined ? '' : `no ${what} ${shown === 'active' ? 'yet ' : ''}in ${store.file}\n`)
    else {
      for (const e of experiments) {
        const tags = e.tags.length ? `  [${e.tags.join(', ')}]` : ''
        const hidden = (e as { hidden?: number }).hidden
        const more = hidden ? `\n  (${hidden} run(s) archived or in the trash: p4lab list --archived / --trash, p4lab restore run ID)` : ''
        process.stdout.write(`experiment ${e.id} ${e.name}  (created ${e.createdAt})${tags}\n${runsTable(e.runs, { status })}${more}\n\n`)
      }
    }
    if (shown === 'active' && !json) {
      // Runs set aside inside experiments that are shown are listed by --archived / --trash too.
      const t = store.trash()
      if (t.runs.length + t.experiments.length > 0) process.stderr.write(`p4lab: the trash holds ${t.experiments.length} experiment(s) and ${t.runs.length} run(s) (p4lab list --trash)\n`)
    }
    return nothingMatched ? 1 : 0
  } finally {
    store.close()
  }
}

export const listCommand: Command = {
  name: 'list',
  usage: [
    'list [--where QUERY] [--archived | --trash] [--db PATH] [--json]',
    "    list experiments and their runs; --where keeps the runs a query matches across all of them (as compare's:",
    "    'experiment ~ fig', 'tag:paper', 'scheme = hula and load >= 0.5', 'p99 < 2e6' (ns)); --archived and --trash list what is set aside",
  ],
  run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...COMMON_OPTIONS, where: { type: 'string' }, archived: { type: 'boolean', default: false }, trash: { type: 'boolean', default: false } },
    })
    // A word after list is a filter the user meant, not one to drop: listing everything would look like an answer.
    if (positionals.length > 0) throw new UsageError(`list takes no arguments, got '${positionals[0]}' (to choose runs: --where QUERY, e.g. --where 'experiment ~ ${positionals[0]}')`)
    if (values.archived && values.trash) throw new UsageError('list takes --archived or --trash, not both')
    if ((values.archived || values.trash) && values.where !== undefined) throw new UsageError('--where searches the active experiments; it does not go with --archived or --trash')
    return cmdList(values.db, values.json, values.archived ? 'archived' : values.trash ? 'deleted' : 'active', values.where)
  },
}

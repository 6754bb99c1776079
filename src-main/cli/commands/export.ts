import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ArchiveTargetError, exportExperiment } from '../../core/archive'
import { packageRoot } from '../../core/paths'
import { formatBytes } from '../../plots/format'
import { openExistingCore, problem, COMMON_OPTIONS, UsageError, type Command } from '../common'
import { resolveExperiment } from './compare'

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`

async function cmdExport(name: string, out: string, db: string | undefined, json: boolean, force: boolean): Promise<number> {
  const core = openExistingCore(db, { forReading: true })
  const store = core.opts.store
  try {
    const experimentId = resolveExperiment(store, name)
    let r
    try {
      r = await exportExperiment({ store, experimentId, out: resolve(out), dataDir: core.dataDir(), p4Dir: join(packageRoot(), 'p4'), overwrite: force })
    } catch (err) {
      if (!(err instanceof ArchiveTargetError)) throw err
      problem(`p4lab: export: ${err.message}`)
      return 1
    }
    if (json) process.stdout.write(JSON.stringify(r, null, 2) + '\n')
    else process.stdout.write(`wrote ${r.file}: ${count(r.runs, 'run')}, ${count(r.files, 'file')}, ${formatBytes(r.bytes)}\n`)
    return 0
  } finally {
    store.close()
  }
}

export const exportCommand: Command = {
  name: 'export',
  usage: [
    'export EXPERIMENT -o FILE.tar.gz [--force] [--db PATH] [--json]',
    '    write an experiment (YAML, testbed without secrets, runs as SQLite and CSV, logs, README; P4 for BMv2/Tofino runs) as one archive',
    '    into an existing folder; an existing FILE is replaced only with --force',
  ],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...COMMON_OPTIONS, output: { type: 'string', short: 'o' }, force: { type: 'boolean' } } })
    if (positionals.length !== 1) throw new UsageError('export takes one experiment (a name or an id)')
    if (!values.output) throw new UsageError('export needs -o FILE.tar.gz')
    return cmdExport(positionals[0], values.output, values.db, values.json, values.force ?? false)
  },
}

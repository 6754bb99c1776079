import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ArchiveRefusedError, commitImport, prepareImport, type PreparedImport } from '../../core/archive'
import { openCore, problem, COMMON_OPTIONS, UsageError, type Command } from '../common'

async function cmdImport(file: string, db: string | undefined, json: boolean, copy: boolean): Promise<number> {
  // Everything is checked before the database is even opened: a refused archive writes nothing.
  let prepared: PreparedImport
  try {
    prepared = await prepareImport(resolve(file))
  } catch (err) {
    if (err instanceof ArchiveRefusedError) {
      problem(`p4lab: ${file}: ${err.message}`)
      return 1
    }
    throw err
  }
  try {
    const core = openCore(db)
    const store = core.opts.store
    try {
      const r = commitImport(prepared, store, core.dataDir(), copy ? 'copy' : 'skip')
      if (json) process.stdout.write(JSON.stringify(r, null, 2) + '\n')
      else if (r.skipped) {
        const d = r.duplicateOf!
        process.stdout.write(`skipped: ${file} is already here as experiment ${d.experimentId} ${d.name}${d.archived ? ' (archived)' : ''} (same content hash); nothing imported. --copy imports it again as a copy\n`)
      } else {
        if (r.duplicateOf) process.stdout.write(`${file} is already here as experiment ${r.duplicateOf.experimentId} ${r.duplicateOf.name}; importing a copy (--copy)\n`)
        const runs = Object.keys(r.runIds).length
        process.stdout.write(`imported ${r.name} as experiment ${r.experimentId} (${runs} run${runs === 1 ? '' : 's'}, ${r.files} files) into ${store.file}\n`)
        const d = r.compareDifference
        if (r.compareMatches === false) {
          process.stdout.write(
            d
              ? `warning: the comparison recomputed here differs from the one in the archive (written by p4lab ${d.writtenBy}), from line ${d.line} of compare/mean-by-load.txt:\n  archived: ${d.archived}\n  here:     ${d.here}\n`
              : 'warning: the comparison recomputed here differs from the one in the archive\n',
          )
        }
      }
      return 0
    } finally {
      store.close()
    }
  } finally {
    prepared.dispose()
  }
}

export const importCommand: Command = {
  name: 'import',
  usage: [
    'import FILE [--copy] [--db PATH] [--json]',
    '    import an archive written by p4lab export (every file checked against its manifest first; new ids);',
    '    one already here (same content hash: exported from here, or imported before) is skipped unless --copy',
  ],
  run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...COMMON_OPTIONS, copy: { type: 'boolean', default: false } } })
    if (positionals.length !== 1) throw new UsageError('import takes one archive file')
    return cmdImport(positionals[0], values.db, values.json, values.copy)
  },
}

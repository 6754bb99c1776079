import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { workloadsDir } from '../../core/paths'
import { parseExperiment } from '../../core/spec'
import { exportClab, ImportError, importTopology, TOPOLOGY_FORMATS, type TopologyFormat } from '../../core/topology-io'
import { buildFabric } from '../../model/topology'
import { fail, outFileProblem, problem, savedTestbeds, UsageError, type Command } from '../common'
import { formatValidateError } from './validate'

function readText(file: string): string {
  try {
    return readFileSync(resolve(file), 'utf8')
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`, 1)
  }
}

/** Writes to --out (never over an existing file) or to stdout. */
function emit(text: string, out: string | undefined, what: string): number {
  if (out === undefined) {
    process.stdout.write(text)
    return 0
  }
  if (existsSync(out)) fail(`${out} exists; p4lab does not overwrite it (choose another --out or remove it)`, 1)
  try {
    writeFileSync(out, text, { flag: 'wx' })
  } catch (err) {
    fail(outFileProblem(out, err), 1)
  }
  process.stderr.write(`${what} written to ${out}\n`)
  return 0
}

function cmdImport(file: string, format: string | undefined, out: string | undefined): number {
  if (format !== undefined && !TOPOLOGY_FORMATS.includes(format as TopologyFormat)) throw new UsageError(`--format: expected one of ${TOPOLOGY_FORMATS.join(', ')}, got '${format}'`)
  const text = readText(file)
  let yaml: string
  try {
    yaml = importTopology(text, file, format as TopologyFormat | undefined)
  } catch (err) {
    if (err instanceof ImportError) fail(`${file}: ${err.message}`, 1)
    throw err
  }
  return emit(yaml, out, `the experiment file imported from ${basename(file)}`)
}

function cmdExport(file: string, format: string | undefined, out: string | undefined, db: string | undefined): number {
  if (format !== 'clab') throw new UsageError(`--format: export writes clab (a containerlab .clab.yml), got '${format ?? ''}'`)
  const path = resolve(file)
  const parsed = parseExperiment(readText(file), { file, baseDir: dirname(path), workloadsDir: workloadsDir(), testbeds: savedTestbeds(db) })
  if (!parsed.ok) {
    for (const e of parsed.errors) problem(formatValidateError(e))
    return 1
  }
  return emit(exportClab(buildFabric(parsed.spec.topology), parsed.spec.name), out, 'the containerlab topology')
}

export const topologyCommand: Command = {
  name: 'topology',
  usage: [
    'topology import FILE [--format p4-tutorials|p4-utils|clab] [--out EXPERIMENT.yaml]',
    '    a P4 tutorials topology.json, p4-utils p4app.json or containerlab .clab.yml as an experiment file with a custom topology (tiers inferred)',
    'topology export EXPERIMENT.yaml --format clab [--out FILE.clab.yml] [--db PATH]',
    "    the experiment's fabric as a containerlab topology",
  ],
  run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { format: { type: 'string' }, out: { type: 'string' }, db: { type: 'string' } },
    })
    const [verb, file, ...rest] = positionals
    if (file === undefined || rest.length > 0) throw new UsageError('topology takes import FILE or export EXPERIMENT.yaml')
    if (verb === 'import') return cmdImport(file, values.format, values.out)
    if (verb === 'export') return cmdExport(file, values.format, values.out, values.db)
    throw new UsageError(`topology: unknown action '${verb}'; expected import or export`)
  },
}

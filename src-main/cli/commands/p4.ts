// p4lab p4 render | build: the control-plane files of a topology, and a local P4 build through
// the artifact cache (src-main/core/p4build).
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { defaultDbPath, workloadsDir } from '../../core/paths'
import {
  BuildFailedError,
  CompilerMissingError,
  P4Builder,
  TopologyInputError,
  formatDiagnostic,
  readTopologyYaml,
  renderPipeline,
  type P4Target,
} from '../../core/p4build'
import { openStore } from '../../core/store'
import { KINDS, isRemoteKind } from '../../core/targets/kinds'
import { fail, openingDb, outFolder, UsageError, type Command } from '../common'
import { p4SchemeNames, p4SchemesHelp } from '../schemes'
import { detailSections, type P4Diagnostic } from '../../core/p4/diagnostics'

const TARGETS = Object.keys(KINDS).join(' or ')

function target(value: string | undefined): P4Target {
  if (value === undefined) throw new UsageError(`--target is required: ${TARGETS}`)
  if (!isRemoteKind(value)) throw new UsageError(`--target must be ${TARGETS}, got '${value}'`)
  return value
}

function cmdRender(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      topology: { type: 'string' },
      scheme: { type: 'string' },
      target: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
  if (positionals.length > 0) throw new UsageError(`p4 render takes no positional arguments, got '${positionals[0]}'`)
  if (!values.topology) throw new UsageError('--topology FILE is required (an experiment file or a topology-only YAML)')
  if (!values.scheme) throw new UsageError(`--scheme is required (${p4SchemeNames().join(', ')})`)
  if (!values.out) throw new UsageError('--out DIR is required')
  const t = target(values.target)
  let text: string
  try {
    text = readFileSync(values.topology, 'utf8')
  } catch (e) {
    fail(`cannot read topology file ${values.topology}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`)
  }
  let rendered
  try {
    const input = readTopologyYaml(text, values.topology, workloadsDir())
    rendered = renderPipeline(input.topology, values.scheme, t, input.params, input.int ? { int: input.int } : {})
  } catch (e) {
    if (e instanceof TopologyInputError) {
      fail(e.errors.map((x) => `${x.file}:${x.line}:${x.column}: ${x.path}: ${x.message}`).join('\n'))
    }
    fail(`${values.topology}: ${(e as Error).message}`)
  }
  const out = outFolder(values.out)
  const written: string[] = []
  const write = (name: string, body: string) => {
    writeFileSync(join(out, name), body)
    written.push(name)
  }
  for (const sw of rendered.switches) write(sw.fileName, sw.deployText)
  if (rendered.queues) write('queues.json', JSON.stringify(rendered.queues, null, 1) + '\n')
  write('state.json', JSON.stringify(rendered.state, null, 1) + '\n')
  if (values.json) {
    process.stdout.write(JSON.stringify({ scheme: rendered.scheme, target: t, program: `p4/${rendered.program}`, out, files: written }, null, 2) + '\n')
  } else {
    process.stdout.write(
      `${rendered.scheme} on ${t} (p4/${rendered.program}): ${rendered.switches.length} switches\n` +
        written.map((f) => `  ${join(values.out!, f)}\n`).join(''),
    )
  }
  return 0
}

async function cmdBuild(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      target: { type: 'string' },
      out: { type: 'string' },
      flag: { type: 'string', multiple: true },
      include: { type: 'string', short: 'I', multiple: true },
      db: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
  if (positionals.length !== 1) throw new UsageError('p4 build takes one P4 file')
  const t = target(values.target)
  const file = resolve(positionals[0])
  const store = openingDb(values.db, () => openStore(resolve(values.db ?? defaultDbPath())))
  const builder = new P4Builder({ store, artifactsDir: join(dirname(store.file), 'artifacts') })
  const show = (root: string, list: P4Diagnostic[]) => {
    for (const d of list) {
      const shown = d.file ? { ...d, file: relative(process.cwd(), join(root, d.file)) || d.file } : d
      process.stderr.write(formatDiagnostic(shown) + '\n')
      // Where p4c traces the error from (the "Actual error" is on the line above).
      for (const sec of detailSections(d.detail)) {
        const lines = /^actual error$/i.test(sec.heading) ? sec.lines.slice(1) : [`${sec.heading.toLowerCase()}:`, ...sec.lines]
        for (const l of lines) process.stderr.write(`    ${l}\n`)
      }
    }
  }
  try {
    const r = await builder.build({ file, target: t, flags: values.flag ?? [], includeDirs: values.include ?? [], program: file })
    if (!values.json) show(r.root, r.diagnostics)
    let files = r.files
    if (values.out) {
      const out = outFolder(values.out)
      files = {}
      for (const [name, rel] of Object.entries(r.artifact.outputs.files)) {
        if (name === 'conf' || name === 'bfrt') continue // inside the tofino directory
        const dest = join(out, rel)
        cpSync(r.files[name], dest, { recursive: true })
        files[name] = dest
      }
    }
    if (values.json) {
      process.stdout.write(
        JSON.stringify({ key: r.key, cacheHit: r.hit, status: 'ok', compiler: r.artifact.compiler, files, diagnostics: r.diagnostics }, null, 2) + '\n',
      )
    } else {
      const warnings = r.diagnostics.filter((d) => d.severity === 'warning').length
      process.stdout.write(
        `${r.hit ? 'cache hit' : 'built'}: ${relative(process.cwd(), file) || file} for ${t} (key ${r.key.slice(0, 12)}${r.hit ? `, built ${r.artifact.createdAt}` : ''})` +
          `${warnings ? `, ${warnings} warning${warnings > 1 ? 's' : ''}` : ''}\n` +
          `compiler: ${r.artifact.compiler}\n` +
          Object.entries(files)
            .map(([n, p]) => `  ${n.padEnd(7)} ${p}\n`)
            .join(''),
      )
    }
    return 0
  } catch (e) {
    if (e instanceof CompilerMissingError) fail(e.message, 1)
    if (e instanceof BuildFailedError) {
      if (values.json) {
        process.stdout.write(JSON.stringify({ key: e.artifact.hash, cacheHit: false, status: 'failed', diagnostics: e.diagnostics, log: e.artifact.log }, null, 2) + '\n')
      } else show(e.root, e.diagnostics)
      fail(e.message, 1)
    }
    if ((e as Error).message?.startsWith('cannot read P4 program')) fail((e as Error).message, 2)
    throw e
  } finally {
    store.close()
  }
}

export const p4Command: Command = {
  name: 'p4',
  usage: [
    'p4 render --topology FILE --scheme S --target bmv2|tofino --out DIR [--json]',
    '    write the control plane of FILE (an experiment or a topology-only YAML) per switch:',
    '    <switch>.cli (simple_switch_CLI commands) or <switch>.py (bfrt_python), queues.json, state.json',
    'p4 build FILE.p4 --target bmv2|tofino [--out DIR] [--flag F]... [-I DIR]... [--db PATH] [--json]',
    '    compile with p4c-bm2-ss / bf-p4c on this machine, through the artifact cache',
  ],
  details: p4SchemesHelp,
  run(argv) {
    const [sub, ...rest] = argv
    if (sub === 'render') return cmdRender(rest)
    if (sub === 'build') return cmdBuild(rest)
    throw new UsageError(sub === undefined ? 'p4 needs a subcommand: render or build' : `unknown p4 subcommand '${sub}'; expected render or build`)
  },
}

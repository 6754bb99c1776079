// The build step: P4 sources → compiler outputs, through a content-addressed artifact cache.
//
//   key = sha256(sources + compiler name and --version + options)      (key.ts)
//   hit:  the artifacts row says ok, was compiled here (not imported), and its files in
//         <artifactsDir>/<key>/ have the content hashes recorded then (contents.ts) → nothing runs
//   miss: stage the sources on the runner, compile, bring the outputs back with the source
//         texts beside them (<key>/sources/, kept.ts), store the row
//
// BMv2:   p4c-bm2-ss --p4v 16 [flags] --p4runtime-files out/X.p4info.txtpb -o out/X.json X.p4
// Tofino: bf-p4c --std p4-16 --target tofino --arch tna [flags] --bf-rt-schema out/X.tofino/bf-rt.json
//                -o out/X.tofino X.p4
//   bf-p4c is called directly rather than through the SDE's cmake/p4_build flow: one command
//   whose output directory (X.conf, pipe/tofino.bin, pipe/context.json, bf-rt.json) is the
//   whole artifact, the same on an SDE box and on a tofino-model host. Installing it where
//   run_switchd.sh -p X looks ($SDE_INSTALL/share/p4/targets/tofino/X.conf) is the deploy step's job.
//
// A compiler's version is asked once per binary (path, size, mtime) and remembered in
// <artifactsDir>/compilers.json, so a cache hit runs no compiler process at all.

import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, posix } from 'node:path'
import { actualError, parseDiagnostics, type P4Diagnostic } from '../p4/diagnostics'
import type { ArtifactRow } from '../store/artifacts'
import type { Store } from '../store'
import { outputContents, untrustedReason } from './contents'
import { artifactKey, type BuildOptions, type CompilerId } from './key'
import { LocalRunner, type CompilerRunner } from './runner'
import { keepSourcesOf, writeKeptSources } from './kept'
import { collectSources, type ProgramSources, type SourceFile } from './sources'
import type { RemoteKind } from '../../contract/testbeds'
import { KINDS } from '../targets/kinds'

export type P4Target = RemoteKind


export interface BuildRequest {
  /** The main .p4 file on this machine. */
  file: string
  target: P4Target
  flags?: string[]
  /** Extra directories for quoted includes (-I), searched after the including file's own. */
  includeDirs?: string[]
  /** How the artifacts row names the program (default: the file's path). */
  program?: string
  signal?: AbortSignal
}

export interface BuildResult {
  key: string
  /** True when nothing was compiled. */
  hit: boolean
  artifact: ArtifactRow
  /** <artifactsDir>/<key> */
  dir: string
  /** Output name → absolute local path. */
  files: Record<string, string>
  diagnostics: P4Diagnostic[]
  /** The local directory diagnostic file names are relative to. */
  root: string
}

/** The compiler is not installed where the build would run. */
export class CompilerMissingError extends Error {
  constructor(
    readonly tool: string,
    readonly where: string,
  ) {
    super(
      where === 'local'
        ? `${tool} is not on PATH on this machine; install p4c (${tool}) to build locally, or build on a testbed: builds there go through \`p4lab run\``
        : `${tool} was not found on ${where.replace(/^ssh /, '')}; set the tool's path in the testbed's settings`,
    )
    this.name = 'CompilerMissingError'
  }
}

/** The compiler ran and failed; the artifacts row with the log and diagnostics is stored. */
export class BuildFailedError extends Error {
  constructor(
    message: string,
    readonly artifact: ArtifactRow,
    readonly diagnostics: P4Diagnostic[],
    /** The local directory diagnostic file names are relative to. */
    readonly root: string,
  ) {
    super(message)
    this.name = 'BuildFailedError'
  }
}

/** What the builder needs of the store: its compile-cache rows, nothing else. */
export type ArtifactStore = Pick<Store, 'getArtifact' | 'putArtifact'>

export interface P4BuilderOptions {
  store: ArtifactStore
  /** <userData>/artifacts */
  artifactsDir: string
  runner?: CompilerRunner
}

export function formatDiagnostic(d: P4Diagnostic): string {
  const where = d.file ? `${d.file}:${d.line ?? 0}:${d.column ?? 0}: ` : ''
  const actual = actualError(d)
  return `${where}${d.severity}: ${d.message}${actual ? `: ${actual}` : ''}`
}

export class P4Builder {
  readonly runner: CompilerRunner
  constructor(private readonly opts: P4BuilderOptions) {
    this.runner = opts.runner ?? new LocalRunner()
  }

  /** The compiler's path and identity on the runner; throws CompilerMissingError. */
  async compiler(target: P4Target): Promise<CompilerId & { path: string }> {
    const { tool } = KINDS[target].compiler
    const path = await this.runner.which(tool)
    if (!path) throw new CompilerMissingError(tool, this.runner.where)
    const fp = await this.runner.fingerprint(path)
    const memoKey = `${this.runner.where}|${path}|${fp}`
    const memo = fp ? this.readMemo() : {}
    if (fp && memo[memoKey]) return { name: tool, version: memo[memoKey], path }
    const r = await this.runner.exec([path, '--version'], {})
    const version = (r.stdout + r.stderr).trim()
    if (r.code !== 0 || version === '') throw new Error(`${path} --version failed (exit ${r.code}): ${version || 'no output'}`)
    if (fp) this.writeMemo({ ...memo, [memoKey]: version })
    return { name: tool, version, path }
  }

  private memoFile(): string {
    return join(this.opts.artifactsDir, 'compilers.json')
  }

  private readMemo(): Record<string, string> {
    try {
      return JSON.parse(readFileSync(this.memoFile(), 'utf8')) as Record<string, string>
    } catch {
      return {}
    }
  }

  private writeMemo(memo: Record<string, string>): void {
    mkdirSync(this.opts.artifactsDir, { recursive: true })
    const tmp = `${this.memoFile()}.${randomBytes(4).toString('hex')}`
    writeFileSync(tmp, JSON.stringify(memo, null, 1))
    renameSync(tmp, this.memoFile())
  }

  /** The key a build of this request would have (reads the sources, asks the compiler's version). */
  async key(req: BuildRequest): Promise<{ key: string; sources: ProgramSources; compiler: CompilerId & { path: string }; options: BuildOptions }> {
    const sources = collectSources(req.file, req.includeDirs)
    const compiler = await this.compiler(req.target)
    const options: BuildOptions = { target: req.target, arch: KINDS[req.target].compiler.arch, flags: req.flags ?? [] }
    return { key: artifactKey(sources, compiler, options), sources, compiler, options }
  }

  async build(req: BuildRequest): Promise<BuildResult> {
    const { store, artifactsDir } = this.opts
    const { key, sources, compiler, options } = await this.key(req)
    const dir = join(artifactsDir, key)
    const program = req.program ?? req.file

    const cached = store.getArtifact(key)
    if (cached && cached.outputs.status === 'ok') {
      const files = Object.fromEntries(Object.entries(cached.outputs.files).map(([n, p]) => [n, join(dir, ...p.split('/'))]))
      if (untrustedReason(cached, files) === null) {
        // Compiled before the sources were kept with it: the key says these are the texts it
        // compiled. Best effort: a build that is there must not fail for want of room to keep
        // them, and an export of its runs then says it kept none.
        try {
          keepSourcesOf(artifactsDir, dir, sources.files)
        } catch {
          /* kept on a later hit, or never: readKeptSources says which */
        }
        return { key, hit: true, artifact: cached, dir, files, diagnostics: cached.outputs.diagnostics, root: sources.root }
      }
    }

    const name = basename(sources.main).replace(/\.p4$/, '')
    const kind = KINDS[req.target].compiler
    const outputs = kind.outputs(name)
    const argv = kind.argv(compiler.path, options.flags, outputs, sources.main)

    const runner = this.runner
    const started = Date.now()
    const work = await runner.stage(sources.files, req.signal)
    let result
    try {
      result = await runner.exec(argv, { cwd: runner.join(work, 'src'), signal: req.signal })
      const log = [result.stderr, result.stdout].filter((s) => s.length > 0).join(result.stderr.endsWith('\n') ? '' : '\n')
      const diagnostics = parseDiagnostics(log).map((d) => ({ ...d, file: d.file === null ? null : tidyPath(d.file, work) }))
      const missingOutputs = result.code === 0 ? await this.collect(work, dir, outputs, sources.files) : []
      const ok = result.code === 0 && missingOutputs.length === 0
      const contents = ok ? outputContents(Object.fromEntries(Object.entries(outputs).map(([n, p]) => [n, join(dir, ...p.split('/'))]))) : undefined
      const record = {
        hash: key,
        target: req.target,
        program,
        compiler: compilerLabel(compiler),
        options: { ...options },
        outputs: {
          status: ok ? ('ok' as const) : ('failed' as const),
          exitCode: result.code,
          files: ok ? outputs : {},
          contents,
          diagnostics,
          sources: sources.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
          main: sources.main,
          where: runner.where,
          argv: [compiler.name, ...argv.slice(1)],
          durationMs: Date.now() - started,
        },
        log: missingOutputs.length > 0 ? `${log}\np4lab: ${compiler.name} exited 0 but did not write ${missingOutputs.join(', ')}\n` : log,
      }
      const artifact = store.putArtifact(record)
      if (!ok) {
        const first = diagnostics.find((d) => d.severity === 'error')
        const why =
          missingOutputs.length > 0
            ? `it exited 0 but did not write ${missingOutputs.join(', ')}`
            : first
              ? formatDiagnostic(first)
              : result.code === null
                ? 'it was killed by a signal'
                : `exit ${result.code}: ${lastLines(log)}`
        throw new BuildFailedError(`${compiler.name} failed to compile ${sources.main}: ${why}`, artifact, diagnostics, sources.root)
      }
      const files = Object.fromEntries(Object.entries(outputs).map(([n, p]) => [n, join(dir, ...p.split('/'))]))
      return { key, hit: false, artifact, dir, files, diagnostics, root: sources.root }
    } finally {
      await runner.cleanup(work).catch(() => undefined)
    }
  }

  /** Brings <work>/out back into <dir>, with the sources it compiled; returns the outputs that are missing. */
  private async collect(work: string, dir: string, outputs: Record<string, string>, sources: SourceFile[]): Promise<string[]> {
    mkdirSync(this.opts.artifactsDir, { recursive: true })
    const partial = join(this.opts.artifactsDir, `.partial-${randomBytes(6).toString('hex')}`)
    try {
      await this.runner.fetch(this.runner.join(work, 'out'), partial)
      const missing = Object.values(outputs).filter((p) => !existsSync(join(partial, ...p.split('/'))))
      if (missing.length > 0) return missing
      writeKeptSources(partial, sources)
      rmSync(dir, { recursive: true, force: true })
      renameSync(partial, dir)
      return []
    } finally {
      rmSync(partial, { recursive: true, force: true })
    }
  }
}

/** A diagnostic's file relative to the program root, whatever form the compiler printed it in. */
function tidyPath(file: string, work: string): string {
  let f = file.replace(/\\/g, '/')
  const src = posix.join(work.replace(/\\/g, '/'), 'src') + '/'
  if (f.startsWith(src)) f = f.slice(src.length)
  const tmp = tmpdir().replace(/\\/g, '/')
  if (f.startsWith(tmp)) f = f.replace(/^.*?\/src\//, '')
  return posix.normalize(f).replace(/^\.\//, '')
}

/** `p4c-bm2-ss Version 1.2.5.16 (...)`: the version text on one line, led by the tool's name once. */
export function compilerLabel(c: CompilerId): string {
  const v = c.version.replace(/\s+/g, ' ').trim()
  return v.startsWith(c.name) ? v : `${c.name} ${v}`
}

function lastLines(text: string, n = 3): string {
  const lines = text.trim().split('\n')
  return lines.slice(-n).join(' / ') || 'no output'
}

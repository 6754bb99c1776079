// Where a compiler runs. The build step (build.ts) only talks to this interface: find the tool,
// ask its version, put the sources in a work directory, run an argument list there (never a
// shell line), and bring the outputs back. Two implementations: this machine (child_process
// execFile, no shell) and a testbed host over SSH (SshHost.run, every argument quoted by cmd()).

import { execFile } from 'node:child_process'
import { constants as fsConstants, promises as fs, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, isAbsolute, join, posix } from 'node:path'
import type { SFTPWrapper } from 'ssh2'
import { shScript, uploadDir, type SshHost } from '../ssh'
import type { SourceFile } from './sources'

export interface RunResult {
  /** Exit status; null when killed by a signal. */
  code: number | null
  stdout: string
  stderr: string
}

export interface CompilerRunner {
  /** Where compiles run, for messages and the stored record: `local` or `ssh user@host:port`. */
  readonly where: string
  /** The tool's path there, or null when it is not installed. */
  which(tool: string): Promise<string | null>
  /**
   * A string that changes when the tool at `path` changes (size and mtime), so its version is
   * asked once per binary, not once per build; null when that cannot be told (always ask).
   */
  fingerprint(path: string): Promise<string | null>
  /** Runs argv (argv[0] a path from which()) in cwd, no shell. */
  exec(argv: readonly string[], opts: { cwd?: string; signal?: AbortSignal }): Promise<RunResult>
  /** A fresh work directory there holding `files` at their relative paths under `<dir>/src`. */
  stage(files: readonly SourceFile[], signal?: AbortSignal): Promise<string>
  /** Copies a file or directory tree from the runner's `from` to the local `to`. */
  fetch(from: string, to: string): Promise<void>
  /** Removes a work directory made by stage(). */
  cleanup(dir: string): Promise<void>
  /** Path join in the runner's filesystem. */
  join(...parts: string[]): string
}

const MAX_OUTPUT = 64 * 1024 * 1024

/** Compiles on this machine. `path` overrides $PATH for tool lookup (tests). */
export class LocalRunner implements CompilerRunner {
  readonly where = 'local'
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async which(tool: string): Promise<string | null> {
    if (tool.includes('/')) return (await isExecutable(tool)) ? tool : null
    for (const dir of (this.env.PATH ?? '').split(delimiter)) {
      if (!dir) continue
      const p = join(dir, tool)
      if (await isExecutable(p)) return p
    }
    return null
  }

  async fingerprint(path: string): Promise<string | null> {
    try {
      const st = statSync(path)
      return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`
    } catch {
      return null
    }
  }

  exec(argv: readonly string[], opts: { cwd?: string; signal?: AbortSignal }): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      execFile(
        argv[0],
        argv.slice(1),
        { cwd: opts.cwd, env: this.env, maxBuffer: MAX_OUTPUT, signal: opts.signal, encoding: 'utf8', windowsHide: true },
        (err, stdout, stderr) => {
          if (err && typeof (err as NodeJS.ErrnoException).code === 'string') {
            const code = (err as NodeJS.ErrnoException).code
            if (code === 'ABORT_ERR') return reject(new Error(`${argv[0]}: cancelled`))
            return reject(new Error(`cannot run ${argv[0]}: ${err.message}`))
          }
          const exit = err ? ((err as { code?: number | null }).code ?? null) : 0
          resolve({ code: typeof exit === 'number' ? exit : null, stdout, stderr })
        },
      )
    })
  }

  async stage(files: readonly SourceFile[]): Promise<string> {
    const dir = await fs.mkdtemp(join(tmpdir(), 'p4lab-build-'))
    for (const f of files) {
      const dest = join(dir, 'src', ...f.path.split('/'))
      await fs.mkdir(dirname(dest), { recursive: true })
      await fs.writeFile(dest, f.text)
    }
    await fs.mkdir(join(dir, 'out'), { recursive: true })
    return dir
  }

  async fetch(from: string, to: string): Promise<void> {
    await fs.cp(from, to, { recursive: true })
  }

  async cleanup(dir: string): Promise<void> {
    await fs.rm(dir, { recursive: true, force: true })
  }

  join(...parts: string[]): string {
    return join(...parts)
  }
}

async function isExecutable(p: string): Promise<boolean> {
  try {
    const st = await fs.stat(p)
    if (!st.isFile()) return false
    await fs.access(p, fsConstants.X_OK)
    return true
  } catch {
    return false
  }
}

export interface SshRunnerOptions {
  /** Remote directory under which work directories are made (relative: the login directory). Default `.p4lab/build`. */
  baseDir?: string
  /** Absolute tool paths on the host (e.g. `{ 'bf-p4c': '/opt/bf-sde/install/bin/bf-p4c' }`); others are found with `command -v`. */
  tools?: Record<string, string>
  /** Environment for the compiler (e.g. SDE, SDE_INSTALL). */
  env?: Record<string, string>
}

/** Compiles on a testbed host over SSH. Sources go up with uploadDir, outputs come back over SFTP. */
export class SshRunner implements CompilerRunner {
  readonly where: string
  constructor(
    private readonly host: SshHost,
    private readonly opts: SshRunnerOptions = {},
  ) {
    this.where = `ssh ${host.label}`
  }

  async which(tool: string): Promise<string | null> {
    const configured = this.opts.tools?.[tool]
    const r = await this.host.exec(shScript('command -v -- "$1" || true', 'p4lab-which', [configured ?? tool]))
    const found = r.stdout.toString('utf8').trim().split('\n')[0]
    return found ? found : null
  }

  async fingerprint(): Promise<string | null> {
    return null
  }

  async exec(argv: readonly string[], opts: { cwd?: string; signal?: AbortSignal }): Promise<RunResult> {
    const r = await this.host.run(argv, { cwd: opts.cwd, env: this.opts.env, signal: opts.signal, maxCapture: MAX_OUTPUT })
    return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') }
  }

  async stage(files: readonly SourceFile[], signal?: AbortSignal): Promise<string> {
    const local = await new LocalRunner().stage(files)
    try {
      const name = posix.basename(local)
      const remote = posix.join(this.opts.baseDir ?? '.p4lab/build', name)
      await this.host.check(['mkdir', '-p', '--', posix.join(remote, 'out')])
      await uploadDir(this.host, join(local, 'src'), posix.join(remote, 'src'), { signal })
      return remote
    } finally {
      await fs.rm(local, { recursive: true, force: true })
    }
  }

  async fetch(from: string, to: string): Promise<void> {
    await this.host.withSftp((sftp) => download(sftp, from, to))
  }

  async cleanup(dir: string): Promise<void> {
    if (!dir || dir === '/' || isAbsolute(dir) === false && dir.split('/').includes('..')) return
    await this.host.run(['rm', '-rf', '--', dir])
  }

  join(...parts: string[]): string {
    return posix.join(...parts)
  }
}

async function download(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
  const st = await new Promise<import('ssh2').Stats>((res, rej) => sftp.stat(from, (e, s) => (e ? rej(e) : res(s))))
  if (st.isDirectory()) {
    await fs.mkdir(to, { recursive: true })
    const list = await new Promise<import('ssh2').FileEntry[]>((res, rej) => sftp.readdir(from, (e, l) => (e ? rej(e) : res(l))))
    for (const entry of list.sort((a, b) => a.filename.localeCompare(b.filename))) {
      if (entry.filename === '.' || entry.filename === '..') continue
      await download(sftp, posix.join(from, entry.filename), join(to, entry.filename))
    }
  } else if (st.isFile()) {
    await fs.mkdir(dirname(to), { recursive: true })
    await new Promise<void>((res, rej) => sftp.fastGet(from, to, (e) => (e ? rej(e) : res())))
  }
}

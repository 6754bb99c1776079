// How p4lab reaches a Slurm cluster's login node: over SSH with the testbeds' SSH layer
// (known_hosts pinning, keys with passphrases from the SecretStore), or locally when p4lab
// runs on the login node itself. Both run argument lists (never a shell line built by hand)
// and upload a folder skipping files whose sha256 already matches.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { makeDirs } from '../paths'
import { SshPool, uploadDir, type SshHost, type KnownHosts } from '../ssh'
import type { SecretStore } from '../secrets'
import type { SlurmClusterRef } from '../store'

export interface ShellResult {
  code: number | null
  stdout: Buffer
  stderr: string
}

export interface ClusterShell {
  readonly label: string
  readonly ref: SlurmClusterRef
  run(argv: readonly string[], o?: { maxCapture?: number }): Promise<ShellResult>
  /** Copies the files of `localDir` into `remoteDir` (created), skipping those whose content is already there. */
  upload(localDir: string, remoteDir: string): Promise<{ uploaded: number; skipped: number }>
  close(): void
}

/** `run` that fails with the command's stderr unless it exits 0. */
export async function check(shell: ClusterShell, argv: readonly string[]): Promise<string> {
  const r = await shell.run(argv)
  if (r.code !== 0) throw new Error(`${shell.label}: ${argv[0]} exited ${r.code ?? 'by a signal'}: ${r.stderr.trim().split('\n').slice(-5).join('\n')}`)
  return r.stdout.toString('utf8')
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

/** The login node is this machine. `env` is what the Slurm commands see (SLURM_CONF, PATH). */
export class LocalShell implements ClusterShell {
  readonly label = 'this machine'
  readonly ref: SlurmClusterRef = { kind: 'local' }
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  run(argv: readonly string[], o: { maxCapture?: number } = {}): Promise<ShellResult> {
    return new Promise((resolve, reject) => {
      // A process group of its own: a Ctrl-C in p4lab's terminal (SIGINT to the foreground
      // group) must not kill sbatch halfway, leaving unknown whether the array was submitted;
      // p4lab decides what a Ctrl-C does to a sweep (cli/slurm.ts).
      const c = spawn(argv[0], argv.slice(1), { env: this.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      const out: Buffer[] = []
      let err = ''
      let bytes = 0
      c.stdout.on('data', (b: Buffer) => {
        bytes += b.length
        if (bytes <= (o.maxCapture ?? 256 * 1024 ** 2)) out.push(b)
      })
      c.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')))
      c.once('error', (e) => reject(new Error(`${argv[0]}: ${e.message}`)))
      c.once('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }))
    })
  }

  async upload(localDir: string, remoteDir: string): Promise<{ uploaded: number; skipped: number }> {
    let uploaded = 0
    let skipped = 0
    makeDirs(remoteDir) // the cluster's work folder, as the user named it: no spin under /proc
    for (const e of readdirSync(localDir, { withFileTypes: true })) {
      const from = join(localDir, e.name)
      const to = join(remoteDir, e.name)
      if (e.isDirectory()) {
        const r = await this.upload(from, to)
        uploaded += r.uploaded
        skipped += r.skipped
      } else if (existsSync(to) && sha(to) === sha(from)) skipped++
      else {
        // Aside, then renamed: a task starting now never reads half a file.
        copyFileSync(from, `${to}.tmp`)
        renameSync(`${to}.tmp`, to)
        uploaded++
      }
    }
    return { uploaded, skipped }
  }

  close(): void {}
}

export class SshShell implements ClusterShell {
  readonly label: string
  private readonly pool: SshPool
  private readonly host: SshHost

  constructor(
    readonly ref: Extract<SlurmClusterRef, { kind: 'ssh' }>,
    deps: { knownHosts: KnownHosts; secrets: SecretStore; passphraseSecret?: string; log?: (line: string) => void },
  ) {
    this.pool = new SshPool({ knownHosts: deps.knownHosts, secrets: deps.secrets, readyTimeout: 15_000, backoff: { maxAttempts: 3 }, ...(deps.log ? { log: deps.log } : {}) })
    const auth = ref.keyFile ? { kind: 'key' as const, path: ref.keyFile, ...(deps.passphraseSecret ? { passphraseSecret: deps.passphraseSecret } : {}) } : { kind: 'agent' as const }
    this.host = this.pool.host({ host: ref.host, port: ref.port, user: ref.user, auth })
    this.label = this.host.label
  }

  async run(argv: readonly string[], o: { maxCapture?: number } = {}): Promise<ShellResult> {
    const r = await this.host.run(argv, { maxCapture: o.maxCapture ?? 256 * 1024 ** 2 })
    return { code: r.code, stdout: r.stdout, stderr: r.stderr.toString('utf8') }
  }

  async upload(localDir: string, remoteDir: string): Promise<{ uploaded: number; skipped: number }> {
    const r = await uploadDir(this.host, localDir, remoteDir)
    return { uploaded: r.uploaded.length, skipped: r.skipped.length }
  }

  close(): void {
    this.pool.closeAll()
  }
}

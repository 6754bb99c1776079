// Saved Slurm clusters: stored like testbeds, reached with the same SSH layer (known_hosts
// pinning shared with testbeds, a key's passphrase in the SecretStore), and checked for what
// a sweep needs there: sbatch, squeue, sacct, scancel, Node 20 or newer, a writable shared folder.
import { mkdirSync, rmdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { ClusterCheck, SlurmClusterInput, type ClusterCheckItem, type SlurmCluster } from '../../contract'
import { CoreError } from '../errors'
import { formatIssues } from '../testbeds/service'
import { HostKeyChangedError, HostKeyUnknownError, fingerprint, type KnownHosts } from '../ssh'
import type { SecretStore } from '../secrets'
import type { ClusterRow, SlurmClusterRef, Store } from '../store'
import { fetchHostKey } from '../testbeds/hostkey'
import { LocalShell, SshShell, type ClusterShell } from './shell'

export function clusterPassphraseId(clusterId: number): string {
  return `ssh:key-passphrase:slurm-cluster-${clusterId}`
}

export function loginLabel(ref: SlurmClusterRef): string {
  return ref.kind === 'local' ? 'this machine' : `${ref.user}@${ref.host}:${ref.port}`
}

/** A local cluster's work folder as a path on this machine (`~/x` in the home folder). */
export function localWorkDir(workDir: string): string {
  return resolve(workDir === '~' || workDir.startsWith('~/') ? join(homedir(), workDir.slice(2)) : workDir)
}

/**
 * A local cluster's work folder is on this machine, so saving one looks at it: made when only
 * its last part is missing (a sweep would make it anyway), refused when it is not a folder or
 * its parent is missing (a mistyped path would otherwise become a tree of folders at the first
 * sweep). Returns whether it was made.
 */
function localWorkFolder(workDir: string): boolean {
  const dir = localWorkDir(workDir)
  const kind = (path: string) => {
    try {
      return statSync(path).isDirectory() ? 'folder' : 'file'
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return 'missing'
      if (code === 'ENOTDIR') return 'under a file'
      throw new CoreError('invalid-request', `work folder ${dir}: ${(err as Error).message}`)
    }
  }
  const here = kind(dir)
  if (here === 'folder') return false
  if (here === 'file') throw new CoreError('invalid-request', `work folder ${dir}: that is a file, not a folder`)
  const parent = kind(dirname(dir))
  if (parent !== 'folder') {
    const what = parent === 'file' || parent === 'under a file' ? 'is not a folder' : 'does not exist'
    throw new CoreError('invalid-request', `work folder ${dir}: its parent ${dirname(dir)} ${what}; on a local cluster the work folder is on this machine: create the parent first, or give another folder`)
  }
  try {
    mkdirSync(dir)
  } catch (err) {
    throw new CoreError('invalid-request', `work folder ${dir}: cannot create it: ${(err as Error).message}`)
  }
  return true
}

/**
 * `sh -c` with the work folder as $0: says whether it is a folder this user can write in, or
 * where a submission's `mkdir -p` would make it (the nearest folder that exists, writable), and
 * exits 1 naming the problem otherwise. It only looks (test -d, -w, -x): a check changes nothing.
 */
const WORK_FOLDER_LOOK = `d=$0
case $d in /*) ;; *) d=$PWD/$d ;; esac
cannot='no write permission, or a read-only file system'
if [ -d "$d" ]; then
  if [ -w "$d" ] && [ -x "$d" ]; then echo "$(cd -- "$d" && pwd -P) is writable"; exit 0; fi
  echo "$d: this user cannot write in it ($cannot)" >&2; exit 1
fi
if [ -e "$d" ] || [ -L "$d" ]; then echo "$d: not a folder" >&2; exit 1; fi
p=$(dirname -- "$d")
while [ ! -e "$p" ] && [ ! -L "$p" ]; do p=$(dirname -- "$p"); done
if [ ! -d "$p" ]; then echo "$d: does not exist, and cannot be made: $p is not a folder" >&2; exit 1; fi
if [ ! -w "$p" ] || [ ! -x "$p" ]; then echo "$d: does not exist, and this user cannot make it in $p ($cannot)" >&2; exit 1; fi
echo "$d: does not exist yet; the first sweep makes it in $(cd -- "$p" && pwd -P), which is writable"`

/** The Node a cell runner needs on the nodes. */
export const MIN_NODE_MAJOR = 20

const sameLogin = (a: SlurmClusterRef, b: SlurmClusterRef) =>
  a.kind === b.kind && (a.kind === 'local' || (b.kind === 'ssh' && a.host === b.host && a.port === b.port && a.user === b.user && a.keyFile === b.keyFile))

export interface ClusterServiceOptions {
  store: Store
  knownHosts: KnownHosts
  secrets: SecretStore
  /** What the Slurm commands see when the login node is this machine (SLURM_CONF, PATH). */
  localEnv?: NodeJS.ProcessEnv
  connectTimeoutMs?: number
}

export class ClusterService {
  constructor(private readonly o: ClusterServiceOptions) {}

  async list(): Promise<SlurmCluster[]> {
    return Promise.all(this.o.store.listClusters().map((r) => this.view(r)))
  }

  async get(name: string): Promise<SlurmCluster> {
    return this.view(this.row(name))
  }

  row(name: string): ClusterRow {
    const r = this.o.store.getCluster(name)
    if (!r) {
      const names = this.o.store.listClusters().map((c) => c.name)
      throw new CoreError('not-found', `no Slurm cluster named '${name}'; ${names.length ? `saved clusters: ${names.join(', ')}` : 'none is saved yet (p4lab cluster add, or Clusters in the app)'}`)
    }
    return r
  }

  async save(input: unknown, replacing?: string): Promise<SlurmCluster> {
    const parsed = SlurmClusterInput.safeParse(input)
    if (!parsed.success) throw new CoreError('invalid-request', `invalid cluster: ${formatIssues(parsed.error.issues)}`)
    const c = parsed.data
    if (replacing !== undefined) this.row(replacing)
    const made = c.login.kind === 'local' && localWorkFolder(c.workDir)
    let row: ClusterRow
    try {
      row = this.o.store.saveCluster({ name: c.name, login: c.login, workDir: c.workDir, partition: c.partition ?? null, account: c.account ?? null, time: c.time ?? null }, replacing)
    } catch (err) {
      // Nothing saved: the folder made for it goes too (it is empty).
      if (made) rmdirSync(localWorkDir(c.workDir))
      throw new CoreError('conflict', (err as Error).message)
    }
    const secret = clusterPassphraseId(row.id)
    if (c.passphrase) await this.o.secrets.set(secret, c.passphrase)
    else if (c.passphrase === null || c.login.kind === 'local' || c.login.keyFile === null) await this.o.secrets.delete(secret)
    return this.view(row)
  }

  async delete(name: string): Promise<boolean> {
    const id = this.o.store.deleteCluster(name)
    if (id === null) return false
    await this.o.secrets.delete(clusterPassphraseId(id))
    return true
  }

  /** The work folder as the cluster's commands take it: `~/x` relative to the login home. */
  workDir(row: ClusterRow): string {
    const w = row.workDir
    if (row.login.kind === 'local' && (w === '~' || w.startsWith('~/'))) return localWorkDir(w)
    if (w === '~' || w.startsWith('~/')) return w.slice(2) || '.'
    return w
  }

  /** A shell to the login node; the passphrase of the saved cluster with this login, if any. */
  async shellFor(ref: SlurmClusterRef): Promise<ClusterShell> {
    if (ref.kind === 'local') return new LocalShell(this.o.localEnv ?? process.env)
    const saved = this.o.store.listClusters().find((c) => sameLogin(c.login, ref))
    const secret = saved ? clusterPassphraseId(saved.id) : undefined
    const has = secret !== undefined && (await this.o.secrets.get(secret)) !== undefined
    return new SshShell(ref, { knownHosts: this.o.knownHosts, secrets: this.o.secrets, ...(has ? { passphraseSecret: secret } : {}) })
  }

  async check(name: string): Promise<ClusterCheck> {
    const row = this.row(name)
    const base = { cluster: row.name, checkedAt: new Date().toISOString() }
    const shell = await this.shellFor(row.login)
    try {
      try {
        const r = await shell.run(['true'])
        if (r.code !== 0) throw new Error(`a login shell on ${shell.label} exited ${r.code}: ${r.stderr.trim()}`)
      } catch (err) {
        if (err instanceof HostKeyUnknownError) {
          return { ...base, ready: false, status: 'unknown-key', message: `${err.hostLabel} is not known yet: it presents the ${err.keyType} key ${err.fingerprint}. Confirm it with the cluster's administrators before trusting it.`, hostKey: { keyType: err.keyType, fingerprint: err.fingerprint }, items: [] }
        }
        if (err instanceof HostKeyChangedError) {
          return { ...base, ready: false, status: 'changed-key', message: err.message, hostKey: { keyType: err.keyType, fingerprint: err.fingerprint }, items: [] }
        }
        return { ...base, ready: false, status: 'error', message: `cannot reach the login node ${shell.label}: ${(err as Error).message}`, hostKey: null, items: [] }
      }
      const items: ClusterCheckItem[] = []
      const probe = async (name: string, why: string, argv: string[], judge: (out: string) => { ok: boolean; detail: string }) => {
        try {
          const r = await shell.run(argv)
          const out = `${r.stdout.toString('utf8')}${r.stderr}`.trim()
          if (r.code !== 0) items.push({ name, ok: false, checked: true, detail: out.split('\n').slice(-2).join(' ') || `exited ${r.code}`, why })
          else items.push({ name, ...judge(out), checked: true, why })
        } catch (err) {
          items.push({ name, ok: false, checked: false, detail: `could not look: ${(err as Error).message}`, why })
        }
      }
      const tools: Array<[string, string]> = [
        ['sbatch', 'submits the sweep as one job array'],
        ['squeue', 'reads the state of the tasks still queued or running'],
        ['sacct', 'reads the state of finished tasks (scontrol show job stands in on clusters without accounting)'],
        ['scancel', 'cancels a sweep'],
      ]
      for (const [tool, why] of tools) {
        await probe(tool, why, ['sh', '-c', 'command -v "$0" >/dev/null || { echo "$0: not on the PATH of a login shell" >&2; exit 127; }; command -v "$0"; "$0" --version', tool], (out) => ({ ok: true, detail: out.split('\n').join(' ') }))
      }
      await probe(`node >= ${MIN_NODE_MAJOR}`, `runs the cell runner on the nodes (one JavaScript file); seen here on the login node, the nodes need the same or newer`, ['sh', '-c', 'command -v node >/dev/null || { echo "node: not on the PATH of a login shell" >&2; exit 127; }; node --version'], (out) => {
        const major = Number(/v(\d+)\./.exec(out)?.[1] ?? NaN)
        return { ok: major >= MIN_NODE_MAJOR, detail: major >= MIN_NODE_MAJOR ? `Node ${out}` : `Node ${out}: older than ${MIN_NODE_MAJOR}; install Node ${MIN_NODE_MAJOR} or newer where the nodes find it` }
      })
      const work = this.workDir(row)
      await probe('shared work folder', `holds the cell runner, each sweep's job file and the result bundles: it must be on a file system the login node and the nodes share`, ['sh', '-c', WORK_FOLDER_LOOK, work], (out) => ({ ok: true, detail: out }))
      return { ...base, ready: items.every((i) => i.ok), status: 'ok', message: null, hostKey: null, items }
    } finally {
      shell.close()
    }
  }

  /** Pins the login node's key once the user confirmed `expected`; a changed key is never replaced here. */
  async trust(name: string, expected: string): Promise<{ keyType: string; fingerprint: string; alreadyTrusted: boolean }> {
    const row = this.row(name)
    if (row.login.kind === 'local') throw new CoreError('invalid-request', `cluster '${name}' is this machine: there is no host key to trust`)
    const { host, port } = row.login
    let k
    try {
      k = await fetchHostKey(this.o.knownHosts, host, port, this.o.connectTimeoutMs ?? 15_000)
    } catch (err) {
      throw new CoreError('internal', `cannot fetch the host key of ${host} port ${port}: ${(err as Error).message}`)
    }
    if (k.fingerprint !== expected) {
      throw new CoreError('conflict', `${host} port ${port} now presents the ${k.keyType} key ${k.fingerprint}, not the ${expected} you confirmed; nothing was pinned. Check again and compare the fingerprint.`)
    }
    const verdict = await this.o.knownHosts.verify(host, port, k.key)
    if (verdict.status === 'changed' || verdict.status === 'revoked') {
      const err = await this.o.knownHosts.check(host, port, k.key)
      throw new CoreError('conflict', `${err?.message ?? `the host key of ${host} has changed`}; p4lab does not replace a pinned key`)
    }
    const alreadyTrusted = verdict.status === 'known'
    if (!alreadyTrusted) await this.o.knownHosts.trust(host, port, k.key)
    return { keyType: k.keyType, fingerprint: fingerprint(k.key), alreadyTrusted }
  }

  private async view(r: ClusterRow): Promise<SlurmCluster> {
    return {
      name: r.name,
      login: r.login,
      label: loginLabel(r.login),
      workDir: r.workDir,
      partition: r.partition,
      account: r.account,
      time: r.time,
      hasPassphrase: r.login.kind === 'ssh' && (await this.o.secrets.get(clusterPassphraseId(r.id))) !== undefined,
      createdAt: r.createdAt,
    }
  }
}

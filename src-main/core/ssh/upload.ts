import { createHash, randomBytes } from 'node:crypto'
import { createReadStream, promises as fs } from 'node:fs'
import { join, posix } from 'node:path'
import type { SFTPWrapper, Stats } from 'ssh2'
import { cmd } from './cmd'
import { SshError } from './errors'
import type { SshHost } from './pool'

/**
 * Upload a local folder to a remote one over SFTP, skipping files whose content is
 * already there.
 *
 * How "already there" is decided: the remote side computes the hashes itself, with one
 * `xargs -0 sha256sum -z` over exactly the files we are about to send (names go in on
 * stdin, NUL-separated, so any name works and the argument list never overflows). A
 * manifest file written by p4lab would be cheaper but would trust a remote folder that
 * anyone can edit or half-delete; hashing what is really on disk cannot be stale. The
 * cost is reading those files once on the remote host, which for P4 sources, command
 * files and the traffic agent is nothing. Without GNU sha256sum on the host, every file
 * is uploaded (and the result says so).
 *
 * Each file goes to a temporary name in its folder, gets the local file's mode, and is
 * then renamed over the old one (posix-rename@openssh.com), so a reader or a running
 * program never sees half a file and a busy executable is replaced, not overwritten.
 * Directories are created with the local modes. Symlinks and special files are not
 * followed; they are listed in `ignored`.
 */
export interface UploadOptions {
  /** Parallel file transfers. Default 4. */
  concurrency?: number
  /** Called per file as it is decided. */
  onFile?: (path: string, action: 'uploaded' | 'skipped') => void
  signal?: AbortSignal
}

export interface UploadResult {
  /** Paths relative to the folder, with `/`, sorted. */
  uploaded: string[]
  skipped: string[]
  ignored: string[]
  /** Directories created on the remote side. */
  createdDirs: string[]
  /** Files whose content matched but whose mode was corrected. */
  modesFixed: string[]
  /** False when the remote host could not hash files (everything was sent). */
  remoteHashing: boolean
}

interface LocalEntry {
  rel: string
  abs: string
  mode: number
}

async function walk(root: string): Promise<{ dirs: LocalEntry[]; files: LocalEntry[]; ignored: string[] }> {
  const dirs: LocalEntry[] = []
  const files: LocalEntry[] = []
  const ignored: string[] = []
  async function visit(rel: string): Promise<void> {
    const abs = rel ? join(root, ...rel.split('/')) : root
    const entries = await fs.readdir(abs, { withFileTypes: true })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name
      const a = join(abs, e.name)
      if (e.isDirectory()) {
        dirs.push({ rel: r, abs: a, mode: (await fs.stat(a)).mode & 0o7777 })
        await visit(r)
      } else if (e.isFile()) {
        files.push({ rel: r, abs: a, mode: (await fs.stat(a)).mode & 0o777 })
      } else {
        ignored.push(r)
      }
    }
  }
  const st = await fs.stat(root).catch(() => undefined)
  if (!st?.isDirectory()) throw new SshError('usage', `upload: ${root} is not a folder`)
  await visit('')
  return { dirs, files, ignored }
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256')
    createReadStream(path)
      .on('data', (b) => h.update(b))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')))
  })
}

function sftpCall<T>(fn: (cb: (err: Error | undefined | null, v: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v))))
}

function isNoSuchFile(e: unknown): boolean {
  return (e as { code?: number }).code === 2 // SSH_FX_NO_SUCH_FILE
}

async function statOrUndefined(sftp: SFTPWrapper, path: string): Promise<Stats | undefined> {
  try {
    return await sftpCall<Stats>((cb) => sftp.stat(path, cb))
  } catch (e) {
    if (isNoSuchFile(e)) return undefined
    throw e
  }
}

/** Hashes of `files` (relative to `remoteDir`) as the remote host computes them. */
async function remoteHashes(host: SshHost, remoteDir: string, files: string[], signal?: AbortSignal): Promise<Map<string, string> | undefined> {
  const out = new Map<string, string>()
  if (files.length === 0) return out
  const r = await host.exec(cmd(['xargs', '-0', '-r', 'sha256sum', '-z', '--'], { cwd: remoteDir }), {
    stdin: files.join('\0'),
    signal,
    maxCapture: 256 << 20,
  })
  // 1: some file is missing (expected). 126/127 or "invalid option": no usable sha256sum.
  if (r.code !== 0 && r.code !== 1 && r.code !== 123) return undefined
  if (r.code !== 0 && /unrecognized option|invalid option|not found/i.test(r.stderr.toString())) return undefined
  for (const rec of r.stdout.toString('utf8').split('\0')) {
    const m = /^([0-9a-f]{64}) [ *]([\s\S]*)$/.exec(rec)
    if (m) out.set(m[2], m[1])
  }
  return out
}

/** Rename `from` over `to`: posix-rename@openssh.com, or unlink + rename on servers without it. */
async function replace(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
  try {
    await sftpCall<void>((cb) => sftp.ext_openssh_rename(from, to, cb))
    return
  } catch (e) {
    if (!/not supported/i.test((e as Error).message)) throw e
  }
  await sftpCall<void>((cb) => sftp.unlink(to, cb)).catch((e) => {
    if (!isNoSuchFile(e)) throw e
  })
  await sftpCall<void>((cb) => sftp.rename(from, to, cb))
}

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0
  const workers = Array.from({ length: Math.max(1, Math.min(n, items.length)) }, async () => {
    while (i < items.length) await fn(items[i++])
  })
  await Promise.all(workers)
}

export async function uploadDir(host: SshHost, localDir: string, remoteDir: string, opts: UploadOptions = {}): Promise<UploadResult> {
  if (remoteDir === '') throw new SshError('usage', 'upload: empty remote folder')
  const { dirs, files, ignored } = await walk(localDir)
  const localHash = new Map<string, string>()
  for (const f of files) localHash.set(f.rel, await sha256File(f.abs))
  const rootMode = (await fs.stat(localDir)).mode & 0o7777
  const result: UploadResult = { uploaded: [], skipped: [], ignored, createdDirs: [], modesFixed: [], remoteHashing: true }
  const remote = (rel: string) => (rel ? posix.join(remoteDir, rel) : remoteDir)
  const checkAbort = () => {
    if (opts.signal?.aborted) throw new SshError('aborted', `upload to ${host.label}:${remoteDir} cancelled`)
  }

  await host.withSftp(async (sftp) => {
    // The root and its missing parents, then every local folder, parents first.
    const parts = remoteDir.split('/').filter(Boolean)
    const chain: string[] = []
    for (let i = 1; i <= parts.length; i++) chain.push((remoteDir.startsWith('/') ? '/' : '') + parts.slice(0, i).join('/'))
    for (const p of chain) {
      checkAbort()
      const st = await statOrUndefined(sftp, p)
      if (st && !st.isDirectory()) throw new SshError('remote', `${host.label}: ${p} exists and is not a folder`)
      if (!st) {
        const mode = p === chain[chain.length - 1] ? rootMode : 0o755
        await sftpCall<void>((cb) => sftp.mkdir(p, { mode }, cb))
        if (p === chain[chain.length - 1]) result.createdDirs.push('.')
      }
    }
    for (const d of dirs) {
      checkAbort()
      const p = remote(d.rel)
      const st = await statOrUndefined(sftp, p)
      if (st && !st.isDirectory()) throw new SshError('remote', `${host.label}: ${p} exists and is not a folder`)
      if (!st) {
        await sftpCall<void>((cb) => sftp.mkdir(p, { mode: d.mode }, cb))
        result.createdDirs.push(d.rel)
      }
      // mkdir's mode is filtered by the server's umask; set it exactly.
      if (!st || (st.mode & 0o7777) !== d.mode) await sftpCall<void>((cb) => sftp.chmod(p, d.mode, cb))
    }

    checkAbort()
    const theirs = await remoteHashes(host, remoteDir, files.map((f) => f.rel), opts.signal)
    if (!theirs) result.remoteHashing = false

    await pool(files, opts.concurrency ?? 4, async (f) => {
      checkAbort()
      const dest = remote(f.rel)
      if (theirs?.get(f.rel) === localHash.get(f.rel)) {
        const st = await statOrUndefined(sftp, dest)
        if (st && (st.mode & 0o777) !== f.mode) {
          await sftpCall<void>((cb) => sftp.chmod(dest, f.mode, cb))
          result.modesFixed.push(f.rel)
        }
        result.skipped.push(f.rel)
        opts.onFile?.(f.rel, 'skipped')
        return
      }
      const tmp = posix.join(posix.dirname(dest), `.${posix.basename(dest)}.p4lab-${randomBytes(4).toString('hex')}`)
      try {
        await sftpCall<void>((cb) => sftp.fastPut(f.abs, tmp, { mode: f.mode }, (e) => cb(e, undefined)))
        await sftpCall<void>((cb) => sftp.chmod(tmp, f.mode, cb))
        await replace(sftp, tmp, dest)
      } catch (e) {
        await sftpCall<void>((cb) => sftp.unlink(tmp, cb)).catch(() => undefined)
        throw new SshError('remote', `${host.label}: uploading ${f.rel} to ${dest} failed: ${(e as Error).message}`, { cause: e })
      }
      result.uploaded.push(f.rel)
      opts.onFile?.(f.rel, 'uploaded')
    })
  })
  result.uploaded.sort()
  result.skipped.sort()
  result.modesFixed.sort()
  return result
}

// Extracts an untrusted tar.gz into an empty directory, refusing the whole archive at the
// first thing that is not a plain file or folder inside it. The file is streamed through
// gunzip into a strict tar reader (tarstream.ts) with back-pressure, so memory stays flat;
// limits are checked on each header before its bytes are written, so a zip bomb stops at
// the limit instead of filling the disk, and reading stops at the end-of-archive marker.
// Files are written by this code (never by tar's extractor), each created new (O_EXCL),
// so nothing can be written outside `dest`. A `vet` hook sees each file before a byte of
// it is written and its sha256 after (import checks both against manifest.json).
import { createHash } from 'node:crypto'
import { closeSync, createReadStream, mkdirSync, openSync, statSync, writeSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { ArchiveRefusedError, badEntryPath, withoutDotPrefix } from './entries'
import { TarReader, type TarSink } from './tarstream'

export interface ExtractLimits {
  /** Entries (files and folders). */
  maxEntries: number
  /** Uncompressed bytes of all files together. */
  maxBytes: number
}

export const DEFAULT_LIMITS: ExtractLimits = { maxEntries: 20_000, maxBytes: 4 * 1024 ** 3 }

/** Checks each file of the archive as it streams; each method throws ArchiveRefusedError to refuse. */
export interface EntryVetter {
  /** Before any byte of the file is written. */
  before(path: string, bytes: number): void
  /** Once the file is written and closed, with its sha256; `abs` is where it is. */
  after(path: string, sha256: string, abs: string): void
}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile'])
const IGNORE: TarSink = { data: () => undefined, end: () => undefined }

/** Extracts `file` into `dest` (an existing, empty directory). Returns the files written, by path. */
export async function extractSafely(file: string, dest: string, limits: ExtractLimits = DEFAULT_LIMITS, vet?: EntryVetter): Promise<string[]> {
  const root = resolve(dest)
  const files: string[] = []
  const seen = new Set<string>()
  let entries = 0
  let declared = 0
  /** The file being written, closed here when the archive is refused halfway through it. */
  let openFd: number | null = null
  const reader = new TarReader({
    maxMetaBytes: 1024 * 1024,
    entry: (e) => {
      entries++
      if (entries > limits.maxEntries) throw new ArchiveRefusedError(e.path, `more than ${limits.maxEntries} entries`)
      const isDir = e.type === 'Directory'
      if (!isDir && !FILE_TYPES.has(e.type)) {
        const what = e.type === 'SymbolicLink' || e.type === 'Link' ? `a link (to ${JSON.stringify(e.linkpath)})` : `a ${e.type} entry`
        throw new ArchiveRefusedError(e.path, `${what}; an archive may hold only files and folders`)
      }
      // `tar -C dir .` names every entry ./x and adds the root ./ folder: one leading ./ goes.
      const path = withoutDotPrefix(e.path)
      if (path === null) {
        if (!isDir) throw new ArchiveRefusedError(e.path, "a file named '.'")
        return IGNORE
      }
      const bad = badEntryPath(path, isDir)
      if (bad) throw new ArchiveRefusedError(e.path, bad)
      const rel = isDir ? path.replace(/\/$/, '') : path
      const abs = resolve(root, rel)
      if (!abs.startsWith(root + sep)) throw new ArchiveRefusedError(e.path, 'it resolves outside the destination')
      if (seen.has(rel)) throw new ArchiveRefusedError(e.path, 'it appears twice')
      seen.add(rel)
      declared += e.size
      if (declared > limits.maxBytes) throw new ArchiveRefusedError(e.path, `the files add up to more than ${limits.maxBytes} bytes uncompressed`)
      try {
        if (isDir) {
          mkdirSync(abs, { recursive: true, mode: 0o700 })
          return IGNORE
        }
        vet?.before(rel, e.size)
        mkdirSync(join(abs, '..'), { recursive: true, mode: 0o700 })
        const fd = openSync(abs, 'wx', 0o600)
        files.push(rel)
        openFd = fd
        const hash = createHash('sha256')
        return {
          data: (chunk) => {
            hash.update(chunk)
            writeSync(fd, chunk)
          },
          end: () => {
            openFd = null
            closeSync(fd)
            vet?.after(rel, hash.digest('hex'), abs)
          },
        }
      } catch (err) {
        // A clash the checks above did not name (a file where a folder is, say) is still a refusal.
        throw err instanceof ArchiveRefusedError ? err : new ArchiveRefusedError(path, (err as Error).message)
      }
    },
  })
  // A folder opens for reading and fails only at the first read, as a bare EISDIR.
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new ArchiveRefusedError(null, `${file} is a folder, not an archive (a .tar.gz written by p4lab export)`)
  const input = createReadStream(file)
  const gunzip = createGunzip()
  try {
    await pipeline(input, gunzip, reader)
  } catch (err) {
    if (openFd !== null) closeSync(openFd)
    if (err instanceof ArchiveRefusedError) throw err
    const e = err as NodeJS.ErrnoException
    // A gzip stream that stops mid-way is a file cut short, not another kind of file.
    if (e.code === 'Z_BUF_ERROR') throw new ArchiveRefusedError(null, `it is cut short: its gzip stream ends after ${input.bytesRead} bytes (a download or a copy that did not finish?)`)
    if (e.code?.startsWith('Z_')) throw new ArchiveRefusedError(null, `not a gzip file (${e.message})`)
    if (e.syscall !== undefined && e.path === file) throw new ArchiveRefusedError(null, `cannot read ${file}: ${e.message}`)
    throw new ArchiveRefusedError(null, `not a valid tar archive: ${e.message}`)
  }
  return files.sort()
}

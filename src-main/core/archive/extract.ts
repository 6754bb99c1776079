// Extracts an untrusted tar.gz into an empty directory, refusing the whole archive at the
// first thing that is not a plain file or folder inside it. Limits are checked while the
// archive streams, on what was decompressed so far, so a zip bomb stops at the limit
// instead of filling the disk. Files are written by this code (never by tar's extractor),
// each created new (O_EXCL), so nothing can be written outside `dest`.
import { closeSync, createReadStream, mkdirSync, openSync, writeSync } from 'node:fs'
import { join, resolve, sep } from 'node:path'
import { createGunzip } from 'node:zlib'
import { Parser, type ReadEntry } from 'tar'
import { ArchiveRefusedError, badEntryPath, withoutDotPrefix } from './entries'

export interface ExtractLimits {
  /** Entries (files and folders). */
  maxEntries: number
  /** Uncompressed bytes of all files together. */
  maxBytes: number
}

export const DEFAULT_LIMITS: ExtractLimits = { maxEntries: 20_000, maxBytes: 4 * 1024 ** 3 }

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile'])

/** Extracts `file` into `dest` (an existing, empty directory). Returns the files written, by path. */
export function extractSafely(file: string, dest: string, limits: ExtractLimits = DEFAULT_LIMITS): Promise<string[]> {
  const root = resolve(dest)
  return new Promise((resolvePromise, rejectPromise) => {
    const files: string[] = []
    const seen = new Set<string>()
    let entries = 0
    let declared = 0
    let streamed = 0
    let settled = false
    const input = createReadStream(file)
    const gunzip = createGunzip()
    const parser = new Parser({ strict: true, maxMetaEntrySize: 1024 * 1024 })

    const refuse = (err: unknown) => {
      if (settled) return
      settled = true
      input.destroy()
      gunzip.destroy()
      try {
        parser.abort(err instanceof Error ? err : new Error(String(err)))
      } catch {
        // the parser may already have ended
      }
      rejectPromise(err)
    }

    parser.on('entry', (entry: ReadEntry) => {
      if (settled) return entry.resume()
      try {
        entries++
        if (entries > limits.maxEntries) throw new ArchiveRefusedError(entry.path, `more than ${limits.maxEntries} entries`)
        const isDir = entry.type === 'Directory'
        if (!isDir && !FILE_TYPES.has(entry.type)) {
          const what = entry.type === 'SymbolicLink' || entry.type === 'Link' ? `a link (to ${JSON.stringify(entry.linkpath ?? '')})` : `a ${entry.type} entry`
          throw new ArchiveRefusedError(entry.path, `${what}; an archive may hold only files and folders`)
        }
        const path = withoutDotPrefix(entry.path)
        if (path === null) {
          if (!isDir) throw new ArchiveRefusedError(entry.path, "a file named '.'")
          entry.resume()
          return
        }
        const bad = badEntryPath(path, isDir)
        if (bad) throw new ArchiveRefusedError(entry.path, bad)
        const rel = isDir ? path.replace(/\/$/, '') : path
        const abs = resolve(root, rel)
        if (!abs.startsWith(root + sep)) throw new ArchiveRefusedError(entry.path, 'it resolves outside the destination')
        if (seen.has(rel)) throw new ArchiveRefusedError(entry.path, 'it appears twice')
        seen.add(rel)
        declared += entry.size
        if (declared > limits.maxBytes) throw new ArchiveRefusedError(entry.path, `the files add up to more than ${limits.maxBytes} bytes uncompressed`)
        if (isDir) {
          mkdirSync(abs, { recursive: true, mode: 0o700 })
          entry.resume()
          return
        }
        mkdirSync(join(abs, '..'), { recursive: true, mode: 0o700 })
        const fd = openSync(abs, 'wx', 0o600)
        files.push(rel)
        entry.on('data', (chunk: Buffer) => {
          if (!settled) writeSync(fd, chunk)
        })
        entry.on('end', () => closeSync(fd))
      } catch (err) {
        entry.resume()
        // A clash the checks above did not name (a file where a folder is, say) is still a refusal.
        refuse(err instanceof ArchiveRefusedError ? err : new ArchiveRefusedError(entry.path, (err as Error).message))
      }
    })
    parser.on('error', (err: Error) => refuse(new ArchiveRefusedError(null, `not a valid tar archive: ${err.message}`)))
    parser.on('end', () => {
      if (settled) return
      settled = true
      resolvePromise(files.sort())
    })

    input.on('error', (err) => refuse(new ArchiveRefusedError(null, `cannot read ${file}: ${err.message}`)))
    gunzip.on('error', (err) => refuse(new ArchiveRefusedError(null, `not a gzip file (${err.message})`)))
    // Headers and padding come on top of the file bytes: allow them, and nothing more.
    const streamLimit = limits.maxBytes + (limits.maxEntries + 2) * 1024 + 10 * 512
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return
      streamed += chunk.length
      if (streamed > streamLimit) {
        refuse(new ArchiveRefusedError(null, `it decompresses to more than ${limits.maxBytes} bytes`))
        return
      }
      parser.write(chunk)
    })
    gunzip.on('end', () => {
      if (!settled) parser.end()
    })
    input.pipe(gunzip)
  })
}

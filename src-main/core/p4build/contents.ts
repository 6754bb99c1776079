// The content hash of a build's outputs, recorded when the compiler wrote them and checked
// again on every cache hit. The cache key covers the inputs only; without this, output files
// replaced under <artifactsDir>/<key>/ (by hand, or by an archive's artifacts that arrived
// where the folder was missing) would be deployed as if this compiler had written them.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { sha256 } from './sources'
import type { ArtifactRow } from '../store/artifacts'

/** sha256 of a file, or of a folder's files (relative path and sha256 of each, in path order). */
export function contentHash(path: string): string {
  const st = statSync(path)
  if (st.isFile()) return sha256(readFileSync(path))
  if (!st.isDirectory()) throw new Error(`${path} is neither a file nor a folder`)
  const lines: string[] = []
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`
      if (e.isDirectory()) walk(join(dir, e.name), r)
      else lines.push(`${r}\0${contentHash(join(dir, e.name))}\n`)
    }
  }
  walk(path, '')
  return sha256(lines.join(''))
}

/** The content hash of each output, by name. */
export function outputContents(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([name, abs]) => [name, contentHash(abs)]))
}

/**
 * Why a cached build may not be used as it is, or null when it may: it came from an archive
 * (its recorded hashes are the archive's word, not this compiler's), it has no recorded
 * hashes, or an output is missing or differs from what the compiler wrote.
 */
export function untrustedReason(a: ArtifactRow, files: Record<string, string>): string | null {
  if (a.outputs.origin === 'archive') return 'it came from an imported archive'
  const recorded = a.outputs.contents
  if (!recorded) return 'no content hash was recorded for its outputs'
  for (const [name, abs] of Object.entries(files)) {
    let now: string
    try {
      now = contentHash(abs)
    } catch {
      return `its output ${name} is missing`
    }
    if (recorded[name] !== now) return `its output ${name} changed since it was compiled (sha256 ${now}, recorded ${recorded[name] ?? 'none'})`
  }
  return null
}

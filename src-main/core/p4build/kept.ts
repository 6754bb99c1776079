// The source texts a build compiled, kept with its outputs in <artifactsDir>/<key>/sources/
// under the paths the artifacts row lists (`outputs.sources`, relative to the program root).
// The row's sha256s tell a kept text from one changed since; an export writes these, not the
// variant or p4/ as they are at export, so an edit after the runs does not pass for what they
// compiled. Builds made before the texts were kept have no such folder.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { ArtifactRow } from '../store/artifacts'
import { sha256, type SourceFile } from './sources'

/** The folder of an artifact's directory that holds its sources. No compiler output has this name (outputs are named after the program: X.json, X.tofino). */
export const KEPT_SOURCES = 'sources'

/** A path relative to the program root that stays inside it: what the build lists, nothing a crafted row could aim elsewhere. */
function insidePath(path: string): boolean {
  if (path === '' || path.includes('\\') || path.startsWith('/') || /^[A-Za-z]:/.test(path)) return false
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..')
}

/** Writes the sources into `<dir>/sources/` (dir: an artifact's directory, or the folder about to become it). */
export function writeKeptSources(dir: string, files: ReadonlyArray<Pick<SourceFile, 'path' | 'text'>>): void {
  for (const f of files) {
    if (!insidePath(f.path)) throw new Error(`cannot keep source ${JSON.stringify(f.path)}: not a path inside the program's folder`)
    const abs = join(dir, KEPT_SOURCES, ...f.path.split('/'))
    mkdirSync(dirname(abs), { recursive: true })
    writeFileSync(abs, f.text)
  }
}

/**
 * Adds the sources to an artifact compiled before they were kept (a cache hit: the key covers
 * every source's sha256, so the texts read now are those it compiled). Written beside it and
 * renamed in whole, so a reader never sees half of them; a folder already there is left alone.
 */
export function keepSourcesOf(artifactsDir: string, dir: string, files: ReadonlyArray<Pick<SourceFile, 'path' | 'text'>>): void {
  if (!existsSync(dir) || existsSync(join(dir, KEPT_SOURCES))) return
  const partial = join(artifactsDir, `.partial-sources-${randomBytes(6).toString('hex')}`)
  try {
    writeKeptSources(partial, files)
    renameSync(join(partial, KEPT_SOURCES), join(dir, KEPT_SOURCES))
  } catch (err) {
    // Another process kept them first: theirs are the same texts.
    if (!existsSync(join(dir, KEPT_SOURCES))) throw err
  } finally {
    rmSync(partial, { recursive: true, force: true })
  }
}

export interface KeptSources {
  /** In the row's order (main file first), each with the sha256 the build recorded. */
  files: Array<{ path: string; text: string; sha256: string }>
}

/** A build's record of its sources as p4lab writes it: a row that came with an imported archive may hold anything. */
export function recordedSources(v: unknown): v is ArtifactRow['outputs']['sources'] {
  return Array.isArray(v) && v.every((r) => typeof r?.path === 'string' && typeof r?.sha256 === 'string')
}

/**
 * The sources an artifact kept, each checked against the sha256 its row recorded; or why they
 * cannot be used: none kept (a build from before they were), none recorded, a file missing
 * or changed since the build.
 */
export function readKeptSources(dir: string, artifact: Pick<ArtifactRow, 'outputs'>): KeptSources | { reason: string; kept: boolean } {
  const recorded = artifact.outputs.sources
  const root = join(dir, KEPT_SOURCES)
  const kept = existsSync(root) && statSync(root).isDirectory()
  if (!kept) return { reason: 'it kept no sources (compiled before p4lab kept them with the build)', kept }
  if (!recordedSources(recorded)) return { reason: 'its record of its sources is malformed', kept }
  if (recorded.length === 0) return { reason: 'its record lists no sources to check them against', kept }
  const files: KeptSources['files'] = []
  for (const r of recorded) {
    if (!insidePath(r.path)) return { reason: `its record lists ${JSON.stringify(r.path)}, not a path inside the program's folder`, kept }
    const abs = join(root, ...r.path.split('/'))
    if (!existsSync(abs) || !statSync(abs).isFile()) return { reason: `its kept source ${r.path} is missing`, kept }
    const text = readFileSync(abs, 'utf8')
    const now = sha256(text)
    if (now !== r.sha256) return { reason: `its kept source ${r.path} changed since the build (sha256 ${now}, recorded ${r.sha256})`, kept }
    files.push({ path: r.path, text, sha256: now })
  }
  return { files }
}

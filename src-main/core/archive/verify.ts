// An archive checked against its manifest.json while it streams: manifest.json must come
// first (export writes it first), so every later file is known to be listed, with the
// right size, before a byte of it is written, and its sha256 is compared once written.
// Nothing is re-read afterwards; the end only checks that every listed file came.
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ArchiveRefusedError } from './entries'
import type { EntryVetter } from './extract'
import { MANIFEST, parseManifest, sha256File, type Manifest } from './manifest'

/** The largest manifest.json read (20,000 files listed take about 3 MB). */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024

export class ManifestCheck implements EntryVetter {
  private manifest: Manifest | null = null
  private listed = new Map<string, Manifest['files'][number]>()
  private readonly verified = new Set<string>()

  constructor(private readonly required: string[]) {}

  before(path: string, bytes: number): void {
    if (this.manifest === null) {
      if (path !== MANIFEST) throw new ArchiveRefusedError(MANIFEST, `missing; every p4lab archive starts with one (the first file is ${JSON.stringify(path)})`)
      if (bytes > MAX_MANIFEST_BYTES) throw new ArchiveRefusedError(MANIFEST, `${bytes} bytes, more than the ${MAX_MANIFEST_BYTES} a manifest may have`)
      return
    }
    const f = this.listed.get(path)
    if (!f) throw new ArchiveRefusedError(path, 'is in the archive but not in manifest.json')
    if (f.bytes !== bytes) throw new ArchiveRefusedError(path, `is ${bytes} bytes but manifest.json says ${f.bytes}: the file was changed after export`)
  }

  after(path: string, sha256: string, abs: string): void {
    if (this.manifest === null) {
      this.manifest = parseManifest(readFileSync(abs, 'utf8'))
      this.listed = new Map(this.manifest.files.map((f) => [f.path, f]))
      for (const r of this.required) if (!this.listed.has(r)) throw new ArchiveRefusedError(r, 'missing; a p4lab archive always has it')
      return
    }
    const f = this.listed.get(path)!
    if (f.sha256 !== sha256) {
      throw new ArchiveRefusedError(path, `has sha256 ${sha256} (${f.bytes} bytes) but manifest.json says ${f.sha256} (${f.bytes} bytes): the file was changed after export`)
    }
    this.verified.add(path)
  }

  /** Once the archive ended: every listed file came. Returns the manifest. */
  finish(): Manifest {
    if (this.manifest === null) throw new ArchiveRefusedError(MANIFEST, 'missing; every p4lab archive starts with one')
    for (const f of this.manifest.files) {
      if (!this.verified.has(f.path)) throw new ArchiveRefusedError(f.path, 'is listed in manifest.json but missing from the archive')
    }
    return this.manifest
  }
}

/**
 * The same check over files already extracted to `dir` (paths relative to it), for a folder
 * whose manifest.json need not come first in its tar stream (a Slurm task's result bundle):
 * the manifest is read first, then every other file is vetted as if it streamed after it.
 */
export function verifyExtracted(dir: string, files: readonly string[], required: string[]): Manifest {
  if (!files.includes(MANIFEST)) throw new ArchiveRefusedError(MANIFEST, 'missing; it lists every file with its sha256 and size')
  const check = new ManifestCheck(required)
  for (const path of [MANIFEST, ...files.filter((f) => f !== MANIFEST)]) {
    const abs = join(dir, ...path.split('/'))
    check.before(path, statSync(abs).size)
    check.after(path, sha256File(abs), abs)
  }
  return check.finish()
}

// An archive checked against its manifest.json while it streams: manifest.json comes first
// (export writes it first), so every later file is known to be listed, with the right size,
// before a byte of it is written, and its sha256 is compared once written. An archive
// re-packed by hand (`tar -C dir .`) has its files in the folder's order: its manifest is
// read in a first pass that writes nothing (readManifest), and the check starts with it.
// Nothing is re-read afterwards; the end only checks that every listed file came.
import { createHash } from 'node:crypto'
import { createReadStream, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { ArchiveRefusedError, withoutDotPrefix } from './entries'
import type { EntryVetter } from './extract'
import { MANIFEST, parseManifest, sha256File, type Manifest } from './manifest'
import { TarReader, type TarSink } from './tarstream'

/** The largest manifest.json read (20,000 files listed take about 3 MB). */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024

export class ManifestCheck implements EntryVetter {
  private manifest: Manifest | null = null
  private listed = new Map<string, Manifest['files'][number]>()
  private readonly verified = new Set<string>()
  /** The manifest read in a first pass (readManifest): its bytes' sha256, until the entry itself comes. */
  private preloadedSha: string | null = null
  /** The archive's first file was not manifest.json: read it first (readManifest) and check again. */
  manifestNotFirst = false

  constructor(
    private readonly required: string[],
    preloaded?: Buffer,
  ) {
    if (preloaded) {
      this.start(preloaded.toString('utf8'))
      this.preloadedSha = createHash('sha256').update(preloaded).digest('hex')
    }
  }

  private start(text: string): void {
    this.manifest = parseManifest(text)
    this.listed = new Map(this.manifest.files.map((f) => [f.path, f]))
    for (const r of this.required) if (!this.listed.has(r)) throw new ArchiveRefusedError(r, 'missing; a p4lab archive always has it')
  }

  before(path: string, bytes: number): void {
    if (path === MANIFEST && this.preloadedSha !== null) return
    if (this.manifest === null) {
      if (path !== MANIFEST) {
        this.manifestNotFirst = true
        throw new ArchiveRefusedError(MANIFEST, `missing; every p4lab archive starts with one (the first file is ${JSON.stringify(path)})`)
      }
      if (bytes > MAX_MANIFEST_BYTES) throw new ArchiveRefusedError(MANIFEST, `${bytes} bytes, more than the ${MAX_MANIFEST_BYTES} a manifest may have`)
      return
    }
    const f = this.listed.get(path)
    if (!f) throw new ArchiveRefusedError(path, 'is in the archive but not in manifest.json')
    if (f.bytes !== bytes) throw new ArchiveRefusedError(path, `is ${bytes} bytes but manifest.json says ${f.bytes}: the file was changed after export`)
  }

  after(path: string, sha256: string, abs: string): void {
    if (path === MANIFEST && this.preloadedSha !== null) {
      if (sha256 !== this.preloadedSha) throw new ArchiveRefusedError(MANIFEST, 'differs between two reads of the archive: the file changed while it was imported')
      this.preloadedSha = null
      return
    }
    if (this.manifest === null) {
      this.start(readFileSync(abs, 'utf8'))
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
 * A first pass over an archive that writes nothing: manifest.json's bytes (at most
 * MAX_MANIFEST_BYTES), or null when it has none. The reader's framing checks (end marker,
 * trailing data, meta sizes) hold here as in the extraction.
 */
export async function readManifest(file: string): Promise<Buffer | null> {
  let found: Buffer | null = null
  const skip: TarSink = { data: () => undefined, end: () => undefined }
  const reader = new TarReader({
    maxMetaBytes: 1024 * 1024,
    entry: (e) => {
      if (withoutDotPrefix(e.path) !== MANIFEST || e.type === 'Directory') return skip
      if (found !== null) throw new ArchiveRefusedError(MANIFEST, 'it appears twice')
      if (e.size > MAX_MANIFEST_BYTES) throw new ArchiveRefusedError(MANIFEST, `${e.size} bytes, more than the ${MAX_MANIFEST_BYTES} a manifest may have`)
      const parts: Buffer[] = []
      return { data: (c) => parts.push(Buffer.from(c)), end: () => (found = Buffer.concat(parts)) }
    },
  })
  try {
    await pipeline(createReadStream(file), createGunzip(), reader)
  } catch (err) {
    if (err instanceof ArchiveRefusedError) throw err
    throw new ArchiveRefusedError(null, `not a valid tar.gz archive: ${(err as Error).message}`)
  }
  return found
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

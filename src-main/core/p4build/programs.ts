// The P4 programs p4lab ships and the per-experiment variants people copy them into to edit.
//
// A program is p4/<program>/<arch>/<program>.p4 (p4/hula/v1model/hula.p4, p4/hula/tna/hula.p4):
// a scheme's programs sit in one folder that its descriptor names (p4Program), so adding a
// scheme adds a folder and deleting it takes the programs away, with no shared list to edit.
// The file's base name is the program name: bf-p4c names the Tofino program (bfrt.<program>)
// after it. Headers every program shares are p4/include/; a scheme's own fragments sit beside
// its program (p4/dhlb/tna/dhlb_hops.p4) and are not programs, since their name is not the folder's.
//
// Variants live on disk, not in the database: <userData>/variants/<experimentId>/<target>-<program>/
// holds the program and every project file it includes, in the same layout as p4/
// (`hula/v1model/hula.p4`, `include/headers.p4`), plus variant.json (what it was copied from,
// when, and its main file). A variant copied before the per-scheme folders has the older layout
// (`v1model/hula.p4`, including `../include/headers.p4`); it reads and builds unchanged, because
// its main file is whatever variant.json names.
// A compiler reads files, so the variant must be files anyway; keeping it self-contained means
// an edited header in one variant cannot change another; and the build cache keys it by content,
// so no row is needed to tell a changed variant from an unchanged one. No migration either.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { dirname, join, posix, sep } from 'node:path'
import { readDeclarations, type P4Declarations } from '../p4/declarations'
import { KINDS } from '../targets/kinds'
import type { P4Target } from './build'
import { collectSources, sha256, type ProgramSources } from './sources'

const TARGETS = Object.keys(KINDS) as P4Target[]

export const P4_ARCH = Object.fromEntries(TARGETS.map((t) => [t, KINDS[t].compiler.arch])) as Record<P4Target, string>

export interface ProgramRef {
  scheme: string
  target: P4Target
}

const NAME = /^[a-z][a-z0-9_-]{0,31}$/

export function checkScheme(scheme: string): void {
  if (!NAME.test(scheme)) throw new Error(`'${scheme}' is not a program name (lower-case letters, digits, - and _)`)
}

/** Where a program lives under p4/, with '/': `<program>/<arch>/<program>.p4`. */
export function programRelPath(ref: ProgramRef): string {
  checkScheme(ref.scheme)
  return `${ref.scheme}/${P4_ARCH[ref.target]}/${ref.scheme}.p4`
}

/** p4/<program>/<arch>/<program>.p4 */
export function programPath(p4Dir: string, ref: ProgramRef): string {
  return join(p4Dir, ...programRelPath(ref).split('/'))
}

/**
 * The programs in p4/, v1model first, then by name: every p4/<program>/<arch>/<program>.p4.
 * Other .p4 files in a program's folder are its fragments; p4/include/ holds no program.
 */
export function listProgramFiles(p4Dir: string): ProgramRef[] {
  const out: ProgramRef[] = []
  const folders = existsSync(p4Dir)
    ? readdirSync(p4Dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && NAME.test(e.name))
        .map((e) => e.name)
        .sort()
    : []
  for (const target of TARGETS) {
    for (const scheme of folders) {
      const file = programPath(p4Dir, { scheme, target })
      if (existsSync(file) && statSync(file).isFile()) out.push({ scheme, target })
    }
  }
  return out
}

/** What a program declares, read from its sources (the main file and its includes). */
export function declarationsOf(sources: ProgramSources): P4Declarations {
  const byPath = new Map(sources.files.map((f) => [f.path, f.text]))
  const main = byPath.get(sources.main)!
  return readDeclarations(
    main,
    (p, from) => {
      const joined = posix.normalize(posix.join(posix.dirname(from), p))
      const text = byPath.get(joined)
      if (text === undefined) throw new Error(`${from}: cannot find include "${p}"`)
      return text
    },
    sources.main,
  )
}

export interface VariantInfo {
  experimentId: number
  scheme: string
  target: P4Target
  /** The main file, relative to the variant directory. */
  main: string
  /** sha256 of the shipped main file it was copied from. */
  copiedFrom: string
  createdAt: string
  updatedAt: string
}

export function variantDir(dataDir: string, experimentId: number, ref: ProgramRef): string {
  checkScheme(ref.scheme)
  if (!Number.isInteger(experimentId) || experimentId <= 0) throw new Error(`bad experiment id ${experimentId}`)
  return join(dataDir, 'variants', String(experimentId), `${ref.target}-${ref.scheme}`)
}

export function readVariant(dataDir: string, experimentId: number, ref: ProgramRef): { info: VariantInfo; dir: string; file: string } | null {
  const dir = variantDir(dataDir, experimentId, ref)
  const manifest = join(dir, 'variant.json')
  if (!existsSync(manifest)) return null
  const info = JSON.parse(readFileSync(manifest, 'utf8')) as VariantInfo
  return { info, dir, file: join(dir, ...info.main.split('/')) }
}

function writeAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true })
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`
  writeFileSync(tmp, text)
  renameSync(tmp, file)
}

/**
 * Copies a shipped program and its includes into the experiment's variant directory. An
 * existing variant is returned as it is: copying again would throw away the user's edits.
 */
export function createVariant(p4Dir: string, dataDir: string, experimentId: number, ref: ProgramRef, now = new Date()): { info: VariantInfo; dir: string; file: string; created: boolean } {
  const existing = readVariant(dataDir, experimentId, ref)
  if (existing) return { ...existing, created: false }
  const src = collectSources(programPath(p4Dir, ref))
  const dir = variantDir(dataDir, experimentId, ref)
  for (const f of src.files) writeAtomic(join(dir, ...f.path.split('/')), f.text)
  const info: VariantInfo = {
    experimentId,
    scheme: ref.scheme,
    target: ref.target,
    main: src.main,
    copiedFrom: src.files[0].sha256,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  }
  writeAtomic(join(dir, 'variant.json'), JSON.stringify(info, null, 2) + '\n')
  return { info, dir, file: join(dir, ...src.main.split('/')), created: true }
}

/** Saves one file of a variant: the main file or one of the includes it was copied with. */
export function saveVariantFile(dataDir: string, experimentId: number, ref: ProgramRef, path: string, text: string, now = new Date()): VariantInfo {
  const v = readVariant(dataDir, experimentId, ref)
  if (!v) throw new Error(`experiment ${experimentId} has no ${ref.target} variant of ${ref.scheme}; copy it first`)
  // Only files inside the variant's directory, named as source() names them.
  const inside = (abs: string) => abs.startsWith(v.dir + sep)
  const files = collectSources(v.file).files.filter((f) => inside(f.abs))
  const target = files.find((f) => f.path === path)
  if (!target) throw new Error(`'${path}' is not a file of this variant (its files: ${files.map((f) => f.path).join(', ')})`)
  writeAtomic(target.abs, text)
  const info = { ...v.info, updatedAt: now.toISOString() }
  writeAtomic(join(v.dir, 'variant.json'), JSON.stringify(info, null, 2) + '\n')
  return info
}

export { sha256 }

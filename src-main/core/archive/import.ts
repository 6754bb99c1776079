// `p4lab import`: an untrusted archive is extracted into a fresh private temporary
// directory with strict filters (extract.ts), every file is checked against manifest.json,
// and only then is anything written: the database rows (new ids, one transaction), then
// the experiment's files, artifacts and P4 variants under the user data directory.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compareRuns, formatCompareTable } from '../compare'
import type { Store } from '../store'
import { ArchiveRefusedError } from './entries'
import { DEFAULT_LIMITS, extractSafely, type ExtractLimits } from './extract'
import { MANIFEST, parseManifest, sha256File, type Manifest } from './manifest'
import { checkSubset, importSubset } from './subset'

export interface ImportOptions {
  file: string
  /** The database to import into (its file is written through a second connection). */
  store: Store
  /** <userData> of that database: imports/, artifacts/ and variants/ go here. */
  dataDir: string
  limits?: ExtractLimits
}

export interface ImportResult {
  experimentId: number
  name: string
  /** Archive run id → new run id. */
  runIds: Record<string, number>
  files: number
  /** The compare table recomputed from the imported rows equals the one in the archive (null: none in it). */
  compareMatches: boolean | null
}

const SUBSET = 'data/p4lab.sqlite'
const YAML = 'experiment/experiment.yaml'

/** Checks the extracted files against the manifest: nothing missing, nothing extra, every hash equal. */
export function verifyAgainstManifest(dir: string, extracted: string[], required: readonly string[] = [SUBSET, YAML]): Manifest {
  if (!extracted.includes(MANIFEST)) throw new ArchiveRefusedError(MANIFEST, 'missing; every p4lab archive starts with one')
  const manifest = parseManifest(readFileSync(join(dir, MANIFEST), 'utf8'))
  const listed = new Map(manifest.files.map((f) => [f.path, f]))
  for (const path of extracted) {
    if (path !== MANIFEST && !listed.has(path)) throw new ArchiveRefusedError(path, 'is in the archive but not in manifest.json')
  }
  const present = new Set(extracted)
  for (const f of manifest.files) {
    if (!present.has(f.path)) throw new ArchiveRefusedError(f.path, 'is listed in manifest.json but missing from the archive')
    const abs = join(dir, ...f.path.split('/'))
    const size = statSync(abs).size
    const hash = sha256File(abs)
    if (hash !== f.sha256 || size !== f.bytes) {
      throw new ArchiveRefusedError(f.path, `has sha256 ${hash} (${size} bytes) but manifest.json says ${f.sha256} (${f.bytes} bytes): the file was changed after export`)
    }
  }
  for (const r of required) if (!listed.has(r)) throw new ArchiveRefusedError(r, 'missing; a p4lab archive always has it')
  return manifest
}

/** An archive extracted and verified in a private temporary directory; nothing written elsewhere yet. */
export interface PreparedImport {
  dir: string
  manifest: Manifest
  /** Removes the temporary directory. */
  dispose(): void
}

/**
 * Extracts and verifies an archive (every entry, every hash, the SQLite subset) without
 * touching any database or the user data directory. Throws ArchiveRefusedError naming the
 * file and the reason.
 */
export async function prepareImport(file: string, limits: ExtractLimits = DEFAULT_LIMITS): Promise<PreparedImport> {
  if (!existsSync(file)) throw new ArchiveRefusedError(null, `${file} does not exist`)
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-import-'))
  const dispose = () => rmSync(dir, { recursive: true, force: true })
  try {
    const extracted = await extractSafely(file, dir, limits)
    const manifest = verifyAgainstManifest(dir, extracted)
    checkSubset(join(dir, ...SUBSET.split('/')), SUBSET)
    return { dir, manifest, dispose }
  } catch (err) {
    dispose()
    throw err
  }
}

/** Writes a prepared import: the rows first (one transaction), then the files that go with them. */
export function commitImport(p: PreparedImport, store: Store, dataDir: string): ImportResult {
  if (store.file === ':memory:') throw new Error('cannot import into an in-memory database')
  const { dir: tmp, manifest } = p
  const importsDir = join(dataDir, 'imports')
  const ids = importSubset(store.file, join(tmp, ...SUBSET.split('/')), (id) => join(importsDir, String(id), 'experiment.yaml'))
  const home = join(importsDir, String(ids.experimentId))
  mkdirSync(home, { recursive: true })
  cpSync(join(tmp, 'experiment'), home, { recursive: true })
  for (const f of [MANIFEST, 'README.md']) if (existsSync(join(tmp, f))) cpSync(join(tmp, f), join(home, f))

  const under = (prefix: string, depth: number) =>
    new Set(manifest.files.filter((f) => f.path.startsWith(prefix)).map((f) => f.path.split('/')[depth]))
  for (const key of under('artifacts/', 1)) {
    const dest = join(dataDir, 'artifacts', key)
    if (/^[0-9a-f]{64}$/.test(key) && !existsSync(dest)) cpSync(join(tmp, 'artifacts', key), dest, { recursive: true })
  }
  for (const name of under('p4/variants/', 2)) {
    const dest = join(dataDir, 'variants', String(ids.experimentId), name)
    cpSync(join(tmp, 'p4', 'variants', name), dest, { recursive: true })
    const info = join(dest, 'variant.json')
    if (existsSync(info)) {
      const v = JSON.parse(readFileSync(info, 'utf8')) as Record<string, unknown>
      writeFileSync(info, JSON.stringify({ ...v, experimentId: ids.experimentId }, null, 2) + '\n')
    }
  }

  let compareMatches: boolean | null = null
  const saved = join(tmp, 'compare', 'mean-by-load.txt')
  if (existsSync(saved)) {
    const now = formatCompareTable(compareRuns(store, { experimentIds: [ids.experimentId] }))
    compareMatches = now === readFileSync(saved, 'utf8')
  }
  return {
    experimentId: ids.experimentId,
    name: manifest.experiment.name,
    runIds: Object.fromEntries([...ids.runs].map(([a, b]) => [String(a), b])),
    files: manifest.files.length + 1,
    compareMatches,
  }
}

export async function importArchive(o: ImportOptions): Promise<ImportResult> {
  const prepared = await prepareImport(o.file, o.limits)
  try {
    return commitImport(prepared, o.store, o.dataDir)
  } finally {
    prepared.dispose()
  }
}

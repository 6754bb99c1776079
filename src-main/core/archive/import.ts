// `p4lab import`: an untrusted archive is extracted into a fresh private temporary
// directory with strict filters (extract.ts), every file is checked against manifest.json
// as it streams (verify.ts), the SQLite subset is checked to hold only its own rows, and only then is anything written: the database rows (new ids, one transaction), then
// the experiment's files, artifacts and P4 variants under the user data directory.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { compareRuns, formatCompareTable } from '../compare'
import { KEPT_SOURCES, readKeptSources } from '../p4build/kept'
import type { Store } from '../store'
import { ArchiveRefusedError } from './entries'
import { DEFAULT_LIMITS, extractSafely, type ExtractLimits } from './extract'
import { MANIFEST, archiveContentHash, type Manifest } from './manifest'
import { checkSubset, importSubset } from './subset'
import { privateTempDir } from './tempdirs'
import { ManifestCheck, readManifest } from './verify'

export interface ImportOptions {
  file: string
  /** The database to import into (its file is written through a second connection). */
  store: Store
  /** <userData> of that database: imports/, artifacts/ and variants/ go here. */
  dataDir: string
  limits?: ExtractLimits
  /** An archive whose content hash the store already holds: skipped (default) or imported as a copy. */
  onDuplicate?: 'skip' | 'copy'
}

export interface ImportResult {
  experimentId: number
  name: string
  /** Archive run id → new run id. */
  runIds: Record<string, number>
  files: number
  /** The compare table recomputed from the imported rows equals the one in the archive (null: none in it). */
  compareMatches: boolean | null
  /** When it differs: the first line that does (1-based), as archived and as recomputed, and the p4lab that wrote the archive. */
  compareDifference?: { line: number; archived: string; here: string; writtenBy: string } | null
  /** archiveContentHash of its manifest. */
  contentHash: string
  /** Already here and left alone: experimentId and name are those of the experiment holding it. */
  skipped: boolean
  /** The experiment that already held this content (skipped, or copied beside it); null when new here. */
  duplicateOf: { experimentId: number; name: string; archived: boolean } | null
}

const SUBSET = 'data/p4lab.sqlite'
const YAML = 'experiment/experiment.yaml'

/** An archive extracted and verified in a private temporary directory; nothing written elsewhere yet. */
export interface PreparedImport {
  dir: string
  manifest: Manifest
  /** archiveContentHash(manifest): what recognises an archive already in the store. */
  contentHash: string
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
  const { dir, dispose } = privateTempDir('p4lab-import-')
  try {
    let check = new ManifestCheck([SUBSET, YAML])
    try {
      await extractSafely(file, dir, limits, check)
    } catch (err) {
      if (!check.manifestNotFirst) throw err
      // Re-packed by hand: find the manifest first, then extract again with every entry checked before it is written.
      const manifest = await readManifest(file)
      if (manifest === null) throw err
      for (const e of readdirSync(dir)) rmSync(join(dir, e), { recursive: true, force: true })
      check = new ManifestCheck([SUBSET, YAML], manifest)
      await extractSafely(file, dir, limits, check)
    }
    const manifest = check.finish()
    checkSubset(join(dir, ...SUBSET.split('/')), SUBSET)
    return { dir, manifest, contentHash: archiveContentHash(manifest), dispose }
  } catch (err) {
    dispose()
    throw err
  }
}

/**
 * Writes a prepared import: the rows first (one transaction), then the files that go with them.
 * An archive whose content hash the store already holds (exported from here, or imported
 * before) is left alone unless `onDuplicate` is 'copy'; the result then names the experiment
 * holding it.
 */
export function commitImport(p: PreparedImport, store: Store, dataDir: string, onDuplicate: 'skip' | 'copy' = 'skip'): ImportResult {
  if (store.file === ':memory:') throw new Error('cannot import into an in-memory database')
  const { dir: tmp, manifest, contentHash } = p
  const duplicateOf = store.findArchiveHash(contentHash) ?? null
  if (duplicateOf && onDuplicate === 'skip') {
    return { experimentId: duplicateOf.experimentId, name: duplicateOf.name, runIds: {}, files: 0, compareMatches: null, contentHash, skipped: true, duplicateOf }
  }
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
    if (!/^[0-9a-f]{64}$/.test(key)) continue
    if (!existsSync(dest)) cpSync(join(tmp, 'artifacts', key), dest, { recursive: true })
    else {
      // The build is here already, from before its sources were kept: the archive's are added
      // when they are what this build's own row recorded (an archive may bring anything, and a
      // folder once there is never filled again).
      const sources = join(tmp, 'artifacts', key, KEPT_SOURCES)
      const row = store.getArtifact(key)
      if (existsSync(sources) && !existsSync(join(dest, KEPT_SOURCES)) && row && !('reason' in readKeptSources(join(tmp, 'artifacts', key), row))) {
        cpSync(sources, join(dest, KEPT_SOURCES), { recursive: true })
      }
    }
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
  let compareDifference: ImportResult['compareDifference'] = null
  const saved = join(tmp, 'compare', 'mean-by-load.txt')
  if (existsSync(saved)) {
    // Under the name the archive gave it, which is what its saved table says.
    const now = formatCompareTable({ ...compareRuns(store, { experimentIds: [ids.experimentId] }), experiments: [manifest.experiment.name] })
    const archived = readFileSync(saved, 'utf8')
    compareMatches = now === archived
    if (!compareMatches) {
      // Where, so the reader can tell a changed number from a newer p4lab laying the table out anew.
      const [a, b] = [archived.split('\n'), now.split('\n')]
      let i = 0
      while (i < a.length && i < b.length && a[i] === b[i]) i++
      compareDifference = { line: i + 1, archived: a[i] ?? '(the end of the table)', here: b[i] ?? '(the end of the table)', writtenBy: manifest.p4labVersion }
    }
  }
  store.recordArchiveHash(ids.experimentId, contentHash, 'imported')
  return {
    experimentId: ids.experimentId,
    name: ids.name,
    runIds: Object.fromEntries([...ids.runs].map(([a, b]) => [String(a), b])),
    files: manifest.files.length + 1,
    compareMatches,
    compareDifference,
    contentHash,
    skipped: false,
    duplicateOf,
  }
}

export async function importArchive(o: ImportOptions): Promise<ImportResult> {
  const prepared = await prepareImport(o.file, o.limits)
  try {
    return commitImport(prepared, o.store, o.dataDir, o.onDuplicate)
  } finally {
    prepared.dispose()
  }
}

// `p4lab export`: one experiment as a self-contained tar.gz (its layout: readme.ts, the archive's README).
// Files are staged in a private temporary directory, hashed into manifest.json, packed, and
// the archive is renamed into place only when complete. What the runs ran with comes from
// their own records: the testbed each saw (testbeds.ts), the sources each build compiled
// (p4sources.ts). Secrets are never read: testbeds are described without key file paths,
// and the SecretStore is not touched.
import { constants, copyFileSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { arch, platform, release, tmpdir } from 'node:os'
import { basename, dirname, join, relative, sep } from 'node:path'
import Database from 'better-sqlite3'
import { create } from 'tar'
import { TERMINAL_STATUSES, completionNumbers } from '../../contract/schemas'
import { compareRuns, formatCompareJson, formatCompareTable } from '../compare'
import { renderPipeline } from '../p4build/render'
import { packageVersion, writeDenied } from '../paths'
import { ranWith } from '../run-view'
import type { ExperimentSpec } from '../spec'
import type { RunRow, Store } from '../store'
import { SCHEMA_VERSION } from '../store/migrations'
import { ARCHIVE_FORMAT, ARCHIVE_FORMAT_VERSION, MANIFEST, archiveContentHash, sha256File, type Manifest } from './manifest'
import { archivePlots, type ArchivePlot } from './plots'
import { archiveReadme } from './readme'
import { writeSubset } from './subset'
import { runLogs, writeCsvTables } from './tables'
import { archiveP4 } from './p4sources'
import { archiveTestbeds } from './testbeds'

export interface ExportOptions {
  store: Store
  experimentId: number
  /** The .tar.gz to write. Its folder must exist: none is created. */
  out: string
  /** Replace `out` if it exists; without it an existing file is refused (ArchiveTargetError). */
  overwrite?: boolean
  /** <userData>: artifacts/ and variants/ live here. */
  dataDir: string
  /** The shipped P4 programs (p4/). */
  p4Dir: string
  now?: () => Date
}

export interface ExportResult {
  file: string
  bytes: number
  files: number
  runs: number
}

function walk(dir: string, root = dir): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...walk(p, root))
    else if (e.isFile()) out.push(relative(root, p).split(sep).join('/'))
  }
  return out.sort()
}

function put(root: string, path: string, data: string | Buffer): void {
  const abs = join(root, ...path.split('/'))
  mkdirSync(dirname(abs), { recursive: true })
  writeFileSync(abs, data)
}

/** Facts every run on a target shares (tool versions, artifact, mapping); per-run ones are in runs.csv. */
function sharedFacts(runs: RunRow[]): Record<string, Record<string, string | number | boolean>> {
  const out: Record<string, Record<string, string | number | boolean>> = {}
  for (const target of [...new Set(runs.map((r) => r.target))].sort()) {
    const facts = runs.filter((r) => r.target === target && r.facts).map((r) => r.facts!)
    const common: Record<string, string | number | boolean> = {}
    if (facts.length > 0) {
      for (const [k, v] of Object.entries(facts[0])) {
        if ((typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') && facts.every((f) => f[k] === v)) common[k] = v
      }
    }
    out[target] = common
  }
  return out
}

function sqliteVersion(): string {
  const db = new Database(':memory:')
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v
  } finally {
    db.close()
  }
}

/** The archive's destination cannot be written as asked (the folder is missing, the file exists). */
export class ArchiveTargetError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ArchiveTargetError'
  }
}

/** Refuses a destination the user did not ask for as it is: a missing folder, a directory, an existing file. */
function checkTarget(out: string, overwrite: boolean): void {
  const dir = dirname(out)
  const d = statOrNull(dir)
  if (!d) throw new ArchiveTargetError(`the folder ${dir} does not exist; create it first (p4lab creates no folders)`)
  if (!d.isDirectory()) throw new ArchiveTargetError(`${dir} is not a folder`)
  // The archive is packed beside its name.
  const denied = writeDenied(dir)
  if (denied !== null) throw new ArchiveTargetError(`cannot write in the folder ${dir} (${denied}); choose a folder you can write`)
  const f = statOrNull(out)
  if (f?.isDirectory()) throw new ArchiveTargetError(`${out} is a folder; give a file name, e.g. ${join(out, 'experiment.tar.gz')}`)
  if (f && !overwrite) throw new ArchiveTargetError(`${out} already exists; choose another name, or pass --force to replace it`)
}

function statOrNull(p: string): ReturnType<typeof statSync> | null {
  try {
    return statSync(p)
  } catch {
    return null
  }
}

export async function exportExperiment(o: ExportOptions): Promise<ExportResult> {
  const { store } = o
  checkTarget(o.out, !!o.overwrite)
  const exp = store.getExperiment(o.experimentId)
  if (!exp) throw new Error(`experiment ${o.experimentId} does not exist`)
  if (store.file === ':memory:') throw new Error('cannot export from an in-memory database')
  const spec = exp.spec as ExperimentSpec
  const runs = store.listRuns({ experimentId: exp.id }).filter((r) => TERMINAL_STATUSES.includes(r.status))
  const notes: string[] = []
  const inFlight = store.listRuns({ experimentId: exp.id }).length - runs.length
  if (inFlight > 0) notes.push(`${inFlight} run(s) still queued or running at export time are left out`)
  const older = runs.filter((r) => r.revision !== exp.revision)
  if (older.length > 0) {
    notes.push(`${older.length} run(s) ran an earlier revision than the current ${exp.revision} (${older.filter((r) => r.stale).length} of them ran differently); what each ran with is in runs/run-ID.json, every revision's text in experiment/revisions/`)
  }
  for (const r of runs.filter((x) => x.status === 'incomplete')) {
    notes.push(`run ${r.id} (${r.scheme}, load ${r.load}, seed ${r.seed}) is incomplete: ${r.error ?? (r.completion ? completionNumbers(r.completion) : 'no numbers recorded')}`)
  }

  const stage = mkdtempSync(join(tmpdir(), 'p4lab-export-'))
  try {
    put(stage, 'experiment/experiment.yaml', exp.yaml)
    put(stage, 'experiment/spec.json', JSON.stringify(spec, null, 2) + '\n')
    const wfile = (spec.workload as { file?: string }).file
    if (wfile && existsSync(wfile) && statSync(wfile).isFile()) cpSync(wfile, join(stage, 'experiment', 'workload', basename(wfile)))

    // Testbeds as each run saw them, without anything secret or local (key file paths stay home).
    const targets = [...new Set(runs.map((r) => r.target))].sort()
    const { kindOf, seenBy } = archiveTestbeds(store, runs, (path, data) => put(stage, path, data), notes)

    // What P4 runs built from: the sources each build compiled, its outputs, and the
    // control-plane files rendered for the fabric the runs ran on.
    const { programs, artifactKeys } = archiveP4({
      store, experimentId: exp.id, spec, currentRevision: exp.revision, runs, kindOf,
      dataDir: o.dataDir, p4Dir: o.p4Dir, stage, put: (path, data) => put(stage, path, data), notes,
    })
    for (const { kind, scheme, ranOn } of programs) {
      for (const { rev, spec: ran } of [...ranOn.values()].sort((a, b) => a.rev - b.rev)) {
        const folder = ranOn.size === 1 ? `controlplane/${kind}-${scheme}` : `controlplane/${kind}-${scheme}/rev-${rev}`
        try {
          for (const sw of renderPipeline(ran.topology, scheme, kind, ran.params, ran.int ? { int: ran.int } : {}).switches) put(stage, `${folder}/${sw.fileName}`, sw.text)
        } catch (err) {
          notes.push(`control-plane files for ${scheme} on ${kind}${ranOn.size === 1 ? '' : ` (revision ${rev})`} could not be rendered: ${(err as Error).message}`)
        }
      }
    }

    // The data: SQLite subset, CSV and per-run logs.
    mkdirSync(join(stage, 'data'))
    const subset = join(stage, 'data', 'p4lab.sqlite')
    writeSubset(store.connectName, subset, { experimentId: exp.id, artifactKeys })
    writeCsvTables(subset, join(stage, 'data'))
    for (const [runId, text] of runLogs(subset)) put(stage, `logs/run-${runId}.log`, text)
    // What each run ran with, from its own record, and every text the experiment has had: a run
    // of an earlier revision reads here as it ran, whatever experiment.yaml says now.
    for (const r of store.listRevisions(exp.id)) put(stage, `experiment/revisions/rev-${r.rev}.yaml`, r.yaml)
    for (const r of runs) put(stage, `runs/run-${r.id}.json`, JSON.stringify(ranWith(store, r, seenBy(r)), null, 2) + '\n')

    // The comparison as p4lab prints it, so a reader (and import) can check the numbers, and
    // drawn from the same rows as SVG plots.
    let compareText: string | null = null
    let plots: ArchivePlot[] = []
    // Incomplete runs too: the comparison lists them as left out, with their numbers and cause.
    if (runs.some((r) => r.status === 'done' || r.status === 'incomplete')) {
      const result = compareRuns(store, { experimentIds: [exp.id] })
      compareText = formatCompareTable(result)
      put(stage, 'compare/mean-by-load.txt', compareText)
      put(stage, 'compare/mean-by-load.json', formatCompareJson(result))
      plots = archivePlots(store, exp.id, result, notes)
      for (const p of plots) put(stage, p.path, p.svg)
    }

    const head: Omit<Manifest, 'files'> = {
      format: ARCHIVE_FORMAT,
      formatVersion: ARCHIVE_FORMAT_VERSION,
      p4labVersion: packageVersion(),
      schemaVersion: SCHEMA_VERSION,
      createdAt: (o.now ?? (() => new Date()))().toISOString(),
      experiment: {
        name: exp.name,
        runs: runs.length,
        schemes: [...spec.schemes],
        loads: [...spec.workload.loads],
        seeds: [...spec.seeds],
        targets,
      },
      tools: { node: process.versions.node, sqlite: sqliteVersion(), os: `${platform()} ${release()} ${arch()}` },
      statuses: Object.fromEntries([...new Set(runs.map((r) => r.status))].sort().map((s) => [s, runs.filter((r) => r.status === s).length])),
      targets: sharedFacts(runs),
      notes,
    }
    put(stage, 'README.md', archiveReadme(head, spec, runs, compareText, plots, [...walk(stage), 'README.md', MANIFEST].sort()))
    const files = walk(stage).map((path) => {
      const abs = join(stage, ...path.split('/'))
      return { path, sha256: sha256File(abs), bytes: statSync(abs).size }
    })
    const manifest: Manifest = { ...head, files }
    put(stage, MANIFEST, JSON.stringify(manifest, null, 2) + '\n')

    // Packed beside the destination, then moved in whole: a link refuses a file that appeared
    // meanwhile (no silent overwrite), a rename replaces one when asked to.
    checkTarget(o.out, !!o.overwrite)
    const partial = `${o.out}.partial-${process.pid}`
    try {
      await create({ gzip: true, file: partial, cwd: stage, portable: true, noDirRecurse: true }, [MANIFEST, ...files.map((f) => f.path)])
      if (o.overwrite) renameSync(partial, o.out)
      else {
        try {
          linkSync(partial, o.out)
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code
          if (code === 'EEXIST') throw new ArchiveTargetError(`${o.out} already exists; choose another name, or pass --force to replace it`)
          // A file system without hard links: an exclusive copy refuses an existing file just the same.
          if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err
          copyFileSync(partial, o.out, constants.COPYFILE_EXCL)
        }
      }
    } finally {
      rmSync(partial, { force: true })
    }
    // Importing this archive here again is then recognised as already present (a database
    // opened read-only takes no import either).
    if (!store.readOnly) store.recordArchiveHash(exp.id, archiveContentHash(manifest), 'exported')
    return { file: o.out, bytes: statSync(o.out).size, files: files.length + 1, runs: runs.length }
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

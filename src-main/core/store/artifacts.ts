// The artifacts table (migration 1): one row per build of a P4 program, keyed by the content
// hash of its sources, the compiler's identity and version, and the options (p4build/key.ts).
//
// The table's columns predate the build step, so what has no column of its own lives in the
// `outputs` JSON next to the output files: the status, the exit code, the parsed diagnostics,
// the source list that was hashed and where the compile ran. No migration is needed for it.
// Output files themselves are on disk under <userData>/artifacts/<hash>/; `outputs.files` maps
// an output's name to its path relative to that directory; `sources/` there holds the texts it
// compiled under the paths `outputs.sources` lists (p4build/kept.ts; none for older builds).

import type { P4Diagnostic } from '../p4/diagnostics'
import { fromJson, toJson, type StoreContext } from './rows'

export interface ArtifactOutputs {
  status: 'ok' | 'failed'
  exitCode: number | null
  /** Output name (`json`, `p4info`, `tofino`) → path relative to the artifact directory. */
  files: Record<string, string>
  diagnostics: P4Diagnostic[]
  /** The hashed sources: path relative to the program root and sha256. */
  sources: Array<{ path: string; sha256: string }>
  /** The main file, relative to the program root. */
  main: string
  /** `local` or `ssh user@host:port`. */
  where: string
  /** The full argument list the compiler ran with (paths relative to the work directory). */
  argv: string[]
  durationMs: number
  /** sha256 of each output (of a folder's files, for a folder), by name, as the compiler wrote them. */
  contents?: Record<string, string>
  /** 'archive' when the row came in with an imported archive: a record, never a cache hit. */
  origin?: 'archive'
}

export interface ArtifactRow {
  id: number
  hash: string
  target: string
  program: string
  /** The compiler's name and `--version` output. */
  compiler: string
  options: Record<string, unknown>
  outputs: ArtifactOutputs
  log: string
  createdAt: string
}

interface ArtifactRecord {
  id: number
  hash: string
  target: string
  program: string
  compiler: string
  options: string
  outputs: string
  log: string
  created_at: string
}

function toRow(r: ArtifactRecord): ArtifactRow {
  const outputs = fromJson<Partial<ArtifactOutputs>>(r.outputs) ?? {}
  return {
    id: r.id,
    hash: r.hash,
    target: r.target,
    program: r.program,
    compiler: r.compiler,
    options: fromJson<Record<string, unknown>>(r.options) ?? {},
    outputs: {
      status: outputs.status ?? 'ok',
      exitCode: outputs.exitCode ?? null,
      files: outputs.files ?? {},
      diagnostics: outputs.diagnostics ?? [],
      sources: outputs.sources ?? [],
      main: outputs.main ?? '',
      where: outputs.where ?? '',
      argv: outputs.argv ?? [],
      durationMs: outputs.durationMs ?? 0,
      contents: outputs.contents,
      origin: outputs.origin,
    },
    log: r.log,
    createdAt: r.created_at,
  }
}

export function getArtifact(s: StoreContext, hash: string): ArtifactRow | undefined {
  const r = s.stmt('SELECT * FROM artifacts WHERE hash = ?').get(hash) as ArtifactRecord | undefined
  return r && toRow(r)
}

/** Inserts the build, or replaces an earlier one with the same key (a failed build that is retried). */
export function putArtifact(
  s: StoreContext,
  input: Omit<ArtifactRow, 'id' | 'createdAt'>,
): ArtifactRow {
  s.stmt(
    `INSERT INTO artifacts (hash, target, program, compiler, options, outputs, log, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (hash) DO UPDATE SET target = excluded.target, program = excluded.program,
       compiler = excluded.compiler, options = excluded.options, outputs = excluded.outputs,
       log = excluded.log, created_at = excluded.created_at`,
  ).run(input.hash, input.target, input.program, input.compiler, toJson(input.options), toJson(input.outputs), input.log, s.isoNow())
  return getArtifact(s, input.hash)!
}

/** Newest first. */
export function listArtifacts(s: StoreContext, filter: { program?: string; limit?: number } = {}): ArtifactRow[] {
  const limit = filter.limit ?? 200
  const rows = (
    filter.program === undefined
      ? s.stmt('SELECT * FROM artifacts ORDER BY created_at DESC, id DESC LIMIT ?').all(limit)
      : s.stmt('SELECT * FROM artifacts WHERE program = ? ORDER BY created_at DESC, id DESC LIMIT ?').all(filter.program, limit)
  ) as ArtifactRecord[]
  return rows.map(toRow)
}

// The artifact key: sha256 of canonical JSON over everything that decides a compiler's output.
//   - every source file (path relative to the program root, and its content's sha256), main first,
//     then includes in path order, plus the quoted includes that were not found;
//   - the compiler: its name and its `--version` output, verbatim;
//   - the options: target, architecture and the extra flags, in order.
// Canonical JSON: object keys sorted at every level, no whitespace. Bump KEY_VERSION when the
// shape changes, so old keys cannot collide with new ones.

import { sha256, type ProgramSources } from './sources'
import type { RemoteKind } from '../../contract/testbeds'

export const KEY_VERSION = 1

export interface BuildOptions {
  target: RemoteKind
  /** v1model for BMv2, tna for Tofino. */
  arch: string
  /** Extra compiler flags, passed before the output options, in this order. */
  flags: string[]
}

export interface CompilerId {
  /** The tool's name (`p4c-bm2-ss`, `bf-p4c`). */
  name: string
  /** Its `--version` output, trimmed. */
  version: string
}

export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  const obj = v as Record<string, unknown>
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`
}

export function keyMaterial(sources: ProgramSources, compiler: CompilerId, options: BuildOptions): string {
  return canonicalJson({
    v: KEY_VERSION,
    main: sources.main,
    sources: sources.files.map((f) => ({ path: f.path, sha256: f.sha256 })),
    missing: sources.missing,
    compiler: { name: compiler.name, version: compiler.version },
    options: { target: options.target, arch: options.arch, flags: options.flags },
  })
}

export function artifactKey(sources: ProgramSources, compiler: CompilerId, options: BuildOptions): string {
  return sha256(keyMaterial(sources, compiler, options))
}

// The shipped P4 programs as the tests iterate them: through the same listing the app uses
// (listProgramFiles), so a new p4/<program>/ folder is tested without editing a test.
import { join } from 'node:path'
import { P4_ARCH, listProgramFiles, programRelPath, type ProgramRef } from '../../src-main/core/p4build/programs'

export const ROOT = join(import.meta.dirname, '..', '..')
export const P4_DIR = join(ROOT, 'p4')

export interface ShippedProgram extends ProgramRef {
  arch: 'v1model' | 'tna'
  /** Relative to the repository root, with '/': p4/<program>/<arch>/<program>.p4 */
  rel: string
}

export function shippedPrograms(arch?: 'v1model' | 'tna'): ShippedProgram[] {
  return listProgramFiles(P4_DIR)
    .map((ref) => ({ ...ref, arch: P4_ARCH[ref.target] as 'v1model' | 'tna', rel: `p4/${programRelPath(ref)}` }))
    .filter((p) => arch === undefined || p.arch === arch)
}

/** A shipped program's path relative to the repository root. */
export function programRel(scheme: string, arch: 'v1model' | 'tna'): string {
  return `p4/${programRelPath({ scheme, target: arch === 'v1model' ? 'bmv2' : 'tofino' })}`
}

// p4/ has a folder per program, p4/<program>/<arch>/<program>.p4, that the scheme descriptors
// name (p4Program), and nothing else lists the programs: the listing finds a new folder and
// loses a deleted one, every descriptor's programs exist, every program belongs to a
// descriptor, and every quoted include resolves relative to the including file (the build
// stages the sources under p4/ and passes no -I).
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { collectSources } from '../../src-main/core/p4build/sources'
import { listProgramFiles, programPath, programRelPath } from '../../src-main/core/p4build/programs'
import { SCHEMES } from '../../src-main/schemes'
import { P4_DIR, shippedPrograms } from '../helpers/p4'

const TARGETS = ['bmv2', 'tofino'] as const

describe('p4/ layout', () => {
  it('the shipped programs are exactly the programs the scheme descriptors name, on both targets', () => {
    const named = [...new Set(SCHEMES.flatMap((d): string[] => (d.p4Program === undefined ? [] : [d.p4Program])))].sort()
    expect(named.length).toBeGreaterThan(0)
    const listed = shippedPrograms().map((p) => `${p.target}:${p.scheme}`)
    expect(listed).toEqual(TARGETS.flatMap((t) => named.map((n) => `${t}:${n}`)))
    for (const p of shippedPrograms()) expect(p.rel).toBe(`p4/${p.scheme}/${p.arch}/${p.scheme}.p4`)
  })

  it("a descriptor's program is its control-plane module's program, whose files exist", () => {
    for (const d of SCHEMES) {
      if (d.p4Program === undefined) continue
      for (const target of TARGETS) {
        expect(d.controlPlane.iface(target).programName, `${d.name} on ${target}`).toBe(d.p4Program)
        expect(listProgramFiles(P4_DIR), `${d.name}: ${programRelPath({ scheme: d.p4Program, target })}`).toContainEqual({ scheme: d.p4Program, target })
      }
    }
  })

  it('every include of every program resolves relative to the including file, under p4/', () => {
    for (const p of shippedPrograms()) {
      const s = collectSources(programPath(P4_DIR, p))
      expect(s.missing, p.rel).toEqual([])
      expect(s.root, p.rel).toBe(P4_DIR)
      expect(s.main).toBe(programRelPath(p))
      // Shared headers from include/, the program's own fragments from its folder: nothing of another program's.
      for (const f of s.files.slice(1)) expect(f.path, `${p.rel} includes ${f.path}`).toMatch(new RegExp(`^(include/|${p.scheme}/)`))
    }
  })

  it('the listing follows the folders: a new one is picked up, a deleted one is gone, fragments and stray files are not programs', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'p4lab-layout-')), 'p4')
    cpSync(P4_DIR, dir, { recursive: true })
    const before = listProgramFiles(dir)
    expect(before).toEqual(listProgramFiles(P4_DIR))

    // A scheme's folder with both programs and a fragment of its own.
    mkdirSync(join(dir, 'newscheme', 'v1model'), { recursive: true })
    mkdirSync(join(dir, 'newscheme', 'tna'), { recursive: true })
    writeFileSync(join(dir, 'newscheme', 'v1model', 'newscheme.p4'), '#include "../../include/headers.p4"\n#include "state.p4"\n')
    writeFileSync(join(dir, 'newscheme', 'v1model', 'state.p4'), '// a fragment\n')
    writeFileSync(join(dir, 'newscheme', 'tna', 'newscheme.p4'), '#include "../../include/headers.p4"\n')
    // Not programs: a file named after no folder, a folder without its program, a program directly under p4/.
    writeFileSync(join(dir, 'include', 'include.p4'), '// not a program\n')
    mkdirSync(join(dir, 'notes', 'v1model'), { recursive: true })
    writeFileSync(join(dir, 'notes', 'v1model', 'draft.p4'), '// not a program\n')
    writeFileSync(join(dir, 'stray.p4'), '// not a program\n')
    const added = listProgramFiles(dir)
    expect(added.filter((r) => r.scheme === 'newscheme')).toEqual([
      { scheme: 'newscheme', target: 'bmv2' },
      { scheme: 'newscheme', target: 'tofino' },
    ])
    expect(added.filter((r) => r.scheme !== 'newscheme')).toEqual(before)
    const s = collectSources(programPath(dir, { scheme: 'newscheme', target: 'bmv2' }))
    expect(s.files.map((f) => f.path)).toEqual(['newscheme/v1model/newscheme.p4', 'include/headers.p4', 'newscheme/v1model/state.p4'])

    // Deleting a folder deletes its programs and nothing else.
    rmSync(join(dir, 'hula'), { recursive: true })
    expect(listProgramFiles(dir)).toEqual(added.filter((r) => r.scheme !== 'hula'))
    expect(listProgramFiles(join(dir, 'absent'))).toEqual([])
  })
})

// No program may declare a name its architecture file already declares: p4c stops at
// "Ingress duplicates Ingress" (v1model.p4 declares the control type Ingress). The names are those of
// the published v1model.p4, tna.p4 (with the Tofino files it includes) and core.p4
// (test/fixtures/p4/arch-names.ts); the check is held to p4c-bm2-ss 1.2.5.16's verdict on the
// programs as they were (test/fixtures/p4/compiled).
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDiagnostics } from '../../src-main/core/p4/diagnostics'
import { programTokens, topLevelNames } from '../../src-main/core/p4/names'
import { ARCHITECTURES, V1MODEL_P4, type ArchFile } from '../fixtures/p4/arch-names'
import { ROOT, shippedPrograms } from '../helpers/p4'

const COMPILED = join(ROOT, 'test', 'fixtures', 'p4', 'compiled')

interface Clash { name: string; kind: string; arch: string }

/** The names `source` declares that its architecture files declare too. */
function clashes(source: string, fileName: string, root: string, target: 'v1model' | 'tna', defines: string[] = []): Clash[] {
  const toks = programTokens(source, (inc, from) => readFileSync(join(root, dirname(from), inc), 'utf8'), { fileName, defines })
  const arch = new Map<string, ArchFile>()
  for (const file of ARCHITECTURES[target]) for (const list of Object.values(file.names)) for (const n of list) arch.set(n, file)
  return topLevelNames(toks)
    .filter((d) => arch.has(d.name))
    .map((d) => ({ name: d.name, kind: d.kind, arch: arch.get(d.name)?.file ?? '' }))
}

describe('program names against the architecture files', () => {
  for (const { arch: target, rel } of shippedPrograms()) {
    for (const defines of target === 'v1model' ? [[], ['P4LAB_INT']] : [[]]) {
      it(`${rel}${defines.length ? ' -D' + defines.join(' -D') : ''} declares no name of ${ARCHITECTURES[target].map((a) => a.file).join(' or ')}`, () => {
        const source = readFileSync(join(ROOT, rel), 'utf8')
        expect(source, `${rel} includes <${target}.p4>`).toMatch(new RegExp(`#include <${target}\\.p4>`))
        expect(clashes(source, rel, ROOT, target, defines)).toEqual([])
      })
    }
  }
})

describe('the check finds what p4c found', () => {
  it('ecmp.p4 as p4c-bm2-ss 1.2.5.16 rejected it: the same two names', () => {
    const reported = parseDiagnostics(readFileSync(join(COMPILED, 'ecmp.p4c-bm2-ss.txt'), 'utf8'))
      .filter((d) => d.kind === 'duplicate')
      .map((d) => /^(\w+) duplicates \1\b/.exec(d.message)?.[1])
    expect(reported).toEqual(['Ingress', 'Egress'])
    const found = clashes(readFileSync(join(COMPILED, 'v1model', 'ecmp.p4'), 'utf8'), 'v1model/ecmp.p4', COMPILED, 'v1model')
    expect(found).toEqual([
      { name: 'Ingress', kind: 'control', arch: 'v1model.p4' },
      { name: 'Egress', kind: 'control', arch: 'v1model.p4' },
    ])
    // The list holds what the compiler's own v1model.p4 declares.
    for (const n of reported) expect(V1MODEL_P4.names.control).toContain(n)
  })

  it('a program that reuses tna.p4 or core.p4 names is caught, whatever the kind of declaration', () => {
    const source = [
      '#include <core.p4>',
      '#include <tna.p4>',
      'header h_t { bit<8> x; }',
      'struct Pipeline { h_t h; }',
      'parser EgressParserT(packet_in pkt, out Pipeline hdr) { state start { transition accept; } }',
      'control IngressT(inout Pipeline hdr) { apply { } }',
      'const bit<32> PORT_METADATA_SIZE = 64;',
      'action NoAction() { }',
      'control MyIngress(inout Pipeline hdr) { apply { } }',
    ].join('\n')
    expect(clashes(source, 'tna/x.p4', ROOT, 'tna').map((c) => `${c.kind} ${c.name} (${c.arch})`)).toEqual([
      'struct Pipeline (tna.p4)',
      'parser EgressParserT (tna.p4)',
      'control IngressT (tna.p4)',
      'const PORT_METADATA_SIZE (tna.p4)',
      'action NoAction (core.p4)',
    ])
    // The same program is no v1model program's mistake but NoAction's.
    expect(clashes(source, 'v1model/x.p4', ROOT, 'v1model').map((c) => c.name)).toEqual(['NoAction'])
  })
})

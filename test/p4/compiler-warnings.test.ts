// The warnings p4c gave on p4lab's programs, checked without p4c: every program compiles with zero
// warnings only if no constant goes unused (v1model with INT on and off) and every TNA ingress parser
// sets all of its `out` metadata. Each check is first held to the real compilers' output on the
// programs as they were (test/fixtures/p4/compiled): it must find exactly what they found.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseDiagnostics } from '../../src-main/core/p4/diagnostics'
import { programTokens, topLevelNames, unusedConstants } from '../../src-main/core/p4/names'
import { matching, type Tok } from '../../src-main/core/p4/tokens'
import { TNA_P4 } from '../fixtures/p4/arch-names'
import { ROOT, shippedPrograms } from '../helpers/p4'

const COMPILED = join(ROOT, 'test', 'fixtures', 'p4', 'compiled')

function read(root: string, rel: string, defines: string[] = []): { toks: Tok[]; macros: Map<string, string> } {
  const macros = new Map<string, string>()
  const toks = programTokens(readFileSync(join(root, rel), 'utf8'), (inc, from) => readFileSync(join(root, dirname(from), inc), 'utf8'), { fileName: rel, defines }, macros)
  return { toks, macros }
}

/** What p4c reported, by kind: `unused` gives the constants' names, `uninitialized-out-param` the parameters'. */
function reported(transcript: string, kind: string): string[] {
  return parseDiagnostics(readFileSync(join(COMPILED, transcript), 'utf8'))
    .filter((d) => d.kind === kind)
    .map((d) => /'(\w+)'/.exec(d.message)?.[1] ?? d.message)
}

/**
 * For each parser, the fields of its `out` struct parameters (header fields excepted, the program's
 * and tna.p4's: p4c does not require headers to be set) that its start state does not assign.
 * Assignments in start reach every path through the parser, so an empty list means no path ends
 * with a field unset.
 */
function unsetAtStart(toks: Tok[]): { parser: string; missing: string[] }[] {
  const declared = topLevelNames(toks)
  const headers = new Set([
    ...declared.filter((d) => d.kind === 'header' || d.kind === 'header_union').map((d) => d.name),
    ...(TNA_P4.names.header ?? []),
  ])
  const structs = new Map<string, { type: string; name: string }[]>()
  for (let i = 0; i < toks.length; i++) {
    if (toks[i] !== 'struct' || toks[i + 2] !== '{') continue
    const close = matching(toks, i + 2)
    const fields: { type: string; name: string }[] = []
    for (let k = i + 3; k < close; ) {
      const end = toks.indexOf(';', k)
      fields.push({ type: toks[k], name: toks[end - 1] })
      k = end + 1
    }
    structs.set(toks[i + 1], fields)
  }
  const leaves = (type: string, path: string): string[] =>
    headers.has(type) ? [] : structs.has(type) ? (structs.get(type) ?? []).flatMap((f) => leaves(f.type, `${path}.${f.name}`)) : [path]

  const out: { parser: string; missing: string[] }[] = []
  for (let i = 0; i < toks.length; i++) {
    if (toks[i] !== 'parser' || toks[i + 2] !== '(') continue
    const paramsClose = matching(toks, i + 2)
    if (toks[paramsClose + 1] !== '{') continue
    const body = toks.slice(paramsClose + 2, matching(toks, paramsClose + 1))
    const startAt = body.findIndex((t, k) => t === 'state' && body[k + 1] === 'start')
    const start = startAt < 0 ? [] : body.slice(startAt + 3, matching(body, startAt + 2))
    const assigned: string[] = []
    for (let k = 0; k < start.length; k++) {
      if (start[k] !== '=' || k === 0) continue
      let j = k - 1
      while (j >= 2 && start[j - 1] === '.') j -= 2
      assigned.push(start.slice(j, k).join(''))
    }
    const params = toks.slice(i + 3, paramsClose)
    const missing: string[] = []
    for (let k = 0; k < params.length; k++) {
      if (params[k] !== 'out' || !structs.has(params[k + 1])) continue
      for (const leaf of leaves(params[k + 1], params[k + 2])) {
        if (!assigned.some((a) => leaf === a || leaf.startsWith(`${a}.`))) missing.push(leaf)
      }
    }
    out.push({ parser: toks[i + 1], missing })
  }
  return out
}

describe('no unused constant ([--Wwarn=unused])', () => {
  for (const { arch: target, rel } of shippedPrograms()) {
    for (const defines of target === 'v1model' ? [[], ['P4LAB_INT']] : [[]]) {
      it(`${rel}${defines.length ? ' -D' + defines.join(' -D') : ''}`, () => {
        const { toks, macros } = read(ROOT, rel, defines)
        expect(unusedConstants(toks, macros)).toEqual([])
      })
    }
  }

  it('finds the constants p4c-bm2-ss and p4test named, no more and no fewer', () => {
    const cases: [string, string][] = [
      ['v1model/ecmp.p4', 'ecmp.renamed-controls.p4c-bm2-ss.txt'],
      ['tna/ecmp.p4', 'ecmp.tna.p4test.txt'],
      ['tna/hula.p4', 'hula.tna.p4test.txt'],
      ['tna/conga.p4', 'conga.tna.p4test.txt'],
    ]
    for (const [rel, transcript] of cases) {
      const expected = reported(transcript, 'unused')
      expect(expected.length, transcript).toBeGreaterThan(0)
      const { toks, macros } = read(COMPILED, rel)
      expect(unusedConstants(toks, macros).sort(), rel).toEqual(expected.sort())
    }
  })

  it('counts a use inside a macro where the macro is used, and not a use by an unused constant or a field access', () => {
    const source = [
      'const bit<8> FL = 2;',
      'const bit<8> ONLY_IN_UNUSED_MACRO = 3;',
      'const bit<8> BASE = 4;',
      'const bit<8> DERIVED = BASE + 1;',
      'const bit<8> USED = 5;',
      'const bit<9> egress_spec = 6;',
      '#define FIELDS @field_list(FL) bit<8> f;',
      '#define NEVER_USED ONLY_IN_UNUSED_MACRO',
      'struct m_t { FIELDS }',
      'control C(inout m_t m, inout standard_metadata_t sm) { table t { actions = { NoAction; } const default_action = NoAction(); size = USED; } apply { sm.egress_spec = 1; } }',
    ].join('\n')
    const macros = new Map<string, string>()
    const toks = programTokens(source, () => '', {}, macros)
    expect(unusedConstants(toks, macros)).toEqual(['ONLY_IN_UNUSED_MACRO', 'BASE', 'DERIVED', 'egress_spec'])
    expect(unusedConstants(toks)).toEqual(['FL', 'ONLY_IN_UNUSED_MACRO', 'BASE', 'DERIVED', 'egress_spec'])
  })
})

describe('TNA ingress parsers set all their metadata ([--Wwarn=uninitialized-out-param])', () => {
  for (const { rel } of shippedPrograms('tna')) {
    it(rel, () => {
      const parsers = unsetAtStart(read(ROOT, rel).toks)
      expect(parsers.map((p) => p.parser)).toEqual(['IngressParser', 'EgressParser'])
      for (const p of parsers) expect(p.missing, p.parser).toEqual([])
    })
  }

  it('finds the parsers p4test warned about, and passes the one it did not', () => {
    for (const scheme of ['conga', 'hula']) {
      expect(reported(`${scheme}.tna.p4test.txt`, 'uninitialized-out-param')).toEqual(['meta'])
      const ingress = unsetAtStart(read(COMPILED, `tna/${scheme}.p4`).toks).find((p) => p.parser === 'IngressParser')
      expect(ingress?.missing.length, scheme).toBeGreaterThan(0)
      expect(ingress?.missing.every((f) => f.startsWith('meta.')), scheme).toBe(true)
    }
    expect(reported('ecmp.tna.p4test.txt', 'uninitialized-out-param')).toEqual([])
    expect(unsetAtStart(read(COMPILED, 'tna/ecmp.p4').toks).map((p) => p.missing)).toEqual([[], []])
  })
})

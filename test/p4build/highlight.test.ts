// The Pipelines view's P4 highlighter (src-renderer/src/components/PipelineHighlight.ts).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'

// Loaded by path: the renderer's files belong to the web TypeScript project, not this one.
type Token = { cls: string; text: string }
let highlightP4: (text: string) => Token[][]
beforeAll(async () => {
  const file = join(import.meta.dirname, '../../src-renderer/src/components/PipelineHighlight.ts')
  highlightP4 = ((await import(/* @vite-ignore */ file)) as { highlightP4: typeof highlightP4 }).highlightP4
})

const cls = (line: Token[]) => line.filter((t) => t.cls !== '').map((t) => `${t.cls}:${t.text}`)

describe('highlightP4', () => {
  it('keywords, types, numbers, strings, annotations, preprocessor, comments', () => {
    const lines = highlightP4(
      [
        '#include "../include/headers.p4" // shared',
        '#include <core.p4>',
        'const bit<16> ETHERTYPE_HULA = 0x2345; // probe',
        '@name("x") register<bit<32>>(1024) bestHop;',
        'action setEgress(bit<9> port) { sm.egress_spec = port; }',
        'x = 8w255 + 10;',
      ].join('\n'),
    )
    expect(cls(lines[0])).toEqual(['pp:#include', 'str:"../include/headers.p4"', 'com: // shared'])
    expect(cls(lines[1])).toEqual(['pp:#include', 'str:<core.p4>'])
    expect(cls(lines[2])).toEqual(['kw:const', 'type:bit', 'num:16', 'num:0x2345', 'com:// probe'])
    expect(cls(lines[3])).toEqual(['anno:@name', 'str:"x"', 'type:register', 'type:bit', 'num:32', 'num:1024'])
    expect(cls(lines[4])).toEqual(['kw:action', 'fn:setEgress', 'type:bit', 'num:9'])
    expect(cls(lines[5])).toEqual(['num:8w255', 'num:10'])
  })

  it('block comments across lines, and text is kept exactly', () => {
    const text = 'a /* one\ntwo\nthree */ table t {\n}'
    const lines = highlightP4(text)
    expect(cls(lines[0])).toEqual(['com:/* one'])
    expect(cls(lines[1])).toEqual(['com:two'])
    expect(cls(lines[2])).toEqual(['com:three */', 'kw:table'])
    expect(lines.map((l) => l.map((t) => t.text).join('')).join('\n')).toBe(text)
  })

  it('every shipped program round-trips', () => {
    for (const f of ['hula/v1model/hula.p4', 'hula/tna/hula.p4', 'floodgate/v1model/floodgate.p4', 'dhlb/tna/dhlb.p4', 'dhlb/tna/dhlb_hops.p4']) {
      const text = readFileSync(join(import.meta.dirname, '../../p4', f), 'utf8')
      expect(highlightP4(text).map((l) => l.map((t) => t.text).join('')).join('\n'), f).toBe(text)
    }
  })
})

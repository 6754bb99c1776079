// The P4 declaration reader: checked against the real compiler's output for the fixture, then used to
// hold every program in p4/ to the interface p4/README.md promises the control-plane renderers.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readDeclarations, type P4Declarations } from '../../src-main/core/p4/declarations'
import { ROOT, shippedPrograms } from '../helpers/p4'

const FIXTURES = join(ROOT, 'test', 'fixtures', 'bmv2')

function readProgram(path: string): P4Declarations {
  return readDeclarations(readFileSync(path, 'utf8'), (inc, from) => readFileSync(join(dirname(join(ROOT, from)), inc), 'utf8'), path.slice(ROOT.length + 1))
}

describe('readDeclarations against p4c output for fixture.p4', () => {
  const d = readDeclarations(readFileSync(join(FIXTURES, 'fixture.p4'), 'utf8'), () => '')
  const p4info = readFileSync(join(FIXTURES, 'fixture.p4info.txtpb'), 'utf8')
  const bmv2 = JSON.parse(readFileSync(join(FIXTURES, 'fixture.bmv2.json'), 'utf8'))

  it('tables, keys and actions match p4info', () => {
    const names = [...p4info.matchAll(/tables \{\s*preamble \{\s*id: \d+\s*name: "([^"]+)"/g)].map((m) => m[1])
    expect(d.tables.map((t) => t.name).sort()).toEqual(names.sort())
    const dstTor = d.tables.find((t) => t.name === 'I.dstTor')
    expect(dstTor).toMatchObject({ keys: [{ field: 'h.ipv4.dstAddr', matchKind: 'lpm' }], actions: ['I.setDstTor', 'I.drop'], defaultAction: 'I.drop', size: 256 })
    const nextHop = d.tables.find((t) => t.name === 'I.nextHop')
    expect(nextHop?.keys).toEqual([{ field: 'm.dstTor', matchKind: 'exact' }, { field: 'h.ipv4.protocol', matchKind: 'ternary' }])
    expect(nextHop?.actions).toEqual(['I.forward', 'I.toGroup', 'I.drop'])
  })

  it('action parameters and widths match p4info', () => {
    const fromInfo = [...p4info.matchAll(/actions \{\s*preamble \{[^}]*name: "([^"]+)"[^}]*\}((?:\s*params \{[^}]*\})*)/g)].map((m) => ({
      name: m[1],
      params: [...m[2].matchAll(/name: "([^"]+)"\s*bitwidth: (\d+)/g)].map((p) => ({ name: p[1], bits: Number(p[2]) })),
    }))
    expect(fromInfo).toHaveLength(4)
    for (const a of fromInfo) expect(d.actions.find((x) => x.name === a.name)).toEqual(a)
  })

  it('registers (width, size resolved from a named constant) and counters match p4info and the BMv2 JSON', () => {
    expect(d.registers).toEqual([
      { name: 'I.bestHop', bits: 16, size: 8 },
      { name: 'I.pathUtil', bits: 8, size: 8 },
    ])
    const json = bmv2.register_arrays.map((r: any) => ({ name: r.name, bits: r.bitwidth, size: r.size }))
    expect(json).toEqual(d.registers)
    expect(d.counters).toEqual([{ name: 'I.portPackets', size: 64, unit: 'packets_and_bytes' }])
    expect(bmv2.counter_arrays.map((c: any) => [c.name, c.size])).toEqual([['I.portPackets', 64]])
    expect(d.usesMulticast).toBe(true)
  })
})

// ---- the programs against p4/README.md ----

interface Promise { control: string; name: string; target: 'both' | 'v1model' | 'tna'; kind: 'table' | 'register' | 'counter'; actions: { name: string; params: { name: string; bits: number }[] }[] }

/** Reads the README's tables: rows `| Control | \`name\` | ... |`, per `## scheme` section (or all of `scheme`'s, for a scheme's own README). */
function promises(readme: string, scheme?: string): Map<string, Promise[]> {
  const out = new Map<string, Promise[]>()
  let section = scheme ?? 'common'
  let kind: Promise['kind'] = 'table'
  for (const line of readme.split('\n')) {
    const h = /^## (\w+)/.exec(line)
    if (h && scheme === undefined) section = h[1] === 'Conventions' ? 'common' : h[1]
    const head = /^\| control \| (table|register|counter) \|/.exec(line)
    if (head) kind = head[1] as Promise['kind']
    const row = /^\| (MyIngress|MyEgress) \| (.+?) \|(.*)\|\s*$/.exec(line)
    if (!row) continue
    const cells = row[3].split('|').map((c) => c.trim())
    const last = cells[cells.length - 1]
    const target = last === 'v1model only' ? 'v1model' : last === 'tna only' ? 'tna' : /only/.test(row[3]) && kind !== 'table' ? (/v1model only/.test(row[3]) ? 'v1model' : 'tna') : 'both'
    const names = [...row[2].matchAll(/`(\w+)`/g)].map((m) => m[1])
    const range = /`(\w+?)(\d)` \.\. `\w+?(\d)`/.exec(row[2])
    const all = range ? Array.from({ length: Number(range[3]) - Number(range[2]) + 1 }, (_, k) => `${range[1]}${Number(range[2]) + k}`) : names
    const actions = kind === 'table'
      ? [...(cells[1] ?? '').matchAll(/`(\w+)\(([^)]*)\)`/g)].map((m) => ({
          name: m[1],
          params: m[2].trim() === '' ? [] : m[2].split(',').map((p) => { const [n, b] = p.split(':').map((s) => s.trim()); return { name: n, bits: Number(b) } }),
        }))
      : []
    for (const name of all) {
      const list = out.get(section) ?? []
      list.push({ control: row[1], name, target, kind, actions })
      out.set(section, list)
    }
  }
  return out
}

const readme = readFileSync(join(ROOT, 'p4', 'README.md'), 'utf8')
const promised = promises(readme)
// A scheme's own README (src-main/schemes/<name>/README.md) may promise its program's interface too.
for (const name of readdirSync(join(ROOT, 'src-main', 'schemes'))) {
  const file = join(ROOT, 'src-main', 'schemes', name, 'README.md')
  if (!existsSync(file)) continue
  for (const [section, list] of promises(readFileSync(file, 'utf8'), name)) promised.set(section, [...(promised.get(section) ?? []), ...list])
}

describe('every program declares what p4/README.md promises', () => {
  it('the README was read', () => {
    expect(promised.get('common')?.map((p) => p.name)).toEqual(['ipv4Route', 'nextHop', 'portTx'])
    expect(promised.get('hula')?.some((p) => p.name === 'probeSource' && p.target === 'tna')).toBe(true)
  })

  for (const { arch: target, scheme, rel } of shippedPrograms()) {
    const path = join(ROOT, rel)
    it(rel, () => {
      const d = readProgram(path)
      const expected = [...(promised.get('common') ?? []), ...(promised.get(scheme) ?? [])].filter((p) => p.target === 'both' || p.target === target)
      for (const p of expected) {
        const q = `${p.control}.${p.name}`
        if (p.kind === 'table') {
          const table = d.tables.find((t) => t.name === q)
          expect(table, q).toBeDefined()
          for (const a of p.actions) {
            const name = a.name === 'NoAction' ? 'NoAction' : `${p.control}.${a.name}`
            expect(table?.actions, `${q} lists ${a.name}`).toContain(name)
            expect(d.actions.find((x) => x.name === name)?.params, `${name} parameters`).toEqual(a.params)
          }
        } else if (p.kind === 'register') {
          expect(d.registers.map((r) => r.name), q).toContain(q)
        } else {
          expect(d.counters.map((c) => c.name), q).toContain(q)
        }
      }
      // And nothing the README does not mention: tables and registers are the renderers' interface.
      const mentioned = new Set(expected.map((p) => `${p.control}.${p.name}`))
      expect(d.tables.map((t) => t.name).filter((n) => !mentioned.has(n))).toEqual([])
      expect(d.registers.map((r) => r.name).filter((n) => !mentioned.has(n))).toEqual([])
      expect(d.usesMulticast).toBe(scheme === 'hula' || scheme === 'dhlb')
    })
  }
})

// The v1model INT option without p4c: the declaration reader sees its tables and register only
// with -DP4LAB_INT, they match p4/README.md's INT section, and a report laid out by int.p4's
// header types decodes with the collector's decoder to the fields the README promises.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodeTelemetryReport } from '../../src-main/core/int/decode'
import { readDeclarations, type P4Declarations } from '../../src-main/core/p4/declarations'
import { ROOT, shippedPrograms } from '../helpers/p4'
import { BitWriter } from './encoder'

const INT_TABLES = ['MyEgress.intWatch', 'MyEgress.intReport']

function read(rel: string, defines?: string[]): P4Declarations {
  return readDeclarations(readFileSync(join(ROOT, rel), 'utf8'), (p, from) => readFileSync(join(ROOT, dirname(from), p), 'utf8'), rel, defines)
}

describe('v1model INT option', () => {
  for (const { rel } of shippedPrograms('v1model')) {
    it(`${rel}: INT tables and register only with -DP4LAB_INT, as the README says`, () => {
      const off = read(rel)
      const on = read(rel, ['P4LAB_INT'])
      expect(off.tables.map((t) => t.name).filter((n) => INT_TABLES.includes(n))).toEqual([])
      expect(off.registers.map((r) => r.name)).not.toContain('MyEgress.intSeq')
      // Nothing else changes with the option.
      expect(on.tables.map((t) => t.name).filter((n) => !INT_TABLES.includes(n))).toEqual(off.tables.map((t) => t.name))
      expect(on.registers.filter((r) => r.name !== 'MyEgress.intSeq')).toEqual(off.registers)
      expect(on.counters).toEqual(off.counters)

      const watch = on.tables.find((t) => t.name === 'MyEgress.intWatch')
      expect(watch).toMatchObject({ keys: [{ field: 'standard_metadata.egress_port', matchKind: 'exact' }], actions: ['MyEgress.intPostcard', 'NoAction'], defaultAction: 'NoAction', size: 512 })
      const report = on.tables.find((t) => t.name === 'MyEgress.intReport')
      expect(report).toMatchObject({ keys: [], actions: ['MyEgress.intEncap', 'MyEgress.intDrop'], defaultAction: 'MyEgress.intDrop', size: 1 })
      expect(on.actions.find((a) => a.name === 'MyEgress.intPostcard')?.params).toEqual([{ name: 'session', bits: 32 }])
      expect(on.actions.find((a) => a.name === 'MyEgress.intEncap')?.params).toEqual([
        { name: 'srcMac', bits: 48 }, { name: 'dstMac', bits: 48 }, { name: 'srcIp', bits: 32 }, { name: 'dstIp', bits: 32 }, { name: 'dstPort', bits: 16 }, { name: 'nodeId', bits: 32 },
      ])
      expect(on.registers.find((r) => r.name === 'MyEgress.intSeq')).toEqual({ name: 'MyEgress.intSeq', bits: 32, size: 1 })
    })
  }

  it('the README documents the same tables and register', () => {
    const readme = readFileSync(join(ROOT, 'p4', 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## INT option'))
    expect(section).toContain('| MyEgress | `intWatch` | `standard_metadata.egress_port` (exact) | `intPostcard(session: 32)`, `NoAction()` | `NoAction()` | v1model only |')
    expect(section).toContain('`intEncap(srcMac: 48, dstMac: 48, srcIp: 32, dstIp: 32, dstPort: 16, nodeId: 32)`, `intDrop()` | `intDrop()`')
    expect(section).toContain('| MyEgress | `intSeq` | bit<32> | 1 |')
  })
})

/** `header NAME { bit<W> field; ... }` of int.p4, as [field, width] pairs. */
function headerFields(text: string, name: string): Array<[string, number]> {
  const body = new RegExp(`header ${name} \\{([^}]*)\\}`).exec(text)?.[1] ?? ''
  return [...body.matchAll(/bit<(\d+)>\s+(\w+);/g)].map((m) => [m[2], Number(m[1])])
}

function constant(text: string, name: string): number {
  const m = new RegExp(`const (?:bit<\\d+>|int)\\s+${name}\\s*=\\s*(0x[0-9A-Fa-f]+|\\d+);`).exec(text)
  if (!m) throw new Error(`no constant ${name}`)
  return Number(m[1])
}

describe('int.p4 lays reports out as Telemetry Report v2.0', () => {
  const text = readFileSync(join(ROOT, 'p4', 'include', 'int.p4'), 'utf8')
  const group = headerFields(text, 'int_report_group_t')
  const individual = headerFields(text, 'int_report_individual_t')
  const md = headerFields(text, 'int_report_md_t')

  it('header widths are the spec diagrams', () => {
    expect(group.map((f) => f[1])).toEqual([4, 6, 22, 32]) // Ver, hw_id, Sequence Number, Node ID
    expect(individual.map((f) => f[1])).toEqual([4, 4, 8, 8, 1, 1, 1, 1, 4, 16, 16, 16, 16])
    expect(md.map((f) => f[1])).toEqual([16, 16, 32, 8, 24, 64, 64]) // RepMdBits 1..5 in bit order
  })

  it('the lengths in the constants add up', () => {
    const octets = (f: Array<[string, number]>) => f.reduce((a, [, w]) => a + w, 0) / 8
    expect(constant(text, 'INT_MD_WORDS') * 4).toBe(octets(md))
    expect(constant(text, 'INT_REPORT_WORDS')).toBe(2 + constant(text, 'INT_MD_WORDS') + 7) // + IPv4 header and 8 octets
    expect(constant(text, 'INT_REPORT_BYTES')).toBe(14 + 20 + 8 + octets(group) + octets(individual) + octets(md) + 28)
    expect(constant(text, 'INT_IPV4_LEN')).toBe(constant(text, 'INT_REPORT_BYTES') - 14)
    expect(constant(text, 'INT_UDP_LEN')).toBe(constant(text, 'INT_REPORT_BYTES') - 34)
    expect(constant(text, 'INT_REP_MD_BITS')).toBe(0x7c00)
  })

  it('a report written field by field from those headers, as intEncap fills them, decodes to the promised hop', () => {
    const values: Record<string, number | bigint> = {
      ver: 2, hw_id: 0, seq_no: 41, node_id: 3,
      rep_type: 1, in_type: 4, rep_len: constant(text, 'INT_REPORT_WORDS'), md_len: constant(text, 'INT_MD_WORDS'), d: 0, q: 0, f: 1, i: 0, rsvd: 0,
      rep_md_bits: constant(text, 'INT_REP_MD_BITS'), domain_specific_id: 0, ds_md_bits: 0, ds_md_status: 0,
      ingress_interface_id: 1, egress_interface_id: 2, hop_latency: 12_000, queue_id: 0, queue_occupancy: 17,
      ingress_timestamp: 5_000_000n * 1000n, egress_timestamp: 5_000_012n * 1000n,
    }
    const w = new BitWriter()
    for (const [field, width] of [...group, ...individual, ...md]) w.put(values[field], width)
    // the truncated packet: an IPv4 header and the first 8 octets of TCP
    w.bytes([0x45, 0, 0, 40, 0, 0, 0x40, 0, 63, 6, 0, 0, 10, 0, 0, 1, 10, 1, 0, 1]).bytes([0x13, 0x89, 0, 80, 0, 0, 0, 1])
    const bytes = w.toBytes()
    expect(bytes.length + 42).toBe(constant(text, 'INT_REPORT_BYTES'))
    const r = decodeTelemetryReport(bytes)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.packet).toMatchObject({ Ver: 2, 'Sequence Number': 41, 'Node ID': 3 })
    expect(r.packet.reports[0]).toMatchObject({ RepType: 1, InType: 4, F: 1, inner: { src: '10.0.0.1', dst: '10.1.0.1', protocol: 6, srcPort: 5001, dstPort: 80 } })
    expect(r.packet.reports[0].hops).toEqual([
      {
        source: 'report', 'Switch ID': 3, 'Level 1 Ingress Port ID': 1, 'Level 1 Egress Port ID': 2, 'Hop latency': 12_000, 'Queue ID': 0, 'Queue occupancy': 17,
        'Ingress timestamp': 5_000_000_000n, 'Egress timestamp': 5_000_012_000n,
      },
    ])
  })
})

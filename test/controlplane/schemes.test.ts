// Scheme-specific promises between the renderers and the P4 programs, each written against a
// problem found in review: Floodgate's credit counters (index from a dense port slot, never the
// port number), the ToR-id invariant Floodgate relies on, DHLB's per-port load-degree ranges,
// CONGA's uplink limit, the Tofino packet-generator setup, and p4/README.md's replication rules.

import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildFabric, type FabricSpec } from '../../src-main/model/topology'
import { readDeclarations, type P4Declarations } from '../../src-main/core/p4/declarations'
import {
  bmv2QueueMapping,
  computeControlPlane,
  programFor,
  renderBfrt,
  renderCli,
  type ControlPlaneState,
  type CpScheme,
  type CpTarget,
  type RenderedProgram,
  type TableEntry,
} from '../../src-main/core/controlplane'
import { checkBfrt } from '../../src-main/core/controlplane/check'
import { CONGA_MAX_UPLINKS } from '../../src-main/schemes/conga/controlplane'
import { DHLB_BANDS, DHLB_TAU_NS } from '../../src-main/schemes/dhlb/controlplane'
import { CREDIT_PORT_SLOTS, OVER_WINDOW_QID } from '../../src-main/schemes/floodgate/controlplane'
import { PKTGEN_FRAME_BYTES, PKTGEN_HEADER_BYTES, PKTGEN_PORT, PKTGEN_SKIP_BYTES } from '../../src-main/schemes/shared/pktgen'

const ROOT = resolve(import.meta.dirname, '../..')
const RATES = { hostLinkBps: 10e9, fabricLinkBps: 40e9, linkDelayNs: 1000 }
const HULA3: FabricSpec = { kind: 'three-tier', pods: 2, torsPerPod: 2, aggsPerPod: 2, spines: 2, hostsPerTor: 8, ...RATES }
const FAT4: FabricSpec = { kind: 'fat-tree', k: 4, ...RATES }
const LS: FabricSpec = { kind: 'leaf-spine', leaves: 4, spines: 4, hostsPerLeaf: 4, ...RATES }
const ARCH: Record<CpTarget, string> = { bmv2: 'v1model', tofino: 'tna' }

function source(rel: string): string {
  return readFileSync(join(ROOT, rel), 'utf8')
}

/** A top-level constant of a P4 file (`const <type> NAME = <integer>;`). */
function p4Const(rel: string, name: string): number {
  const m = new RegExp(`^const\\s+[\\w<>]+\\s+${name}\\s*=\\s*(0x[0-9a-fA-F]+|\\d+)\\s*;`, 'm').exec(source(rel))
  if (!m) throw new Error(`${rel} has no constant ${name}`)
  return Number(m[1])
}

function declarations(rel: string): P4Declarations {
  return readDeclarations(source(rel), (p, from) => readFileSync(join(ROOT, dirname(from), p), 'utf8'), rel)
}

function program(state: ControlPlaneState, name: string, target: CpTarget, port: (p: number) => number = (p) => p): RenderedProgram {
  const sw = state.switches.find((s) => s.name === name)!
  const scale = target === 'bmv2' ? bmv2QueueMapping(state).scale : 1
  return programFor(state, sw, target, undefined, port, scale)
}

const entriesOf = (prog: RenderedProgram, table: string): TableEntry[] => prog.entries.filter((e) => e.table === `MyIngress.${table}`)
const exact = (e: TableEntry, k = 0): number => {
  const m = e.match[k]
  if (m.kind !== 'exact') throw new Error(`key ${k} of ${e.table} is ${m.kind}`)
  return Number(m.value)
}

describe('Floodgate credit counters', () => {
  // Tofino DEV_PORTs step by 4 (one per 4-lane port) and start at 0 or 128 in pipe 1; ports 16
  // apart are what made `port & 15` collide.
  const mappings: Array<[string, (p: number) => number]> = [
    ['identity', (p) => p],
    ['Tofino DEV_PORTs 0, 4, 8, ...', (p) => 4 * p],
    ['ports 16 apart', (p) => 16 * p],
    ['pipe 1 DEV_PORTs 128, 132, ...', (p) => 128 + 4 * p],
  ]

  for (const target of ['bmv2', 'tofino'] as const) {
    const rel = `p4/floodgate/${ARCH[target]}/floodgate.p4`
    it(`${rel}: the index is dstTor << CREDIT_SLOT_SHIFT | the portSlot slot, sized by named constants`, () => {
      expect(p4Const(rel, 'CREDIT_PORT_SLOTS')).toBe(CREDIT_PORT_SLOTS)
      expect(2 ** p4Const(rel, 'CREDIT_SLOT_SHIFT')).toBe(CREDIT_PORT_SLOTS)
      const d = declarations(rel)
      expect(d.registers.find((r) => r.name === 'MyIngress.creditCount')?.size).toBe(p4Const(rel, 'MAX_TORS') * CREDIT_PORT_SLOTS)
      expect(d.tables.find((t) => t.name === 'MyIngress.portSlot')?.keys.map((k) => k.matchKind)).toEqual(['exact'])
      // The index is formed from the slot and never from the port number (the parser's zeroing of
      // the field is not an index).
      const code = source(rel).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '')
      const index = code.split('\n').filter((l) => /creditIndex\s*=|bit<32> idx\s*=/.test(l) && !/counter/.test(l) && !/=\s*0;/.test(l))
      expect(index.length).toBe(1)
      expect(index[0]).toMatch(/CREDIT_SLOT_SHIFT/)
      expect(index[0]).toMatch(/meta\.portSlot/)
      expect(index[0]).not.toMatch(/ingress_port/)
    })

    for (const [fname, spec] of [
      ['3-tier', HULA3],
      ['k=4 fat-tree', FAT4],
      ['leaf-spine', LS],
    ] as const) {
      for (const [mname, port] of mappings) {
        it(`${target}, ${fname}, ${mname}: every (fabric port, dstTor) has its own counter`, () => {
          const state = computeControlPlane(buildFabric(spec), 'floodgate')
          const size = p4Const(`p4/floodgate/${ARCH[target]}/floodgate.p4`, 'MAX_TORS') * CREDIT_PORT_SLOTS
          for (const sw of state.switches) {
            const prog = program(state, sw.name, target, port)
            const slotOf = new Map(entriesOf(prog, 'portSlot').map((e) => [exact(e), Number(e.params[0])]))
            const fabric = sw.ports.filter((p) => p.facing !== 'host').map((p) => port(p.port))
            // Every fabric port has a slot, slots are dense 0..n-1 and distinct.
            expect([...slotOf.keys()].sort((a, b) => a - b)).toEqual([...fabric].sort((a, b) => a - b))
            expect([...slotOf.values()].sort((a, b) => a - b)).toEqual(fabric.map((_, i) => i))
            // The data plane's index for every (port, dstTor) pair is distinct and in range.
            const seen = new Map<number, string>()
            for (const [p, slot] of slotOf) {
              for (const t of state.tors) {
                const idx = t.index * CREDIT_PORT_SLOTS + slot
                expect(seen.get(idx), `${sw.name}: port ${p} / ToR ${t.index} vs ${seen.get(idx)}`).toBeUndefined()
                seen.set(idx, `port ${p} / ToR ${t.index}`)
                expect(idx).toBeLessThan(size)
              }
            }
            // Tofino: the credit the generator sends for (port, dstTor) flushes that same counter.
            if (target === 'tofino') {
              const counters = entriesOf(prog, 'creditTarget').map((e) => {
                const [p, dstTor, counter] = e.params.map(Number)
                expect(counter, `${sw.name} credit to port ${p} for ToR ${dstTor}`).toBe(dstTor * CREDIT_PORT_SLOTS + slotOf.get(p)!)
                return counter
              })
              expect(new Set(counters).size).toBe(counters.length)
            }
          }
        })
      }
    }
  }

  it(`refuses a switch with more than CREDIT_PORT_SLOTS = ${CREDIT_PORT_SLOTS} fabric ports, naming the constant`, () => {
    const state = computeControlPlane(buildFabric({ kind: 'leaf-spine', leaves: CREDIT_PORT_SLOTS + 1, spines: 2, hostsPerLeaf: 1, ...RATES }), 'floodgate')
    expect(() => renderCli(state, 'spine0')).toThrow(/spine0 has 33 fabric ports.*CREDIT_PORT_SLOTS = 32/)
    expect(() => renderBfrt(state, 'leaf0')).not.toThrow()
  })
})

describe("the ToR id invariant (Floodgate counts a ToR's own hosts under dstTor = switch id)", () => {
  it('holds for every fabric kind, and the rendered switch id of a ToR is its ToR index', () => {
    for (const spec of [HULA3, FAT4, LS]) {
      const state = computeControlPlane(buildFabric(spec), 'floodgate')
      for (const sw of state.switches.filter((s) => s.role === 'tor')) {
        expect(sw.switchId).toBe(sw.torIndex)
        for (const target of ['bmv2', 'tofino'] as const) {
          const id = program(state, sw.name, target).entries.find((e) => e.table === 'MyIngress.switchInfo')!
          expect(id.params).toEqual([sw.torIndex])
        }
      }
    }
  })

  it('is asserted by computeControlPlane: a fabric that does not list its ToRs first is refused', () => {
    const f = buildFabric(HULA3)
    const reordered = { ...f, switches: [...f.switches].reverse() }
    expect(() => computeControlPlane(reordered, 'ecmp')).toThrow(/ToR tor3 would get switch id \d+ but it is ToR 3; a ToR's switch id must be its ToR index/)
  })

  it('is stated in p4/README.md and in both floodgate programs', () => {
    expect(source('p4/README.md')).toMatch(/Invariant: a ToR's switch id is its ToR index/)
    for (const rel of ['p4/floodgate/v1model/floodgate.p4', 'p4/floodgate/tna/floodgate.p4']) expect(source(rel)).toMatch(/meta\.dstTor = meta\.switchId;\s*\/\/ a ToR's switch id is its ToR index/)
  })
})

describe('DHLB load degrees on a switch whose links differ in speed', () => {
  // agg3's link to spine1 runs at 10G, its others at 40G.
  const spec: FabricSpec = { ...HULA3, rates: { 'spine1-agg3': 10e9 } }
  const state = computeControlPlane(buildFabric(spec), 'dhlb')

  function degree(entries: TableEntry[], port: number, util: number): number {
    const hits = entries.filter((e) => {
      const r = e.match[1]
      return exact(e) === port && r.kind === 'range' && r.lo <= util && util <= r.hi
    })
    expect(hits.length).toBeLessThanOrEqual(1)
    return hits.length ? Number(hits[0].params[0]) : 0
  }

  for (const target of ['bmv2', 'tofino'] as const) {
    it(`${target}: loadDegree is keyed by the ingress port and each port's bands follow its own rate`, () => {
      const d = declarations(`p4/dhlb/${ARCH[target]}/dhlb.p4`)
      expect(d.tables.find((t) => t.name === 'MyIngress.loadDegree')?.keys.map((k) => k.matchKind)).toEqual(['exact', 'range'])
      const agg3 = state.switches.find((s) => s.name === 'agg3')!
      const scale = target === 'bmv2' ? bmv2QueueMapping(state).scale : 1
      const entries = entriesOf(program(state, 'agg3', target), 'loadDegree')
      const speeds = new Set<number>()
      for (const p of agg3.ports.filter((x) => x.facing !== 'host')) {
        speeds.add(p.bps)
        const perUnit = ((p.bps * scale) / 8) * (DHLB_TAU_NS[target] / 1e9) / 256 // meta.util at 100%
        const at = (fraction: number): number => degree(entries, p.port, Math.floor(fraction * perUnit))
        expect([at(0.1), at(0.3), at(0.6), at(0.8), at(0.95)], `port ${p.port} (${p.bps / 1e9}G)`).toEqual([5, 3, 2, 1, 0])
        expect(DHLB_BANDS.map((b) => b.degree)).toEqual([5, 3, 2, 1])
      }
      expect(speeds).toEqual(new Set([40e9, 10e9]))
    })
  }
})

describe('CONGA uplink limit', () => {
  it('the renderer limit is each program\'s CONGA_MAX_UPLINKS', () => {
    expect(p4Const('p4/conga/v1model/conga.p4', 'CONGA_MAX_UPLINKS')).toBe(CONGA_MAX_UPLINKS.bmv2)
    expect(p4Const('p4/conga/tna/conga.p4', 'CONGA_MAX_UPLINKS')).toBe(CONGA_MAX_UPLINKS.tofino)
    // uplinkPort holds one entry per uplink.
    for (const a of ['v1model', 'tna']) expect(declarations(`p4/conga/${a}/conga.p4`).tables.find((t) => t.name === 'MyIngress.uplinkPort')?.size).toBe(p4Const(`p4/conga/${a}/conga.p4`, 'CONGA_MAX_UPLINKS'))
  })

  it('a leaf with 6 uplinks: BMv2 is refused with the limit, the file and the constant; Tofino renders', () => {
    const state = computeControlPlane(buildFabric({ kind: 'leaf-spine', leaves: 3, spines: 6, hostsPerLeaf: 2, ...RATES }), 'conga')
    expect(() => renderCli(state, 'leaf0')).toThrow(/leaf0 has 6 uplinks; p4\/conga\/v1model\/conga\.p4 handles at most CONGA_MAX_UPLINKS = 4/)
    const bf = renderBfrt(state, 'leaf0')
    expect(checkBfrt(bf, declarations('p4/conga/tna/conga.p4'), 'conga')).toEqual([])
    expect(bf).toContain('bfrt.conga.pipe.MyIngress.uplinkPort.add_with_setUplink(5, port=')
  })

  it('a leaf with 17 uplinks is refused on Tofino too', () => {
    const state = computeControlPlane(buildFabric({ kind: 'leaf-spine', leaves: 2, spines: 17, hostsPerLeaf: 1, ...RATES }), 'conga')
    expect(() => renderBfrt(state, 'leaf0')).toThrow(/p4\/conga\/tna\/conga\.p4 handles at most CONGA_MAX_UPLINKS = 16/)
  })

  it('p4/README.md states both limits', () => {
    expect(source('p4/README.md')).toMatch(/CONGA_MAX_UPLINKS[\s\S]*4 in `conga\/v1model\/conga\.p4`[\s\S]*16 in `conga\/tna\/conga\.p4`/)
  })
})

describe('Tofino packet generator setup', () => {
  it('the renderer uses tna_common.p4\'s port and skip', () => {
    expect(p4Const('p4/include/tna_common.p4', 'PKTGEN_PORT')).toBe(PKTGEN_PORT)
    expect(p4Const('p4/include/tna_common.p4', 'PKTGEN_SKIP_BITS')).toBe(8 * PKTGEN_SKIP_BYTES)
  })

  const bytesOf = (line: string): number[] => {
    const hex = /buffer=bytes\.fromhex\('([0-9a-f]*)'\)/.exec(line)![1]
    return hex.match(/../g)!.map((x) => parseInt(x, 16))
  }
  const kw = (line: string, name: string): string => new RegExp(`[(, ]${name}=([^,)]+)`).exec(line)![1]

  const cases: Array<{ scheme: CpScheme; sw: string; periodParam: 'probePeriodNs' | 'creditIntervalNs'; header: (torIndex: number) => number[]; packets: (prog: RenderedProgram) => number }> = [
    { scheme: 'hula', sw: 'tor3', periodParam: 'probePeriodNs', header: (t) => [0, 0, t, 0], packets: () => 1 },
    { scheme: 'dhlb', sw: 'tor3', periodParam: 'probePeriodNs', header: (t) => [0, t, 5, 0], packets: () => 1 },
    { scheme: 'floodgate', sw: 'agg0', periodParam: 'creditIntervalNs', header: () => [0, 0, 0, 0, 0, 0], packets: (p) => entriesOf(p, 'creditTarget').length },
  ]
  for (const c of cases) {
    it(`${c.scheme}: ${c.sw}'s script enables port 68, writes the buffer the parser expects and starts the timer app at ${c.periodParam}`, () => {
      const period = c.periodParam === 'probePeriodNs' ? 300_000 : 20_000
      const state = computeControlPlane(buildFabric(HULA3), c.scheme, { [c.periodParam]: period })
      const sw = state.switches.find((s) => s.name === c.sw)!
      const bf = renderBfrt(state, c.sw)
      const lines = bf.split('\n')
      const port = lines.findIndex((l) => l.startsWith('bfrt.tf1.pktgen.port_cfg.mod('))
      const buf = lines.findIndex((l) => l.startsWith('bfrt.tf1.pktgen.pkt_buffer.mod('))
      const app = lines.findIndex((l) => l.startsWith('bfrt.tf1.pktgen.app_cfg.mod_with_trigger_timer_periodic('))
      // In order, after every table entry.
      expect(0 < port && port < buf && buf < app).toBe(true)
      const lastEntry = lines.reduce((last, l, k) => (l.includes('.add_with_') ? k : last), -1)
      expect(lastEntry).toBeLessThan(port)
      expect(kw(lines[port], 'dev_port')).toBe(String(PKTGEN_PORT))
      const bytes = bytesOf(lines[buf])
      expect(bytes.length).toBe(PKTGEN_FRAME_BYTES - PKTGEN_HEADER_BYTES)
      const header = c.header(sw.torIndex)
      expect(bytes.slice(0, PKTGEN_SKIP_BYTES)).toEqual(Array(PKTGEN_SKIP_BYTES).fill(0))
      expect(bytes.slice(PKTGEN_SKIP_BYTES, PKTGEN_SKIP_BYTES + header.length)).toEqual(header)
      expect(bytes.slice(PKTGEN_SKIP_BYTES + header.length).every((b) => b === 0)).toBe(true)
      expect(kw(lines[app], 'timer_nanosec')).toBe(String(period))
      expect(kw(lines[app], 'pkt_len')).toBe(String(bytes.length))
      expect(kw(lines[app], 'pipe_local_source_port')).toBe(String(PKTGEN_PORT))
      expect(Number(kw(lines[app], 'packets_per_batch_cfg')) + 1).toBe(c.packets(program(state, c.sw, 'tofino')))
      if (c.scheme !== 'floodgate') {
        const src = entriesOf(program(state, c.sw, 'tofino'), 'probeSource')
        expect(src.map((e) => exact(e))).toEqual([Number(kw(lines[app], 'app_id'))])
      }
      expect(checkBfrt(bf, declarations(`p4/${c.scheme}/tna/${c.scheme}.p4`), c.scheme)).toEqual([])
    })
  }

  it('switches without generated packets get no pktgen calls; BMv2 files never do', () => {
    const hula = computeControlPlane(buildFabric(HULA3), 'hula')
    expect(renderBfrt(hula, 'agg0')).not.toContain('pktgen')
    expect(renderCli(hula, 'tor0')).not.toContain('pktgen')
    expect(renderBfrt(computeControlPlane(buildFabric(HULA3), 'ecmp'), 'tor0')).not.toContain('pktgen')
  })

  it('the checker refuses entries waiting for packets nobody generates, and a wrong pkt_len', () => {
    const state = computeControlPlane(buildFabric(HULA3), 'hula')
    const d = declarations('p4/hula/tna/hula.p4')
    const bf = renderBfrt(state, 'tor0')
    const noApp = bf.split('\n').filter((l) => !l.startsWith('bfrt.tf1.pktgen.app_cfg')).join('\n')
    expect(checkBfrt(noApp, d, 'hula').join('\n')).toMatch(/waits for pktgen app 1, which the script never configures/)
    expect(checkBfrt(bf.replace('pkt_len=58', 'pkt_len=64'), d, 'hula').join('\n')).toMatch(/pkt_len 64 differs from the 58-byte buffer/)
    expect(checkBfrt(bf + 'bfrt.tf1.pktgen.port_cfg.mod(dev_port=12, pktgen_enable=True)\n', d, 'hula').join('\n')).toMatch(/not a packet-generator port/)
    const ecmp = renderBfrt(computeControlPlane(buildFabric(HULA3), 'ecmp'), 'tor0')
    expect(checkBfrt(ecmp + 'bfrt.tf1.pktgen.port_cfg.mod(dev_port=68, pktgen_enable=True)\n', declarations('p4/ecmp/tna/ecmp.p4'), 'ecmp').join('\n')).toMatch(/does not use the packet generator/)
    const fg = renderBfrt(computeControlPlane(buildFabric(HULA3), 'floodgate'), 'agg0')
    expect(checkBfrt(fg.replace('packets_per_batch_cfg=9', 'packets_per_batch_cfg=5'), declarations('p4/floodgate/tna/floodgate.p4'), 'floodgate').join('\n')).toMatch(/waits for generated packet 6/)
  })

  it('Floodgate: queue 1 (over-window) gets a lower priority than queue 0 on every fabric port, through the helper', () => {
    const state = computeControlPlane(buildFabric(HULA3), 'floodgate')
    expect(p4Const('p4/floodgate/tna/floodgate.p4', 'OVER_WINDOW_QID')).toBe(OVER_WINDOW_QID)
    for (const sw of state.switches) {
      const bf = renderBfrt(state, sw.name)
      const calls = [...bf.matchAll(/^p4lab_queue_priority\(dev_port=(\d+), qid=(\d+), priority=(\d+)\)$/gm)].map((m) => m.slice(1).map(Number))
      const fabric = sw.ports.filter((p) => p.facing !== 'host').map((p) => p.port)
      expect(new Set(calls.map((c) => c[0]))).toEqual(new Set(fabric))
      for (const p of fabric) {
        const prio = (q: number) => calls.find((c) => c[0] === p && c[1] === q)![2]
        expect(prio(OVER_WINDOW_QID)).toBeLessThan(prio(0))
      }
      expect(bf.indexOf('def p4lab_queue_priority')).toBeLessThan(bf.indexOf('p4lab_queue_priority(dev_port='))
    }
    const bf = renderBfrt(state, 'agg0')
    const broken = bf.replace("    cfg = bfrt.tf1.tm.port.cfg.get(dev_port, print_ents=False)\n", '')
    expect(checkBfrt(broken, declarations('p4/floodgate/tna/floodgate.p4'), 'floodgate').length).toBeGreaterThan(0)
  })
})

describe('p4/README.md states the replication rules the renderer applies', () => {
  it('every rule text rendered for HULA and DHLB appears in the README, for both schemes', () => {
    const readme = source('p4/README.md').replace(/\s+/g, ' ')
    for (const scheme of ['hula', 'dhlb'] as const) {
      const rules = new Set<string>()
      for (const spec of [HULA3, FAT4, LS]) {
        for (const sw of computeControlPlane(buildFabric(spec), scheme).switches) for (const r of sw.probeReplication) rules.add(r.rule.replace(/^[A-Z]+: /, ''))
      }
      expect(rules.size).toBeGreaterThanOrEqual(5)
      for (const r of rules) expect(readme, `${scheme}: "${r}"`).toContain(r)
    }
    expect(readme).toMatch(/## dhlb[\s\S]*except that a spine sends only to the leaves of the other pods/)
  })
})

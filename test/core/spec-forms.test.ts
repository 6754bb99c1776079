// The experiment file's topology kinds, asymmetry, failures, transports, workload kinds and
// scheme parameters: each form to its exact normalised values, each mistake to its line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expandRuns, formatSpecError, parseExperiment, SCHEMES, type ExperimentSpec, type ParseOptions } from '../../src-main/core/spec'
import { simConfigFor } from '../../src-main/core/targets/sim/config'
import { buildFabric } from '../../src-main/model/topology'

const root = resolve(__dirname, '../..')
const fixtures = join(root, 'test/fixtures/spec')
const workloadsDir = join(root, 'resources/workloads')

let tmp: string
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'p4lab-spec-forms-'))
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function opts(over: Partial<ParseOptions> = {}): ParseOptions {
  return { file: 'test.yaml', baseDir: tmp, workloadsDir, ...over }
}

function errorsOf(text: string, over: Partial<ParseOptions> = {}): string[] {
  const r = parseExperiment(text, opts(over))
  if (r.ok) throw new Error('expected the spec to be invalid')
  return r.errors.map(formatSpecError)
}

function specOf(text: string, over: Partial<ParseOptions> = {}): ExperimentSpec {
  const r = parseExperiment(text, opts(over))
  if (!r.ok) throw new Error(r.errors.map(formatSpecError).join('\n'))
  return r.spec
}

function fixture(name: string): { text: string; over: Partial<ParseOptions> } {
  return { text: readFileSync(join(fixtures, name), 'utf8'), over: { file: name, baseDir: fixtures } }
}

const webSearch = join(workloadsDir, 'web-search.cdf')
const dataMining = join(workloadsDir, 'data-mining.cdf')

// HULA's Fig. 4 fabric, one field per line; tests append the rest of the file.
const HULA_TOPOLOGY = [
  'name: hula', // 1
  'topology:', // 2
  '  kind: three-tier', // 3
  '  pods: 2', // 4
  '  torsPerPod: 2', // 5
  '  aggsPerPod: 2', // 6
  '  spines: 2', // 7
  '  hostsPerTor: 8', // 8
  '  hostLink: 10Gbps', // 9
  '  fabricLink: 40Gbps', // 10
]
const SCHEMES_LINE = 'schemes: [ecmp]'
const POISSON = 'workload: { kind: web-search, load: [0.5], flows: 100 }'

/** HULA's topology (lines 1-10), then the given lines from line 11. */
function hula(...rest: string[]): string {
  return [...HULA_TOPOLOGY, ...rest, ''].join('\n')
}

describe('topology kinds', () => {
  it("parses HULA's asymmetric 3-tier fabric with remove, slow, failures, DCTCP and params", () => {
    const { text, over } = fixture('hula-asymmetric.yaml')
    const spec = specOf(text, over)
    expect(spec.topology).toEqual({
      kind: 'three-tier',
      pods: 2,
      torsPerPod: 2,
      aggsPerPod: 2,
      spines: 2,
      hostsPerTor: 8,
      hostLinkBps: 10e9,
      fabricLinkBps: 40e9,
      linkDelayNs: 1_000,
      queuePackets: 100,
      hostQueuePackets: 20,
      remove: ['spine1-agg3'],
      // Written agg0-spine0; kept under the fabric's own name.
      rates: { 'spine0-agg0': 10e9 },
    })
    expect(spec.transport).toEqual({
      kind: 'dctcp',
      mssBytes: 1460,
      initCwndPackets: 10,
      minRtoNs: 1_000_000,
      ecnThresholdPackets: 65,
      dctcpG: 0.0625,
    })
    expect(spec.params).toEqual({
      flowletGapNs: 100_000,
      probePeriodNs: 200_000,
      keepAliveNs: 1_000_000,
      utilTauNs: 400_000,
      dreAlpha: 0.2,
      creditBytes: 10_240,
      probeRateBps: 1e9,
      pause: 1,
    })
    // In time order, each under the fabric's name for it (tor0-agg1 is agg1-tor0).
    expect(spec.failures).toEqual([
      { link: 'spine0-agg2', atNs: 1_000_000 },
      { link: 'agg1-tor0', atNs: 2_000_000, recoverNs: 3_500_000 },
    ])
    expect(spec.failover).toBe('local')
    expect(spec.workload).toMatchObject({ kind: 'web-search', file: webSearch, loads: [0.6], flows: 2000 })
    expect(expandRuns(spec)).toHaveLength(4)
    // The topology is one the fabric builder accepts, with the link gone.
    const fabric = buildFabric(spec.topology)
    expect(fabric.hosts).toHaveLength(32)
    expect(fabric.links.map((l) => l.name)).not.toContain('spine1-agg3')
    expect(fabric.links.find((l) => l.name === 'spine0-agg0')?.bps).toBe(10e9)
  })

  it('maps the asymmetric fabric to a SimConfig with link events, failover and scheme params', () => {
    const { text, over } = fixture('hula-asymmetric.yaml')
    const spec = specOf(text, over)
    const config = simConfigFor({ runId: 1, spec, scheme: 'rps', load: 0.6, seed: 2 })
    expect(config).toEqual({
      topology: spec.topology,
      scheme: 'rps',
      transport: spec.transport,
      workload: { kind: 'poisson', cdf: spec.workload.kind === 'web-search' ? spec.workload.cdf : [], load: 0.6, flows: 2000 },
      schemeParams: spec.params,
      linkEvents: [
        { link: 'spine0-agg2', atNs: 1_000_000, up: false },
        { link: 'agg1-tor0', atNs: 2_000_000, up: false },
        { link: 'agg1-tor0', atNs: 3_500_000, up: true },
      ],
      failover: 'local',
      seed: 2,
      telemetryIntervalNs: 100_000,
      maxSimTimeNs: 10_000_000_000,
    })
  })

  it('parses a fat-tree and a leaf-spine with their defaults', () => {
    const ft = specOf('name: ft\ntopology: { kind: fat-tree, k: 4, hostLink: 100Gbps, fabricLink: 100Gbps, queuePackets: 8 }\nschemes: ecmp\nworkload: { kind: permutation }\n')
    expect(ft.topology).toEqual({
      kind: 'fat-tree',
      k: 4,
      hostLinkBps: 100e9,
      fabricLinkBps: 100e9,
      linkDelayNs: 1_000,
      queuePackets: 8,
      hostQueuePackets: 20,
    })
    const ls = specOf(`name: ls\ntopology: { kind: leaf-spine, leaves: 4, spines: 2, hostsPerLeaf: 8, hostLink: 10G, fabricLink: 10G, slow: { spine1-leaf3: 1Gbps } }\nschemes: ecmp\n${POISSON}\n`)
    expect(ls.topology).toEqual({
      kind: 'leaf-spine',
      leaves: 4,
      spines: 2,
      hostsPerLeaf: 8,
      hostLinkBps: 10e9,
      fabricLinkBps: 10e9,
      linkDelayNs: 1_000,
      queuePackets: 100,
      hostQueuePackets: 20,
      rates: { 'spine1-leaf3': 1e9 },
    })
  })

  it("reports a field of another kind as unknown, listing this kind's fields", () => {
    expect(errorsOf(hula('  hostsPerLeaf: 8', SCHEMES_LINE, POISSON))).toEqual([
      "test.yaml:11:3: topology.hostsPerLeaf: unknown field 'hostsPerLeaf'; expected one of kind, pods, torsPerPod, aggsPerPod, spines, hostsPerTor, hostLink, fabricLink, linkDelay, queuePackets, hostQueuePackets, remove, slow",
    ])
    expect(errorsOf(`name: x\ntopology: { kind: fat-tree, k: 4, leaves: 2, hostLink: 10G, fabricLink: 10G }\nschemes: ecmp\n${POISSON}\n`)).toEqual([
      "test.yaml:2:35: topology.leaves: unknown field 'leaves'; expected one of kind, k, hostsPerTor, hostLink, fabricLink, linkDelay, queuePackets, hostQueuePackets, remove, slow",
    ])
  })

  it('reports an unknown or missing kind, and an odd k', () => {
    expect(errorsOf(`name: x\ntopology: { kind: torus, k: 4 }\nschemes: ecmp\n${POISSON}\n`)).toEqual([
      "test.yaml:2:19: topology.kind: expected one of leaf-spine, fat-tree, three-tier, custom, got 'torus'",
    ])
    expect(errorsOf(`name: x\ntopology: { k: 4 }\nschemes: ecmp\n${POISSON}\n`)).toEqual([
      'test.yaml:2:11: topology.kind: required field is missing; expected one of leaf-spine, fat-tree, three-tier, custom',
    ])
    expect(errorsOf(`name: x\ntopology: { kind: fat-tree, k: 5, hostLink: 10G, fabricLink: 10G }\nschemes: ecmp\n${POISSON}\n`)).toEqual([
      'test.yaml:2:32: topology.k: expected an even integer of at least 2, got 5',
    ])
  })

  it('refuses a fabric too large to build (a typo must not exhaust memory)', () => {
    expect(errorsOf(`name: x\ntopology: { kind: fat-tree, k: 4000, hostLink: 10G, fabricLink: 10G }\nschemes: ecmp\n${POISSON}\n`)).toEqual([
      'test.yaml:2:11: topology: this fat-tree would have 48,000,000,000 links; the simulator builds at most 1,000,000',
    ])
  })

  it('reports an unknown link at its list item, naming similar links of the fabric', () => {
    expect(errorsOf(hula('  remove: [spine1-agg3, spine1-agg9]', SCHEMES_LINE, POISSON))).toEqual([
      "test.yaml:11:25: topology.remove[1]: unknown link 'spine1-agg9' in this three-tier fabric; links there are named upper-lower, such as spine1-agg0, spine1-agg1, spine1-agg2, spine1-agg3",
    ])
  })

  it('reports an unknown link in slow at its key', () => {
    expect(errorsOf(hula('  remove: [spine1-agg3]', '  slow:', '    spine7-agg0: 10Gbps', SCHEMES_LINE, POISSON))).toEqual([
      "test.yaml:13:5: topology.slow.spine7-agg0: unknown link 'spine7-agg0' in this three-tier fabric; links there are named upper-lower, such as spine0-agg0, spine1-agg0, agg0-tor0, agg0-tor1",
    ])
  })

  it('refuses removing a host link, and removals that cut the fabric in two', () => {
    expect(errorsOf(hula('  remove: [tor0-h1]', SCHEMES_LINE, POISSON))).toEqual([
      "test.yaml:11:12: topology.remove[0]: 'tor0-h1' is a host's only link; remove takes links between switches (use failures: to take a host link down during a run)",
    ])
    expect(errorsOf(hula('  remove: [agg0-tor0, agg1-tor0]', SCHEMES_LINE, POISSON))).toEqual([
      'test.yaml:11:11: topology.remove: removing these links cuts tor1 off from tor0; every ToR must still reach every other',
    ])
  })
})

describe('failures', () => {
  it('turns failures into link events in ns, in time order', () => {
    const spec = specOf(hula(SCHEMES_LINE, POISSON, 'failures:', '  - { link: spine0-agg0, at: 5ms, recover: 6ms }', '  - { link: agg2-spine1, at: 1ms }'))
    expect(spec.failures).toEqual([
      { link: 'spine1-agg2', atNs: 1_000_000 },
      { link: 'spine0-agg0', atNs: 5_000_000, recoverNs: 6_000_000 },
    ])
    expect(spec.failover).toBe('global')
    const config = simConfigFor({ runId: 1, spec, scheme: 'ecmp', load: 0.5, seed: 1 })
    expect(config.linkEvents).toEqual([
      { link: 'spine1-agg2', atNs: 1_000_000, up: false },
      { link: 'spine0-agg0', atNs: 5_000_000, up: false },
      { link: 'spine0-agg0', atNs: 6_000_000, up: true },
    ])
    expect(config.failover).toBe('global')
  })

  it('reports recover before at, an unknown link, a second outage and a failure after the stop', () => {
    const text = hula(
      SCHEMES_LINE, // 11
      POISSON, // 12
      'stopAfter: 10ms', // 13
      'failures:', // 14
      '  - { link: spine0-agg0, at: 2ms, recover: 1ms }', // 15
      '  - { link: spine0-agg7, at: 1ms }', // 16
      '  - { link: spine1-agg1, at: 1ms, recover: 3ms }', // 17
      '  - { link: agg1-spine1, at: 2ms }', // 18
      '  - { link: spine1-agg0, at: 10ms }', // 19
    )
    expect(errorsOf(text)).toEqual([
      'test.yaml:15:44: failures[0].recover: expected a time after at (2ms), got 1ms',
      "test.yaml:16:13: failures[1].link: unknown link 'spine0-agg7' in this three-tier fabric; links there are named upper-lower, such as spine0-agg0, spine0-agg1, spine0-agg2, spine0-agg3",
      "test.yaml:18:30: failures[3].at: link 'agg1-spine1' is already down at 2ms (failures[2] takes it down until 3ms)",
      'test.yaml:19:30: failures[4].at: the run stops at 10ms (stopAfter), before this failure',
    ])
  })

  it('refuses a failure of a removed link, and an unknown failover', () => {
    expect(errorsOf(hula('  remove: [spine1-agg3]', SCHEMES_LINE, POISSON, 'failures: [{ link: agg3-spine1, at: 1ms }]', 'failover: fast'))).toEqual([
      "test.yaml:14:20: failures[0].link: link 'agg3-spine1' is removed from the topology, so it cannot fail",
      "test.yaml:15:11: failover: expected 'global' or 'local', got 'fast'",
    ])
  })
})

describe('transport', () => {
  it('defaults DCTCP marking to the sim (no threshold), and refuses DCTCP fields on newreno', () => {
    expect(specOf(hula(SCHEMES_LINE, POISSON, 'transport: { kind: dctcp }')).transport).toEqual({
      kind: 'dctcp',
      mssBytes: 1460,
      initCwndPackets: 10,
      minRtoNs: 1_000_000,
    })
    expect(errorsOf(hula(SCHEMES_LINE, POISSON, 'transport:', '  ecnThreshold: 65', '  dctcpG: 2'))).toEqual([
      'test.yaml:14:17: transport.ecnThreshold: ecnThreshold is the DCTCP marking threshold (packets); it needs kind: dctcp, and this transport is newreno',
      "test.yaml:15:11: transport.dctcpG: dctcpG is DCTCP's gain g; it needs kind: dctcp, and this transport is newreno",
    ])
    expect(errorsOf(hula(SCHEMES_LINE, POISSON, 'transport: { kind: dctcp, ecnThreshold: 0, dctcpG: 1.5 }', 'transport2: 1'))).toEqual([
      'test.yaml:13:41: transport.ecnThreshold: expected a positive integer (packets queued), got 0',
      'test.yaml:13:52: transport.dctcpG: expected a number in (0, 1], got 1.5',
      expect.stringMatching(/^test\.yaml:14:1: transport2: unknown field 'transport2'/),
    ])
  })
})

describe('dcqcn and switch buffers', () => {
  it('takes DCQCN with the paper defaults or overrides in units, and a shared buffer with PFC, down to the sim', () => {
    const spec = specOf(
      hula(SCHEMES_LINE, POISSON, 'transport: { kind: dcqcn, kmin: 10KB, rai: 20Mbps, cnpInterval: 4us }', 'buffer: { kind: shared, size: 12MB, pfc: { alpha: 0.25 } }'),
    )
    expect(spec.transport).toEqual({
      kind: 'dcqcn', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000,
      dcqcn: { kminBytes: 10_000, raiBps: 20e6, cnpIntervalNs: 4000 },
    })
    expect(spec.buffer).toEqual({ kind: 'shared', sizeBytes: 12_000_000, alpha: 1, pfc: { alpha: 0.25, xonOffsetBytes: 3000 } })
    const cfg = simConfigFor({ spec, scheme: 'ecmp', load: 0.5, seed: 1 } as Parameters<typeof simConfigFor>[0])
    expect(cfg.buffer).toEqual(spec.buffer)
    // Left out, there is no buffer block: per-port queues, as before.
    expect(specOf(hula(SCHEMES_LINE, POISSON)).buffer).toBeUndefined()
  })

  it('names each bad DCQCN or buffer field at its line', () => {
    expect(errorsOf(hula(SCHEMES_LINE, POISSON, 'transport: { kind: dcqcn, kmin: 200KB, kmax: 5KB, pmax: 2, dctcpG: 0.5 }', 'buffer: { kind: per-port, size: -1, alpha: 0 }'))).toEqual([
      'test.yaml:13:46: transport.kmax: expected a size above kmin (200000 B), got 5000 B',
      'test.yaml:13:57: transport.pmax: expected a number in (0, 1], got 2',
      "test.yaml:13:68: transport.dctcpG: dctcpG is DCTCP's gain; DCQCN's is g",
      "test.yaml:14:17: buffer.kind: expected 'shared' (leave buffer out for per-port queues), got 'per-port'",
      'test.yaml:14:33: buffer.size: expected a size such as 100KB, got -1',
      'test.yaml:14:44: buffer.alpha: expected a positive number, got 0',
    ])
  })
})

describe('workload kinds', () => {
  it('parses an incast mix with the default fan-in mix, and maps it to the sim', () => {
    const spec = specOf(
      hula(SCHEMES_LINE, 'workload:', '  kind: incast', '  background: data-mining', '  load: [0.4, 0.8]', '  flows: 500', '  incast: { events: 50, rate: 2000/s, flowSize: 64KB }'),
    )
    const cdf = spec.workload.kind === 'incast' ? spec.workload.cdf : []
    expect(spec.workload).toEqual({
      kind: 'incast',
      background: 'data-mining',
      file: dataMining,
      cdf,
      loads: [0.4, 0.8],
      flows: 500,
      incast: {
        events: 50,
        ratePerSec: 2000,
        flowBytes: 64_000,
        fanIn: [
          [1, 10],
          [5, 60],
          [10, 30],
        ],
      },
    })
    expect(cdf.at(-1)).toEqual([1e9, 1])
    expect(expandRuns(spec).map((r) => r.load)).toEqual([0.4, 0.8])
    expect(simConfigFor({ runId: 1, spec, scheme: 'ecmp', load: 0.8, seed: 1 }).workload).toEqual({
      kind: 'incast',
      background: { cdf, load: 0.8, flows: 500 },
      incast: { events: 50, ratePerSec: 2000, flowBytes: 64_000, fanIn: [[1, 10], [5, 60], [10, 30]] },
    })
  })

  it('accepts a fixed fan-in, a plain rate, and a CDF file for the background', () => {
    const spec = specOf(
      hula(SCHEMES_LINE, 'workload: { kind: incast, background: cdf, file: custom.cdf, load: 0.5, flows: 10, incast: { events: 3, rate: 500, flowSize: 1MiB, fanIn: 16 } }'),
      { baseDir: fixtures },
    )
    expect(spec.workload).toMatchObject({ background: 'cdf', file: join(fixtures, 'custom.cdf'), incast: { events: 3, ratePerSec: 500, flowBytes: 1_048_576, fanIn: 16 } })
  })

  it('reports incast mistakes at their fields', () => {
    const text = hula(
      SCHEMES_LINE, // 11
      'workload:', // 12
      '  kind: incast', // 13
      '  background: web-search', // 14
      '  file: x.cdf', // 15
      '  load: 0.8', // 16
      '  flows: 100', // 17
      '  incast: { events: 0, rate: fast, flowSize: 64KB, fanIn: [[1, 10], [40, 5], [1, 3]] }', // 18
    )
    expect(errorsOf(text)).toEqual([
      'test.yaml:15:9: workload.file: file is only read with background: cdf; background web-search uses the built-in web-search.cdf',
      'test.yaml:18:21: workload.incast.events: expected a positive integer (incast events), got 0',
      "test.yaml:18:30: workload.incast.rate: expected a rate of events such as 2000/s, got 'fast'",
      'test.yaml:18:70: workload.incast.fanIn[1][0]: fan-in 40 needs 40 senders besides the receiver; this fabric has 32 hosts',
      'test.yaml:18:79: workload.incast.fanIn[2][0]: duplicate fan-in 1',
    ])
  })

  it('parses the incast and long-lived fixtures to their sim configs', () => {
    const inc = fixture('incast.yaml')
    const incast = specOf(inc.text, inc.over)
    expect(incast.params).toEqual({ creditIntervalNs: 10_000, creditBytes: 10_240, windowBdpFactor: 1.5 })
    expect(incast.transport).toEqual({ kind: 'dctcp', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 })
    expect(expandRuns(incast)).toHaveLength(2)

    const ll = fixture('long-lived.yaml')
    const spec = specOf(ll.text, ll.over)
    const config = simConfigFor({ runId: 1, spec, scheme: 'ecmp', load: 1, seed: 3 })
    expect(config).toEqual({
      topology: {
        kind: 'fat-tree',
        k: 4,
        hostLinkBps: 10e9,
        fabricLinkBps: 10e9,
        linkDelayNs: 1_000,
        queuePackets: 100,
        hostQueuePackets: 20,
        rates: { 'core0-agg0': 5e9 },
      },
      scheme: 'ecmp',
      transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
      workload: { kind: 'long-lived', pairs: [[0, 15], [1, 14], [2, 13]], sizeBytes: 10_000_000, startNs: 10_000 },
      linkEvents: [
        { link: 'core1-agg2', atNs: 1_000_000, up: false },
        { link: 'core1-agg2', atNs: 2_000_000, up: true },
      ],
      failover: 'global',
      seed: 3,
      telemetryIntervalNs: 100_000,
      maxSimTimeNs: 20_000_000,
    })
  })

  it('refuses the default fan-in mix on a fabric too small for it', () => {
    const text = 'name: x\ntopology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 4, hostLink: 10G, fabricLink: 10G }\nschemes: ecmp\nworkload:\n  kind: incast\n  background: web-search\n  load: 0.8\n  flows: 10\n  incast: { events: 1, rate: 100, flowSize: 1KB }\n'
    expect(errorsOf(text)).toEqual([
      'test.yaml:9:11: workload.incast: the default fan-in mix [[1, 10], [5, 60], [10, 30]] needs 11 hosts and this fabric has 8; give fanIn',
    ])
  })

  it('takes destinations: other-pods on a fabric with pods, and leaves the default out of the spec', () => {
    const spec = specOf(hula(SCHEMES_LINE, 'workload: { kind: web-search, load: 0.5, flows: 100, destinations: other-pods }'))
    expect(spec.workload).toMatchObject({ kind: 'web-search', destinations: 'other-pods' })
    expect(simConfigFor({ runId: 1, spec, scheme: 'ecmp', load: 0.5, seed: 1 }).workload).toMatchObject({ kind: 'poisson', destinations: 'other-pods' })
    // other-racks is the default: written or not, the spec (and so its hash) is the same.
    expect(specOf(hula(SCHEMES_LINE, 'workload: { kind: web-search, load: 0.5, flows: 100, destinations: other-racks }'))).toEqual(specOf(hula(SCHEMES_LINE, 'workload: { kind: web-search, load: 0.5, flows: 100 }')))
  })

  it('takes persistent connections, destinations any and a warm-up share, and passes them to the simulator', () => {
    const spec = specOf(hula(SCHEMES_LINE, 'workload: { kind: web-search, load: 0.5, flows: 100, destinations: any, warmup: 0.1, connections: { perServer: 3 } }'))
    expect(spec.workload).toMatchObject({ destinations: 'any', warmup: 0.1, connections: { perServer: 3 } })
    expect(simConfigFor({ runId: 1, spec, scheme: 'ecmp', load: 0.5, seed: 1 }).workload).toMatchObject({ kind: 'poisson', destinations: 'any', connections: { perServer: 3 } })
    expect(errorsOf(hula(SCHEMES_LINE, 'workload: { kind: web-search, load: 0.5, flows: 10, warmup: 0.7 }'))[0]).toMatch(/workload.warmup: expected a share in \[0, 0.5\)/)
    expect(errorsOf(hula(SCHEMES_LINE, 'workload: { kind: web-search, load: 0.5, flows: 10, connections: { perServer: 0 } }'))[0]).toMatch(/workload.connections.perServer: expected a positive integer/)
  })

  it('takes how clients choose servers (choice: random or permutation); random, the default, hashes as before', () => {
    const w = (c: string) => specOf(hula(SCHEMES_LINE, `workload: { kind: web-search, load: 0.5, flows: 100, connections: { perServer: 3${c} } }`))
    const perm = w(', choice: permutation')
    expect(perm.workload).toMatchObject({ connections: { perServer: 3, choice: 'permutation' } })
    expect(simConfigFor({ runId: 1, spec: perm, scheme: 'ecmp', load: 0.5, seed: 1 }).workload).toMatchObject({ connections: { perServer: 3, choice: 'permutation' } })
    expect(w(', choice: random')).toEqual(w(''))
    expect(w(', choice: random').workload).toEqual(expect.objectContaining({ connections: { perServer: 3 } }))
    expect(errorsOf(hula(SCHEMES_LINE, 'workload: { kind: web-search, load: 0.5, flows: 10, connections: { perServer: 3, choice: derangement } }'))[0]).toMatch(
      /workload.connections.choice: expected one of random, permutation, got/,
    )
  })

  it('refuses other-pods on a fabric without pods, and an unknown destinations value', () => {
    const leafSpine = 'name: x\ntopology: { kind: leaf-spine, leaves: 2, spines: 1, hostsPerLeaf: 4, hostLink: 10G, fabricLink: 10G }\nschemes: ecmp\nworkload: { kind: web-search, load: 0.5, flows: 10, destinations: other-pods }\n'
    expect(errorsOf(leafSpine)).toEqual(['test.yaml:4:67: workload.destinations: other-pods needs a fabric with at least 2 pods (three-tier or fat-tree); a leaf-spine has none'])
    expect(errorsOf(hula(SCHEMES_LINE, 'workload: { kind: web-search, load: 0.5, flows: 10, destinations: elsewhere }'))).toEqual([
      "test.yaml:12:67: workload.destinations: expected one of other-racks, other-pods, any, got 'elsewhere'",
    ])
  })

  it('parses long-lived pairs and random flows, with load 1 for the run matrix', () => {
    const pairs = specOf(hula(SCHEMES_LINE, 'workload: { kind: long-lived, pairs: [[0, 31], [8, 16]], size: 10MB, start: 50us }', 'seeds: [1, 2]'))
    expect(pairs.workload).toEqual({ kind: 'long-lived', loads: [1], pairs: [[0, 31], [8, 16]], sizeBytes: 10_000_000, startNs: 50_000 })
    expect(expandRuns(pairs)).toEqual([
      { scheme: 'ecmp', load: 1, seed: 1 },
      { scheme: 'ecmp', load: 1, seed: 2 },
    ])
    expect(simConfigFor({ runId: 1, spec: pairs, scheme: 'ecmp', load: 1, seed: 1 }).workload).toEqual({
      kind: 'long-lived',
      pairs: [[0, 31], [8, 16]],
      sizeBytes: 10_000_000,
      startNs: 50_000,
    })
    const random = specOf(hula(SCHEMES_LINE, 'workload: { kind: long-lived, flows: 8 }'))
    expect(random.workload).toEqual({ kind: 'long-lived', loads: [1], flows: 8 })
    expect(simConfigFor({ runId: 1, spec: random, scheme: 'ecmp', load: 1, seed: 1 }).workload).toEqual({ kind: 'long-lived', flows: 8 })
  })

  it('reports a pair host index out of range, a pair to itself, and flows with pairs', () => {
    expect(errorsOf(hula(SCHEMES_LINE, 'workload:', '  kind: long-lived', '  pairs: [[0, 31], [3, 32], [5, 5]]'))).toEqual([
      'test.yaml:14:24: workload.pairs[1][1]: host index 32 is out of range; this fabric has 32 hosts (0 to 31)',
      'test.yaml:14:29: workload.pairs[2]: expected two different hosts, got [5, 5]',
    ])
    expect(errorsOf(hula(SCHEMES_LINE, 'workload: { kind: long-lived, flows: 4, pairs: [[0, 9]] }'))).toEqual([
      'test.yaml:12:38: workload.flows: give flows (random pairs) or pairs, not both',
    ])
    expect(errorsOf(hula(SCHEMES_LINE, 'workload: { kind: long-lived }'))).toEqual([
      'test.yaml:12:11: workload: kind long-lived needs flows: <count> (random pairs) or pairs: [[src, dst], ...]',
    ])
  })

  it('parses a permutation and refuses a load on it, saying why', () => {
    const spec = specOf(hula(SCHEMES_LINE, 'workload: { kind: permutation, size: 1MB }'))
    expect(spec.workload).toEqual({ kind: 'permutation', loads: [1], sizeBytes: 1_000_000 })
    expect(simConfigFor({ runId: 1, spec, scheme: 'ecmp', load: 1, seed: 1 }).workload).toEqual({ kind: 'permutation', sizeBytes: 1_000_000 })
    expect(errorsOf(hula(SCHEMES_LINE, 'workload:', '  kind: permutation', '  load: [0.5]', '  flows: 10'))).toEqual([
      'test.yaml:14:9: workload.load: load does not apply to kind permutation: its flows are saturating (they send as fast as the fabric lets them), so its runs are recorded with load 1; remove load',
      "test.yaml:15:3: workload.flows: unknown field 'flows'; expected one of kind, size, start",
    ])
  })

  it('reports an unknown workload kind listing every kind', () => {
    expect(errorsOf(hula(SCHEMES_LINE, 'workload: { kind: web }'))).toEqual([
      "test.yaml:12:19: workload.kind: expected one of web-search, data-mining, cdf, incast, long-lived, permutation, got 'web'",
    ])
  })
})

describe('scheme parameters', () => {
  it('normalises durations, sizes, rates and numbers, and passes them to the sim', () => {
    const spec = specOf(
      hula(SCHEMES_LINE, POISSON, 'params:', '  flowletGap: 50000', '  drePeriod: 30us', '  creditInterval: 10us', '  windowBdpFactor: 1.5', '  bufferSize: 20MB', '  alpha: "0.5"', '  probePeriodNs: 100000'),
    )
    expect(spec.params).toEqual({
      flowletGapNs: 50_000,
      drePeriodNs: 30_000,
      creditIntervalNs: 10_000,
      windowBdpFactor: 1.5,
      bufferSizeBytes: 20_000_000,
      alpha: 0.5,
      probePeriodNs: 100_000,
    })
    expect(simConfigFor({ runId: 1, spec, scheme: 'ecmp', load: 0.5, seed: 1 }).schemeParams).toEqual(spec.params)
  })

  it('leaves schemeParams, linkEvents and failover out of the sim config when the file has none', () => {
    const config = simConfigFor({ runId: 1, spec: specOf(hula(SCHEMES_LINE, POISSON)), scheme: 'ecmp', load: 0.5, seed: 1 })
    expect(Object.keys(config).sort()).toEqual(['maxSimTimeNs', 'scheme', 'seed', 'telemetryIntervalNs', 'topology', 'transport', 'workload'])
  })

  it('reports bad values at their keys', () => {
    expect(errorsOf(hula(SCHEMES_LINE, POISSON, 'params:', '  flowletGap: 0us', '  keepAlive: 64KB', '  dreAlpha: 2', '  x: fast', '  probePeriod: 200us', '  probePeriodNs: 1'))).toEqual([
      "test.yaml:14:15: params.flowletGap: expected a positive duration such as 100us, got '0us'",
      "test.yaml:15:14: params.keepAlive: expected a positive duration such as 100us, got '64KB'",
      'test.yaml:16:13: params.dreAlpha: expected a number in (0, 1], got 2',
      "test.yaml:17:6: params.x: expected a number, or a duration (100us), size (64KB) or rate (10Gbps), got 'fast'",
      'test.yaml:19:18: params.probePeriodNs: probePeriod and probePeriodNs both give probePeriodNs; keep one',
    ])
    expect(errorsOf(hula(SCHEMES_LINE, POISSON, 'params: [flowletGap]'))).toEqual([
      'test.yaml:13:9: params: expected a mapping of scheme parameters such as { flowletGap: 100us, probePeriod: 200us }, got a list',
    ])
  })

  it("checks HULA's tau against the probe period", () => {
    expect(errorsOf(hula(SCHEMES_LINE, POISSON, 'params:', '  probePeriod: 200us', '  utilTau: 300us'))).toEqual([
      "test.yaml:15:3: params.utilTau: the utilization time constant must be at least 2 × probePeriod (the HULA paper: τ ≥ 2 T_p), got 300us < 2 × 200us",
    ])
  })

  it("checks DHLB's probe period against the flowlet gap when DHLB is in the experiment", () => {
    const lines = ['params:', '  flowletGap: 100us', '  probePeriod: 150us']
    // Not a rule of the other schemes.
    expect(specOf(hula(SCHEMES_LINE, POISSON, ...lines)).params).toEqual({ flowletGapNs: 100_000, probePeriodNs: 150_000 })
    const errors = errorsOf(hula('schemes: [ecmp, dhlb]', POISSON, ...lines))
    expect(errors).toContain(
      "test.yaml:15:3: params.probePeriod: DHLB's probe period must be at least 2 × flowletGap (the DHLB paper: T_probe ≥ 2δ), got 150us < 2 × 100us",
    )
    // Until the sim implements DHLB, the scheme itself is also refused.
    expect(errors.filter((e) => !e.includes('params.'))).toEqual(
      SCHEMES.includes('dhlb' as never) ? [] : [`test.yaml:11:17: schemes[1]: unknown scheme 'dhlb'; the sim implements ${SCHEMES.join(', ')}`],
    )
  })
})

describe('many new-form errors at once', () => {
  it('collects every error of the file, in file order', () => {
    const { text, over } = fixture('forms-errors.yaml')
    expect(errorsOf(text, over)).toEqual([
      "forms-errors.yaml:9:3: topology.hostsPerLeaf: unknown field 'hostsPerLeaf'; expected one of kind, pods, torsPerPod, aggsPerPod, spines, hostsPerTor, hostLink, fabricLink, linkDelay, queuePackets, hostQueuePackets, remove, slow",
      "forms-errors.yaml:12:12: topology.remove[0]: unknown link 'spine1-agg9' in this three-tier fabric; links there are named upper-lower, such as spine1-agg0, spine1-agg1, spine1-agg2, spine1-agg3",
      "forms-errors.yaml:12:25: topology.remove[1]: 'tor0-h1' is a host's only link; remove takes links between switches (use failures: to take a host link down during a run)",
      "forms-errors.yaml:13:11: topology.slow.spine7-agg0: unknown link 'spine7-agg0' in this three-tier fabric; links there are named upper-lower, such as spine0-agg0, spine1-agg0, agg0-tor0, agg0-tor1",
      'forms-errors.yaml:14:43: transport.ecnThreshold: ecnThreshold is the DCTCP marking threshold (packets); it needs kind: dctcp, and this transport is newreno',
      ...(SCHEMES.includes('dhlb' as never) ? [] : [`forms-errors.yaml:15:17: schemes[1]: unknown scheme 'dhlb'; the sim implements ${SCHEMES.join(', ')}`]),
      'forms-errors.yaml:18:9: workload.load: load does not apply to kind permutation: its flows are saturating (they send as fast as the fabric lets them), so its runs are recorded with load 1; remove load',
      "forms-errors.yaml:19:30: params.probePeriod: DHLB's probe period must be at least 2 × flowletGap (the DHLB paper: T_probe ≥ 2δ), got 150us < 2 × 100us",
      'forms-errors.yaml:19:76: params.dreAlpha: expected a number in (0, 1], got 2',
      "forms-errors.yaml:19:90: params.keepAlive: expected a positive duration such as 100us, got '64KB'",
      "forms-errors.yaml:19:99: params.x: expected a number, or a duration (100us), size (64KB) or rate (10Gbps), got 'fast'",
      'forms-errors.yaml:21:42: failures[0].recover: expected a time after at (2ms), got 1ms',
      "forms-errors.yaml:22:13: failures[1].link: unknown link 'agg1-tor9' in this three-tier fabric; links there are named upper-lower, such as agg1-tor0, agg1-tor1, spine0-agg1, spine1-agg1",
      'forms-errors.yaml:23:28: failures[2].at: the run stops at 10s (stopAfter), before this failure',
    ])
  })
})

describe('robustness', () => {
  it('reports, never throws, whatever value a field of the new forms holds', () => {
    for (const name of ['hula-asymmetric.yaml', 'incast.yaml', 'long-lived.yaml']) mutate(name)
  }, 600_000) // a hang guard: some 1,500 parses, which take minutes on a busy 2-core machine
})

/** Puts each junk value in place of each field's value, one at a time; every result is a list of errors or a spec. */
function mutate(name: string): void {
  const { text, over } = fixture(name)
  expect(parseExperiment(text, opts(over)).ok).toBe(true)
  const junk = ['', '~', '[]', '{}', '[[]]', 'x', '-1', '0', '2.5', '1e12', '"1ms"', '[spine9-agg9]', '{ a: 1 }']
  const lines = text.split('\n')
  let cases = 0
  lines.forEach((line, i) => {
    const m = line.match(/^(\s*-?\s*[\w]+:)\s*(.+)$/)
    if (!m) return
    for (const value of junk) {
      const mutated = [...lines.slice(0, i), `${m[1]} ${value}`, ...lines.slice(i + 1)].join('\n')
      const r = parseExperiment(mutated, opts(over))
      if (!r.ok) for (const e of r.errors) expect(e.line).toBeGreaterThan(0)
      cases++
    }
  })
  expect(cases).toBeGreaterThan(100)
}

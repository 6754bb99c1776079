import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  expandRuns,
  formatSpecError,
  parseCdf,
  parseExperiment,
  SCHEMES,
  type ExperimentSpec,
  type ParseOptions,
} from '../../src-main/core/spec'
import { stageFor } from '../../src-main/schemes'

const root = resolve(__dirname, '../..')
const fixtures = join(root, 'test/fixtures/spec')
const workloadsDir = join(root, 'resources/workloads')
const experimentsDir = join(root, 'resources/experiments')

let tmp: string
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'p4lab-spec-'))
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function opts(over: Partial<ParseOptions> = {}): ParseOptions {
  return { file: 'test.yaml', baseDir: tmp, workloadsDir, ...over }
}

/** Parses and returns the errors as "file:line:col: path: message" lines. */
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

const WEB_SEARCH_CDF: Array<[number, number]> = [
  [0, 0],
  [10000, 0.15],
  [20000, 0.2],
  [30000, 0.3],
  [50000, 0.4],
  [80000, 0.53],
  [200000, 0.6],
  [1000000, 0.7],
  [2000000, 0.8],
  [5000000, 0.9],
  [10000000, 0.97],
  [30000000, 1],
]

// A minimal valid spec, one field per line so tests can break one line and know where.
const MINIMAL = [
  'name: minimal', // 1
  'topology:', // 2
  '  kind: leaf-spine', // 3
  '  leaves: 2', // 4
  '  spines: 2', // 5
  '  hostsPerLeaf: 2', // 6
  '  hostLink: 10Gbps', // 7
  '  fabricLink: 10Gbps', // 8
  'schemes: [ecmp, rps]', // 9
  'workload: { kind: web-search, load: [0.3, 0.6], flows: 100 }', // 10
  '',
].join('\n')

function withLine(line: number, text: string): string {
  const lines = MINIMAL.split('\n')
  lines[line - 1] = text
  return lines.join('\n')
}

describe('valid experiments', () => {
  it('parses the quickstart template to exact normalised values', () => {
    const file = join(experimentsDir, 'quickstart.yaml')
    const spec = specOf(readFileSync(file, 'utf8'), { file: 'quickstart.yaml', baseDir: experimentsDir })
    expect(spec).toEqual({
      name: 'quickstart',
      description: 'ECMP vs RPS on a small leaf-spine under web-search traffic.',
      tags: ['tutorial'],
      testbed: 'sim',
      topology: {
        kind: 'leaf-spine',
        leaves: 4,
        spines: 2,
        hostsPerLeaf: 4,
        hostLinkBps: 10_000_000_000,
        fabricLinkBps: 20_000_000_000,
        linkDelayNs: 1_000,
        queuePackets: 100,
        hostQueuePackets: 20,
      },
      transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
      schemes: ['ecmp', 'rps'],
      workload: { kind: 'web-search', file: join(workloadsDir, 'web-search.cdf'), cdf: WEB_SEARCH_CDF, loads: [0.3, 0.6], flows: 600 },
      params: {},
      failures: [],
      failover: 'global',
      seeds: [1],
      telemetryIntervalNs: 100_000,
      stopAfterNs: 5_000_000_000,
    } satisfies ExperimentSpec)
    expect(expandRuns(spec)).toHaveLength(4)
  })

  it('parses the sweep template', () => {
    const text = readFileSync(join(experimentsDir, 'leaf-spine-sweep.yaml'), 'utf8')
    const spec = specOf(text, { baseDir: experimentsDir })
    expect(spec.topology).toMatchObject({ leaves: 8, spines: 4, hostsPerLeaf: 8, hostLinkBps: 10e9, fabricLinkBps: 40e9 })
    expect(spec.workload).toMatchObject({ loads: [0.2, 0.4, 0.6, 0.8], flows: 2000 })
    expect(expandRuns(spec)).toHaveLength(16)
  })

  it('every template starts with a one-line description comment', () => {
    for (const name of ['quickstart.yaml', 'leaf-spine-sweep.yaml']) {
      expect(readFileSync(join(experimentsDir, name), 'utf8')).toMatch(/^# \S.*\n/)
    }
  })

  it('fills in the defaults', () => {
    const spec = specOf(MINIMAL)
    expect(spec).toMatchObject({
      description: '',
      tags: [],
      testbed: 'sim',
      transport: { kind: 'newreno', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 },
      seeds: [1],
      telemetryIntervalNs: 100_000,
      stopAfterNs: 10_000_000_000,
    })
    expect(spec.topology).toMatchObject({ linkDelayNs: 1_000, queuePackets: 100 })
  })

  it('reads a custom CDF relative to the experiment file, and accepts scalars for lists', () => {
    const spec = specOf(readFileSync(join(fixtures, 'custom-cdf.yaml'), 'utf8'), { baseDir: fixtures })
    expect(spec.workload).toEqual({
      kind: 'cdf',
      file: join(fixtures, 'custom.cdf'),
      cdf: [
        [0, 0],
        [1000, 0.5],
        [100000, 1],
      ],
      loads: [0.5],
      flows: 10,
    })
    expect(spec.schemes).toEqual(['rps'])
    expect(spec.topology).toMatchObject({ hostLinkBps: 40e9, fabricLinkBps: 100e6 })
  })

  it('expands runs scheme-major, then load, then seed', () => {
    const spec = specOf(MINIMAL.replace('name: minimal', 'name: m\nseeds: [7, 8]'))
    expect(expandRuns(spec)).toEqual([
      { scheme: 'ecmp', load: 0.3, seed: 7 },
      { scheme: 'ecmp', load: 0.3, seed: 8 },
      { scheme: 'ecmp', load: 0.6, seed: 7 },
      { scheme: 'ecmp', load: 0.6, seed: 8 },
      { scheme: 'rps', load: 0.3, seed: 7 },
      { scheme: 'rps', load: 0.3, seed: 8 },
      { scheme: 'rps', load: 0.6, seed: 7 },
      { scheme: 'rps', load: 0.6, seed: 8 },
    ])
  })

  it('offers only schemes the simulator has a forwarding stage for', () => {
    expect(SCHEMES.slice(0, 2)).toEqual(['ecmp', 'rps'])
    for (const scheme of SCHEMES) expect(typeof stageFor(scheme)).toBe('function')
  })
})

describe('errors', () => {
  it('reports YAML syntax errors with their position', () => {
    expect(errorsOf('name: q\nschemes: [ecmp, rps\nseeds: [1]\n')).toEqual([
      expect.stringMatching(/^test\.yaml:3:1: document: YAML syntax error: .*\]/),
    ])
    expect(errorsOf('name: a\nname: b\n')).toEqual([expect.stringMatching(/^test\.yaml:2:1: document: YAML syntax error: .*unique/)])
  })

  it('reports an empty file and a non-mapping document', () => {
    expect(errorsOf('')).toEqual([expect.stringMatching(/^test\.yaml:1:1: document: the file is empty/)])
    expect(errorsOf('# only a comment\n- a\n- b\n')).toEqual([expect.stringMatching(/^test\.yaml:2:1: document: expected a mapping of experiment fields .*, got a list$/)])
  })

  it('reports an unknown scheme at its list item, naming the known ones', () => {
    expect(errorsOf(withLine(9, 'schemes: [ecmp, presto]'))).toEqual([
      `test.yaml:9:17: schemes[1]: unknown scheme 'presto'; the sim implements ${SCHEMES.join(', ')}`,
    ])
  })

  it('reports loads outside (0, 1]', () => {
    expect(errorsOf(withLine(10, 'workload: { kind: web-search, load: [0, 1.5], flows: 100 }'))).toEqual([
      'test.yaml:10:38: workload.load[0]: expected a number in (0, 1], got 0',
      'test.yaml:10:41: workload.load[1]: expected a number in (0, 1], got 1.5',
    ])
    // A single value is reported at the value, without an index it does not have.
    expect(errorsOf(withLine(10, 'workload: { kind: web-search, load: 1.5, flows: 100 }'))).toEqual([
      'test.yaml:10:37: workload.load: expected a number in (0, 1], got 1.5',
    ])
  })

  it('reports a missing workload file at the file field, with its absolute path', () => {
    const text = withLine(10, 'workload:\n  kind: cdf\n  file: nowhere/flows.cdf\n  load: 0.5\n  flows: 100')
    expect(errorsOf(text)).toEqual([`test.yaml:12:9: workload.file: workload file not found: ${join(tmp, 'nowhere/flows.cdf')}`])
  })

  it('reports a missing built-in workload at the kind field', () => {
    const empty = join(tmp, 'no-workloads')
    mkdirSync(empty, { recursive: true })
    expect(errorsOf(MINIMAL, { workloadsDir: empty })).toEqual([
      `test.yaml:10:19: workload.kind: workload file not found: ${join(empty, 'web-search.cdf')}`,
    ])
  })

  it('reports kind: cdf without a file, and a file with a built-in kind', () => {
    expect(errorsOf(withLine(10, 'workload: { kind: cdf, load: 0.5, flows: 100 }'))).toEqual([
      'test.yaml:10:11: workload.file: required field is missing; kind cdf needs file: <path to a CDF file>',
    ])
    expect(errorsOf(withLine(10, 'workload: { kind: data-mining, file: x.cdf, load: 0.5, flows: 100 }'))).toEqual([
      'test.yaml:10:38: workload.file: file is only read with kind: cdf; kind data-mining uses the built-in data-mining.cdf',
    ])
  })

  it('reports a malformed CDF naming the CDF file and its line', () => {
    const errors = errorsOf(readFileSync(join(fixtures, 'malformed-cdf.yaml'), 'utf8'), { file: 'malformed-cdf.yaml', baseDir: fixtures })
    expect(errors).toEqual([
      `malformed-cdf.yaml:6:9: workload.file: malformed CDF ${join(fixtures, 'malformed.cdf')}:4: probability 0.5 is smaller than the previous one (0.6)`,
    ])
  })

  it('reports unknown keys at the key, listing the known ones', () => {
    expect(errorsOf(MINIMAL + 'sheme: ecmp\n')).toEqual([
      "test.yaml:11:1: sheme: unknown field 'sheme'; expected one of name, description, tags, testbed, topology, transport, buffer, schemes, workload, params, failures, failover, seeds, telemetry, stopAfter, runner",
    ])
    expect(errorsOf(withLine(5, '  spines: 2\n  spine: 3'))).toEqual([
      "test.yaml:6:3: topology.spine: unknown field 'spine'; expected one of kind, leaves, spines, hostsPerLeaf, linksPerSpine, hostLink, fabricLink, linkDelay, queuePackets, hostQueuePackets, remove, slow, oversubscription",
    ])
  })

  it('points a missing key at its parent map', () => {
    expect(errorsOf(withLine(6, ''))).toEqual(['test.yaml:3:3: topology.hostsPerLeaf: required field is missing; expected a positive integer'])
    expect(errorsOf(withLine(1, ''))).toEqual(['test.yaml:2:1: name: required field is missing; expected a non-empty string'])
  })

  it('reports unknown testbeds and accepts known ones', () => {
    expect(errorsOf(MINIMAL + 'testbed: lab-tofino\n')).toEqual([
      "test.yaml:11:10: testbed: unknown testbed 'lab-tofino'; known testbeds: sim",
    ])
    expect(specOf(MINIMAL + 'testbed: lab-tofino\n', { testbeds: ['sim', 'lab-tofino'] }).testbed).toBe('lab-tofino')
  })

  it('reports bad units and counts', () => {
    expect(errorsOf(withLine(7, '  hostLink: 10 apples'))).toEqual([
      "test.yaml:7:13: topology.hostLink: expected a rate such as 10Gbps, got '10 apples'",
    ])
    expect(errorsOf(MINIMAL + 'telemetry: { interval: 0us }\nstopAfter: 1.5ns\n')).toEqual([
      "test.yaml:11:24: telemetry.interval: expected a positive duration such as 100us, got '0us'",
      "test.yaml:12:12: stopAfter: expected a whole number of nanoseconds, got '1.5ns' (1.5 nanoseconds)",
    ])
    expect(errorsOf(withLine(4, '  leaves: 2.5'))).toEqual(['test.yaml:4:11: topology.leaves: expected an integer of at least 2, got 2.5'])
    expect(errorsOf(MINIMAL + 'transport: { mss: 0, initCwnd: ten }\n')).toEqual([
      'test.yaml:11:19: transport.mss: expected a positive integer (bytes of TCP payload), got 0',
      "test.yaml:11:32: transport.initCwnd: expected a positive integer (packets), got 'ten'",
    ])
  })

  it('collects every error in one pass, in file order', () => {
    const errors = errorsOf(readFileSync(join(fixtures, 'many-errors.yaml'), 'utf8'), { file: 'many-errors.yaml' })
    expect(errors).toEqual([
      "many-errors.yaml:2:1: sheme: unknown field 'sheme'; expected one of name, description, tags, testbed, topology, transport, buffer, schemes, workload, params, failures, failover, seeds, telemetry, stopAfter, runner",
      'many-errors.yaml:6:11: topology.spines: expected a positive integer, got 0',
      "many-errors.yaml:8:13: topology.hostLink: expected a rate such as 10Gbps, got '10 apples'",
      `many-errors.yaml:10:17: schemes[1]: unknown scheme 'presto'; the sim implements ${SCHEMES.join(', ')}`,
      'many-errors.yaml:11:43: workload.load[1]: expected a number in (0, 1], got 1.5',
      'many-errors.yaml:12:12: seeds[1]: duplicate value 1',
    ])
  })

  it('names the file as the caller gives it', () => {
    const r = parseExperiment(withLine(9, 'schemes: [x]'), opts({ file: 'experiments/a.yaml' }))
    expect(r.ok ? [] : r.errors).toEqual([
      { file: 'experiments/a.yaml', line: 9, column: 11, path: 'schemes[0]', message: `unknown scheme 'x'; the sim implements ${SCHEMES.join(', ')}` },
    ])
  })
})

describe('parseCdf', () => {
  it('parses comments, blank lines and trailing comments', () => {
    expect(parseCdf(readFileSync(join(fixtures, 'custom.cdf'), 'utf8'))).toEqual({
      ok: true,
      cdf: [
        [0, 0],
        [1000, 0.5],
        [100000, 1],
      ],
    })
  })

  it('accepts a CDF that starts above probability 0', () => {
    expect(parseCdf('100 0.2\n200 1\n')).toMatchObject({ ok: true })
  })

  it.each([
    ['', 1, 'no "<bytes> <cumulative probability>" lines'],
    ['0 0\n10 0.5\n', 2, 'the last probability is 0.5; a CDF must end at 1'],
    // The line is never quoted back: an error must not carry a file's contents.
    ['0 0\n10 x\n', 2, `expected "<bytes> <cumulative probability>", found a field that is not a number`],
    ['0 0\n10 0.5 3\n20 1\n', 2, `expected "<bytes> <cumulative probability>", found 3 fields`],
    ['# c\n100 0\n50 1\n', 3, 'flow size 50 is smaller than the previous one (100)'],
    ['0 0\n10 1.5\n', 2, 'probability 1.5 is outside [0, 1]'],
    ['-5 0\n10 1\n', 1, 'flow size -5 is negative'],
  ])('refuses %j (line %d)', (text, line, message) => {
    expect(parseCdf(text)).toEqual({ ok: false, line, message })
  })

  it('reads the shipped workloads', () => {
    for (const name of ['web-search', 'data-mining']) {
      const r = parseCdf(readFileSync(join(workloadsDir, `${name}.cdf`), 'utf8'))
      expect(r.ok).toBe(true)
    }
  })
})

describe('files on disk', () => {
  it('resolves a relative CDF against baseDir', () => {
    const dir = join(tmp, 'exp')
    mkdirSync(join(dir, 'cdfs'), { recursive: true })
    writeFileSync(join(dir, 'cdfs', 'tiny.cdf'), '0 0\n1460 1\n')
    const spec = specOf(withLine(10, 'workload: { kind: cdf, file: cdfs/tiny.cdf, load: 1, flows: 1 }'), { baseDir: dir })
    expect(spec.workload).toMatchObject({ file: join(dir, 'cdfs', 'tiny.cdf'), cdf: [[0, 0], [1460, 1]], loads: [1] })
  })
})

// Harnesses for the text and packet parsers: the experiment YAML, `--where`, the INT
// decoder, and the output of simple_switch_CLI and bfshell. Their samples are the real
// ones the tests use (test/fixtures), mutated; the INT packets are generated valid, then mutated.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { QueryError, checkFields, matches, parseQuery } from '../../src-main/core/compare'
import { IntDecoder } from '../../src-main/core/int/decode'
import { expandRuns, parseExperiment } from '../../src-main/core/spec'
import { parseCliSession, parsePollRound, type PollRead } from '../../src-main/core/targets/bmv2/output'
import { parseBfrtPollRound, parseBfshellOutput, type BfrtPollRead } from '../../src-main/core/targets/tofino/output'
import { B, ipv4UdpWithInt, telemetryReport, type HopSpec } from '../../test/int/encoder'
import { mutateBytes, mutateText, type Harness, type Rng } from './engine'

const texts = (dir: string, ext: RegExp) =>
  readdirSync(dir)
    .filter((f) => ext.test(f))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))

const YAML_DICT = ['name: ', 'topology: ', 'kind: ', 'leaf-spine', 'fat-tree', 'schemes: ', 'workload: ', 'load: ', 'flows: ', 'seeds: ', 'testbed: ', 'params: ',
  'failures: ', 'int: ', 'transport: ', '{', '}', '[', ']', ', ', ': ', '- ', '\n  ', '\n', '&a ', '*a', '<<: *a', '!!str ', '!!binary ', '!!float ', '? ', '|\n  ', '>-\n  ',
  '~', 'null', 'true', '.inf', '-.inf', '.nan', '0x10', '1e400', '"\\u0000"', "''", '#', '---\n', '...\n', '%YAML 1.2\n', '10Gbps', '1us', '0.5', '100']

/** A scratch value for every field a query may name, so `matches` runs too. */
const RUN = {
  get: (f: string) => ({ scheme: 'hula', load: 0.5, seed: 1, status: 'done', target: 'sim', experiment: 'x', mean: 1e6, p99: null })[f] as string | number | null | undefined,
  tags: ['paper', 'rt'],
}
const FIELDS = new Set(['scheme', 'load', 'seed', 'status', 'target', 'experiment', 'mean', 'p99'])
const WHERE_SAMPLES = ["scheme = hula and load >= 0.5", 'status != failed', 'tag:paper', "not (scheme = ecmp or scheme ~ 'hu') and seed < 3",
  "experiment = 'a b' or load > 1e-3", '(load >= 0.3 and load <= 0.7) or not tag:rt', 'p99 > 1000000 and mean < 2e6']
const WHERE_DICT = ['and ', 'or ', 'not ', '(', ')', ' = ', ' != ', ' < ', ' <= ', ' > ', ' >= ', ' ~ ', 'tag:', "'", '"', 'scheme', 'load', '0.5', '-1', '1e999', 'hula', ' ', '\\']

export function specHarness(root: string): Harness<string> {
  const samples = texts(join(root, 'test', 'fixtures', 'spec'), /\.ya?ml$/)
  const opts = { file: 'fuzz.yaml', baseDir: join(root, 'test', 'fixtures', 'spec'), workloadsDir: join(root, 'resources', 'workloads') }
  return {
    name: 'spec (experiment YAML)',
    next: (r) => mutateText(r, r.pick(samples), YAML_DICT, samples),
    run: (text) => {
      const res = parseExperiment(text, opts)
      if (res.ok) expandRuns(res.spec)
      else if (res.errors.length === 0) throw new Error('refused with no error to show')
    },
    clear: () => false,
    show: (t) => JSON.stringify(t),
  }
}

export function whereHarness(): Harness<string> {
  return {
    name: 'where (compare --where)',
    next: (r) => mutateText(r, r.pick(WHERE_SAMPLES), WHERE_DICT, WHERE_SAMPLES),
    run: (src) => {
      const node = parseQuery(src)
      checkFields(node, FIELDS, src)
      matches(node, RUN)
    },
    clear: (err) => err instanceof QueryError && err.message.length > 0,
    show: (t) => JSON.stringify(t),
  }
}

export function intHarness(): Harness<Uint8Array> {
  const PORT = 5555
  let pool: Uint8Array[] | null = null
  const hop = (r: Rng): HopSpec => ({
    switchId: r.u32(), l1Ingress: r.below(65536), l1Egress: r.below(65536), hopLatency: r.u32(), queueId: r.below(256), queueOccupancy: r.below(1 << 24),
    ingressTs: BigInt(r.u32()) << 20n, egressTs: BigInt(r.u32()) << 20n, l2Ingress: r.u32(), l2Egress: r.u32(), txUtil: r.u32(), bufferId: r.below(256),
    bufferOccupancy: r.below(1 << 24), dropQueueId: r.below(256), dropReason: r.below(256), checksumComplement: r.u32(),
  })
  const valid = (r: Rng): Uint8Array => {
    const bits = (choices: number[]) => choices.filter(() => r.chance(0.4)).reduce((m, b) => m | B(b), 0)
    const bitmap = bits([0, 1, 2, 3, 4, 5, 6, 7, 8, 15]) || B(0)
    const inner = ipv4UdpWithInt({ instructionBitmap: bitmap, hops: Array.from({ length: r.below(6) }, () => hop(r)) }, PORT)
    return telemetryReport({
      hwId: r.below(64), seqNo: r.below(1 << 22), nodeId: r.u32(),
      reports: [{ f: 1, repMdBits: bits([1, 2, 3, 4, 5, 6, 7, 8, 15]), local: hop(r), inner: r.chance(0.5) ? { kind: 'bytes', inType: 4, data: inner } : { kind: 'tlv', tlvs: [{ type: 2, data: inner }] } }],
    })
  }
  const decoder = new IntDecoder({ intUdpPorts: [PORT] })
  return {
    name: 'int (INT telemetry report decoder)',
    next: (r) => {
      pool ??= Array.from({ length: 200 }, () => valid(r))
      return r.chance(0.05) ? r.pick(pool) : mutateBytes(r, r.pick(pool))
    },
    run: (pkt) => {
      const res = decoder.decode(pkt)
      if (!res.ok && res.reason.startsWith('decoder error')) throw new Error(res.reason)
    },
    clear: () => false,
    show: (p) => Buffer.from(p).toString('hex'),
  }
}

const CLI_DICT = ['RuntimeCmd: ', 'Error: ', 'Invalid ', '= ', '[', ']', ', ', '\n', 'register_read', 'counter_read', 'BmCounterValue(packets=', 'bytes=', ')', 'Done\n',
  'Could not connect to thrift client on port 9090', 'Traceback (most recent call last):\n', '-1', '18446744073709551616', 'I.bestHop', 'I.pathUtil[0]= ']
const POLL_READS: PollRead[] = [
  { kind: 'register', name: 'I.bestHop', index: 1 },
  { kind: 'register', name: 'I.bestHop' },
  { kind: 'register', name: 'I.pathUtil', index: 0 },
  { kind: 'counter', name: 'I.portPackets', index: 0 },
]

export function bmv2Harness(root: string): Harness<{ cmds: string[]; text: string }> {
  const dir = join(root, 'test', 'fixtures', 'bmv2')
  const pairs = ['cli-session-ok', 'cli-session-errors'].map((n) => ({
    cmds: readFileSync(join(dir, `${n}.cmds`), 'utf8').split('\n').filter((l) => l !== ''),
    text: readFileSync(join(dir, `${n}.txt`), 'utf8'),
  }))
  pairs.push({ cmds: ['register_read I.bestHop 1'], text: readFileSync(join(dir, 'cli-no-switch.txt'), 'utf8') })
  const all = pairs.map((p) => p.text)
  return {
    name: 'bmv2 (simple_switch_CLI output)',
    next: (r) => {
      const p = r.pick(pairs)
      return { cmds: p.cmds, text: mutateText(r, p.text, CLI_DICT, all) }
    },
    run: ({ cmds, text }) => {
      const s = parseCliSession(cmds, text)
      if (s.results.length !== cmds.length) throw new Error(`${s.results.length} results for ${cmds.length} commands`)
      parsePollRound(POLL_READS, text)
    },
    clear: () => false,
    show: (i) => JSON.stringify(i.text),
  }
}

const BF_DICT = ['bfshell> ', 'bfrt_python', 'Entry ', ':\n', 'Key: ', 'Data: ', '0x', '[', ']', ', ', 'p4lab-read ', 'p4lab-done', 'Error: ', 'BfRtTableError', 'Traceback (most recent call last):\n',
  'Exception', '\n', '  ', '-1', '18446744073709551616', "'", 'f1', '$REGISTER_INDEX', 'Ingress.bestHop.f1']
const BF_READS: BfrtPollRead[] = [
  { kind: 'register', name: 'Ingress.bestHop', index: 1 },
  { kind: 'register', name: 'Ingress.bestHop', index: 2 },
  { kind: 'counter', name: 'Ingress.portPackets', index: 0 },
]

export function bfshellHarness(root: string): Harness<string> {
  const samples = texts(join(root, 'test', 'fixtures', 'tofino'), /\.txt$/)
  return {
    name: 'tofino (bfshell output)',
    next: (r) => mutateText(r, r.pick(samples), BF_DICT, samples),
    run: (text) => {
      parseBfshellOutput(text)
      parseBfrtPollRound(BF_READS, text)
    },
    clear: () => false,
    show: (t) => JSON.stringify(t.slice(0, 400)),
  }
}

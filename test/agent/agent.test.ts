// The traffic agent without namespaces: its PRNG and CDF sampler against the simulator's,
// Python 3.8 compatibility, usage errors; and targets/agent.ts (argv builders through the
// SSH layer's quoting and a real shell, the JSON-line parser, the iperf3 parser).
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cmd } from '../../src-main/core/ssh'
import {
  AGENT_FILE,
  AGENT_MODULES,
  AgentLineError,
  agentClientArgv,
  agentProbeArgv,
  agentServerArgv,
  copyAgent,
  parseAgentLine,
  parseAgentOutput,
  parseIperf3Json,
} from '../../src-main/core/targets/shared/agent'
import { Rng } from '../../src-main/sim/engine/rng'
import { cdfMean, loadCdf, sampleCdf } from '../../src-main/sim/workload/cdf'

const ROOT = resolve(import.meta.dirname, '../..')
const AGENT = join(ROOT, 'resources/agent/p4lab_agent.py')
const CDFS = ['web-search.cdf', 'data-mining.cdf'].map((f) => join(ROOT, 'resources/workloads', f))

/** Runs Python code with the agent importable as `agent` (its modules found in its folder, as when it runs). */
function py(code: string, python = 'python3'): string {
  const prelude = `import importlib.util, json, sys\nsys.path.insert(0, ${JSON.stringify(dirname(AGENT))})\nspec = importlib.util.spec_from_file_location("agent", ${JSON.stringify(AGENT)})\nagent = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(agent)\n`
  return execFileSync(python, ['-c', prelude + code], { encoding: 'utf8' })
}

describe('the agent generates what the simulator generates', () => {
  it('PRNG: the same u32 stream as sim/engine/rng for several seeds and streams', () => {
    const cases: Array<[number, number]> = [[1, 0], [1, 1], [7, 3], [123456789, 1], [2 ** 40 + 5, 2], [0, 0]]
    const got = JSON.parse(py(`def draw(s, k):\n    r = agent.Rng(s, k)\n    return [r.next_u32() for _ in range(50)]\nprint(json.dumps([draw(s, k) for s, k in ${JSON.stringify(cases)}]))`))
    const want = cases.map(([s, k]) => {
      const r = new Rng(s, k)
      return Array.from({ length: 50 }, () => r.nextU32())
    })
    expect(got).toEqual(want)
  })

  it('CDF: same points, mean and interpolated sizes as sim/workload/cdf', () => {
    for (const file of CDFS) {
      const points = loadCdf(readFileSync(file, 'utf8'))
      const us = Array.from({ length: 2000 }, (_, i) => i / 2000).concat([0.15, 0.2, 0.9999999, 1e-12])
      const out = JSON.parse(
        py(`pts = agent.load_cdf(open(${JSON.stringify(file)}).read())\nprint(json.dumps({"pts": pts, "mean": agent.cdf_mean(pts), "s": [agent.sample_cdf(pts, u) for u in ${JSON.stringify(us)}]}))`),
      )
      expect(out.pts).toEqual(points)
      expect(out.mean).toBe(cdfMean(points))
      expect(out.s).toEqual(us.map((u) => sampleCdf(points, u)))
    }
  })

  it('Poisson schedule: sizes and arrival offsets of the simulator\'s generator for one host', () => {
    const file = CDFS[0]
    const points = loadCdf(readFileSync(file, 'utf8'))
    const [load, linkBps, flows, seed, stream] = [0.6, 10e9, 500, 42, 5]
    const got = JSON.parse(
      py(`pts = agent.load_cdf(open(${JSON.stringify(file)}).read())\nprint(json.dumps(agent.poisson_schedule(pts, ${load}, ${linkBps}, ${flows}, ${seed}, ${stream}, [("a", 1), ("b", 2), ("c", 3)])))`),
    ) as Array<[number, number, [string, number], number]>
    const rng = new Rng(seed, stream)
    const meanGapNs = 1e9 / ((load * linkBps) / 8 / cdfMean(points))
    const gap = () => Math.max(1, Math.round(-Math.log(1 - rng.nextFloat()) * meanGapNs))
    let t = gap()
    const want: Array<[number, number, string]> = []
    for (let i = 0; i < flows; i++) {
      const size = sampleCdf(points, rng.nextFloat())
      const dst = ['a', 'b', 'c'][rng.nextInt(3)]
      want.push([t, size, dst])
      t += gap()
    }
    expect(got.map(([o, s, d]) => [o, s, d[0]])).toEqual(want)
  })
})

describe('the agent as a program', () => {
  it('parses as Python 3.8 and runs under 3.8 where one is installed', () => {
    for (const file of [AGENT_FILE, ...AGENT_MODULES]) execFileSync('python3', ['-c', `import ast; ast.parse(open(${JSON.stringify(join(dirname(AGENT), file))}).read(), feature_version=(3, 8))`])
    const py38 = ['python3.8', join(homedir(), '.pyenv/versions/3.8.18/bin/python3.8')].find((p) => spawnSync(p, ['--version']).status === 0)
    if (py38) {
      const r = spawnSync(py38, [AGENT, 'client', '--dsts', '127.0.0.1:1', '--long-lived', '--flows', '1', '--size', '10', '--out', '-'], { encoding: 'utf8' })
      expect(r.status, r.stderr).toBe(0)
      const parsed = parseAgentOutput(r.stdout, { hostOf: () => 0, srcHost: 0 })
      expect(parsed.lineErrors).toEqual([])
      expect(parsed.failed).toBe(1)
      expect(py(`print(agent.Rng(9, 1).next_u32())`, py38).trim()).toBe(String(new Rng(9, 1).nextU32()))
    }
  })

  it('what a deploy copies (copyAgent) is every file of resources/agent, and runs on its own from there', () => {
    expect([...AGENT_MODULES, AGENT_FILE].sort()).toEqual(readdirSync(dirname(AGENT)).filter((f) => f.endsWith('.py')).sort())
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-agent-copy-'))
    try {
      copyAgent(AGENT, dir)
      const r = spawnSync('python3', [join(dir, AGENT_FILE), 'client', '--dsts', '127.0.0.1:1', '--long-lived', '--flows', '1', '--size', '10', '--out', '-'], { encoding: 'utf8' })
      expect(r.status, r.stderr).toBe(0)
      expect(parseAgentOutput(r.stdout, { hostOf: () => 0, srcHost: 0 }).failed).toBe(1)
      // No bytecode cache next to the modules: the run directory holds what was uploaded and the run's output.
      expect(readdirSync(dir).sort()).toEqual([...AGENT_MODULES, AGENT_FILE].sort())
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('bad usage exits 2 with the reason, and nothing on stdout', () => {
    const run = (...args: string[]) => spawnSync('python3', [AGENT, ...args], { encoding: 'utf8' })
    for (const [args, why] of [
      [[], /give a mode/],
      [['client', '--dsts', '10.0.0.1:1', '--out', '-'], /Poisson flows need/],
      [['client', '--dsts', 'nohost', '--out', '-', '--long-lived', '--flows', '1'], /bad address/],
      [['client', '--dsts', '10.0.0.1:1', '--out', '-', '--cdf', '/nonexistent', '--load', '0.5', '--link-bps', '1e9', '--flows', '1'], /cannot read --cdf/],
      [['client', '--dsts', '10.0.0.1:1', '--out', '-', '--cdf', CDFS[0], '--load', '1.5', '--link-bps', '1e9', '--flows', '1'], /--load/],
      [['probe', '--iface', 'lo', '--ethertype', 'zz', '--period-us', '10'], /hex/],
    ] as Array<[string[], RegExp]>) {
      const r = run(...args)
      expect(r.status, args.join(' ')).toBe(2)
      expect(r.stderr).toMatch(why)
      expect(r.stdout).toBe('')
    }
  })
})

describe('targets/agent.ts: command lines', () => {
  const loc = { agent: '/home/lab user/.p4lab/agent dir/p4lab_agent.py' }

  it('builds each mode\'s argv', () => {
    expect(agentServerArgv(loc, { port: 5001, bind: '10.0.1.1' })).toEqual(['python3', loc.agent, 'server', '--port', '5001', '--bind', '10.0.1.1'])
    expect(
      agentClientArgv(loc, {
        dsts: [{ host: '10.0.1.1', port: 5001 }, { host: 'fe80::1', port: 5002 }],
        out: '/tmp/flows.jsonl',
        seed: 3,
        workload: { kind: 'poisson', cdf: '/r/web-search.cdf', load: 0.3, linkBps: 1e9, flows: 100, stream: 4 },
        maxInflight: 64,
        startAtNs: 1795257577921308002n,
      }),
    ).toEqual([
      'python3', loc.agent, 'client', '--dsts', '10.0.1.1:5001,[fe80::1]:5002', '--out', '/tmp/flows.jsonl', '--seed', '3',
      '--cdf', '/r/web-search.cdf', '--load', '0.3', '--link-bps', '1000000000', '--flows', '100', '--stream', '4',
      '--start-at', '1795257577921308002', '--max-inflight', '64',
    ])
    expect(
      agentClientArgv(loc, { dsts: [{ host: '10.0.1.1', port: 1 }], out: '-', seed: 1, workload: { kind: 'incast', flowBytes: 20000, events: 10, ratePerSec: 100 } }).slice(9),
    ).toEqual(['--incast', '--incast-bytes', '20000', '--events', '10', '--incast-rate', '100'])
    expect(agentClientArgv(loc, { dsts: [{ host: '10.0.1.1', port: 1 }], out: '-', seed: 1, workload: { kind: 'long-lived', flows: 2, durationS: 5 } }).slice(9)).toEqual([
      '--long-lived', '--flows', '2', '--duration', '5',
    ])
    expect(agentProbeArgv(loc, { iface: 'eth0', ethertype: 0x1234, periodUs: 256, payloadHex: '00ff' })).toEqual([
      'python3', loc.agent, 'probe', '--iface', 'eth0', '--ethertype', '0x1234', '--period-us', '256', '--payload-hex', '00ff',
    ])
  })

  it('refuses values that make no sense', () => {
    const c = (w: object) => () => agentClientArgv(loc, { dsts: [{ host: 'h', port: 1 }], out: '-', seed: 1, workload: w as never })
    expect(c({ kind: 'poisson', cdf: 'x', load: 0, linkBps: 1, flows: 1 })).toThrow(/load/)
    expect(c({ kind: 'poisson', cdf: 'x', load: 0.5, linkBps: 1, flows: 1.5 })).toThrow(/flows/)
    expect(c({ kind: 'long-lived', flows: 0 })).toThrow(/flows/)
    expect(() => agentClientArgv(loc, { dsts: [], out: '-', seed: 1, workload: { kind: 'long-lived', flows: 1 } })).toThrow(/destination/)
    expect(() => agentClientArgv(loc, { dsts: [{ host: 'a,b', port: 1 }], out: '-', seed: 1, workload: { kind: 'long-lived', flows: 1 } })).toThrow(/bad host/)
    expect(() => agentProbeArgv(loc, { iface: 'e', ethertype: 0x10000, periodUs: 1, payloadHex: '' })).toThrow(/ethertype/)
    expect(() => agentProbeArgv(loc, { iface: 'e', ethertype: 1, periodUs: 1, payloadHex: 'abc' })).toThrow(/hex/)
  })

  it('through cmd() and a real shell, hostile paths reach the agent as one argument each', () => {
    const out = `/tmp/p4lab test $(touch /tmp/p4lab-pwned) "q" 'x'\nnl.jsonl`
    const argv = agentClientArgv(
      { python: 'python3', agent: '-c' },
      { dsts: [{ host: '10.0.0.1', port: 1 }], out, seed: 1, workload: { kind: 'long-lived', flows: 1 } },
    )
    // python3 -c CODE args…: print the arguments Python received instead of running the agent.
    argv.splice(2, 1, 'import json, sys; print(json.dumps(sys.argv[1:]))', 'client')
    const line = cmd(argv)
    const got = JSON.parse(execFileSync('sh', ['-c', line], { encoding: 'utf8' }))
    expect(got).toEqual(argv.slice(3))
    expect(got).toContain(out)
    expect(existsSync('/tmp/p4lab-pwned')).toBe(false)
  })
})

describe('targets/agent.ts: JSON lines → flows', () => {
  const hosts = new Map([
    ['10.0.0.1', 0],
    ['10.0.1.1', 1],
    ['10.0.2.1', 2],
  ])
  const hostOf = (ip: string) => hosts.get(ip)
  const T = 1795257577921308002n
  const line = (o: Record<string, unknown>) =>
    JSON.stringify(o, (_, v) => (typeof v === 'bigint' ? `__${v}__` : v)).replace(/"__(\d+)__"/g, '$1')

  it('keeps epoch nanoseconds exact (beyond 2^53) and makes them relative', () => {
    const text = [
      line({ id: 0, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 1000, start_ns: T + 1n, end_ns: T + 1001n, fct_ns: 1000, retransmits: 0 }),
      line({ id: 1, src: '10.0.0.1', dst: '10.0.2.1:5001', size: 2000, start_ns: T + 3n, end_ns: T + 5003n, fct_ns: 5000, retransmits: 2 }),
    ].join('\n')
    const r = parseAgentOutput(text, { hostOf })
    expect(r.lineErrors).toEqual([])
    expect(r.originNs).toBe(T + 1n)
    expect(Array.from(r.flows.startNs)).toEqual([0, 2])
    expect(Array.from(r.flows.finishNs)).toEqual([1000, 5002])
    expect(Array.from(r.flows.dst)).toEqual([1, 2])
    expect(r.flows.retransmits).toEqual([0, 2])
    const o2 = parseAgentOutput(text, { hostOf, originNs: T })
    expect(Array.from(o2.flows.startNs)).toEqual([1, 3])
    // IPv6, as the agent writes it.
    const v6 = '{"id":0,"src":"::1","dst":"[::1]:15007","size":1000,"start_ns":1795258100152570370,"end_ns":1795258100160302411,"fct_ns":7732041,"retransmits":0}'
    const o3 = parseAgentOutput(v6, { hostOf: (ip) => (ip === '::1' ? 7 : undefined) })
    expect(o3.lineErrors).toEqual([])
    expect([o3.flows.src[0], o3.flows.dst[0], o3.flows.finishNs[0]]).toEqual([7, 7, 7732041])
  })

  it('unfinished, unbounded, failed and incast flows', () => {
    const text = [
      line({ id: 0, src: '10.0.0.1', dst: '10.0.1.1:5001', size: -1, start_ns: T, end_ns: null, fct_ns: null, retransmits: 3, delivered: 123456 }),
      line({ id: 1, src: null, dst: '10.0.1.1:5001', size: 10, start_ns: T + 5n, end_ns: null, fct_ns: null, retransmits: null, delivered: 0, error: 'connect: refused' }),
      line({ id: 2, src: '10.0.0.1', dst: '10.0.2.1:5001', size: 500, start_ns: T + 9n, end_ns: T + 19n, fct_ns: 10, retransmits: 0, group: 4 }),
      '{"summary":{"mode":"incast","finished":1}}',
    ].join('\n')
    const r = parseAgentOutput(text, { hostOf, srcHost: 0 })
    expect(r.lineErrors).toEqual([])
    expect([r.finished, r.unfinished, r.failed]).toEqual([1, 1, 1])
    expect(Array.from(r.flows.sizeBytes)).toEqual([-1, 10, 500])
    expect(Array.from(r.flows.finishNs)).toEqual([-1, -1, 19])
    expect(Array.from(r.flows.deliveredBytes)).toEqual([123456, 0, 500])
    expect(Array.from(r.flows.group)).toEqual([-1, -1, 4])
    expect(r.flows.errors).toEqual([null, 'connect: refused', null])
    expect(r.summaries).toEqual([{ source: 'agent', summary: { mode: 'incast', finished: 1 } }])
  })

  it('rejects malformed lines by number and reason, keeps the good ones, never throws', () => {
    const good = line({ id: 0, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 1000, start_ns: T, end_ns: T + 10n, fct_ns: 10, retransmits: 0 })
    const lines = [
      good,
      '{"id": 1, "src": "10.0.0.1", "dst": "10.0.1.1:5001", "size": 10, "start_ns": 5, "end_ns": 7, "fct_ns"', // cut off mid-write
      'not json',
      '[1,2]',
      line({ id: 2, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 10, start_ns: T, end_ns: T + 10n, fct_ns: 11, retransmits: 0 }),
      line({ id: 3, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 0, start_ns: T, end_ns: null, fct_ns: null, retransmits: 0 }),
      line({ id: 4, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 10, start_ns: T, end_ns: null, fct_ns: 5, retransmits: 0 }),
      line({ id: 5, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 10, start_ns: T, end_ns: T + 1n, fct_ns: 1, retransmits: -1 }),
      line({ id: 6, src: '10.9.9.9', dst: '10.0.1.1:5001', size: 10, start_ns: T, end_ns: T + 1n, fct_ns: 1, retransmits: 0 }),
      line({ id: 7, src: '10.0.0.1', dst: '10.0.1.1', size: 10, start_ns: T, end_ns: T + 1n, fct_ns: 1, retransmits: 0 }),
      line({ id: 0, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 10, start_ns: T, end_ns: T + 1n, fct_ns: 1, retransmits: 0 }),
      line({ id: 8, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 10, start_ns: T, end_ns: T + 1n, fct_ns: 1, retransmits: 0, extra: 1 }),
      line({ id: 9, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 10, start_ns: 1.5, end_ns: null, fct_ns: null, retransmits: 0 }),
      '',
      line({ id: 10, src: '10.0.0.1', dst: '10.0.1.1:5001', size: 10, end_ns: null, fct_ns: null, retransmits: 0 }),
    ]
    const r = parseAgentOutput(lines.join('\n') + '\n', { hostOf, source: 'h0:/tmp/flows.jsonl' })
    expect(r.flows.src.length).toBe(1)
    expect(r.lineErrors.every((e) => e instanceof AgentLineError && e.name === 'AgentLineError')).toBe(true)
    expect(r.lineErrors.map((e) => [e.line, e.reason.split(/[ (]/)[0]])).toEqual([
      [2, 'not'],
      [3, 'not'],
      [4, 'not'],
      [5, 'end_ns'],
      [6, 'size'],
      [7, 'end_ns'],
      [8, 'retransmits'],
      [9, 'src'],
      [10, 'dst'],
      [11, 'flow'],
      [12, 'unknown'],
      [13, 'start_ns'],
      [15, 'missing'],
    ])
    expect(r.lineErrors[0].message).toMatch(/^h0:\/tmp\/flows\.jsonl:2: not JSON/)
    expect(parseAgentLine('   ', 1).kind).toBe('blank')
  })
})

describe('targets/agent.ts: iperf3 -J', () => {
  it('reads the summary and intervals, and reports iperf3\'s own error', () => {
    const ok = JSON.stringify({
      start: {},
      intervals: [{ sum: { bits_per_second: 9.1e7 } }, { sum: { bits_per_second: 9.3e7 } }],
      end: {
        sum_sent: { seconds: 2, bytes: 23000000, bits_per_second: 9.2e7, retransmits: 4 },
        sum_received: { seconds: 2.01, bytes: 22900000, bits_per_second: 9.11e7 },
      },
    })
    expect(parseIperf3Json(ok)).toEqual({
      ok: true,
      result: { sentBps: 9.2e7, receivedBps: 9.11e7, sentBytes: 23000000, receivedBytes: 22900000, seconds: 2.01, retransmits: 4, intervalsBps: [9.1e7, 9.3e7] },
    })
    expect(parseIperf3Json('{"start":{},"intervals":[],"end":{},"error":"unable to connect to server: Connection refused"}')).toEqual({
      ok: false,
      error: 'iperf3: unable to connect to server: Connection refused',
    })
    expect(parseIperf3Json('garbage').ok).toBe(false)
    expect(parseIperf3Json('{"end":{}}').ok).toBe(false)
  })

  it('the real iperf3 reports a refused connection as JSON with "error"', () => {
    const r = spawnSync('iperf3', ['-c', '127.0.0.1', '-p', '1', '-J', '-t', '1'], { encoding: 'utf8' })
    const p = parseIperf3Json(r.stdout)
    expect(p.ok).toBe(false)
    if (!p.ok) expect(p.error).toMatch(/^iperf3: .*(refused|connect)/i)
  })
})

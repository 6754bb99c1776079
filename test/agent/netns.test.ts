// The traffic agent for real: two network namespaces joined by a veth pair shaped to
// 100 Mbit/s, the agent's server in one and its client in the other, web-search flows at
// load 0.3; the JSON lines are collected back over SSH (a real sshd on 127.0.0.1), parsed
// by targets/agent.ts and stored as flows in a real SQLite store. iperf3 runs over the same pair. Skipped (with the reason) only where the
// machine cannot make namespaces.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { KnownHosts, SshPool } from '../../src-main/core/ssh'
import { openStore, type Store } from '../../src-main/core/store'
import { agentClientArgv, agentProbeArgv, agentServerArgv, iperf3ClientArgv, iperf3ServerArgv, parseAgentOutput, parseIperf3Json } from '../../src-main/core/targets/remote/agent'
import { Rng } from '../../src-main/sim/engine/rng'
import { cdfMean, loadCdf, sampleCdf } from '../../src-main/sim/workload/cdf'
import { startSshd, type Sshd } from '../helpers/sshd'
import { collect, makeNetnsPair, netnsList, processesMatching, probeNetns, waitForOutput, type NetnsPair } from '../helpers/netns'

const ROOT = resolve(import.meta.dirname, '../..')
const AGENT = join(ROOT, 'resources/agent/p4lab_agent.py')
const CDF = join(ROOT, 'resources/workloads/web-search.cdf')
const RATE_BPS = 100e6
const probe = probeNetns()
if (!probe.ok) console.warn(`[netns] skipping the namespace tests: ${probe.reason}`)

/** Rejects after ms with what the child printed, instead of hanging until the test times out. */
function within<T>(p: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what()}`)), ms)))
  return Promise.race([p, t]).finally(() => clearTimeout(timer))
}

/** The agent's Poisson generator for one source, written again from the simulator's parts. */
function expectedFlows(seed: number, flows: number, load: number, linkBps: number): Array<{ size: number; offsetNs: number }> {
  const points = loadCdf(readFileSync(CDF, 'utf8'))
  const meanGapNs = 1e9 / ((load * linkBps) / 8 / cdfMean(points))
  const rng = new Rng(seed, 1)
  const gap = () => Math.max(1, Math.round(-Math.log(1 - rng.nextFloat()) * meanGapNs))
  const out: Array<{ size: number; offsetNs: number }> = []
  let t = gap()
  for (let i = 0; i < flows; i++) {
    const size = sampleCdf(points, rng.nextFloat())
    rng.nextInt(1) // the destination draw (one destination here)
    out.push({ size, offsetNs: t })
    t += gap()
  }
  return out
}

describe('traffic agent between two network namespaces', () => {
  let pair: NetnsPair | undefined
  let dir = ''
  let store: Store | undefined
  let sshd: Sshd | undefined
  let pool: SshPool | undefined

  beforeAll(async () => {
    if (!probe.ok) return
    dir = mkdtempSync(join(tmpdir(), 'p4lab-netns-'))
    pair = makeNetnsPair({ tag: 'ag', addrA: '10.0.1.1/16', addrB: '10.0.0.1/16', rate: '100mbit' })
    sshd = await startSshd()
    const knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
    await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
    pool = new SshPool({ knownHosts, secrets: new MemorySecretStore() })
  })

  afterAll(async () => {
    store?.close()
    pool?.closeAll()
    await sshd?.stop()
    if (pair) {
      const left = await pair.destroy()
      expect(left.pids, 'processes left in the namespaces').toEqual([])
      expect(left.namespaces, 'namespaces left').toEqual([])
      expect(netnsList().filter((n) => n.startsWith(`p4lab-${process.pid}-`))).toEqual([])
    }
    if (dir) {
      expect(processesMatching(dir), 'agent processes left').toEqual([])
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('web-search flows at load 0.3 on 100 Mbit/s: all finish, sizes are the seed\'s draw, stored as flows', async (ctx) => {
    ctx.skip(!probe.ok, probe.reason)
    const p = pair!
    const loc = { agent: AGENT }
    const server = p.spawnIn(p.nsA, agentServerArgv(loc, { port: 5001, bind: p.ipA }))
    const serverOut = collect(server)
    await waitForOutput(server, '"listening"')

    const seed = 7
    const flows = 30
    const load = 0.3
    const out = join(dir, 'flows.jsonl')
    const clientArgv = agentClientArgv(loc, {
      dsts: [{ host: p.ipA, port: 5001 }],
      out,
      seed,
      workload: { kind: 'poisson', cdf: CDF, load, linkBps: RATE_BPS, flows },
    })
    const client = p.spawnIn(p.nsB, clientArgv)
    const c = collect(client)
    const { code } = await c.exited
    expect(code, c.stderr()).toBe(0)

    const hosts = new Map([
      [p.ipB, 0],
      [p.ipA, 1],
    ])
    // Collected back over SSH, line by line, as a driver does with the host's output file.
    const host = pool!.host({ host: sshd!.host, port: sshd!.port, user: sshd!.user, auth: { kind: 'key', path: sshd!.plainKey } })
    const streamed: string[] = []
    const r = await host.run(['cat', out], { onLine: (l, stream) => stream === 'stdout' && streamed.push(l) })
    expect(r.code).toBe(0)
    const text = streamed.join('\n') + '\n'
    expect(text).toBe(readFileSync(out, 'utf8'))
    const parsed = parseAgentOutput(text, { hostOf: (ip) => hosts.get(ip), source: 'h0' })
    expect(parsed.lineErrors).toEqual([])
    expect(parsed.summaries).toHaveLength(1)
    const summary = parsed.summaries[0].summary
    expect(summary).toMatchObject({ mode: 'poisson', flows_planned: flows, finished: flows, failed: 0, unfinished: 0, stopped: false })
    expect(parsed.finished).toBe(flows)

    // Sizes: the same draw as the simulator's sampler for this seed, flow by flow.
    const want = expectedFlows(seed, flows, load, RATE_BPS)
    const byId = new Map<number, number>()
    parsed.flows.ids.forEach((id, i) => byId.set(id, parsed.flows.sizeBytes[i]))
    expect([...byId.keys()].sort((a, b) => a - b)).toEqual(want.map((_, i) => i))
    for (const [id, size] of byId) expect(size, `flow ${id}`).toBe(want[id].size)
    expect(summary.bytes_planned).toBe(want.reduce((s, f) => s + f.size, 0))

    // Physics: a flow cannot beat the shaped link (less the bucket tbf lets through at once).
    for (let i = 0; i < flows; i++) {
      const fct = parsed.flows.finishNs[i] - parsed.flows.startNs[i]
      const floorNs = (Math.max(0, parsed.flows.sizeBytes[i] - p.burstBytes) * 8 * 1e9) / RATE_BPS
      expect(fct, `flow ${parsed.flows.ids[i]} of ${parsed.flows.sizeBytes[i]} B`).toBeGreaterThanOrEqual(floorNs)
      expect(parsed.flows.src[i]).toBe(0)
      expect(parsed.flows.dst[i]).toBe(1)
      expect(parsed.flows.deliveredBytes[i]).toBe(parsed.flows.sizeBytes[i])
      const r = parsed.flows.retransmits[i]
      expect(typeof r === 'number' && Number.isInteger(r) && r >= 0, `retransmits ${r}`).toBe(true)
    }
    for (let i = 1; i < flows; i++) expect(parsed.flows.startNs[i]).toBeGreaterThanOrEqual(parsed.flows.startNs[i - 1])

    // Stored as a run's flows.
    store = openStore(join(dir, 'lab.db'))
    const e = store.createExperiment({ name: 'netns', yaml: 'name: netns\n', spec: {}, file: null, tags: [] })
    const [run] = store.createRuns(e.id, 'bmv2', 'test:1', [{ scheme: 'ecmp', load, seed, params: {} }])
    store.insertFlows(run.id, parsed.flows)
    const rows = store.listFlows(run.id)
    expect(rows).toHaveLength(flows)
    rows.forEach((row, i) => {
      expect(row.sizeBytes).toBe(parsed.flows.sizeBytes[i])
      expect(row.fctNs).toBe(parsed.flows.finishNs[i] - parsed.flows.startNs[i])
      expect(row.fctNs).toBeGreaterThan(0)
    })
    expect(rows[0].startNs).toBe(0)

    server.kill('SIGTERM')
    const s = await serverOut.exited
    expect(s.code, serverOut.stderr()).toBe(0)
    expect(serverOut.stdout()).toContain('"connections":30')
  })

  it('SIGTERM stops long-lived flows: exit 0, each written as unfinished with the bytes the server got', async (ctx) => {
    ctx.skip(!probe.ok, probe.reason)
    const p = pair!
    const loc = { agent: AGENT }
    const server = p.spawnIn(p.nsA, agentServerArgv(loc, { port: 5002, bind: p.ipA }))
    await waitForOutput(server, '"listening"')
    const client = p.spawnIn(p.nsB, agentClientArgv(loc, { dsts: [{ host: p.ipA, port: 5002 }], out: '-', seed: 1, workload: { kind: 'long-lived', flows: 2 } }))
    const c = collect(client)
    // Let them run a while, then stop them.
    await new Promise((r) => setTimeout(r, 1500))
    client.kill('SIGTERM')
    const { code } = await c.exited
    expect(code, c.stderr()).toBe(0)
    const parsed = parseAgentOutput(c.stdout(), { hostOf: (ip) => (ip === p.ipA ? 1 : ip === p.ipB ? 0 : undefined) })
    expect(parsed.lineErrors).toEqual([])
    expect(parsed.flows.src.length).toBe(2)
    expect(parsed.unfinished).toBe(2)
    for (let i = 0; i < 2; i++) {
      expect(parsed.flows.sizeBytes[i]).toBe(-1)
      expect(parsed.flows.finishNs[i]).toBe(-1)
      expect(parsed.flows.deliveredBytes[i]).toBeGreaterThan(0)
    }
    expect(parsed.summaries[0].summary).toMatchObject({ mode: 'long-lived', stopped: true, unfinished: 2 })
    server.kill('SIGTERM')
  })

  it('probe mode sends raw Ethernet frames with the ethertype and payload, and exits on SIGTERM', async (ctx) => {
    ctx.skip(!probe.ok, probe.reason)
    const p = pair!
    // A raw receiver on the other end of the veth, counting frames of our ethertype.
    const recvScript = [
      'import socket, sys',
      's = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x1234))',
      `s.bind((${JSON.stringify(p.ifA)}, 0))`,
      'print("ready", flush=True)',
      'for _ in range(3):',
      '    f = s.recv(2048)',
      '    print(f[12:14].hex(), f[14:18].hex(), len(f), flush=True)',
    ].join('\n')
    const recv = p.spawnIn(p.nsA, ['python3', '-c', recvScript])
    const r = collect(recv)
    await waitForOutput(recv, 'ready')
    const sender = p.spawnIn(p.nsB, agentProbeArgv({ agent: AGENT }, { iface: p.ifB, ethertype: 0x1234, periodUs: 1000, payloadHex: 'deadbeef' }))
    const s = collect(sender)
    const got = await within(r.exited, 20_000, () => `receiver: ${r.stdout()} ${r.stderr()} sender: ${s.stdout()} ${s.stderr()}`)
    expect(got.code, r.stderr()).toBe(0)
    const lines = r.stdout().trim().split('\n').slice(1)
    expect(lines).toEqual(['1234 deadbeef 60', '1234 deadbeef 60', '1234 deadbeef 60'])
    sender.kill('SIGTERM')
    const done = await within(s.exited, 20_000, () => `sender: ${s.stdout()} ${s.stderr()}`)
    expect(done.code, s.stderr()).toBe(0)
    expect(JSON.parse(s.stdout().trim().split('\n').pop()!).summary.sent).toBeGreaterThanOrEqual(3)
  })

  it('iperf3 -J between the namespaces: throughput parsed, bounded by the shaped link', async (ctx) => {
    ctx.skip(!probe.ok, probe.reason)
    const p = pair!
    const server = p.spawnIn(p.nsA, iperf3ServerArgv({ port: 5201, bind: p.ipA }))
    const sOut = collect(server)
    // iperf3 -s prints its banner when it listens.
    await waitForOutput(server, 'Server listening')
    const json = p.execIn(p.nsB, iperf3ClientArgv({ server: p.ipA, port: 5201, seconds: 2 }))
    const res = parseIperf3Json(json)
    if (!res.ok) throw new Error(res.error)
    expect(res.result.receivedBps).toBeGreaterThan(0)
    // tbf counts whole frames, so goodput stays under the rate; allow the bucket's burst.
    const slack = (p.burstBytes * 8) / res.result.seconds
    expect(res.result.receivedBps).toBeLessThanOrEqual(RATE_BPS + slack)
    expect(res.result.receivedBytes).toBeGreaterThan(0)
    expect(res.result.retransmits === null || res.result.retransmits >= 0).toBe(true)
    expect(res.result.intervalsBps.length).toBeGreaterThanOrEqual(1)
    const { code } = await sOut.exited // -1: one test, then it exits
    expect(code).toBe(0)
  })
})

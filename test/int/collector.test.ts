// The INT collector for real: UDP datagrams over loopback, into the collector in-process (with
// the store behind it) and into the built `p4lab int listen`, whose stdout the test reads.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { IntCollector } from '../../src-main/core/int/collector'
import { Ingest } from '../../src-main/core/telemetry/ingest'
import { seriesProblem } from '../../src-main/schemes'
import { openStore, type Store } from '../../src-main/core/store'
import { ROOT } from '../helpers/start'
import { B, ipv4UdpWithInt, telemetryReport, type PacketSpec } from './encoder'

const INT_PORT = 5555
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f()
})

function send(port: number, packets: Uint8Array[]): Promise<void> {
  const sock = createSocket('udp4')
  return new Promise((resolve, reject) => {
    let i = 0
    const next = () => {
      if (i === packets.length) {
        sock.close()
        resolve()
        return
      }
      sock.send(packets[i++], port, '127.0.0.1', (err) => (err ? reject(err) : next()))
    }
    next()
  })
}

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** A sink's report: its own hop latency and queue, plus a 3-hop INT-MD stack of a flow. */
function sinkReport(seq: number, latency: number): Uint8Array {
  const spec: PacketSpec = {
    hwId: 0,
    seqNo: seq,
    nodeId: 3,
    reports: [
      {
        f: 1,
        repMdBits: B(2) | B(3),
        local: { hopLatency: latency, queueId: 0, queueOccupancy: seq % 5 },
        inner: {
          kind: 'bytes',
          inType: 4,
          data: ipv4UdpWithInt(
            {
              instructionBitmap: B(0) | B(1) | B(2) | B(3),
              hops: [
                { switchId: 2, l1Ingress: 1, l1Egress: 2, hopLatency: latency + 1, queueId: 1, queueOccupancy: 7 },
                { switchId: 1, l1Ingress: 3, l1Egress: 4, hopLatency: latency + 2, queueId: 0, queueOccupancy: 0xffffff },
              ],
            },
            INT_PORT,
          ),
        },
      },
    ],
  }
  return telemetryReport(spec)
}

describe('IntCollector', () => {
  it('decodes datagrams, counts malformed ones and goes on, stores vocabulary series, counts lost reports', async () => {
    const store: Store = openStore(join(mkdtempSync(join(tmpdir(), 'p4lab-int-')), 'p4lab.db'))
    cleanups.push(() => store.close())
    const exp = store.createExperiment({ name: 'int', yaml: 'x', spec: {}, file: null, tags: [] })
    const [run] = store.createRuns(exp.id, 'sim', 'test:1', [{ scheme: 'ecmp', load: 1, seed: 1, params: {} }])
    const ingest = new Ingest({ store, runId: run.id })
    const collector = new IntCollector({ port: 0, host: '127.0.0.1', ingest, keepReports: 5, decode: { intUdpPorts: [INT_PORT] } })
    const port = await collector.start()
    cleanups.push(() => collector.stop())

    const packets: Uint8Array[] = []
    for (let seq = 1; seq <= 40; seq++) {
      if (seq === 20 || seq === 21) continue // two lost reports
      packets.push(sinkReport(seq, 1000 * seq))
      if (seq % 10 === 0) packets.push(new Uint8Array([0x10, 1, 2, 3, 4, 5, 6, 7, 8])) // Ver 1: malformed
    }
    await send(port, packets)
    await until(() => collector.counts.packets === packets.length)
    await ingest.close()

    expect(collector.counts).toMatchObject({ packets: 41, decoded: 38, malformed: 3, reports: 38, hops: 38 * 3, lost: 2 })
    expect(collector.lastReports()).toHaveLength(5)
    expect(JSON.parse(collector.lastReports()[4].json)).toMatchObject({ 'Sequence Number': 40, 'Node ID': 3 })

    const series = store.listSeries(run.id)
    expect(series.map((s) => seriesProblem(s)).filter(Boolean)).toEqual([])
    const names = series.map((s) => `${s.kind}${JSON.stringify(s.entity)}`).sort()
    expect(names).toEqual([
      'int.e2eDelay{"src":"10.0.1.2","dst":"10.0.2.3"}',
      'int.hopLatency{"switch":"1"}',
      'int.hopLatency{"switch":"2"}',
      'int.hopLatency{"switch":"3"}',
      'int.queue{"switch":"2","queue":1}',
      'int.queue{"switch":"3","queue":0}', // switch 1's occupancy is the reserved all-ones value
    ])
    const { defs, values } = store.readSamples(run.id, ['int.hopLatency'])
    const sw3 = defs.findIndex((d) => d.entity.switch === '3')
    expect(values[sw3].filter((v) => !Number.isNaN(v)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => 1000 * (i + 1)).filter((v) => v !== 20_000 && v !== 21_000),
    )
    const e2e = store.readSamples(run.id, ['int.e2eDelay']).values[0].filter((v) => !Number.isNaN(v))
    expect(e2e[0]).toBe(1000 + 1001 + 1002)
  })
})

function startListen(args: string[]): { child: ChildProcessWithoutNullStreams; stdout: () => string; stderr: () => string; port: Promise<number> } {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'p4lab.cjs'), 'int', 'listen', '--host', '127.0.0.1', ...args], { stdio: 'pipe' })
  cleanups.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  const port = new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /on udp [\d.]+:(\d+)/.exec(err)
      if (m) resolve(Number(m[1]))
    })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)))
  })
  return { child, stdout: () => out, stderr: () => err, port }
}

function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))))
}

describe('p4lab int listen', () => {
  it('--json: one JSON line per report with the spec field names, one object per hop; SIGINT prints the counts', async () => {
    const l = startListen(['--port', '0', '--json', '--int-port', String(INT_PORT)])
    const port = await l.port
    const two = telemetryReport({
      hwId: 1,
      seqNo: 7,
      nodeId: 9,
      reports: [
        { repMdBits: B(2), local: { hopLatency: 11 } },
        { d: 1, repMdBits: B(3) | B(15), local: { queueId: 2, queueOccupancy: 99, dropQueueId: 2, dropReason: 71 } },
      ],
    })
    await send(port, [sinkReport(1, 500), new Uint8Array([1, 2, 3]), two])
    await until(() => l.stdout().trim().split('\n').length >= 3)
    l.child.kill('SIGINT')
    expect(await exited(l.child)).toBe(0)
    const lines = l.stdout().trim().split('\n').map((x) => JSON.parse(x))
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatchObject({ Ver: 2, hw_id: 0, 'Sequence Number': 1, 'Node ID': 3, RepType: 1, InType: 4, F: 1, RepMdBits: 0x3000 })
    expect(lines[0]['INT-MD']).toMatchObject({ 'Hop ML': 4, 'Instruction Bitmap': 0xf000 })
    expect(lines[0].hops).toEqual([
      { source: 'report', 'Switch ID': 3, 'Hop latency': 500, 'Queue ID': 0, 'Queue occupancy': 1 },
      { source: 'stack', 'Switch ID': 2, 'Level 1 Ingress Port ID': 1, 'Level 1 Egress Port ID': 2, 'Hop latency': 501, 'Queue ID': 1, 'Queue occupancy': 7 },
      { source: 'stack', 'Switch ID': 1, 'Level 1 Ingress Port ID': 3, 'Level 1 Egress Port ID': 4, 'Hop latency': 502, 'Queue ID': 0, 'Queue occupancy': 0xffffff },
    ])
    expect(lines[1]).toMatchObject({ 'Sequence Number': 7, 'Node ID': 9, hops: [{ 'Hop latency': 11 }] })
    expect(lines[2]).toMatchObject({ D: 1, hops: [{ 'Queue ID': 2, 'Queue occupancy': 99, 'Drop Reason': 71 }] })
    expect(l.stderr()).toMatch(/3 packets, 2 decoded, 1 malformed, 3 reports, 5 hops, 0 lost/)
    expect(l.stderr()).toMatch(/malformed: 1× short/)
  })

  it('table mode: a compact line per report, malformed lines, and the counts on stdout', async () => {
    const l = startListen(['--port', '0', '--int-port', String(INT_PORT)])
    const port = await l.port
    await send(port, [sinkReport(5, 1000), new Uint8Array(12).fill(0x30), sinkReport(7, 2000)])
    await until(() => l.stdout().trim().split('\n').length >= 3)
    l.child.kill('SIGINT')
    expect(await exited(l.child)).toBe(0)
    const lines = l.stdout().trim().split('\n')
    expect(lines[0]).toMatch(/^seq +5 +node +3 +INT +F +10\.0\.1\.2:40000→10\.0\.2\.3:5555 +hops 3: 3\(lat 1000 q0=0\) ← 2\(1→2 lat 1001 q1=7\) ← 1\(3→4 lat 1002 q0=16777215\)$/)
    expect(lines[1]).toMatch(/^malformed: bad version: Ver 3/)
    expect(lines[2]).toMatch(/^seq +7 /)
    expect(lines.slice(3).join('\n')).toMatch(/3 packets, 2 decoded, 1 malformed, 2 reports, 6 hops, 1 lost by sequence number/)
  })
})

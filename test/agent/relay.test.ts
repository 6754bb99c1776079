// The agent's relay mode for real: the Python agent binds UDP on 127.0.0.1, receives postcards
// built with the INT tests' spec encoder (and malformed datagrams), and writes one line per
// datagram; the lines are parsed back (targets/relay-output.ts), every payload compared byte
// for byte and decoded with the INT decoder; SIGTERM ends it with its counts.
import { spawn } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { IntDecoder } from '../../src-main/core/int/decode'
import { agentRelayArgv } from '../../src-main/core/targets/remote/agent'
import { completeLines, parseRelayLine } from '../../src-main/core/targets/remote/relay-output'
import { postcard } from '../int/postcard'

const ROOT = resolve(import.meta.dirname, '../..')
const AGENT = join(ROOT, 'resources/agent/p4lab_agent.py')
const kills: Array<() => void> = []
afterEach(() => {
  for (const k of kills.splice(0)) k()
})

async function until(cond: () => boolean, what: () => string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out: ${what()}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

function send(port: number, packets: Uint8Array[]): Promise<void> {
  const sock = createSocket('udp4')
  return new Promise((resolvePromise, reject) => {
    let i = 0
    const next = (): void => {
      if (i === packets.length) {
        sock.close()
        resolvePromise()
        return
      }
      sock.send(packets[i++], port, '127.0.0.1', (err) => (err ? reject(err) : next()))
    }
    next()
  })
}

describe('agent relay mode', () => {
  it('relays every datagram as "<arrival ns> <base64>", in order and byte for byte, and ends on SIGTERM with its counts', async () => {
    const argv = agentRelayArgv({ agent: AGENT }, { port: 0, bind: '127.0.0.1', rcvbufBytes: 1 << 20 })
    expect(argv.slice(1)).toEqual([AGENT, 'relay', '--port', '0', '--bind', '127.0.0.1', '--rcvbuf', String(1 << 20)])
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
    kills.push(() => child.exitCode === null && child.kill('SIGKILL'))
    let out = Buffer.alloc(0)
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out = Buffer.concat([out, d])))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    await until(() => out.includes(0x0a), () => err)
    const first = parseRelayLine(out.toString('utf8').split('\n')[0])
    expect(first.kind).toBe('listening')
    if (first.kind !== 'listening') return
    const port = Number(first.address.split(':')[1])
    expect(first.rcvbuf).toBeGreaterThan(0)

    const packets: Uint8Array[] = []
    for (let seq = 0; seq < 200; seq++) {
      packets.push(postcard({ seq, nodeId: seq % 4, ingressPort: 0, egressPort: 2 + (seq % 2), latencyNs: 1000 + seq, queuePackets: seq % 7, ingressTsNs: 5_000_000_000n + BigInt(seq) * 1000n }))
      if (seq % 50 === 49) packets.push(new Uint8Array([0x10, 0, 0, 1, 0, 0, 0, 3, 1, 2, 3, 4])) // Ver 1
    }
    packets.push(new Uint8Array(0)) // an empty datagram is a datagram too
    packets.push(new Uint8Array(60_000).fill(0xa5)) // and a large one
    const sentFrom = BigInt(Date.now() - 1000) * 1_000_000n
    await send(port, packets)
    await until(() => out.toString('utf8').split('\n').length >= packets.length + 2, () => `${out.toString('utf8').split('\n').length} lines; ${err}`)
    const sentTo = BigInt(Date.now() + 1000) * 1_000_000n
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(err).toBe('')

    const { lines, bytes } = completeLines(out, 64 << 20)
    expect(bytes).toBe(out.length) // every line ends with a newline
    const parsed = lines.map(parseRelayLine)
    expect(parsed[0].kind).toBe('listening')
    const last = parsed[parsed.length - 1]
    expect(last).toEqual({
      kind: 'summary',
      // kernel_drops and no_port count the whole root namespace here (the driver test has a namespace of its own)
      summary: { datagrams: packets.length, bytes: packets.reduce((a, p) => a + p.length, 0), errors: 0, kernelDrops: expect.any(Number), noPort: expect.any(Number) },
    })
    const datagrams = parsed.slice(1, -1)
    expect(datagrams.map((d) => d.kind)).toEqual(packets.map(() => 'datagram'))
    let prev = 0n
    const decoder = new IntDecoder()
    datagrams.forEach((d, i) => {
      if (d.kind !== 'datagram') return
      expect(Buffer.compare(d.payload, Buffer.from(packets[i])), `datagram ${i}`).toBe(0)
      expect(d.atNs >= prev && d.atNs >= sentFrom && d.atNs <= sentTo, `arrival time of ${i}`).toBe(true)
      prev = d.atNs
      decoder.decode(d.payload)
    })
    expect(decoder.counts).toMatchObject({ packets: 206, decoded: 200, malformed: 6, reports: 200, hops: 200 })
  })

  it('a port it cannot bind is exit 1 with the reason, a bad one exit 2', async () => {
    const blocker = createSocket('udp4')
    await new Promise<void>((r) => blocker.bind(0, '127.0.0.1', () => r()))
    kills.push(() => blocker.close())
    const run = (args: string[]) =>
      new Promise<{ code: number | null; err: string }>((r) => {
        const c = spawn('python3', [AGENT, 'relay', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
        let err = ''
        c.stderr.on('data', (d: Buffer) => (err += d.toString()))
        c.once('exit', (code) => r({ code, err }))
      })
    const busy = await run(['--port', String(blocker.address().port), '--bind', '127.0.0.1'])
    expect(busy.code).toBe(1)
    expect(busy.err).toMatch(/^p4lab_agent relay: cannot bind udp 127\.0\.0\.1:\d+: .*Address already in use/)
    expect((await run(['--port', '70000'])).code).toBe(2)
    expect(() => agentRelayArgv({ agent: AGENT }, { port: 70000 })).toThrow(/port must be an integer 0-65535/)
  })
})

describe('relay output lines', () => {
  it('reads datagrams, its own JSON, and anything else as other', () => {
    expect(parseRelayLine('1795265107307054526 AAEC')).toEqual({ kind: 'datagram', atNs: 1795265107307054526n, payload: Buffer.from([0, 1, 2]) })
    expect(parseRelayLine('12 ')).toEqual({ kind: 'datagram', atNs: 12n, payload: Buffer.alloc(0) })
    expect(parseRelayLine('12 AAE')).toEqual({ kind: 'other', line: '12 AAE' }) // cut short
    expect(parseRelayLine('12 AA=E')).toEqual({ kind: 'other', line: '12 AA=E' })
    expect(parseRelayLine('{"summary":{"mode":"relay","datagrams":3,"bytes":9,"errors":0,"kernel_drops":null,"no_port":1}}')).toEqual({
      kind: 'summary',
      summary: { datagrams: 3, bytes: 9, errors: 0, kernelDrops: null, noPort: 1 },
    })
    expect(parseRelayLine('{"summary":{"mode":"client"}}').kind).toBe('other')
    expect(parseRelayLine('Traceback (most recent call last):').kind).toBe('other')
    expect(parseRelayLine('{"listening":"0.0.0.0:32766"').kind).toBe('other')
  })

  it('takes complete lines only, and never stalls on a chunk without a newline', () => {
    expect(completeLines(Buffer.from('1 AA==\n2 AQ==\n3 A'), 100)).toEqual({ lines: ['1 AA==', '2 AQ=='], bytes: 14 })
    expect(completeLines(Buffer.from('3 A'), 100)).toEqual({ lines: [], bytes: 0 })
    expect(completeLines(Buffer.from('xxxx'), 4)).toEqual({ lines: ['xxxx'], bytes: 4 })
  })
})

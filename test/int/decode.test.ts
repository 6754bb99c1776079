// The INT decoder against packets built by the test's own encoder (test/int/encoder.ts), which is
// written from the specs' bit diagrams, not from the decoder.
import { describe, expect, it } from 'vitest'
import { decodeTelemetryReport, IntDecoder, reportToJson, type IntHop, type TelemetryReportPacket } from '../../src-main/core/int/decode'
import { B, BitWriter, ipv4UdpWithInt, telemetryReport, type HopSpec, type PacketSpec } from './encoder'

const INT_PORT = 5555

/** What the decoder should return for a hop, named as in the INT spec. */
function expectedHop(bitmap: number, h: HopSpec, kind: 'report' | 'int', nodeId?: number): IntHop {
  const e: IntHop = { source: kind === 'report' ? 'report' : 'stack' }
  if (kind === 'report') e['Switch ID'] = nodeId
  if (bitmap & B(0)) e['Switch ID'] = h.switchId ?? 0
  if (bitmap & B(1)) Object.assign(e, { 'Level 1 Ingress Port ID': h.l1Ingress ?? 0, 'Level 1 Egress Port ID': h.l1Egress ?? 0 })
  if (bitmap & B(2)) e['Hop latency'] = h.hopLatency ?? 0
  if (bitmap & B(3)) Object.assign(e, { 'Queue ID': h.queueId ?? 0, 'Queue occupancy': h.queueOccupancy ?? 0 })
  if (bitmap & B(4)) e['Ingress timestamp'] = h.ingressTs ?? 0n
  if (bitmap & B(5)) e['Egress timestamp'] = h.egressTs ?? 0n
  if (bitmap & B(6)) Object.assign(e, { 'Level 2 Ingress Port ID': h.l2Ingress ?? 0, 'Level 2 Egress Port ID': h.l2Egress ?? 0 })
  if (bitmap & B(7)) e['Egress port Tx utilization'] = h.txUtil ?? 0
  if (bitmap & B(8)) Object.assign(e, { 'Buffer ID': h.bufferId ?? 0, 'Buffer occupancy': h.bufferOccupancy ?? 0 })
  if (bitmap & B(15)) {
    if (kind === 'report') {
      if (!(bitmap & B(3))) e['Queue ID'] = h.dropQueueId ?? 0
      e['Drop Reason'] = h.dropReason ?? 0
    } else {
      e['Checksum Complement'] = h.checksumComplement ?? 0
    }
  }
  if (h.ds && h.ds.length > 0) e['Domain Specific Metadata'] = h.ds.map((d) => (d >>> 0).toString(16).padStart(8, '0')).join('')
  return e
}

function decodeOk(bytes: Uint8Array): TelemetryReportPacket {
  const r = decodeTelemetryReport(bytes, { intUdpPorts: [INT_PORT] })
  if (!r.ok) throw new Error(`expected a decode, got malformed: ${r.reason}`)
  return r.packet
}

/** Distinct, recognisable values for every field of a hop. */
function hopValues(i: number): HopSpec {
  return {
    switchId: 0x01000000 + i,
    l1Ingress: 0x100 + i,
    l1Egress: 0x200 + i,
    hopLatency: 1000 * (i + 1) + 7,
    queueId: (i * 3 + 1) & 0xff,
    queueOccupancy: 0xabcde0 + i,
    ingressTs: 0x0123456789abcdefn + BigInt(i), // above 2^53: must come back exact
    egressTs: 0x0123456789abd000n + BigInt(i),
    l2Ingress: 0x80000000 + i,
    l2Egress: 0x90000000 + i,
    txUtil: 0x3000 + i,
    bufferId: (i + 9) & 0xff,
    bufferOccupancy: 0x0f0f00 + i,
    dropQueueId: 7,
    dropReason: 71,
    checksumComplement: 0xfedc0000 + i,
  }
}

const REP_MD_BITS = [1, 2, 3, 4, 5, 6, 7, 8, 15]
const INSTRUCTION_BITS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 15]
const allOf = (bits: number[]) => bits.reduce((m, b) => m | B(b), 0)

describe('Telemetry Report v2.0 examples from the spec', () => {
  it('"Example with Baseline Metadata and Truncated IPv4": level 1 interface IDs and queue occupancy', () => {
    const ipv4 = new BitWriter().put(0x45, 8).put(0, 8).put(40, 16).put(0, 32).put(64, 8).put(6, 8).put(0, 16).bytes([10, 1, 1, 1]).bytes([10, 2, 2, 2])
    const tcp = new BitWriter().put(1234, 16).put(80, 16).put(0, 32).put(0, 32).put(5, 4).put(0, 12).put(0, 32).put(0, 16)
    const bytes = telemetryReport({
      hwId: 3,
      seqNo: 0x3fffff,
      nodeId: 0x0a0b0c0d,
      reports: [
        {
          f: 1,
          repMdBits: B(1) | B(3),
          local: { l1Ingress: 4, l1Egress: 9, queueId: 0, queueOccupancy: 12 },
          inner: { kind: 'bytes', inType: 4, data: new Uint8Array([...ipv4.toBytes(), ...tcp.toBytes()]) },
        },
      ],
    })
    // The spec's words: RepLength = 2 + MD Length 2 + 5 (IP) + 5 (TCP) = 14, RepMdBits 0101 0000 ...
    expect(bytes.length).toBe(8 + 4 + 14 * 4)
    expect([bytes[8], bytes[9], bytes[10], bytes[11]]).toEqual([0x14, 14, 2, 0x20])
    expect([bytes[12], bytes[13]]).toEqual([0x50, 0x00])
    const p = decodeOk(bytes)
    expect(p).toMatchObject({ Ver: 2, hw_id: 3, 'Sequence Number': 0x3fffff, 'Node ID': 0x0a0b0c0d })
    expect(p.reports).toHaveLength(1)
    const r = p.reports[0]
    expect(r).toMatchObject({ RepType: 1, InType: 4, 'Report Length': 14, 'MD Length': 2, D: 0, Q: 0, F: 1, I: 0, RepMdBits: 0x5000, 'Domain Specific ID': 0, DSMdBits: 0, DSMdstatus: 0 })
    expect(r.hops).toEqual([{ source: 'report', 'Switch ID': 0x0a0b0c0d, 'Level 1 Ingress Port ID': 4, 'Level 1 Egress Port ID': 9, 'Queue ID': 0, 'Queue occupancy': 12 }])
    expect(r.inner).toEqual({ ipVersion: 4, src: '10.1.1.1', dst: '10.2.2.2', protocol: 6, srcPort: 1234, dstPort: 80 })
    expect(r['INT-MD']).toBeUndefined()
  })

  it('"Example with Embedded INT-MD in a TCP Packet": sink queue occupancy in the report, two hops in the stack', () => {
    const embedded = ipv4UdpWithInt(
      { instructionBitmap: B(0) | B(3), hops: [{ switchId: 2, queueOccupancy: 20 }, { switchId: 1, queueOccupancy: 10 }], remainingHopCount: 6 },
      INT_PORT,
    )
    const bytes = telemetryReport({
      hwId: 0,
      seqNo: 1,
      nodeId: 3,
      reports: [{ f: 1, repMdBits: B(3), local: { queueOccupancy: 30 }, inner: { kind: 'bytes', inType: 4, data: embedded } }],
    })
    // The spec's RepLength = 2 + 1 + 5 (IP) + 2 (UDP) + 1 (shim) + 3 (INT fixed) + 4 (stack) + 5 (TCP) = 23;
    // our original-TCP stub is 2 words, not 5.
    expect([bytes[9], bytes[10]]).toEqual([23 - 3, 1])
    const r = decodeOk(bytes).reports[0]
    expect(r['INT-MD']).toEqual({
      Type: 1, NPT: 2, Length: 7, Ver: 2, D: 0, E: 0, M: 0, 'Hop ML': 2, 'Remaining Hop Count': 6,
      'Instruction Bitmap': 0x9000, 'Domain Specific ID': 0, 'DS Instruction': 0, 'DS Flags': 0,
    })
    expect(r.hops).toEqual([
      { source: 'report', 'Switch ID': 3, 'Queue ID': 0, 'Queue occupancy': 30 },
      { source: 'stack', 'Switch ID': 2, 'Queue ID': 0, 'Queue occupancy': 20 },
      { source: 'stack', 'Switch ID': 1, 'Queue ID': 0, 'Queue occupancy': 10 },
    ])
  })
})

describe('every RepMdBits bit', () => {
  for (const b of REP_MD_BITS) {
    it(`bit ${b} alone`, () => {
      const local = hopValues(b)
      const p = decodeOk(telemetryReport({ hwId: 1, seqNo: b, nodeId: 77, reports: [{ repMdBits: B(b), local }] }))
      expect(p.reports[0].hops).toEqual([expectedHop(B(b), local, 'report', 77)])
    })
  }
  it('all of them, with domain specific metadata after them', () => {
    const bits = allOf(REP_MD_BITS)
    const local = hopValues(5)
    const p = decodeOk(telemetryReport({ hwId: 63, seqNo: 99, nodeId: 0xffffffff, reports: [{ repMdBits: bits, domainSpecificId: 0x1234, dsMdBits: B(0), dsMdStatus: 0x55, local, dsWords: [0xcafef00d] }] }))
    const r = p.reports[0]
    expect(r['MD Length']).toBe(6 + 3 * 2 + 1) // 6 four-octet bits, 3 eight-octet bits, 1 DS word
    expect(r).toMatchObject({ 'Domain Specific ID': 0x1234, DSMdBits: 0x8000, DSMdstatus: 0x55 })
    expect(r.hops).toEqual([{ ...expectedHop(bits, local, 'report', 0xffffffff), 'Domain Specific Metadata': 'cafef00d' }])
    expect(p.hw_id).toBe(63)
  })
})

describe('every instruction bit, several hops', () => {
  for (const b of INSTRUCTION_BITS) {
    it(`bit ${b} alone, 3 hops`, () => {
      const hops = [0, 1, 2].map(hopValues)
      const embedded = ipv4UdpWithInt({ instructionBitmap: B(b), hops }, INT_PORT)
      const p = decodeOk(telemetryReport({ hwId: 0, seqNo: 0, nodeId: 9, reports: [{ inner: { kind: 'bytes', inType: 4, data: embedded } }] }))
      expect(p.reports[0].hops).toEqual(hops.map((h) => expectedHop(B(b), h, 'int')))
    })
  }
  for (const n of [1, 2, 5, 8]) {
    it(`all bits, ${n} hops, with a domain specific word per hop before the checksum complement`, () => {
      const bitmap = allOf(INSTRUCTION_BITS)
      const hops = Array.from({ length: n }, (_, i) => ({ ...hopValues(i), ds: [0x11110000 + i] }))
      const embedded = ipv4UdpWithInt({ instructionBitmap: bitmap, hops, dsWordsPerHop: 1, domainSpecificId: 7, dsInstruction: B(0), dsFlags: 3 }, INT_PORT)
      const p = decodeOk(telemetryReport({ hwId: 0, seqNo: 0, nodeId: 9, reports: [{ f: 1, inner: { kind: 'bytes', inType: 4, data: embedded } }] }))
      const r = p.reports[0]
      expect(r['INT-MD']?.['Hop ML']).toBe(bitmapWords(bitmap) + 1)
      expect(r.hops).toEqual(hops.map((h) => expectedHop(bitmap, h, 'int')))
    })
  }
  it('INT over TCP marked by DSCP, inside an Ethernet truncated packet and inside a TLV', () => {
    const hops = [hopValues(0), hopValues(1)]
    const ipUdp = ipv4UdpWithInt({ instructionBitmap: B(0) | B(2), hops }, 9999, 0x17)
    const eth = new Uint8Array([...new Array(12).fill(0xaa), 0x08, 0x00, ...ipUdp])
    const spec: PacketSpec = {
      hwId: 0,
      seqNo: 5,
      nodeId: 1,
      reports: [
        { inner: { kind: 'bytes', inType: 3, data: eth } },
        { inner: { kind: 'tlv', tlvs: [{ type: 0, template: 5, data: new Uint8Array(8) }, { type: 2, data: ipUdp }] } },
      ],
    }
    const r = decodeTelemetryReport(telemetryReport(spec), { intDscp: { value: 0x17, mask: 0x3f } })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    for (const rep of r.packet.reports) expect(rep.hops).toEqual(hops.map((h) => expectedHop(B(0) | B(2), h, 'int')))
    // Without the DSCP marker (and no INT port), the stack is not looked for.
    const plain = decodeOk(telemetryReport(spec))
    expect(plain.reports.map((x) => x.hops.length)).toEqual([0, 0])
  })
})

function bitmapWords(bitmap: number): number {
  let n = 0
  for (let b = 0; b < 16; b++) if (bitmap & B(b)) n += b >= 4 && b <= 6 ? 2 : 1
  return n
}

describe('several reports per packet', () => {
  it('an INT report with a stack, an inner-only report, a TLV report and a report with local metadata, in order', () => {
    const stack = ipv4UdpWithInt({ instructionBitmap: B(0) | B(2) | B(3), hops: [hopValues(3), hopValues(4)] }, INT_PORT)
    const bytes = telemetryReport({
      hwId: 2,
      seqNo: 1000,
      nodeId: 42,
      reports: [
        { d: 1, repMdBits: B(2), local: { hopLatency: 5 }, inner: { kind: 'bytes', inType: 4, data: stack } },
        { repType: 0, q: 1, inner: { kind: 'bytes', inType: 2, data: new Uint8Array([1, 2, 3, 4]) } },
        { i: 1, inner: { kind: 'tlv', tlvs: [{ type: 0, template: 1, data: new Uint8Array(4) }] } },
        { f: 1, repMdBits: B(4) | B(5), local: { ingressTs: 2n ** 63n + 1n, egressTs: 2n ** 64n - 1n } },
      ],
    })
    const p = decodeOk(bytes)
    expect(p.reports.map((r) => [r.RepType, r.InType, r.D, r.Q, r.F, r.I])).toEqual([
      [1, 4, 1, 0, 0, 0],
      [0, 2, 0, 1, 0, 0],
      [1, 1, 0, 0, 0, 1],
      [1, 0, 0, 0, 1, 0],
    ])
    expect(p.reports[0].hops.map((h) => h['Hop latency'])).toEqual([5, hopValues(3).hopLatency, hopValues(4).hopLatency])
    expect(p.reports[3].hops[0]['Egress timestamp']).toBe(2n ** 64n - 1n)
    const d = new IntDecoder({ intUdpPorts: [INT_PORT] })
    d.decode(bytes)
    expect(d.counts).toEqual({ packets: 1, decoded: 1, malformed: 0, reports: 4, hops: 4 })
  })
})

describe('round trip over random specs', () => {
  it('2000 random packets decode to what the encoder was given', () => {
    let seed = 12345
    const rnd = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
      return seed / 2 ** 32
    }
    const pick = (bits: number[]) => bits.filter(() => rnd() < 0.4).reduce((m, b) => m | B(b), 0)
    for (let k = 0; k < 2000; k++) {
      const nReports = 1 + Math.floor(rnd() * 3)
      const spec: PacketSpec = { hwId: Math.floor(rnd() * 64), seqNo: Math.floor(rnd() * 2 ** 22), nodeId: Math.floor(rnd() * 2 ** 32), reports: [] }
      const expected: IntHop[][] = []
      for (let r = 0; r < nReports; r++) {
        const repMdBits = pick(REP_MD_BITS)
        const local = hopValues(Math.floor(rnd() * 100))
        const bitmap = pick(INSTRUCTION_BITS) || B(0)
        const hops = Array.from({ length: Math.floor(rnd() * 4) }, () => hopValues(Math.floor(rnd() * 100)))
        const hopsE = hops.map((h) => expectedHop(bitmap, h, 'int'))
        const withStack = hops.length > 0
        spec.reports.push({
          repMdBits,
          local,
          inner: withStack ? { kind: 'bytes', inType: 4, data: ipv4UdpWithInt({ instructionBitmap: bitmap, hops }, INT_PORT) } : { kind: 'none' },
        })
        expected.push([...(repMdBits ? [expectedHop(repMdBits, local, 'report', spec.nodeId)] : []), ...hopsE])
      }
      const p = decodeOk(telemetryReport(spec))
      expect(p['Node ID']).toBe(spec.nodeId)
      expect(p['Sequence Number']).toBe(spec.seqNo)
      expect(p.reports.map((r) => r.hops)).toEqual(expected)
    }
  })
})

describe('malformed input is counted with a reason, never thrown', () => {
  const good: PacketSpec = { hwId: 0, seqNo: 1, nodeId: 1, reports: [{ repMdBits: B(2), local: { hopLatency: 3 } }] }
  const stackOf = (over: Partial<Parameters<typeof ipv4UdpWithInt>[0]>) =>
    telemetryReport({ ...good, reports: [{ inner: { kind: 'bytes', inType: 4, data: ipv4UdpWithInt({ instructionBitmap: B(0), hops: [{ switchId: 1 }], ...over }, INT_PORT) } }] })
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ['empty', new Uint8Array(0), /^short/],
    ['7 octets', telemetryReport(good).slice(0, 7), /^short/],
    ['a group header alone', telemetryReport(good).slice(0, 8), /no Individual Report/],
    ['Ver 1', telemetryReport({ ...good, ver: 1 }), /bad version: Ver 1/],
    ['a reserved RepType', telemetryReport({ ...good, reports: [{ repType: 9 }] }), /reserved RepType 9/],
    ['RepType 2 (IOAM)', telemetryReport({ ...good, reports: [{ repType: 2 }] }), /IOAM/],
    ['a reserved InType', telemetryReport({ ...good, reports: [{ inType: 7 }] }), /reserved InType 7/],
    ['Report Length past the end', telemetryReport({ ...good, reports: [{ repMdBits: B(2), local: {}, reportLength: 9 }] }), /overruns the packet/],
    ['Report Length shorter than the INT main contents', telemetryReport({ ...good, reports: [{ reportLength: 1, inType: 2 }] }), /shorter than the INT main contents/],
    ['MD Length too long for RepMdBits', telemetryReport({ ...good, reports: [{ repMdBits: B(2), local: {}, mdLength: 0 }] }), /RepMdBits selects 4 octets but MD Length is 0/],
    ['MD Length past Report Length', telemetryReport({ ...good, reports: [{ repMdBits: B(2), local: {}, mdLength: 5 }] }), /does not fit in Report Length/],
    ['a reserved RepMdBits bit (0)', telemetryReport({ ...good, reports: [{ repMdBits: B(0), local: {}, mdLength: 1, dsWords: [0] }] }), /reserved bit 0/],
    ['a reserved RepMdBits bit (12)', telemetryReport({ ...good, reports: [{ repMdBits: B(12), dsWords: [0] }] }), /reserved bit 12/],
    ['a trailing partial report', new Uint8Array([...telemetryReport(good), 0x10]), /trailing octets/],
    ['InType None with inner contents', telemetryReport({ ...good, reports: [{ inType: 0, inner: { kind: 'bytes', inType: 0, data: new Uint8Array(4) } }] }), /InType 0 \(None\)/],
    ['a TLV longer than its report', telemetryReport({ ...good, reports: [{ inner: { kind: 'bytes', inType: 1, data: new Uint8Array([0x20, 5, 0, 0]) } }] }), /TLVLength overruns/],
    ['INT-MD Ver 1', stackOf({ ver: 1 }), /INT-MD header Ver 1/],
    ['a reserved instruction bit', stackOf({ instructionBitmap: B(0) | B(10) }), /reserved bit 10/],
    ['Hop ML larger than the bitmap without DS instructions', stackOf({ dsWordsPerHop: 1, hops: [{ switchId: 1, ds: [0] }] }), /DS Instruction is 0/],
  ]
  for (const [what, bytes, reason] of cases) {
    it(what, () => {
      const d = new IntDecoder({ intUdpPorts: [INT_PORT] })
      const r = d.decode(bytes)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.reason).toMatch(reason)
      expect(d.counts).toMatchObject({ packets: 1, decoded: 0, malformed: 1 })
    })
  }

  it('a stack cut short by the truncated packet is malformed', () => {
    const inner = ipv4UdpWithInt({ instructionBitmap: B(0) | B(2), hops: [hopValues(0), hopValues(1)] }, INT_PORT)
    const cut = inner.slice(0, 20 + 8 + 4 + 12 + 4) // into the first hop
    const r = decodeTelemetryReport(telemetryReport({ ...good, reports: [{ inner: { kind: 'bytes', inType: 4, data: cut } }] }), { intUdpPorts: [INT_PORT] })
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/overruns the truncated packet/) })
  })

  it('a truncated packet that ends before its L4 header is fine (nothing to find)', () => {
    const inner = ipv4UdpWithInt({ instructionBitmap: B(0), hops: [hopValues(0)] }, INT_PORT).slice(0, 20)
    const p = decodeOk(telemetryReport({ ...good, reports: [{ inner: { kind: 'bytes', inType: 4, data: inner } }] }))
    expect(p.reports[0].inner).toMatchObject({ src: '10.0.1.2', dst: '10.0.2.3' })
    expect(p.reports[0].hops).toEqual([])
  })
})

describe('JSON lines', () => {
  it('one object per report: the group header, the report header, hops; 64-bit values exact', () => {
    const bytes = telemetryReport({
      hwId: 1,
      seqNo: 2,
      nodeId: 3,
      reports: [{ f: 1, repMdBits: B(2) | B(4), local: { hopLatency: 250, ingressTs: 1234567890123456789n } }],
    })
    const p = decodeOk(bytes)
    const line = reportToJson(p, p.reports[0])
    expect(line).not.toContain('\n')
    expect(line).toContain('"Ingress timestamp":1234567890123456789')
    const o = JSON.parse(line)
    expect(Object.keys(o)).toEqual([
      'Ver', 'hw_id', 'Sequence Number', 'Node ID',
      'RepType', 'InType', 'Report Length', 'MD Length', 'D', 'Q', 'F', 'I', 'RepMdBits', 'Domain Specific ID', 'DSMdBits', 'DSMdstatus',
      'hops',
    ])
    expect(o.hops).toEqual([{ source: 'report', 'Switch ID': 3, 'Hop latency': 250, 'Ingress timestamp': 1234567890123456800 }])
  })
})

// Decoder for Telemetry Report v2.0 packets (P4.org Applications WG, "Telemetry Report Format
// Specification", version 2.0) carrying INT-MD per-hop metadata (INT Dataplane Specification
// v2.1). The input is a UDP payload: one Telemetry Report Group Header, then one or more
// Individual Reports.
//
// Field names are the specs' own, written as keys exactly as the specs print them
// ("Sequence Number", "RepMdBits", "Hop latency", ...). Per-hop metadata uses the INT
// spec's names (the report spec defers to it for their meaning), so a hop decoded from a
// report's own RepMdBits and one decoded from an embedded INT-MD stack look alike.
//
// Never throws: anything that does not follow the spec comes back as
// { ok: false, reason } and IntDecoder counts it.

import { firstBit, hex, intMd, Malformed, metadataBytes, readHop, REP_MD_KNOWN, type IntHop, type IntMdHeader } from './intmd'

// The INT-MD half lives in intmd.ts; these stay importable from here.
export { bit, INT_TYPE_MD, INT_VERSION, metadataBytes, type IntHop, type IntMdHeader, type IntMdTarget } from './intmd'

// ---- what a decoded packet looks like ----

/** The flow the truncated packet belongs to (from its IPv4/IPv6 and TCP/UDP headers). */
export interface InnerFlow {
  ipVersion: 4 | 6
  src: string
  dst: string
  protocol: number
  srcPort?: number
  dstPort?: number
}

export interface IndividualReport {
  RepType: number
  InType: number
  'Report Length': number
  'MD Length': number
  D: number
  Q: number
  F: number
  I: number
  /** RepType 1 (INT) only. */
  RepMdBits?: number
  'Domain Specific ID'?: number
  DSMdBits?: number
  DSMdstatus?: number
  /** The flow of the truncated packet, when InType (or a TLV) carries one this decoder reads. */
  inner?: InnerFlow
  /** The INT-MD headers embedded in the truncated packet, when there are any. */
  'INT-MD'?: IntMdHeader
  /** The report's own metadata first (when RepMdBits is not 0), then the INT-MD stack, top (last hop) first. */
  hops: IntHop[]
}

export interface TelemetryReportPacket {
  Ver: number
  hw_id: number
  'Sequence Number': number
  'Node ID': number
  reports: IndividualReport[]
}

export type DecodeResult = { ok: true; packet: TelemetryReportPacket } | { ok: false; reason: string }

export interface DecodeOptions {
  /**
   * UDP destination ports that mark INT over UDP in a truncated packet (INT v2.1 "INT_TBD";
   * IANA has not assigned one). Default: none, so only DSCP marks it.
   */
  intUdpPorts?: readonly number[]
  /** DSCP value (and mask) that marks INT over TCP/UDP. Default: none. */
  intDscp?: { value: number; mask: number } | null
}

// ---- spec constants ----

export const REPORT_VERSION = 2
export const REP_TYPE = { innerOnly: 0, int: 1, ioam: 2 } as const
export const IN_TYPE = { none: 0, tlv: 1, dsExtension: 2, ethernet: 3, ipv4: 4, ipv6: 5 } as const
export const TLV_TYPE = { dsExtension: 0, ethernet: 1, ipv4: 2, ipv6: 3 } as const

// ---- decoding ----

/** Decodes one UDP payload. Never throws. */
export function decodeTelemetryReport(buf: Uint8Array, opts: DecodeOptions = {}): DecodeResult {
  try {
    return { ok: true, packet: decodePacket(buf, opts) }
  } catch (e) {
    if (e instanceof Malformed) return { ok: false, reason: e.reason }
    // A bug here must not take the collector down; it is counted like a malformed packet.
    return { ok: false, reason: `decoder error: ${e instanceof Error ? e.message : String(e)}` }
  }
}

function decodePacket(b: Uint8Array, opts: DecodeOptions): TelemetryReportPacket {
  if (b.length < 8) throw new Malformed('short: no room for the Telemetry Report Group Header (8 octets)')
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength)
  const w0 = v.getUint32(0)
  const ver = w0 >>> 28
  if (ver !== REPORT_VERSION) throw new Malformed(`bad version: Ver ${ver} (expected ${REPORT_VERSION})`)
  const packet: TelemetryReportPacket = {
    Ver: ver,
    hw_id: (w0 >>> 22) & 0x3f,
    'Sequence Number': w0 & 0x3fffff,
    'Node ID': v.getUint32(4),
    reports: [],
  }
  let off = 8
  if (off === b.length) throw new Malformed('short: no Individual Report after the group header')
  while (off < b.length) {
    if (b.length - off < 4) throw new Malformed(`short: ${b.length - off} trailing octets after report ${packet.reports.length + 1}`)
    const r = decodeReport(b, v, off, packet['Node ID'], opts)
    packet.reports.push(r.report)
    off = r.end
  }
  return packet
}

function decodeReport(
  b: Uint8Array,
  v: DataView,
  start: number,
  nodeId: number,
  opts: DecodeOptions,
): { report: IndividualReport; end: number } {
  const h = v.getUint32(start)
  const repType = h >>> 28
  const inType = (h >>> 24) & 0xf
  const repLen = (h >>> 16) & 0xff
  const mdLen = (h >>> 8) & 0xff
  const which = `report at octet ${start}`
  const report: IndividualReport = {
    RepType: repType,
    InType: inType,
    'Report Length': repLen,
    'MD Length': mdLen,
    D: (h >>> 7) & 1,
    Q: (h >>> 6) & 1,
    F: (h >>> 5) & 1,
    I: (h >>> 4) & 1,
    hops: [],
  }
  if (repType === REP_TYPE.ioam) throw new Malformed(`${which}: RepType 2 (IOAM) has no format in Telemetry Report v2.0`)
  if (repType !== REP_TYPE.innerOnly && repType !== REP_TYPE.int) throw new Malformed(`${which}: reserved RepType ${repType}`)
  if (inType > IN_TYPE.ipv6) throw new Malformed(`${which}: reserved InType ${inType}`)
  const bodyStart = start + 4
  const end = bodyStart + repLen * 4
  if (end > b.length) throw new Malformed(`${which}: Report Length ${repLen} words overruns the packet by ${end - b.length} octets`)

  let innerStart = bodyStart
  if (repType === REP_TYPE.int) {
    if (repLen < 2) throw new Malformed(`${which}: Report Length ${repLen} is shorter than the INT main contents (2 words)`)
    if (2 + mdLen > repLen) throw new Malformed(`${which}: MD Length ${mdLen} does not fit in Report Length ${repLen}`)
    const m0 = v.getUint32(bodyStart)
    const m1 = v.getUint32(bodyStart + 4)
    const repMdBits = m0 >>> 16
    report.RepMdBits = repMdBits
    report['Domain Specific ID'] = m0 & 0xffff
    report.DSMdBits = m1 >>> 16
    report.DSMdstatus = m1 & 0xffff
    const unknown = repMdBits & ~REP_MD_KNOWN & 0xffff
    if (unknown) throw new Malformed(`${which}: RepMdBits sets reserved bit ${firstBit(unknown)}`)
    const mdStart = bodyStart + 8
    const mdEnd = mdStart + mdLen * 4
    const baseline = metadataBytes(repMdBits)
    if (baseline > mdLen * 4) throw new Malformed(`${which}: RepMdBits selects ${baseline} octets but MD Length is ${mdLen * 4}`)
    if (baseline < mdLen * 4 && report.DSMdBits === 0) {
      throw new Malformed(`${which}: MD Length ${mdLen * 4} octets but RepMdBits selects ${baseline} and DSMdBits is 0`)
    }
    if (repMdBits !== 0 || mdLen > 0) {
      const hop = readHop(b, v, mdStart, repMdBits, 'report')
      hop['Switch ID'] = nodeId
      if (mdEnd > mdStart + baseline) hop['Domain Specific Metadata'] = hex(b, mdStart + baseline, mdEnd)
      report.hops.push(hop)
    }
    innerStart = mdEnd
  }

  decodeInner(b, v, report, innerStart, end, which, opts)
  return { report, end }
}

function decodeInner(
  b: Uint8Array,
  v: DataView,
  report: IndividualReport,
  start: number,
  end: number,
  which: string,
  opts: DecodeOptions,
): void {
  switch (report.InType) {
    case IN_TYPE.none:
      if (end !== start) throw new Malformed(`${which}: InType 0 (None) but ${end - start} octets of inner contents`)
      return
    case IN_TYPE.dsExtension:
      return
    case IN_TYPE.tlv: {
      if (end === start) throw new Malformed(`${which}: InType 1 (TLV) but no TLV`)
      let o = start
      while (o < end) {
        if (end - o < 4) throw new Malformed(`${which}: ${end - o} octets left for a TLV header`)
        const t = v.getUint32(o)
        const tlvType = t >>> 28
        const tlvEnd = o + 4 + ((t >>> 16) & 0xff) * 4
        if (tlvEnd > end) throw new Malformed(`${which}: TLVLength overruns the report by ${tlvEnd - end} octets`)
        if (tlvType > TLV_TYPE.ipv6) throw new Malformed(`${which}: reserved TLVType ${tlvType}`)
        if (tlvType !== TLV_TYPE.dsExtension) truncatedPacket(b, v, report, o + 4, tlvEnd, tlvType === TLV_TYPE.ethernet ? 'eth' : tlvType === TLV_TYPE.ipv4 ? 4 : 6, which, opts)
        o = tlvEnd
      }
      return
    }
    default:
      truncatedPacket(b, v, report, start, end, report.InType === IN_TYPE.ethernet ? 'eth' : report.InType === IN_TYPE.ipv4 ? 4 : 6, which, opts)
  }
}

/**
 * A truncated packet may end anywhere; what is there is read as far as it goes. Only an INT
 * stack that the packet's own shim says is longer than what is left is malformed.
 */
function truncatedPacket(
  b: Uint8Array,
  v: DataView,
  report: IndividualReport,
  start: number,
  end: number,
  first: 'eth' | 4 | 6,
  which: string,
  opts: DecodeOptions,
): void {
  let o = start
  let l3: 4 | 6 | null = first === 'eth' ? null : first
  if (first === 'eth') {
    if (end - o < 14) return
    let etherType = v.getUint16(o + 12)
    o += 14
    while ((etherType === 0x8100 || etherType === 0x88a8) && end - o >= 4) {
      etherType = v.getUint16(o + 2)
      o += 4
    }
    if (etherType === 0x0800) l3 = 4
    else if (etherType === 0x86dd) l3 = 6
    else return
  }
  let protocol: number
  let dscp: number
  if (l3 === 4) {
    if (end - o < 20 || b[o] >>> 4 !== 4) return
    const ihl = (b[o] & 0xf) * 4
    if (ihl < 20) return
    dscp = b[o + 1] >>> 2
    protocol = b[o + 9]
    report.inner = { ipVersion: 4, src: `${b[o + 12]}.${b[o + 13]}.${b[o + 14]}.${b[o + 15]}`, dst: `${b[o + 16]}.${b[o + 17]}.${b[o + 18]}.${b[o + 19]}`, protocol }
    o += ihl
  } else {
    if (end - o < 40 || b[o] >>> 4 !== 6) return
    dscp = (v.getUint16(o) >>> 6) & 0x3f
    protocol = b[o + 6]
    report.inner = { ipVersion: 6, src: ipv6(v, o + 8), dst: ipv6(v, o + 24), protocol }
    o += 40
  }
  if (protocol !== 6 && protocol !== 17) return
  if (end - o < 4) return
  const inner = report.inner
  inner.srcPort = v.getUint16(o)
  inner.dstPort = v.getUint16(o + 2)
  const byPort = protocol === 17 && (opts.intUdpPorts?.includes(inner.dstPort) ?? false)
  const byDscp = opts.intDscp ? (dscp & opts.intDscp.mask) === (opts.intDscp.value & opts.intDscp.mask) : false
  if (!byPort && !byDscp) return
  let shim: number
  if (protocol === 17) {
    shim = o + 8
  } else {
    if (end - o < 13) return
    shim = o + (b[o + 12] >>> 4) * 4
  }
  if (shim >= end) return
  intMd(b, v, report, shim, end, which)
}

function ipv6(v: DataView, o: number): string {
  const parts: string[] = []
  for (let i = 0; i < 8; i++) parts.push(v.getUint16(o + 2 * i).toString(16))
  return parts.join(':')
}

// ---- counting ----

export interface DecoderCounts {
  packets: number
  decoded: number
  malformed: number
  reports: number
  hops: number
}

/** Decodes and counts; malformed packets are counted by reason and otherwise skipped. */
export class IntDecoder {
  readonly counts: DecoderCounts = { packets: 0, decoded: 0, malformed: 0, reports: 0, hops: 0 }
  /** Reasons with the number of times each was seen (the reason's text up to its first digit-free colon). */
  readonly malformedReasons = new Map<string, number>()

  constructor(readonly options: DecodeOptions = {}) {}

  decode(buf: Uint8Array): DecodeResult {
    this.counts.packets++
    const r = decodeTelemetryReport(buf, this.options)
    if (r.ok) {
      this.counts.decoded++
      this.counts.reports += r.packet.reports.length
      for (const rep of r.packet.reports) this.counts.hops += rep.hops.length
    } else {
      this.counts.malformed++
      const key = r.reason.replace(/\d+/g, 'N')
      this.malformedReasons.set(key, (this.malformedReasons.get(key) ?? 0) + 1)
    }
    return r
  }
}

// ---- JSON lines ----

/**
 * One object per individual report: the group header's fields, the report's, and its hops (one
 * object each). 64-bit timestamps are written as exact JSON integers (they may exceed 2^53, so a
 * JavaScript reader should parse them with a big-integer-aware parser if it needs every digit).
 */
export function reportToJson(packet: TelemetryReportPacket, report: IndividualReport): string {
  const { reports: _reports, ...group } = packet
  const { hops, ...fields } = report
  return stringify({ ...group, ...fields, hops })
}

function stringify(value: unknown): string {
  const marks: string[] = []
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'bigint') return v
    marks.push(v.toString())
    return `\u0000big${marks.length - 1}\u0000`
  })
  return marks.length === 0 ? text : text.replace(/"\\u0000big(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)])
}

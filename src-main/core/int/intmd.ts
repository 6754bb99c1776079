// INT-MD per-hop metadata parsing (INT v2.1), split out of decode.ts so the report framing and the metadata stack read apart.
//
// What both decode.ts and the INT-MD stack share: the hop shape, the bitmap helpers, the
// metadata reader, and the Malformed signal decodeTelemetryReport turns into { ok: false, reason }.

/** One hop's metadata. Keys are present only when their bit was set. */
export interface IntHop {
  /** Where the hop came from: the report's own metadata (RepMdBits) or the embedded INT-MD stack. */
  source: 'report' | 'stack'
  /** INT bit 0. For a 'report' hop: the reporting node (the group header's Node ID). */
  'Switch ID'?: number
  /** INT bit 1 / RepMdBits bit 1 (16 + 16 bits). */
  'Level 1 Ingress Port ID'?: number
  'Level 1 Egress Port ID'?: number
  /** bit 2. */
  'Hop latency'?: number
  /** bit 3 (8 + 24 bits); for a report hop also RepMdBits bit 15's Queue ID when bit 3 is absent. */
  'Queue ID'?: number
  'Queue occupancy'?: number
  /** bits 4 and 5: 64 bits, exact. */
  'Ingress timestamp'?: bigint
  'Egress timestamp'?: bigint
  /** bit 6 (32 + 32 bits). */
  'Level 2 Ingress Port ID'?: number
  'Level 2 Egress Port ID'?: number
  /** bit 7. */
  'Egress port Tx utilization'?: number
  /** bit 8 (8 + 24 bits). */
  'Buffer ID'?: number
  'Buffer occupancy'?: number
  /** RepMdBits bit 15 (report hops only): Queue ID (8) + Drop Reason (8) + Padding (16). */
  'Drop Reason'?: number
  /** INT bit 15 (stack hops only). */
  'Checksum Complement'?: number
  /** Domain specific metadata (DSMdBits / DS Instruction), raw, as hex. */
  'Domain Specific Metadata'?: string
}

/** INT shim header for TCP/UDP and the INT-MD metadata header (INT v2.1 §5.7, §5.8). */
export interface IntMdHeader {
  Type: number
  NPT: number
  Length: number
  Ver: number
  D: number
  E: number
  M: number
  'Hop ML': number
  'Remaining Hop Count': number
  'Instruction Bitmap': number
  'Domain Specific ID': number
  'DS Instruction': number
  'DS Flags': number
}

/** The part of an Individual Report that the INT-MD stack fills in. */
export interface IntMdTarget {
  'INT-MD'?: IntMdHeader
  hops: IntHop[]
}

// ---- spec constants ----

export const INT_VERSION = 2
export const INT_TYPE_MD = 1

/** Bit n of a 16-bit bitmap where bit 0 is the MSB, as both specs number them. */
export const bit = (n: number): number => 0x8000 >>> n

/** RepMdBits: bits the report spec defines (1..8, 15). Bit 0 and 9..14 are reserved. */
export const REP_MD_KNOWN = bit(1) | bit(2) | bit(3) | bit(4) | bit(5) | bit(6) | bit(7) | bit(8) | bit(15)
/** INT Instruction Bitmap: bits 0..8 and 15; 9..14 are reserved. */
const INSTR_KNOWN = bit(0) | REP_MD_KNOWN

/** Octets of metadata a bitmap selects: 4 per bit, 8 for bits 4, 5 and 6 (both specs). */
export function metadataBytes(bitmap: number): number {
  let n = 0
  for (let b = 0; b < 16; b++) if (bitmap & bit(b)) n += b >= 4 && b <= 6 ? 8 : 4
  return n
}

// ---- decoding ----

export class Malformed {
  constructor(readonly reason: string) {}
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
export function hex(b: Uint8Array, from: number, to: number): string {
  let s = ''
  for (let i = from; i < to; i++) s += HEX[b[i]]
  return s
}

export function firstBit(bits: number): number {
  for (let n = 0; n < 16; n++) if (bits & bit(n)) return n
  return -1
}

/** Reads the metadata a bitmap selects, in bit order, starting at off. */
export function readHop(b: Uint8Array, v: DataView, off: number, bitmap: number, source: 'report' | 'stack'): IntHop {
  const hop: IntHop = { source }
  let o = off
  if (bitmap & bit(0)) {
    hop['Switch ID'] = v.getUint32(o)
    o += 4
  }
  if (bitmap & bit(1)) {
    hop['Level 1 Ingress Port ID'] = v.getUint16(o)
    hop['Level 1 Egress Port ID'] = v.getUint16(o + 2)
    o += 4
  }
  if (bitmap & bit(2)) {
    hop['Hop latency'] = v.getUint32(o)
    o += 4
  }
  if (bitmap & bit(3)) {
    hop['Queue ID'] = b[o]
    hop['Queue occupancy'] = v.getUint32(o) & 0xffffff
    o += 4
  }
  if (bitmap & bit(4)) {
    hop['Ingress timestamp'] = v.getBigUint64(o)
    o += 8
  }
  if (bitmap & bit(5)) {
    hop['Egress timestamp'] = v.getBigUint64(o)
    o += 8
  }
  if (bitmap & bit(6)) {
    hop['Level 2 Ingress Port ID'] = v.getUint32(o)
    hop['Level 2 Egress Port ID'] = v.getUint32(o + 4)
    o += 8
  }
  if (bitmap & bit(7)) {
    hop['Egress port Tx utilization'] = v.getUint32(o)
    o += 4
  }
  if (bitmap & bit(8)) {
    hop['Buffer ID'] = b[o]
    hop['Buffer occupancy'] = v.getUint32(o) & 0xffffff
    o += 4
  }
  if (bitmap & bit(15)) {
    if (source === 'report') {
      if (hop['Queue ID'] === undefined) hop['Queue ID'] = b[o]
      hop['Drop Reason'] = b[o + 1]
    } else {
      hop['Checksum Complement'] = v.getUint32(o)
    }
  }
  return hop
}

/** INT shim for TCP/UDP, INT-MD metadata header and the metadata stack (INT v2.1). */
export function intMd(b: Uint8Array, v: DataView, report: IntMdTarget, o: number, end: number, which: string): void {
  if (end - o < 4) throw new Malformed(`${which}: INT shim header truncated`)
  const s = v.getUint32(o)
  const type = s >>> 28
  const length = (s >>> 16) & 0xff
  if (type !== INT_TYPE_MD) return // destination / MX types carry no metadata stack
  const hdr = o + 4
  const stackEnd = hdr + length * 4
  if (length < 3) throw new Malformed(`${which}: INT shim Length ${length} is shorter than the INT-MD metadata header (3 words)`)
  if (stackEnd > end) throw new Malformed(`${which}: INT shim Length ${length} overruns the truncated packet by ${stackEnd - end} octets`)
  const h0 = v.getUint32(hdr)
  const h1 = v.getUint32(hdr + 4)
  const h2 = v.getUint32(hdr + 8)
  const md: IntMdHeader = {
    Type: type,
    NPT: (s >>> 26) & 0x3,
    Length: length,
    Ver: h0 >>> 28,
    D: (h0 >>> 27) & 1,
    E: (h0 >>> 26) & 1,
    M: (h0 >>> 25) & 1,
    'Hop ML': (h0 >>> 8) & 0x1f,
    'Remaining Hop Count': h0 & 0xff,
    'Instruction Bitmap': h1 >>> 16,
    'Domain Specific ID': h1 & 0xffff,
    'DS Instruction': h2 >>> 16,
    'DS Flags': h2 & 0xffff,
  }
  report['INT-MD'] = md
  if (md.Ver !== INT_VERSION) throw new Malformed(`${which}: INT-MD header Ver ${md.Ver} (expected ${INT_VERSION})`)
  const bitmap = md['Instruction Bitmap']
  const unknown = bitmap & ~INSTR_KNOWN & 0xffff
  if (unknown) throw new Malformed(`${which}: Instruction Bitmap sets reserved bit ${firstBit(unknown)}`)
  const stackStart = hdr + 12
  const stackLen = stackEnd - stackStart
  if (stackLen === 0) return
  const perHop = md['Hop ML'] * 4
  if (perHop === 0) throw new Malformed(`${which}: Hop ML 0 with a ${stackLen}-octet metadata stack`)
  const baseline = metadataBytes(bitmap)
  if (baseline > perHop) throw new Malformed(`${which}: Instruction Bitmap selects ${baseline} octets per hop but Hop ML is ${perHop}`)
  if (baseline < perHop && md['DS Instruction'] === 0) {
    throw new Malformed(`${which}: Hop ML ${perHop} octets but Instruction Bitmap selects ${baseline} and DS Instruction is 0`)
  }
  const extra = stackLen % perHop
  // Source-only domain specific metadata makes the bottom (source) entry longer (INT v2.1 §5.8).
  if (extra !== 0 && md['DS Instruction'] === 0) {
    throw new Malformed(`${which}: metadata stack of ${stackLen} octets is not a multiple of Hop ML (${perHop} octets)`)
  }
  const n = Math.floor(stackLen / perHop)
  if (n === 0) throw new Malformed(`${which}: metadata stack of ${stackLen} octets is shorter than one hop (${perHop} octets)`)
  const csum = (bitmap & bit(15)) !== 0
  for (let i = 0; i < n; i++) {
    const at = stackStart + i * perHop
    const entryEnd = i === n - 1 ? stackEnd : at + perHop
    // The checksum complement is the last metadata of an entry; domain specific metadata sits before it.
    const baseNoCsum = csum ? baseline - 4 : baseline
    const hop = readHop(b, v, at, csum ? bitmap & ~bit(15) : bitmap, 'stack')
    const dsEnd = csum ? entryEnd - 4 : entryEnd
    if (dsEnd > at + baseNoCsum) hop['Domain Specific Metadata'] = hex(b, at + baseNoCsum, dsEnd)
    if (csum) hop['Checksum Complement'] = v.getUint32(entryEnd - 4)
    report.hops.push(hop)
  }
}

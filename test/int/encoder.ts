// An encoder for Telemetry Report v2.0 packets written straight from the bit diagrams of the
// Telemetry Report Format Specification v2.0 (§3.2 group header, §3.3 individual report
// header, §3.3.1 INT main contents, §3.3.2 TLV) and the INT Dataplane Specification v2.1
// (§5.7 INT shim header for TCP/UDP, §5.8 INT-MD metadata header and stack). It shares no
// code with src-main/core/int/decode.ts: it writes bits MSB-first into words with its own
// bit writer, so a mistake in one is not repeated in the other.

/** Writes fields MSB-first, as the specs' diagrams read left to right. */
export class BitWriter {
  private readonly bits: number[] = []

  put(value: number | bigint, width: number): this {
    const v = BigInt(value)
    for (let i = width - 1; i >= 0; i--) this.bits.push(Number((v >> BigInt(i)) & 1n))
    return this
  }

  bytes(data: ArrayLike<number>): this {
    for (let i = 0; i < data.length; i++) this.put(data[i], 8)
    return this
  }

  get length(): number {
    return this.bits.length / 8
  }

  toBytes(): Uint8Array {
    if (this.bits.length % 8 !== 0) throw new Error(`BitWriter: ${this.bits.length} bits is not whole octets`)
    const out = new Uint8Array(this.bits.length / 8)
    for (let i = 0; i < this.bits.length; i++) if (this.bits[i]) out[i >> 3] |= 0x80 >> (i & 7)
    return out
  }
}

/** Per-hop metadata, named as in the INT spec's instruction list. */
export interface HopSpec {
  switchId?: number
  l1Ingress?: number
  l1Egress?: number
  hopLatency?: number
  queueId?: number
  queueOccupancy?: number
  ingressTs?: bigint
  egressTs?: bigint
  l2Ingress?: number
  l2Egress?: number
  txUtil?: number
  bufferId?: number
  bufferOccupancy?: number
  /** RepMdBits bit 15 (report) */
  dropQueueId?: number
  dropReason?: number
  /** Instruction bit 15 (INT stack) */
  checksumComplement?: number
  /** domain specific words appended (before the checksum complement) */
  ds?: number[]
}

/** Bit n, numbered from the MSB of a 16-bit field as both specs do. */
export const B = (n: number): number => 1 << (15 - n)

/**
 * The metadata selected by a bitmap for one hop, in bit order. `kind` says which spec's bit 15
 * applies: the report's (Queue ID + Drop Reason + Padding) or INT's (Checksum Complement).
 */
export function writeHop(w: BitWriter, bitmap: number, h: HopSpec, kind: 'report' | 'int'): void {
  if (bitmap & B(0)) w.put(h.switchId ?? 0, 32)
  if (bitmap & B(1)) w.put(h.l1Ingress ?? 0, 16).put(h.l1Egress ?? 0, 16)
  if (bitmap & B(2)) w.put(h.hopLatency ?? 0, 32)
  if (bitmap & B(3)) w.put(h.queueId ?? 0, 8).put(h.queueOccupancy ?? 0, 24)
  if (bitmap & B(4)) w.put(h.ingressTs ?? 0n, 64)
  if (bitmap & B(5)) w.put(h.egressTs ?? 0n, 64)
  if (bitmap & B(6)) w.put(h.l2Ingress ?? 0, 32).put(h.l2Egress ?? 0, 32)
  if (bitmap & B(7)) w.put(h.txUtil ?? 0, 32)
  if (bitmap & B(8)) w.put(h.bufferId ?? 0, 8).put(h.bufferOccupancy ?? 0, 24)
  for (const d of h.ds ?? []) w.put(d, 32)
  if (bitmap & B(15)) {
    if (kind === 'report') w.put(h.dropQueueId ?? 0, 8).put(h.dropReason ?? 0, 8).put(0, 16)
    else w.put(h.checksumComplement ?? 0, 32)
  }
}

/** Octets per hop for a bitmap: 4 per set bit, 8 for bits 4, 5, 6. */
export function hopOctets(bitmap: number): number {
  let n = 0
  for (let b = 0; b < 16; b++) if (bitmap & B(b)) n += b >= 4 && b <= 6 ? 8 : 4
  return n
}

export interface IntStackSpec {
  instructionBitmap: number
  hops: HopSpec[] // top of stack first
  dsWordsPerHop?: number
  remainingHopCount?: number
  domainSpecificId?: number
  dsInstruction?: number
  dsFlags?: number
  d?: number
  e?: number
  m?: number
  ver?: number
}

/** IPv4 + UDP(dst port) + INT shim (Type 1, NPT 2) + INT-MD header + stack + an 8-octet original TCP stub. */
export function ipv4UdpWithInt(stack: IntStackSpec, udpDstPort: number, dscp = 0): Uint8Array {
  const perHopWords = hopOctets(stack.instructionBitmap) / 4 + (stack.dsWordsPerHop ?? 0)
  const stackWords = perHopWords * stack.hops.length
  const shimLength = 3 + stackWords // INT-MD header + stack, shim not counted (v2.0+)
  const w = new BitWriter()
  const payload = 4 + shimLength * 4 + 8
  // IPv4 (RFC 791)
  w.put(4, 4).put(5, 4).put(dscp, 6).put(0, 2).put(20 + 8 + payload, 16)
  w.put(0x1234, 16).put(2, 3).put(0, 13)
  w.put(64, 8).put(17, 8).put(0, 16)
  w.bytes([10, 0, 1, 2]).bytes([10, 0, 2, 3])
  // UDP (RFC 768)
  w.put(40000, 16).put(udpDstPort, 16).put(8 + payload, 16).put(0, 16)
  // INT shim for TCP/UDP: Type | NPT | R R | Length | UDP port, IP Proto, or DSCP
  w.put(1, 4).put(2, 2).put(0, 2).put(shimLength, 8).put(0, 8).put(6, 8)
  // INT-MD metadata header
  w.put(stack.ver ?? 2, 4).put(stack.d ?? 0, 1).put(stack.e ?? 0, 1).put(stack.m ?? 0, 1).put(0, 12)
  w.put(perHopWords, 5).put(stack.remainingHopCount ?? 8 - stack.hops.length, 8)
  w.put(stack.instructionBitmap, 16).put(stack.domainSpecificId ?? 0, 16)
  w.put(stack.dsInstruction ?? 0, 16).put(stack.dsFlags ?? 0, 16)
  for (const h of stack.hops) writeHop(w, stack.instructionBitmap, h, 'int')
  // the original TCP header's first 8 octets (ports, sequence number)
  w.put(5001, 16).put(80, 16).put(0xdeadbeef, 32)
  return w.toBytes()
}

export type Inner =
  | { kind: 'none' }
  | { kind: 'bytes'; inType: number; data: Uint8Array } // inType 2..5 with raw data (must be whole words)
  | { kind: 'tlv'; tlvs: Array<{ type: number; template?: number; data: Uint8Array }> }

export interface ReportSpec {
  repType?: number // default 1 (INT)
  d?: number
  q?: number
  f?: number
  i?: number
  repMdBits?: number
  domainSpecificId?: number
  dsMdBits?: number
  dsMdStatus?: number
  local?: HopSpec // the reporting node's own metadata (RepMdBits)
  dsWords?: number[] // Variable Optional Domain Specific Metadata
  inner?: Inner
  /** Overrides for corrupting tests. */
  reportLength?: number
  mdLength?: number
  inType?: number
}

function pad4(data: Uint8Array): Uint8Array {
  if (data.length % 4 === 0) return data
  const out = new Uint8Array(data.length + (4 - (data.length % 4)))
  out.set(data)
  return out
}

export function individualReport(r: ReportSpec): Uint8Array {
  const repType = r.repType ?? 1
  const main = new BitWriter()
  let mdWords = 0
  if (repType === 1) {
    const md = new BitWriter()
    writeHop(md, r.repMdBits ?? 0, r.local ?? {}, 'report')
    for (const d of r.dsWords ?? []) md.put(d, 32)
    mdWords = md.length / 4
    main.put(r.repMdBits ?? 0, 16).put(r.domainSpecificId ?? 0, 16)
    main.put(r.dsMdBits ?? 0, 16).put(r.dsMdStatus ?? 0, 16)
    main.bytes(md.toBytes())
  }
  const inner = new BitWriter()
  let inType = 0
  const spec = r.inner ?? { kind: 'none' }
  if (spec.kind === 'bytes') {
    inType = spec.inType
    inner.bytes(pad4(spec.data))
  } else if (spec.kind === 'tlv') {
    inType = 1
    for (const t of spec.tlvs) {
      const data = pad4(t.data)
      // TLVType | Rsvd | TLVLength | TLV Data Template
      inner.put(t.type, 4).put(0, 4).put(data.length / 4, 8).put(t.template ?? 0, 16)
      inner.bytes(data)
    }
  }
  const reportLength = r.reportLength ?? (main.length + inner.length) / 4
  const w = new BitWriter()
  // RepType | InType | Report Length | MD Length | D | Q | F | I | Rsvd
  w.put(repType, 4).put(r.inType ?? inType, 4).put(reportLength, 8).put(r.mdLength ?? mdWords, 8)
  w.put(r.d ?? 0, 1).put(r.q ?? 0, 1).put(r.f ?? 0, 1).put(r.i ?? 0, 1).put(0, 4)
  w.bytes(main.toBytes()).bytes(inner.toBytes())
  return w.toBytes()
}

export interface PacketSpec {
  ver?: number
  hwId: number
  seqNo: number
  nodeId: number
  reports: ReportSpec[]
}

export function telemetryReport(p: PacketSpec): Uint8Array {
  const w = new BitWriter()
  // Ver | hw_id | Sequence Number ; Node ID
  w.put(p.ver ?? 2, 4).put(p.hwId, 6).put(p.seqNo, 22).put(p.nodeId, 32)
  for (const r of p.reports) w.bytes(individualReport(r))
  return w.toBytes()
}

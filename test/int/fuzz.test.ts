// 10^6 random and mutated packets through the decoder: no exception escapes, and every packet is
// either decoded or counted as malformed. Seeded, so a failure names a packet that can be rebuilt.
import { describe, expect, it } from 'vitest'
import { IntDecoder } from '../../src-main/core/int/decode'
import { B, ipv4UdpWithInt, telemetryReport, type HopSpec, type ReportSpec } from './encoder'

const INT_PORT = 5555
const TOTAL = 1_000_000

/** xorshift32: small, seedable, good enough to pick mutations. */
function prng(seed: number) {
  let s = seed >>> 0 || 1
  const next = () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s
  }
  return { u32: next, below: (n: number) => next() % n, chance: (p: number) => next() / 2 ** 32 < p }
}

function validPool(r: ReturnType<typeof prng>, n: number): Uint8Array[] {
  const bitsOf = (choices: number[]) => choices.filter(() => r.chance(0.4)).reduce((m, b) => m | B(b), 0)
  const hop = (): HopSpec => ({
    switchId: r.u32(), l1Ingress: r.below(65536), l1Egress: r.below(65536), hopLatency: r.u32(), queueId: r.below(256), queueOccupancy: r.below(1 << 24),
    ingressTs: BigInt(r.u32()) << 20n, egressTs: BigInt(r.u32()) << 20n, l2Ingress: r.u32(), l2Egress: r.u32(), txUtil: r.u32(), bufferId: r.below(256),
    bufferOccupancy: r.below(1 << 24), dropQueueId: r.below(256), dropReason: r.below(256), checksumComplement: r.u32(),
  })
  const pool: Uint8Array[] = []
  for (let k = 0; k < n; k++) {
    const reports: ReportSpec[] = []
    for (let i = 0, m = 1 + r.below(3); i < m; i++) {
      const kind = r.below(4)
      if (kind === 0) {
        reports.push({ repType: 0, inner: { kind: 'bytes', inType: 2, data: new Uint8Array(4 * r.below(4)) } })
        continue
      }
      const bitmap = bitsOf([0, 1, 2, 3, 4, 5, 6, 7, 8, 15]) || B(0)
      const stack = r.below(6)
      reports.push({
        f: 1,
        repMdBits: bitsOf([1, 2, 3, 4, 5, 6, 7, 8, 15]),
        local: hop(),
        inner:
          kind === 1
            ? { kind: 'bytes', inType: 4, data: ipv4UdpWithInt({ instructionBitmap: bitmap, hops: Array.from({ length: stack }, hop) }, INT_PORT) }
            : kind === 2
              ? { kind: 'tlv', tlvs: [{ type: 0, data: new Uint8Array(4) }, { type: 2, data: ipv4UdpWithInt({ instructionBitmap: bitmap, hops: Array.from({ length: stack }, hop) }, INT_PORT) }] }
              : { kind: 'none' },
      })
    }
    pool.push(telemetryReport({ hwId: r.below(64), seqNo: r.below(1 << 22), nodeId: r.u32(), reports }))
  }
  return pool
}

describe('decoder fuzz', () => {
  it(`${TOTAL} random and mutated packets: nothing thrown, each decoded or counted malformed`, () => {
    const r = prng(0x9e3779b9)
    const pool = validPool(r, 500)
    const decoder = new IntDecoder({ intUdpPorts: [INT_PORT] })
    const kinds = { valid: 0, random: 0, bitflip: 0, truncate: 0, lengthField: 0, extend: 0 }
    let thrown = 0
    let decoderErrors = 0
    const scratch = new Uint8Array(2048)
    for (let k = 0; k < TOTAL; k++) {
      const base = pool[r.below(pool.length)]
      let pkt: Uint8Array
      const what = r.below(16)
      if (what === 0) {
        kinds.valid++
        pkt = base
      } else if (what === 1) {
        kinds.random++
        const len = r.below(160)
        pkt = scratch.subarray(0, len)
        for (let i = 0; i < len; i++) pkt[i] = r.below(256)
        if (r.chance(0.5) && len > 0) pkt[0] = (pkt[0] & 0x0f) | 0x20 // a valid Ver, so the rest gets read
      } else {
        pkt = scratch.subarray(0, base.length)
        pkt.set(base)
        if (what < 8) {
          kinds.bitflip++
          for (let f = 0, n = 1 + r.below(4); f < n; f++) pkt[r.below(pkt.length)] ^= 1 << r.below(8)
        } else if (what < 11) {
          kinds.truncate++
          pkt = pkt.subarray(0, r.below(pkt.length))
        } else if (what < 15) {
          kinds.lengthField++
          // Report Length / MD Length of the first report, INT shim Length or Hop ML somewhere in it
          const at = [9, 10, r.below(pkt.length), r.below(pkt.length)][r.below(4)]
          pkt[at] = r.chance(0.5) ? r.below(256) : (pkt[at] + (r.chance(0.5) ? 1 : 255)) & 0xff
        } else {
          kinds.extend++
          const extra = 1 + r.below(12)
          const out = scratch.subarray(0, Math.min(scratch.length, base.length + extra))
          for (let i = base.length; i < out.length; i++) out[i] = r.below(256)
          pkt = out
        }
      }
      try {
        const res = decoder.decode(pkt)
        if (!res.ok && res.reason.startsWith('decoder error')) decoderErrors++
      } catch {
        thrown++
      }
    }
    const c = decoder.counts
    console.log(`fuzz: ${JSON.stringify(kinds)} → decoded ${c.decoded}, malformed ${c.malformed}; top reasons:`,
      [...decoder.malformedReasons].sort((a, b) => b[1] - a[1]).slice(0, 6))
    expect(thrown).toBe(0)
    expect(decoderErrors).toBe(0)
    expect(c.packets).toBe(TOTAL)
    expect(c.decoded + c.malformed).toBe(TOTAL)
    expect(c.decoded).toBeGreaterThanOrEqual(kinds.valid)
    expect(c.malformed).toBeGreaterThan(TOTAL / 4)
  })
})

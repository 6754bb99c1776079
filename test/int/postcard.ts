// Postcards as the v1model programs built with -DP4LAB_INT send them (p4/include/int.p4's
// layout: RepType 1, InType 4, F 1, RepMdBits 0x7C00, the original IPv4 header and 8 octets),
// written with the spec encoder, and the Ethernet/IPv4/UDP frame intEncap puts around them.
import { B, BitWriter, telemetryReport } from './encoder'

export interface Postcard {
  seq: number
  nodeId: number
  ingressPort: number
  egressPort: number
  latencyNs: number
  queuePackets: number
  ingressTsNs: bigint
  /** The reported packet's addresses (a TCP segment 10.0.0.1:5001 → 10.0.1.1:80 by default). */
  src?: [number, number, number, number]
  dst?: [number, number, number, number]
}

/** The UDP payload: one Telemetry Report v2.0 packet with one INT report of one hop. */
export function postcard(p: Postcard): Uint8Array {
  const inner = new BitWriter()
  inner.bytes([0x45, 0, 0, 40, 0, 0, 0x40, 0, 63, 6, 0, 0, ...(p.src ?? [10, 0, 0, 1]), ...(p.dst ?? [10, 0, 1, 1])]).bytes([0x13, 0x89, 0, 80, 0, 0, 0, 1])
  return telemetryReport({
    hwId: 0,
    seqNo: p.seq,
    nodeId: p.nodeId,
    reports: [
      {
        f: 1,
        repMdBits: B(1) | B(2) | B(3) | B(4) | B(5),
        local: {
          l1Ingress: p.ingressPort,
          l1Egress: p.egressPort,
          hopLatency: p.latencyNs,
          queueId: 0,
          queueOccupancy: p.queuePackets,
          ingressTs: p.ingressTsNs,
          egressTs: p.ingressTsNs + BigInt(p.latencyNs),
        },
        inner: { kind: 'bytes', inType: 4, data: inner.toBytes() },
      },
    ],
  })
}

function bytesOf(text: string, sep: string, radix: number): number[] {
  return text.split(sep).map((x) => parseInt(x, radix))
}

/** intEncap's frame: Ethernet (dstMac, srcMac, IPv4), IPv4 (DF, TTL 64, UDP, header checksum), UDP (port → port, checksum 0), payload. */
export function reportFrame(a: { srcMac: string; dstMac: string; srcIp: string; dstIp: string; udpPort: number }, payload: Uint8Array): Buffer {
  const ip = Buffer.alloc(20)
  ip[0] = 0x45
  ip.writeUInt16BE(20 + 8 + payload.length, 2)
  ip.writeUInt16BE(0x4000, 6)
  ip[8] = 64
  ip[9] = 17
  Buffer.from(bytesOf(a.srcIp, '.', 10)).copy(ip, 12)
  Buffer.from(bytesOf(a.dstIp, '.', 10)).copy(ip, 16)
  let sum = 0
  for (let i = 0; i < 20; i += 2) sum += ip.readUInt16BE(i)
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16)
  ip.writeUInt16BE(~sum & 0xffff, 10)
  const udp = Buffer.alloc(8)
  udp.writeUInt16BE(a.udpPort, 0)
  udp.writeUInt16BE(a.udpPort, 2)
  udp.writeUInt16BE(8 + payload.length, 4)
  const eth = Buffer.from([...bytesOf(a.dstMac, ':', 16), ...bytesOf(a.srcMac, ':', 16), 0x08, 0x00])
  return Buffer.concat([eth, ip, udp, Buffer.from(payload)])
}

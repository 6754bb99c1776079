// The Tofino 1 packet generator as p4/include/tna_common.p4 uses it: a generated packet is the
// 6-byte pktgen header followed by the pktgen buffer; p4lab's buffers hold a whole 64-byte
// probe frame minus its first 6 bytes, i.e. the 8 bytes that end an Ethernet header (the
// parser skips them: PKTGEN_SKIP_BITS = 64), then the probe header, then zero padding.
// Generators are the pipe-local ports 68..71 (PKTGEN_PORT = 68); p4lab uses 68 of pipe 0.
// bfrt_python names (tf1.pktgen.app_cfg / pkt_buffer / port_cfg, their fields) are in
// render/bfrt.ts.

import type { PktgenApp } from '../../model/controlplane/module'

/** tna_common.p4 PKTGEN_PORT: the pipe-local packet-generator port of Tofino 1. */
export const PKTGEN_PORT = 68
/** tna_common.p4 PKTGEN_SKIP_BITS / 8: the bytes of the buffer the parser skips. */
export const PKTGEN_SKIP_BYTES = 8
/** The pktgen header the hardware puts in front of the buffer (pktgen_timer_header_t). */
export const PKTGEN_HEADER_BYTES = 6
/** A probe or credit frame as it leaves the generator (before the program rewrites it). */
export const PKTGEN_FRAME_BYTES = 64
/** Offset of p4lab's buffer in the generator's packet buffer (16-byte aligned). */
export const PKTGEN_BUFFER_OFFSET = 0

/** The buffer for a frame whose header (after the Ethernet header) is `header`. */
export function pktgenBuffer(header: number[]): number[] {
  const n = PKTGEN_FRAME_BYTES - PKTGEN_HEADER_BYTES
  const out = [...Array(PKTGEN_SKIP_BYTES).fill(0), ...header]
  if (out.length > n) throw new Error(`a pktgen probe header of ${header.length} bytes does not fit a ${PKTGEN_FRAME_BYTES}-byte frame`)
  return [...out, ...Array(n - out.length).fill(0)]
}

/** Big-endian bytes of an unsigned field. */
export function be(value: number, bytes: number): number[] {
  return Array.from({ length: bytes }, (_, i) => Math.floor(value / 2 ** (8 * (bytes - 1 - i))) % 256)
}

export function timerApp(appId: number, periodNs: number, packets: number, header: number[], why: string): PktgenApp {
  if (!Number.isInteger(periodNs) || periodNs <= 0) throw new Error(`pktgen timer period must be a positive number of ns, got ${periodNs}`)
  if (packets < 1) throw new Error('a pktgen batch needs at least one packet')
  return { appId, periodNs, packets, bufferOffset: PKTGEN_BUFFER_OFFSET, buffer: pktgenBuffer(header), sourcePort: PKTGEN_PORT, why }
}

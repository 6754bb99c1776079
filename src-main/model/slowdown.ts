// FCT slowdown: a flow's completion time over the time the same flow takes alone on an idle
// fabric, the measure load-balancing papers report since "pFabric: Minimal Near-Optimal
// Datacenter Transport" (ACM SIGCOMM 2013). A slowdown of 1 is the best a flow can do.
//
// The ideal is what the simulator's TCP does on an idle path, replayed exactly rather than
// approximated as size / rate + RTT: segments of MSS payload plus header bytes, each stored
// and forwarded by every hop (serialization ceil(bytes · 8e12 / bps) ps, then the hop's
// delay), one ACK per segment on the reverse path, and slow start from the initial window
// (cwnd grows by one segment per ACK while the window was full; no loss, so no ssthresh).
// The flow ends when the ACK of its last segment reaches the sender. So a lone flow in the
// simulator has a slowdown of 1 (test/sim/slowdown.test.ts), and anything above 1 is what
// other traffic and the scheme's choices cost it.
//
// Cost: segment by segment only until the window covers the path's loop; from then on the
// slowest hop never idles again (see steadyFrom), so the rest is arithmetic. A 1 GB flow
// costs what a few hundred segments do.
import type { Fabric } from './topology/types'
import { distancesTo, peer } from './topology/query'

/** One hop of a path, in the direction of the data: the link's rate and its one-way delay. */
export interface PathHop {
  bps: number
  delayNs: number
}

export interface IdealTransport {
  /** Payload bytes per full segment. */
  mssBytes: number
  /** Header bytes each data segment adds on the wire. */
  headerBytes: number
  /** Bytes of an ACK on the wire. */
  ackBytes: number
  initCwndPackets: number
  /** Most data packets the sender's NIC queue holds (the simulator's hostQueuePackets); none if absent. */
  hostQueuePackets?: number
}

/**
 * The completion time, in ns, of a flow of `sizeBytes` alone on the path `hops` (host NIC
 * first, the link into the receiver last), as the simulator's TCP would complete it.
 */
export function idealFctNs(sizeBytes: number, hops: readonly PathHop[], t: IdealTransport, o: { replayAll?: boolean } = {}): number {
  if (!(sizeBytes > 0) || !Number.isFinite(sizeBytes)) throw new Error(`ideal FCT: flow size must be a finite number of bytes > 0, got ${sizeBytes}`)
  if (hops.length === 0) throw new Error('ideal FCT: the path has no hop')
  if (!(t.mssBytes >= 1) || !(t.initCwndPackets >= 1)) throw new Error('ideal FCT: mssBytes and initCwndPackets must be >= 1')
  const H = hops.length
  // As net/link.ts computes them, so the ideal and the simulator round alike.
  const psPerByte = hops.map((h) => {
    if (!(h.bps > 0) || !(h.delayNs >= 0)) throw new Error(`ideal FCT: a hop needs bps > 0 and delayNs >= 0, got ${h.bps} bps, ${h.delayNs} ns`)
    return 8e12 / h.bps
  })
  const delayPs = hops.map((h) => Math.round(h.delayNs * 1000))
  const ser = (bytes: number, k: number) => Math.ceil(bytes * psPerByte[k])
  const nSeg = Math.ceil(sizeBytes / t.mssBytes)
  const wire = (i: number) => (i === nSeg - 1 ? sizeBytes - i * t.mssBytes : t.mssBytes) + t.headerBytes
  const full = t.mssBytes + t.headerBytes

  // The first slowest hop: where a queue forms once the window outgrows the path.
  let b = 0
  for (let k = 1; k < H; k++) if (psPerByte[k] > psPerByte[b]) b = k
  const steady = steadyWindow(hops.length, b, full, t.ackBytes, ser, delayPs)

  const fwdFree = new Float64Array(H)
  const revFree = new Float64Array(H)
  // The host NIC (hop 0) admits at most `nic` data packets (net/host.ts): a segment the window
  // releases while it is full is handed over when the one `nic` places ahead leaves it. Hop 0
  // is worked out as segments are released: their hand-over times decide how many the
  // sender has sent when an ACK comes, which decides whether the window was full.
  const nic = t.hostQueuePackets ?? Infinity
  const handAt: number[] = []
  const end0: number[] = []
  const release = (r: number) => {
    const j = end0.length
    const h = j >= nic ? Math.max(r, end0[j - nic]) : r
    const prev = j > 0 ? end0[j - 1] : 0
    handAt.push(h)
    end0.push((h > prev ? h : prev) + ser(wire(j), 0))
  }
  const first = Math.min(nSeg, Math.floor(t.initCwndPackets))
  for (let j = 0; j < first; j++) release(0)
  let handed = 0
  let cwnd = t.initCwndPackets
  /** Segments from this index on leave the slowest hop back to back. */
  let busyFrom = -1
  for (let i = 0; i < nSeg; i++) {
    if (busyFrom >= 0 && i >= busyFrom) return tail(i)
    const bytes = wire(i)
    fwdFree[0] = end0[i]
    let at = end0[i] + delayPs[0]
    for (let k = 1; k < H; k++) {
      const start = at > fwdFree[k] ? at : fwdFree[k]
      fwdFree[k] = start + ser(bytes, k)
      at = fwdFree[k] + delayPs[k]
    }
    for (let k = H - 1; k >= 0; k--) {
      const start = at > revFree[k] ? at : revFree[k]
      revFree[k] = start + ser(t.ackBytes, k)
      at = revFree[k] + delayPs[k]
    }
    if (i === nSeg - 1) return at / 1000
    // The ACK of segment i reaches the sender at `at`: the sender's rules (tcp/sender.ts).
    // A segment handed over at the very instant of the ACK counts after it: the NIC's wake for
    // that departure was scheduled later than the ACK's arrival, and the heap breaks ties in
    // schedule order (engine/heap.ts).
    while (handed < end0.length && handAt[handed] < at) handed++
    const before = cwnd
    if (handed - i >= Math.floor(cwnd)) cwnd += 1
    if (busyFrom < 0 && !o.replayAll && Math.floor(before) >= steady) busyFrom = end0.length
    const limit = Math.min(nSeg, i + 1 + Math.floor(cwnd))
    while (end0.length < limit) release(at)
  }
  throw new Error('ideal FCT: internal error, no segment ended the flow')

  /**
   * Segments from `from` on pass the slowest hop back to back after the previous one; past
   * it every hop is at least as fast, so a full segment finds it idle; only the last (short)
   * segment and its ACK may wait behind the one before, so the last two are replayed.
   */
  function tail(from: number): number {
    // Every segment but the last is full: each adds the same whole number of ps at b.
    const first = Math.max(from, nSeg - 2)
    let endB = fwdFree[b] + (first - from) * ser(full, b)
    const ends: number[] = []
    for (let j = first; j < nSeg; j++) ends.push((endB += ser(wire(j), b)))
    // The state the replayed segments left: earlier ends never hold a full segment up here.
    const down = fwdFree.slice()
    const rev = revFree.slice()
    let at = 0
    ends.forEach((e, idx) => {
      const bytes = wire(first + idx)
      at = e + delayPs[b]
      for (let k = b + 1; k < H; k++) {
        const start = at > down[k] ? at : down[k]
        down[k] = start + ser(bytes, k)
        at = down[k] + delayPs[k]
      }
      for (let k = H - 1; k >= 0; k--) {
        const start = at > rev[k] ? at : rev[k]
        rev[k] = start + ser(t.ackBytes, k)
        at = rev[k] + delayPs[k]
      }
    })
    return at / 1000
  }
}

/**
 * The window (segments) from which the slowest hop b never idles again. A segment m + 1
 * released by the ACK of segment q, when the window before that ACK was W, has m − q ≥ W − 1;
 * b idles after m only if that ACK and the segment's way back to b (U + D below, with no
 * queue past b and none on the ACKs' way) take longer than b's (m − q) full segments.
 */
function steadyWindow(H: number, b: number, full: number, ackBytes: number, ser: (bytes: number, k: number) => number, delayPs: number[]): number {
  let loop = 0
  for (let k = 0; k < H; k++) {
    if (k !== b) loop += ser(full, k)
    loop += delayPs[k] + ser(ackBytes, k) + delayPs[k]
  }
  return Math.ceil(loop / ser(full, b)) + 2
}

/**
 * The distinct hop sequences of the shortest paths from host `src` to host `dst` (host
 * indices), as the simulator's routes take them: each is a candidate ideal path, and the
 * ideal FCT is the best of them.
 */
export function pathProfiles(f: Fabric, src: number, dst: number): PathHop[][] {
  const from = f.hosts[src]
  const to = f.hosts[dst]
  if (from === undefined || to === undefined) throw new Error(`ideal FCT: no host ${from === undefined ? src : dst} in this ${f.kind} fabric`)
  const dist = distancesTo(f, to)
  // Hosts forward nothing, so the BFS gives no other host a distance: the source's is its ToR's + 1.
  if (from !== to) {
    const tor = peer(f, from, 0).node
    dist[from] = dist[tor] < 0 ? -1 : dist[tor] + 1
  }
  if (dist[from] <= 0) return []
  const out = new Map<string, PathHop[]>()
  const walk = (node: number, hops: PathHop[]) => {
    if (node === to) {
      out.set(hops.map((h) => `${h.bps}/${h.delayNs}`).join(' '), hops)
      return
    }
    // At most a few hundred profiles: beyond, the ones found stand for the rest.
    if (out.size >= 256) return
    const ports = f.nodes[node].ports
    for (let p = 0; p < ports.length; p++) {
      const { node: m, link } = peer(f, node, p)
      if (dist[m] === dist[node] - 1) walk(m, [...hops, { bps: link.bps, delayNs: link.delayNs }])
    }
  }
  walk(from, [])
  return [...out.values()]
}

/** Ideal FCT over the best of several paths (ns); null when there is none. */
export function idealFctOverPaths(sizeBytes: number, paths: readonly PathHop[][], t: IdealTransport): number | null {
  let best: number | null = null
  for (const p of paths) {
    const v = idealFctNs(sizeBytes, p, t)
    if (best === null || v < best) best = v
  }
  return best
}

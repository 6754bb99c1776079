// The queue measures of HULA's Fig. 8 (the HULA paper, ACM SOSR 2016: the bottleneck queue
// sampled every 100 µs), as pure functions of the sampled series so a test can apply them
// to runs it makes itself. No clamp: a queue whose p95 is 0 packets gives an infinite ratio,
// which holds against any claimed factor only if the other queue is not empty too.
//
// The queue is the packets waiting: the sampled queue.depth counts the packet on the
// serializer too (sim/net/link.ts), so a port busy 60 % of the time would read "empty" in at
// most 40 % of its samples however well it is balanced, and the paper's "empty 90 % of the
// time" could not be met above 10 % utilization. Queueing models and packet simulators such as
// ns-2 count a queue's length without the packet its link is transmitting. With drop-tail
// FIFOs and no pause frames (the HULA templates), a non-empty port is always serializing its
// head, so waiting = depth − 1.

/** Packets waiting behind the one being serialized, from a queue.depth sample. */
export const waiting = (depth: number): number => (depth > 1 ? depth - 1 : 0)

/** One switch-to-switch port's samples: queue depth (packets, queue.depth: the one being serialized included) and drops per interval. */
export interface PortQueue {
  depth: number[]
  drops: number[]
}

/**
 * The samples that end inside [fromNs, toNs] (reproduce-probes.ts's arrival window: from the end
 * of the warm-up to the last arrival), so the measures are of the queue under the offered load,
 * not of the empty fabric at the start or the drain after the last arrival, which can be half
 * the run and would count as "empty" for every scheme.
 */
export function inWindow(t: ArrayLike<number>, q: PortQueue, fromNs: number, toNs: number): PortQueue {
  const keep = (xs: number[]) => xs.filter((_, j) => t[j] > fromNs && t[j] <= toNs)
  return { depth: keep(q.depth), drops: keep(q.drops) }
}

export interface QueueMeasures {
  /** 95th percentile of the packets waiting (nearest rank). */
  p95: number
  /** Share of samples with no packet waiting. */
  emptyShare: number
  /** Packets dropped at the port over the run. */
  drops: number
}

export function queueMeasures(q: PortQueue): QueueMeasures {
  const depth = q.depth.filter((v) => Number.isFinite(v)).map(waiting)
  const sorted = [...depth].sort((a, b) => a - b)
  const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] ?? 0
  const emptyShare = depth.length === 0 ? NaN : depth.filter((v) => v === 0).length / depth.length
  const drops = q.drops.filter((v) => Number.isFinite(v)).reduce((a, b) => a + b, 0)
  return { p95, emptyShare, drops }
}

/** The bottleneck: the port deepest at p95 under the reference scheme (ECMP). */
export function bottleneckPort(ports: Map<string, PortQueue>): string {
  let worst = ''
  let worstP95 = -1
  for (const [port, q] of ports) {
    const p95 = queueMeasures(q).p95
    if (p95 > worstP95) [worst, worstP95] = [port, p95]
  }
  if (worst === '') throw new Error('no switch-to-switch queue was sampled')
  return worst
}

/** `a`'s p95 over `b`'s: Infinity when b's is 0 and a's is not, 1 when both are 0. */
export function p95Ratio(a: QueueMeasures, b: QueueMeasures): number {
  if (b.p95 === 0) return a.p95 === 0 ? 1 : Infinity
  return a.p95 / b.p95
}

/** 1 when the p95s are strictly in the given order, deepest first, else 0. */
export function strictlyDeeper(...qs: QueueMeasures[]): number {
  for (let i = 1; i < qs.length; i++) if (!(qs[i - 1].p95 > qs[i].p95)) return 0
  return 1
}

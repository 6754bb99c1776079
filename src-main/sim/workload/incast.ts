// Incast mixed with Poisson background (Floodgate's traffic): the background is exactly
// the 'poisson' workload of the same settings and seed; incast events are a Poisson process
// of their own PRNG stream at `ratePerSec` over the fabric. Each event picks a receiver
// uniformly, a fan-in N (fixed, or drawn from [N, weight] choices), and N distinct senders,
// from other racks when they hold enough hosts (else from any other host); each sends
// `flowBytes` at the event's instant. Flows are ordered by start time (background first on
// a tie) and carry their event number in `group`.

import { Rng } from '../engine/rng'
import type { IncastWorkload } from '../types'
import type { HostLayout } from './layout'
import { FlowList } from './list'
import { poissonFlows } from './poisson'

export const INCAST_STREAM = 3

function fanInDraw(fanIn: IncastWorkload['incast']['fanIn'], hosts: number): (rng: Rng) => number {
  const choices: Array<[number, number]> = typeof fanIn === 'number' ? [[fanIn, 1]] : fanIn
  if (choices.length === 0) throw new Error('workload.incast.fanIn: give a number or [fanIn, weight] pairs')
  let total = 0
  for (const [n, w] of choices) {
    if (!(Number.isInteger(n) && n >= 1 && n <= hosts - 1)) {
      throw new Error(`workload.incast.fanIn: ${n} must be an integer in 1..${hosts - 1} (hosts other than the receiver)`)
    }
    if (!(w > 0)) throw new Error(`workload.incast.fanIn: the weight of fan-in ${n} must be > 0, got ${w}`)
    total += w
  }
  if (choices.length === 1) return () => choices[0][0]
  return (rng) => {
    let u = rng.nextFloat() * total
    for (const [n, w] of choices) {
      if (u < w) return n
      u -= w
    }
    return choices[choices.length - 1][0]
  }
}

export function incastFlows(w: IncastWorkload, layout: HostLayout, seed: number): FlowList {
  const { events, ratePerSec, flowBytes } = w.incast
  if (!(Number.isInteger(events) && events >= 0)) throw new Error(`workload.incast.events must be a non-negative integer, got ${events}`)
  if (!(ratePerSec > 0)) throw new Error(`workload.incast.ratePerSec must be > 0, got ${ratePerSec}`)
  if (!(flowBytes >= 1 && Number.isFinite(flowBytes))) throw new Error(`workload.incast.flowBytes must be >= 1, got ${flowBytes}`)
  const bg = poissonFlows(w.background, layout, seed, 'workload.background')
  const hosts = layout.hosts
  const draw = fanInDraw(w.incast.fanIn, hosts)
  const rng = new Rng(seed, INCAST_STREAM)
  const meanGapNs = 1e9 / ratePerSec
  const burst = new FlowList()
  const pool = new Int32Array(hosts)
  let tNs = 0
  for (let e = 0; e < events; e++) {
    tNs += Math.max(1, Math.round(-Math.log(1 - rng.nextFloat()) * meanGapNs))
    const recv = rng.nextInt(hosts)
    const n = draw(rng)
    // Candidate senders: the other racks' hosts if there are enough, else every other host.
    let m = 0
    const others = layout.othersCount(recv)
    if (n <= others) for (let r = 0; r < others; r++) pool[m++] = layout.otherHost(recv, r)
    else for (let h = 0; h < hosts; h++) if (h !== recv) pool[m++] = h
    for (let i = 0; i < n; i++) {
      const j = i + rng.nextInt(m - i)
      const s = pool[j]
      pool[j] = pool[i]
      pool[i] = s
      burst.add(s, recv, Math.ceil(flowBytes), tNs * 1000, e)
    }
  }
  // Merge by start time; the background wins ties, then each list keeps its own order.
  const out = new FlowList()
  let i = 0
  let j = 0
  while (i < bg.length || j < burst.length) {
    const takeBg = j >= burst.length || (i < bg.length && bg.startPs[i] <= burst.startPs[j])
    if (takeBg) {
      out.add(bg.src[i], bg.dst[i], bg.size[i], bg.startPs[i], -1)
      i++
    } else {
      out.add(burst.src[j], burst.dst[j], burst.size[j], burst.startPs[j], burst.group[j])
      j++
    }
  }
  return out
}

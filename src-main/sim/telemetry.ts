// One sampler element for the whole fabric: every interval it reads each switch port's
// exact busy time (link.util), occupancy (queue.depth), peak occupancy since the last
// sample (queue.maxDepth), and its drop and ECN-mark counts over the interval, plus the
// fabric's retransmissions, DCTCP's mean α, and whatever series the scheme registered.
// Sampling instead of logging per packet keeps telemetry cost proportional to time (and
// ports), not traffic. Samples are buffered and handed over in batches of fresh arrays
// that the caller may transfer to another thread.
//
// Series order: link.util and queue.depth interleaved per port (switches in Fabric order,
// ports in order), then queue.maxDepth, drops and ecn.marks per port, then the fabric-wide
// series, then the scheme's.

import type { Counters, SimContext } from './engine/context'
import { KIND_SAMPLER } from './engine/context'
import type { Link } from './net/link'
import type { Switch } from './net/switch'
import type { SimHooks, SimSeriesDef } from './types'

const BATCH = 64

export interface SeriesGroup {
  defs: SimSeriesDef[]
  fill: (out: Float64Array) => void
}

export class Sampler {
  readonly elem: number
  readonly defs: SimSeriesDef[] = []
  private readonly ports: Link[] = []
  private readonly lastBusyPs: Float64Array
  private readonly lastDrops: Float64Array
  private readonly lastMarks: Float64Array
  private lastRetransmits = 0
  private readonly intervalPs: number
  private readonly t = new Float64Array(BATCH)
  /** Series-major with a stride of BATCH. */
  private readonly values: Float64Array
  private readonly scratch: Float64Array
  private n = 0

  constructor(
    private readonly ctx: SimContext,
    switches: Switch[],
    intervalNs: number,
    private readonly hooks: SimHooks,
    private readonly groups: SeriesGroup[],
    private readonly counters: Counters,
  ) {
    this.elem = ctx.addElement(KIND_SAMPLER, 0)
    const names: Array<{ switch: string; port: number }> = []
    for (const sw of switches) {
      sw.ports.forEach((q, port) => {
        this.ports.push(q)
        names.push({ switch: sw.name, port })
        this.defs.push({ kind: 'link.util', entity: { switch: sw.name, port }, unit: 'ratio' })
        this.defs.push({ kind: 'queue.depth', entity: { switch: sw.name, port }, unit: 'packets' })
      })
    }
    for (const e of names) this.defs.push({ kind: 'queue.maxDepth', entity: { ...e }, unit: 'packets' })
    for (const e of names) this.defs.push({ kind: 'drops', entity: { ...e }, unit: 'count' })
    for (const e of names) this.defs.push({ kind: 'ecn.marks', entity: { ...e }, unit: 'count' })
    this.defs.push({ kind: 'tcp.retransmits', entity: {}, unit: 'count' })
    let widest = 0
    for (const g of groups) {
      for (const d of g.defs) this.defs.push(d)
      widest = Math.max(widest, g.defs.length)
    }
    this.scratch = new Float64Array(widest)
    const P = this.ports.length
    this.lastBusyPs = new Float64Array(P)
    this.lastDrops = new Float64Array(P)
    this.lastMarks = new Float64Array(P)
    this.values = new Float64Array(this.defs.length * BATCH)
    this.intervalPs = Math.round(intervalNs * 1000)
    ctx.heap.schedule(this.elem, this.intervalPs)
  }

  onEvent(): void {
    const { ctx, ports, values, lastBusyPs, lastDrops, lastMarks } = this
    const j = this.n++
    this.t[j] = ctx.now / 1000
    const interval = this.intervalPs
    const P = ports.length
    for (let i = 0; i < P; i++) {
      const q = ports[i]
      const busy = q.busyUntilNow()
      const depth = q.depth()
      values[2 * i * BATCH + j] = (busy - lastBusyPs[i]) / interval
      values[(2 * i + 1) * BATCH + j] = depth
      values[(2 * P + i) * BATCH + j] = q.maxDepth
      values[(3 * P + i) * BATCH + j] = q.dropCount - lastDrops[i]
      values[(4 * P + i) * BATCH + j] = q.markCount - lastMarks[i]
      lastBusyPs[i] = busy
      lastDrops[i] = q.dropCount
      lastMarks[i] = q.markCount
      q.maxDepth = depth
    }
    let k = 5 * P
    values[k++ * BATCH + j] = this.counters.retransmits - this.lastRetransmits
    this.lastRetransmits = this.counters.retransmits
    const scratch = this.scratch
    for (const g of this.groups) {
      g.fill(scratch)
      for (let i = 0; i < g.defs.length; i++) values[k++ * BATCH + j] = scratch[i]
    }
    if (this.n === BATCH) this.flush()
    ctx.heap.schedule(this.elem, ctx.now + interval)
  }

  /** Hands over buffered samples; also called once at the end of the run. */
  flush(): void {
    const n = this.n
    if (n === 0) return
    this.n = 0
    const onTelemetry = this.hooks.onTelemetry
    if (onTelemetry === undefined) return
    const series = this.defs.length
    const t = this.t.slice(0, n)
    const out = new Float64Array(series * n)
    for (let s = 0; s < series; s++) out.set(this.values.subarray(s * BATCH, s * BATCH + n), s * n)
    onTelemetry(t, out)
  }
}

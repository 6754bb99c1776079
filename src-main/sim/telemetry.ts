// One sampler element for the whole fabric: every interval it reads each switch port's
// exact busy time (link.util) and occupancy (queue.depth). Sampling instead of logging per
// packet keeps telemetry cost proportional to time, not traffic. Samples are buffered and
// handed over in batches of fresh arrays that the caller may transfer to another thread.

import type { SimContext } from './engine/context'
import { KIND_SAMPLER } from './engine/context'
import type { Queue } from './net/queue'
import type { Switch } from './net/switch'
import type { SimHooks, SimSeriesDef } from './types'

const BATCH = 64

export class Sampler {
  readonly elem: number
  readonly defs: SimSeriesDef[] = []
  private readonly ports: Queue[] = []
  private readonly lastBusyPs: Float64Array
  private readonly intervalPs: number
  private readonly t = new Float64Array(BATCH)
  /** Series-major with a stride of BATCH. */
  private readonly values: Float64Array
  private n = 0

  constructor(
    private readonly ctx: SimContext,
    switches: Switch[],
    intervalNs: number,
    private readonly hooks: SimHooks,
  ) {
    this.elem = ctx.addElement(KIND_SAMPLER, 0)
    for (const sw of switches) {
      sw.ports.forEach((q, port) => {
        this.ports.push(q)
        this.defs.push({ kind: 'link.util', entity: { switch: sw.name, port }, unit: 'ratio' })
        this.defs.push({ kind: 'queue.depth', entity: { switch: sw.name, port }, unit: 'packets' })
      })
    }
    this.lastBusyPs = new Float64Array(this.ports.length)
    this.values = new Float64Array(this.defs.length * BATCH)
    this.intervalPs = Math.round(intervalNs * 1000)
    ctx.heap.schedule(this.elem, this.intervalPs)
  }

  onEvent(): void {
    const { ctx, ports, values, lastBusyPs } = this
    const j = this.n++
    this.t[j] = ctx.now / 1000
    const interval = this.intervalPs
    for (let i = 0; i < ports.length; i++) {
      const q = ports[i]
      const busy = q.busyUntilNow()
      values[2 * i * BATCH + j] = (busy - lastBusyPs[i]) / interval
      values[(2 * i + 1) * BATCH + j] = q.count
      lastBusyPs[i] = busy
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

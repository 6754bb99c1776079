// The workload generator element: it walks the flows in start-time order and wakes once
// per distinct start time, so it holds one pending event however many flows are queued.

import type { SimContext } from '../engine/context'
import { KIND_GENERATOR } from '../engine/context'
import type { FlowTable } from '../tcp/flows'
import type { TcpSenders } from '../tcp/sender'

export class FlowStarter {
  readonly elem: number
  private readonly order: Int32Array
  private next = 0

  constructor(
    private readonly ctx: SimContext,
    private readonly flows: FlowTable,
    private readonly senders: TcpSenders,
  ) {
    this.elem = ctx.addElement(KIND_GENERATOR, 0)
    const idx = Array.from({ length: flows.n }, (_, i) => i)
    idx.sort((a, b) => flows.startPs[a] - flows.startPs[b] || a - b)
    this.order = Int32Array.from(idx)
    if (flows.n > 0) ctx.heap.schedule(this.elem, flows.startPs[this.order[0]])
  }

  onEvent(): void {
    const { ctx, flows, order } = this
    while (this.next < order.length && flows.startPs[order[this.next]] <= ctx.now) {
      this.senders.start(order[this.next++])
    }
    if (this.next < order.length) ctx.heap.schedule(this.elem, flows.startPs[order[this.next]])
  }
}

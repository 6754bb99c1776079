// The workload generator element: it walks the flows in start-time order and wakes once
// per distinct start time, so it holds one pending event however many flows are queued.
// On persistent connections (tcp/messages.ts) it walks the messages instead: the first
// opens its connection, each later one appends to the connection's stream.

import type { SimContext } from '../engine/context'
import { KIND_GENERATOR } from '../engine/context'
import type { FlowTable } from '../tcp/flows'
import type { TcpSenders } from '../tcp/sender'

export class FlowStarter {
  readonly elem: number
  private readonly order: Int32Array
  private readonly times: Float64Array
  private next = 0

  constructor(
    private readonly ctx: SimContext,
    private readonly flows: FlowTable,
    private readonly senders: TcpSenders,
  ) {
    this.elem = ctx.addElement(KIND_GENERATOR, 0)
    const times = flows.msgs !== null ? flows.msgs.startPs : flows.startPs
    this.times = times
    const idx = Array.from({ length: times.length }, (_, i) => i)
    idx.sort((a, b) => times[a] - times[b] || a - b)
    this.order = Int32Array.from(idx)
    if (times.length > 0) ctx.heap.schedule(this.elem, times[this.order[0]])
  }

  onEvent(): void {
    const { ctx, order, times } = this
    while (this.next < order.length && times[order[this.next]] <= ctx.now) this.begin(order[this.next++])
    if (this.next < order.length) ctx.heap.schedule(this.elem, times[order[this.next]])
  }

  private begin(i: number): void {
    const msgs = this.flows.msgs
    if (msgs === null) {
      this.senders.start(i)
      return
    }
    const c = msgs.conn[i]
    const first = msgs.arrived[c] === 0
    this.flows.nSeg[c] = msgs.arrive(i)
    if (first) this.senders.start(c)
    else this.senders.append(c)
  }
}

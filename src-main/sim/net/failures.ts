// The schedule of link failures and recoveries: one element that wakes at each change.
// Applying a change is the caller's (run.ts): both directions of the link go down (dropping
// what they hold) or up, then the routes and the forwarding stage hear of it.

import type { SimContext } from '../engine/context'
import { KIND_LINK_EVENTS } from '../engine/context'

export interface ScheduledChange {
  atPs: number
  /** Fabric link id. */
  link: number
  up: boolean
}

export class LinkSchedule {
  readonly elem: number
  private next = 0

  constructor(
    private readonly ctx: SimContext,
    private readonly changes: ScheduledChange[],
    private readonly apply: (c: ScheduledChange) => void,
  ) {
    this.elem = ctx.addElement(KIND_LINK_EVENTS, 0)
    // Stable: changes at one instant apply in the order given.
    changes.sort((a, b) => a.atPs - b.atPs)
    if (changes.length > 0) ctx.heap.schedule(this.elem, changes[0].atPs)
  }

  onEvent(): void {
    const { ctx, changes } = this
    while (this.next < changes.length && changes[this.next].atPs <= ctx.now) this.apply(changes[this.next++])
    if (this.next < changes.length) ctx.heap.schedule(this.elem, changes[this.next].atPs)
  }
}

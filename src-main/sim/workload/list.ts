// Flows as generated, before they become the run's FlowTable: plain growable columns.

import { FlowTable } from '../tcp/flows'
import { MessageTable } from '../tcp/messages'

export class FlowList {
  readonly src: number[] = []
  readonly dst: number[] = []
  /** Infinity for an unbounded flow. */
  readonly size: number[] = []
  readonly startPs: number[] = []
  readonly group: number[] = []

  add(src: number, dst: number, size: number, startPs: number, group = -1): void {
    this.src.push(src)
    this.dst.push(dst)
    this.size.push(size)
    this.startPs.push(startPs)
    this.group.push(group)
  }

  get length(): number {
    return this.src.length
  }

  toTable(mss: number): FlowTable {
    const n = this.length
    const t = new FlowTable(n, mss)
    for (let f = 0; f < n; f++) {
      t.set(f, this.src[f], this.dst[f], this.size[f], this.startPs[f])
      t.group[f] = this.group[f]
    }
    return t
  }

  /**
   * The flows on persistent connections: flow i rides connection connOf[i] (any integer
   * label; flows with one label share one connection, which must join one src to one dst).
   * The table's rows are the connections that carry at least one flow, in order of first
   * arrival; its `msgs` are the flows, in this list's order.
   */
  toConnectionTable(connOf: ArrayLike<number>, mss: number): FlowTable {
    const n = this.length
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => this.startPs[a] - this.startPs[b] || a - b)
    const row = new Map<number, number>()
    const rowOf = new Int32Array(n)
    const first: number[] = []
    for (const i of order) {
      let r = row.get(connOf[i])
      if (r === undefined) {
        r = first.length
        row.set(connOf[i], r)
        first.push(i)
      } else if (this.src[first[r]] !== this.src[i] || this.dst[first[r]] !== this.dst[i]) {
        throw new Error(`flows ${first[r]} and ${i} share connection ${connOf[i]} but not their source and destination`)
      }
      rowOf[i] = r
    }
    const t = new FlowTable(first.length, mss)
    first.forEach((i, r) => t.set(r, this.src[i], this.dst[i], 0, this.startPs[i]))
    t.msgs = new MessageTable(this, rowOf, first.length, mss)
    return t
  }
}

// Flows as generated, before they become the run's FlowTable: plain growable columns.

import { FlowTable } from '../tcp/flows'

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
}

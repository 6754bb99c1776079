// The state every element shares: the clock, the event heap, the packet pool and the
// counters. Elements register here to get an id; the run loop dispatches a popped id with
// a switch on its small-integer kind, so the hot path never goes through a closure or a
// megamorphic method call.

import { EventHeap } from './heap'
import { PacketPool } from './packets'

export const KIND_QUEUE = 0
export const KIND_PIPE = 1
export const KIND_FLOW_TIMER = 2
export const KIND_GENERATOR = 3
export const KIND_SAMPLER = 4

/** Mirrors SimCounters; plain numeric fields so updates stay monomorphic. */
export class Counters {
  events = 0
  packetHops = 0
  dataPacketsSent = 0
  ackPacketsSent = 0
  drops = 0
  retransmits = 0
  timeouts = 0
  fastRetransmits = 0
  reorderedPackets = 0
  payloadBytesSent = 0
  payloadBytesDelivered = 0
  /** Peak data packets queued at one host NIC. */
  maxHostQueuePackets = 0
}

export class SimContext {
  /** Current time in integer picoseconds. */
  now = 0
  readonly heap = new EventHeap(256)
  readonly pkts = new PacketPool(4096)
  readonly counters = new Counters()
  kind = new Uint8Array(256)
  /** Index of the element within its kind's array. */
  local = new Int32Array(256)
  nElements = 0

  addElement(kind: number, local: number): number {
    const id = this.nElements++
    if (id >= this.kind.length) {
      const kind = new Uint8Array(this.kind.length * 2)
      kind.set(this.kind)
      this.kind = kind
      const loc = new Int32Array(this.local.length * 2)
      loc.set(this.local)
      this.local = loc
    }
    this.kind[id] = kind
    this.local[id] = local
    this.heap.ensureElements(this.nElements)
    return id
  }
}

// The state every element shares: the clock, the event heap, the packet pool, the
// counters and the event log. Elements register here to get an id; the run loop
// dispatches a popped id with a switch on its small-integer kind, so the hot path never
// goes through a closure or a megamorphic method call.

import { MAX_SIM_EVENTS, type SimEvent } from '../types'
import { Scheduler } from './scheduler'
import { PacketPool } from './packets'

/** An output queue and the wire behind it (net/link.ts). */
export const KIND_LINK = 0
export const KIND_FLOW_TIMER = 1
export const KIND_GENERATOR = 2
export const KIND_SAMPLER = 3
/** A timer owned by the forwarding stage (probe generation, aging); local = the stage's timer number. */
export const KIND_STAGE_TIMER = 4
/** The schedule of link failures and recoveries. */
export const KIND_LINK_EVENTS = 5

/** Mirrors SimCounters; plain numeric fields so updates stay monomorphic. */
export class Counters {
  events = 0
  packetHops = 0
  dataPacketsSent = 0
  ackPacketsSent = 0
  drops = 0
  linkDownDrops = 0
  /** Packets a lossy link lost on the wire (also counted in drops). */
  lossDrops = 0
  unroutableDrops = 0
  ecnMarks = 0
  retransmits = 0
  timeouts = 0
  fastRetransmits = 0
  reorderedPackets = 0
  payloadBytesSent = 0
  payloadBytesDelivered = 0
  controlPackets = 0
  controlBytes = 0
  /** Peak data packets queued at one host NIC. */
  maxHostQueuePackets = 0
}

export class SimContext {
  /** Current time in integer picoseconds. */
  now = 0
  /** The event list (a timing wheel over an indexed heap); `heap` for history's sake. */
  readonly heap: Scheduler

  constructor(bucketWidthPs = 1024) {
    this.heap = new Scheduler(256, bucketWidthPs)
  }
  readonly pkts = new PacketPool(4096)
  readonly counters = new Counters()
  readonly events: SimEvent[] = []
  eventsDropped = 0
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

  /** Appends to the run's event log (bounded: past MAX_SIM_EVENTS entries are only counted). */
  logEvent(kind: string, detail: string): void {
    if (this.events.length < MAX_SIM_EVENTS) this.events.push({ tNs: this.now / 1000, kind, detail })
    else this.eventsDropped++
  }
}

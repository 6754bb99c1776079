// A host is a NIC queue and a demultiplexer that hands arriving packets to the flow's TCP
// endpoint. The sending side models what a Linux sender does instead of dropping or
// queueing without bound (TCP Small Queues, qdisc backpressure, BQL): a host's NIC queue
// admits at most `limit` data packets. A flow that may send (its window allows) but finds
// the NIC full does not enqueue; it goes on its host's blocked list and keeps the data in
// its "socket". Each time a data packet leaves the NIC (its successor starts
// serializing), the freed slot goes to the blocked flows in round-robin order, one packet
// per turn, so flows of one host share the link fairly (as an fq qdisc would) and a small
// flow waits behind at most `limit` packets, not behind a large flow's whole window.
//
// ACKs are not held back: a receiver cannot block on its send buffer for them, they are
// 64 B, and delaying them would stall the peer. They share the NIC FIFO with data but do
// not count against the limit, so the NIC never drops anything.
//
// The NIC is a Link (net/link.ts) that counts its data packets lazily and wakes at the
// next departure only while flows of its host are blocked.
//
// Everything is typed arrays: the blocked list of host h is a ring inside one Int32Array
// shared by all hosts, at [base[h], base[h] + cap[h]) where cap[h] is the number of flows
// sourced at h (a flow is on the list at most once), so it never grows.

import { KIND_ACK, KIND_DATA, KIND_PAUSE } from '../engine/packets'
import type { PacketPool } from '../engine/packets'
import type { FlowTable } from '../tcp/flows'
import type { TcpSenders } from '../tcp/sender'
import type { TcpReceivers } from '../tcp/receiver'
import type { Link } from './link'
import type { HostAdmission, PacketSink } from './ports'

export class Host implements PacketSink {
  /** The host's NIC, which a PFC frame from its ToR pauses. */
  nic: Link | null = null

  constructor(
    readonly id: number,
    private readonly pkts: PacketPool,
    private readonly senders: TcpSenders,
    private readonly receivers: TcpReceivers,
  ) {}

  receive(p: number, _inPort: number): void {
    const kind = this.pkts.kind[p]
    if (kind === KIND_ACK) this.senders.onAck(p)
    else if (kind === KIND_DATA) this.receivers.onData(p)
    else if (kind === KIND_PAUSE) this.nic!.onPauseFrame(p)
    // Hosts run no scheme: a probe or credit that reaches one ends here.
    else this.pkts.release(p)
  }
}

/** Per-host NIC admission for data packets and the blocked-flow rings, for all hosts. */
export class HostTx implements HostAdmission {
  /** Set once the senders exist (they and this object refer to each other). */
  senders: TcpSenders | null = null
  private readonly ring: Int32Array
  private readonly base: Int32Array
  private readonly cap: Int32Array
  private readonly head: Int32Array
  private readonly len: Int32Array
  private readonly blocked: Uint8Array

  constructor(
    private readonly nics: Link[],
    flows: FlowTable,
    /** Most data packets a host NIC may hold. */
    readonly limit: number,
  ) {
    const hosts = nics.length
    this.base = new Int32Array(hosts)
    this.cap = new Int32Array(hosts)
    this.head = new Int32Array(hosts)
    this.len = new Int32Array(hosts)
    for (let f = 0; f < flows.n; f++) this.cap[flows.src[f]]++
    for (let h = 1; h < hosts; h++) this.base[h] = this.base[h - 1] + this.cap[h - 1]
    this.ring = new Int32Array(flows.n)
    this.blocked = new Uint8Array(flows.n)
    for (let h = 0; h < hosts; h++) {
      nics[h].hostTx = this
      nics[h].host = h
    }
  }

  hasRoom(h: number): boolean {
    return this.nics[h].dataQueued() < this.limit
  }

  /** Flow f (sourced at h) has data its window allows but the NIC is full. */
  block(f: number, h: number): void {
    if (this.blocked[f] !== 0) return
    this.blocked[f] = 1
    let i = this.head[h] + this.len[h]++
    if (i >= this.cap[h]) i -= this.cap[h]
    this.ring[this.base[h] + i] = f
    if (this.len[h] === 1) this.nics[h].wakeAtDeparture()
  }

  /**
   * Slots may have freed at host h's NIC: hand them to blocked flows, round-robin. A woken
   * flow sends what its window and the NIC allow and, if it still has more, blocks again
   * at the tail of the ring.
   */
  wake(h: number): void {
    const senders = this.senders!
    while (this.len[h] > 0 && this.hasRoom(h)) {
      const i = this.head[h]
      const f = this.ring[this.base[h] + i]
      this.head[h] = i + 1 === this.cap[h] ? 0 : i + 1
      this.len[h]--
      this.blocked[f] = 0
      senders.resume(f)
    }
  }

  /** Flows waiting on host h's NIC. */
  blockedCount(h: number): number {
    return this.len[h]
  }
}

// A host is a NIC queue (unbounded: the kernel would block the socket, so only switches
// drop) and a demultiplexer that hands arriving packets to the flow's TCP endpoint.

import { PKT_ACK } from '../engine/packets'
import type { PacketPool } from '../engine/packets'
import type { NewRenoSenders } from '../tcp/newreno'
import type { TcpReceivers } from '../tcp/receiver'
import type { PacketSink } from './pipe'
import type { Queue } from './queue'

export class Host implements PacketSink {
  constructor(
    readonly id: number,
    readonly nic: Queue,
    private readonly pkts: PacketPool,
    private readonly senders: NewRenoSenders,
    private readonly receivers: TcpReceivers,
  ) {}

  receive(p: number): void {
    if (this.pkts.flags[p] & PKT_ACK) this.senders.onAck(p)
    else this.receivers.onData(p)
  }
}

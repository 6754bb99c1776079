// The interfaces the fabric's elements meet at. The link, the host and the TCP endpoints call
// one another; they import these rather than each other's classes, so they form no import cycle.

/** Whatever sits at the far end of a link: a switch or a host. */
export interface PacketSink {
  receive(p: number, inPort: number): void
}

/**
 * A host's NIC admission for data packets (HostTx, net/host.ts): the TCP senders ask it for room
 * and block on it; the host's NIC link wakes it when a data packet leaves.
 */
export interface HostAdmission {
  hasRoom(h: number): boolean
  block(f: number, h: number): void
  wake(h: number): void
  blockedCount(h: number): number
}

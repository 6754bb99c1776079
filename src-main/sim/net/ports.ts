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

/** A switch's shared buffer as its egress links see it (SharedBuffer, net/buffer.ts). */
export interface SwitchBuffer {
  readonly portSwitch: Int32Array
  admit(g: number, p: number, bytes: number): boolean
  /** The next admit() of packet p is a move inside the switch (VOQ to egress queue): it is charged already. */
  carry(p: number): void
  /** Packet p, offered to egress port g, is dropped before admission (a dead link): free it if it was carried. */
  abandon(g: number, p: number): void
  noteDeparture(g: number, atPs: number): void
  release(g: number, p: number): void
  flushResumes(): void
  wantsDepartures(s: number): boolean
}

/** An egress link as the shared buffer sees it (Link, net/link.ts). */
export interface BufferedPort {
  readonly bps: number
  readonly delayPs: number
  releaseDeparted(now: number): number
  insertControl(f: number): void
  /** Make sure the link wakes when its next queued packet leaves (its switch just paused a port). */
  wakeAtDeparture(): void
}

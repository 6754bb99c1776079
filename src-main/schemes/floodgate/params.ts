import type { ParamDecl } from '../../model/scheme'

/** Floodgate's parameters. */
export const FLOODGATE_PARAMS = {
  creditInterval: { unit: 'duration', default: 10_000, doc: 'credit interval T: every T each port sends one credit frame with an entry per destination it owes (and, with creditOnBytes, as soon as one destination is owed creditBytes)' },
  creditBytes: { unit: 'size', default: 10_240, doc: 'credit threshold in bytes (with creditOnBytes: 1)' },
  creditOnBytes: { unit: 'flag', default: 1, doc: 'credits also go as soon as creditBytes are owed (1, the public code), or on the timer T alone (0, the paper)' },
  windowBdpFactor: { unit: 'number', default: 1.5, doc: "initial window per destination as a multiple of the next hop's BDP (the authors' public code: 1.5)" },
  creditFrameBytes: { unit: 'size', default: 64, doc: 'bytes of the smallest credit frame on the wire (the Ethernet minimum); a frame is 20 B of header plus its entries, at least this' },
  creditEntryBytes: { unit: 'size', default: 6, doc: "bytes of one (destination, credit) entry of a credit frame (the P4 program's credit_t: 16-bit destination, 32-bit bytes)" },
  voqBufferBytes: { unit: 'size', default: 20e6, doc: "switch buffer for the per-destination VOQs (per-port queues only; with a shared buffer the VOQs live in it)" },
  pause: { unit: 'flag', default: 0, doc: 'per-destination pause (1) instead of VOQ drops (0)' },
  pauseThresholdBytes: { unit: 'size', doc: "VOQ bytes at which a destination is paused (default: windowBdpFactor × the host link's BDP)" },
} as const satisfies Record<string, ParamDecl>

/** Bytes of a HULA or DHLB probe on the wire: a minimum Ethernet frame (HULA's paper: 64 B). */
export const PROBE_BYTES = 64

// The control plane's data model: what every switch of a fabric is configured with, computed
// once from the fabric graph and the scheme (compute.ts), then rendered three ways
// (render/cli.ts for simple_switch_CLI, render/bfrt.ts for bfrt_python, render/sim.ts for
// the embedded simulator). This is also what the GUI shows, so it stays plain, named data:
// numbers, strings and arrays, no classes, no maps. No Node APIs.

import type { RemoteKind } from '../../contract/testbeds'

/** A scheme's name; the scheme registry (src-main/schemes) says which exist. */
export type CpScheme = string

export type CpTarget = RemoteKind

/**
 * Parameters in base units (ns, bytes), by the names the schemes read them under
 * (flowletGapNs, creditBytes, ...; each scheme declares its own in its params.ts), plus the
 * fabric's: the output queue capacity of every switch port in packets, and the bytes of a
 * full-size packet on the wire (MSS 1460 + 40), used to turn rates into packets per second.
 */
export type SchemeParams = Record<string, number> & { queuePackets: number; packetBytes: number }

/** Which way a port faces: to a host, down to a lower switch tier, or up. */
export type PortFacing = 'host' | 'down' | 'up'

export interface PortInfo {
  port: number
  facing: PortFacing
  /** The node on the other end (a host or switch name) and the port it arrives on there. */
  peer: string
  peerPort: number
  /** Fabric node id of the peer (for tools; renderers use names). */
  peerNode: number
  linkName: string
  bps: number
  delayNs: number
  /** MAC address of this switch port (source MAC of what leaves it). */
  mac: string
}

export interface HostAddress {
  /** Host index in the fabric (the sim's host number). */
  index: number
  name: string
  ip: string
  mac: string
  /** Name and index of its ToR, and the ToR port it hangs off. */
  tor: string
  torIndex: number
  torPort: number
}

export interface TorAddress {
  /** ToR index: position in Fabric.tors; HULA's torID, DHLB's and Floodgate's destination id. */
  index: number
  name: string
  node: number
  pod: number
  /** The ToR's host subnet, e.g. 10.1.0.0/24. */
  subnet: string
  prefixLen: number
}

/** A route to a host attached to this switch. */
export interface HostRoute {
  host: number
  name: string
  ip: string
  mac: string
  port: number
}

/** The shortest-path egress ports of a switch towards a destination ToR. */
export interface NextHopGroup {
  dstTor: number
  dstTorName: string
  /** Sorted port numbers; one element means no choice. */
  ports: number[]
  /** Numeric id of the group on this switch (1-based, in dstTor order). */
  groupId: number
}

/** A multicast group of the packet replication engine. */
export interface McastGroup {
  /** Multicast group id (>= 1; 0 means no replication in v1model and TNA). */
  id: number
  ports: number[]
  /** Why the group exists, in words, for the GUI and the rendered comments. */
  purpose: string
}

/** How a probe arriving on a port is replicated: the group it goes to, or none (consumed). */
export interface ProbeReplication {
  ingressPort: number
  /** 0 when the probe is consumed here and not forwarded. */
  group: number
  rule: string
}

/** One register cell to write at deploy time. */
export interface RegisterInit {
  /** Logical name the scheme module knows (the scheme file maps it to the P4 name). */
  register: string
  index: number
  value: number
  why: string
}

/** Output queue of one port: the fabric's rate and the buffer in packets. */
export interface QueueConfig {
  port: number
  bps: number
  depthPackets: number
}

/** Everything one switch is configured with. */
export interface SwitchState {
  node: number
  name: string
  role: 'tor' | 'agg' | 'spine'
  /** Numeric switch id: position in Fabric.switches (ToRs first, so a ToR's id is its ToR index; computeControlPlane asserts it, floodgate.p4 relies on it), as carried in DHLB probes. */
  switchId: number
  /** ToR index when the switch is a ToR, else -1. */
  torIndex: number
  pod: number
  ports: PortInfo[]
  hostRoutes: HostRoute[]
  /** One group per destination ToR other than this switch. */
  nextHops: NextHopGroup[]
  mcastGroups: McastGroup[]
  /** Per ingress port, for schemes with probes; empty otherwise. */
  probeReplication: ProbeReplication[]
  registers: RegisterInit[]
  queues: QueueConfig[]
}

export interface ControlPlaneState {
  scheme: CpScheme
  params: SchemeParams
  fabricKind: 'leaf-spine' | 'fat-tree' | 'three-tier' | 'custom'
  hosts: HostAddress[]
  tors: TorAddress[]
  /** In Fabric.switches order: ToRs first, then by tier. */
  switches: SwitchState[]
}

// ---- Abstract table entries: what a scheme module emits, what the renderers format ----

/** A match value: numbers are written in decimal; strings as given (IPv4 dotted, MAC). */
export type MatchField =
  | { kind: 'exact'; value: number | string }
  | { kind: 'lpm'; value: string | number; prefixLen: number }
  | { kind: 'ternary'; value: number; mask: number }
  | { kind: 'range'; lo: number; hi: number }

export type ParamValue = number | string

export interface TableEntry {
  /** Table and action names as the P4 program declares them (control-qualified). */
  table: string
  action: string
  match: MatchField[]
  params: ParamValue[]
  priority?: number
  /** A default-action entry (table_set_default); match must be empty. */
  isDefault?: boolean
  comment?: string
}

export interface RegisterWrite {
  /** P4 name (control-qualified) of the register array. */
  register: string
  index: number
  value: number
  comment?: string
}

/** What a scheme module renders for one switch, before formatting. */
export interface SwitchProgram {
  entries: TableEntry[]
  registers: RegisterWrite[]
  /** Multicast groups to create (ids as in SwitchState.mcastGroups). */
  mcastGroups: McastGroup[]
}

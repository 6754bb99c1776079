// The fabric as a graph: what the simulator builds its elements from and what the
// control plane computes forwarding state from, so the two cannot disagree on a port.
// Runs anywhere (no Node APIs).

/** Tier of a node: host 0, ToR/leaf/edge 1, aggregation 2, spine/core 3 (2 in a leaf-spine). */
export type NodeRole = 'host' | 'tor' | 'agg' | 'spine'

export interface TopoNode {
  id: number
  name: string
  role: NodeRole
  level: number
  /** Pod of a ToR or aggregation switch (and of a host); -1 for spines and in leaf-spines. */
  pod: number
  /** ports[p] is the link on port p. Down-facing ports come first, then up-facing ones. */
  ports: number[]
}

export interface TopoLink {
  id: number
  /** Canonical name, upper node first: "spine1-agg3", "leaf0-h2". */
  name: string
  /** The upper node (higher level) and its port. */
  a: number
  aPort: number
  /** The lower node and its port. */
  b: number
  bPort: number
  bps: number
  delayNs: number
  /** Fraction of packets the wire loses (custom topologies); absent means none. */
  loss?: number
}

export interface Fabric {
  kind: FabricSpec['kind']
  nodes: TopoNode[]
  links: TopoLink[]
  /** Node ids of the hosts, in host-index order (host i is nodes[hosts[i]]). */
  hosts: number[]
  /** Node ids of the ToRs (leaves, edges), in order. */
  tors: number[]
  /** Node ids of every switch, ToRs first, then by level. */
  switches: number[]
  /** For host index i, the node id of its ToR. */
  torOfHost: number[]
}

interface Common {
  hostLinkBps: number
  fabricLinkBps: number
  linkDelayNs: number
  /** Links taken out of the fabric before the run, by name (either order). */
  remove?: string[]
  /** Per-link rate overrides, by name (either order), for asymmetric fabrics. */
  rates?: Record<string, number>
}

export interface LeafSpineSpec extends Common {
  kind: 'leaf-spine'
  leaves: number
  spines: number
  hostsPerLeaf: number
  /** Parallel links between each leaf and each spine (CONGA's testbed has two); default 1. */
  linksPerSpine?: number
  /**
   * Host bandwidth of a leaf over its uplink bandwidth (2: 2:1). Given, the uplink rate is
   * derived from it (fabricLinkBps may then be 0), or checked against fabricLinkBps.
   */
  oversubscription?: number
}

/** A k-ary fat-tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)² cores. */
export interface FatTreeSpec extends Common {
  kind: 'fat-tree'
  k: number
  /** Hosts per edge switch; default k/2. */
  hostsPerTor?: number
}

/** HULA's 3-tier fabric (the HULA paper, Fig. 4): every ToR to every agg of its pod, every agg to every spine. */
export interface ThreeTierSpec extends Common {
  kind: 'three-tier'
  pods: number
  torsPerPod: number
  aggsPerPod: number
  spines: number
  hostsPerTor: number
}

/** A node of a custom topology. A host's ToR (and pod) is the switch at the other end of its one link. */
export interface CustomNodeSpec {
  name: string
  tier: NodeRole
  /** Pod of a ToR or aggregation switch; omitted: none (a leaf-spine's leaves, spines). */
  pod?: number
}

/** A link of a custom topology, upper or lower node first; ports and settings optional. */
export interface CustomLinkSpec {
  a: string
  b: string
  /** Explicit port numbers at each end; omitted ones take the lowest free port, in link order. */
  aPort?: number
  bPort?: number
  /** Defaults: hostLinkBps for a link with a host end, fabricLinkBps otherwise; linkDelayNs. */
  bps?: number
  delayNs?: number
  /** Fraction of packets lost on the wire, in [0, 1). */
  loss?: number
}

/** An explicit list of nodes and links: any fabric a paper draws. */
export interface CustomSpec extends Common {
  kind: 'custom'
  /** The most a switch's down bandwidth may exceed its up bandwidth (2: 2:1); default 1. */
  oversubscription?: number
  nodes: CustomNodeSpec[]
  links: CustomLinkSpec[]
}

export type FabricSpec = LeafSpineSpec | FatTreeSpec | ThreeTierSpec | CustomSpec

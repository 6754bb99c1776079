// Builds the simulator's elements from a fabric graph (src-main/topology): one Link (output
// queue + wire) per link direction, a Switch per switch node and a NIC per host. Port
// numbers are the graph's, so telemetry entities {switch: <node name>, port} mean the
// same port here, in a rendered simple_switch_CLI file and in a bfrt script.
// Host NICs never drop (senders are backpressured, see net/host.ts); switch ports are
// drop-tail with queuePackets and, under DCTCP, mark ECN at their threshold.

import type { Fabric } from '../../model/topology/types'
import type { SimContext } from '../engine/context'
import { Rng } from '../engine/rng'
import { SharedBuffer } from '../net/buffer'
import { Link } from '../net/link'
import { Switch } from '../net/switch'
import { dcqcnParams } from '../tcp/dcqcn'
import { TCP_HEADER_BYTES } from '../tcp/flows'
import { DCTCP_K_AT_10G, type BufferConfig, type Topology, type TransportConfig } from '../types'

/**
 * Ring slots per link in the shared slab: a queue of 8-16 packets plus a microsecond of
 * wire at 100G fits; larger rings move to arrays of their own.
 */
const LINK_SLOTS = 32

/**
 * Link loss draws from a stream of its own per link direction, so a lossy link neither shifts
 * the workload's or the forwarding stage's draws nor depends on other links' traffic.
 */
const LOSS_STREAM_BASE = 1000

/** The two directions of one fabric link and the switch ports at its ends (-1: a host). */
export interface LinkEnds {
  name: string
  /** Upper node → lower node, and back. */
  down: Link
  up: Link
  aSwitch: number
  aPort: number
  bSwitch: number
  bPort: number
}

export interface SimFabric {
  graph: Fabric
  /** Every link direction, indexed by its element-local index. */
  links: Link[]
  /** Dense switch index (Fabric.switches order, ToRs first). */
  switches: Switch[]
  /** NIC of each host, and the link delivering into it. */
  nics: Link[]
  hostIngress: Link[]
  /** Global port numbering: switch s's port p is portBase[s] + p. */
  portBase: Int32Array
  /** Egress link of each global port. */
  switchPorts: Link[]
  /** 1 while the port's link is up, per global port; portUp[s] is switch s's view. */
  portUpFlat: Uint8Array
  portUp: Uint8Array[]
  torOfHost: Int32Array
  torSwitch: Int32Array
  switchTor: Int32Array
  hostSlot: Int32Array
  /** By fabric link id. */
  ends: LinkEnds[]
  /** The switches' shared buffer, or null with per-port queues. */
  buffer: SharedBuffer | null
}

export function buildSimFabric(
  ctx: SimContext,
  f: Fabric,
  topo: Topology,
  transport: TransportConfig,
  /** Seeds the per-link loss streams. */
  seed = 0,
  bufferCfg?: BufferConfig,
  /** The stream RED marking draws from (DCQCN). */
  markRng?: Rng,
): SimFabric {
  const nS = f.switches.length
  const dense = new Int32Array(f.nodes.length).fill(-1)
  f.switches.forEach((node, s) => (dense[node] = s))
  const hostOf = new Int32Array(f.nodes.length).fill(-1)
  f.hosts.forEach((node, h) => (hostOf[node] = h))
  const torIndex = new Int32Array(f.nodes.length).fill(-1)
  f.tors.forEach((node, t) => (torIndex[node] = t))
  const torOfHost = Int32Array.from(f.torOfHost, (node) => torIndex[node])
  const torSwitch = Int32Array.from(f.tors, (node) => dense[node])
  const switchTor = Int32Array.from(f.switches, (node) => torIndex[node])
  const hostSlot = new Int32Array(f.hosts.length)
  for (const node of f.hosts) {
    if (f.nodes[node].ports.length !== 1) throw new Error(`host ${f.nodes[node].name} must have exactly one link`)
  }

  const switches = f.switches.map(
    (node, s) => new Switch(s, f.nodes[node].name, switchTor[s], ctx, torOfHost, hostSlot),
  )
  const portBase = new Int32Array(nS + 1)
  for (let s = 0; s < nS; s++) portBase[s + 1] = portBase[s] + f.nodes[f.switches[s]].ports.length
  const switchPorts = new Array<Link>(portBase[nS])
  const portUpFlat = new Uint8Array(portBase[nS]).fill(1)
  const portUp = switches.map((_, s) => portUpFlat.subarray(portBase[s], portBase[s + 1]))
  const nics = new Array<Link>(f.hosts.length)
  const hostIngress = new Array<Link>(f.hosts.length)
  const links: Link[] = []
  const dctcp = transport.kind === 'dctcp'
  const red = transport.kind === 'dcqcn' ? dcqcnParams(transport) : null
  const slab = new Float64Array(2 * f.links.length * 2 * LINK_SLOTS)

  // One direction: egress at (from, fromPort), arriving at (to, toPort).
  const direction = (from: number, fromPort: number, to: number, toPort: number, bps: number, delayNs: number, loss = 0): Link => {
    const fromHost = hostOf[from] >= 0
    const index = links.length
    const capacity = fromHost || bufferCfg !== undefined ? Infinity : topo.queuePackets
    const l = new Link(ctx, bps, Math.round(delayNs * 1000), capacity, index, slab, index * 2 * LINK_SLOTS, LINK_SLOTS)
    links.push(l)
    if (loss > 0) {
      l.loss = loss
      l.lossRng = new Rng(seed, LOSS_STREAM_BASE + index)
    }
    l.nextPort = toPort
    if (fromHost) {
      nics[hostOf[from]] = l
    } else {
      switches[dense[from]].ports[fromPort] = l
      switchPorts[portBase[dense[from]] + fromPort] = l
      if (dctcp) l.ecnThreshold = transport.ecnThresholdPackets ?? Math.max(1, Math.round((DCTCP_K_AT_10G * bps) / 10e9))
      if (red !== null) {
        if (markRng === undefined) throw new Error('internal error: DCQCN marking needs a random stream')
        l.redKmin = red.kminBytes
        l.redKmax = red.kmaxBytes
        l.redPmax = red.pmax
        l.redRng = markRng
      }
    }
    if (hostOf[to] >= 0) hostIngress[hostOf[to]] = l
    else l.next = switches[dense[to]]
    return l
  }

  const ends = f.links.map((lk): LinkEnds => {
    const down = direction(lk.a, lk.aPort, lk.b, lk.bPort, lk.bps, lk.delayNs, lk.loss)
    const up = direction(lk.b, lk.bPort, lk.a, lk.aPort, lk.bps, lk.delayNs, lk.loss)
    return { name: lk.name, down, up, aSwitch: dense[lk.a], aPort: lk.aPort, bSwitch: dense[lk.b], bPort: lk.bPort }
  })
  let buffer: SharedBuffer | null = null
  if (bufferCfg !== undefined) {
    buffer = new SharedBuffer(ctx, bufferCfg, portBase, switchPorts, transport.mssBytes + TCP_HEADER_BYTES, switches.map((sw) => sw.name))
    for (let s = 0; s < nS; s++) {
      switches[s].inPortBase = portBase[s] + 1
      for (let g = portBase[s]; g < portBase[s + 1]; g++) {
        switchPorts[g].buffer = buffer
        switchPorts[g].bufPort = g
      }
    }
  }
  return {
    graph: f, links, switches, nics, hostIngress, portBase, switchPorts, portUpFlat, portUp,
    torOfHost, torSwitch, switchTor, hostSlot, ends, buffer,
  }
}

// Builds a two-tier leaf-spine fabric out of queues, pipes and switches. Port numbering
// is the telemetry vocabulary: on a leaf, its hosts first then one uplink per spine; on
// a spine, one port per leaf. Each link direction is an output queue feeding a pipe.
// Host NICs never drop (senders are backpressured, see net/host.ts); switch ports are
// drop-tail with queuePackets.

import type { SimContext } from '../engine/context'
import type { Rng } from '../engine/rng'
import { Pipe, type PacketSink } from '../net/pipe'
import { Queue } from '../net/queue'
import { Switch } from '../net/switch'
import { createSelector } from '../routing'
import type { LeafSpineTopology, SchemeName } from '../types'

export interface Fabric {
  hosts: number
  switches: Switch[]
  /** All queues, indexed by their element-local index. */
  queues: Queue[]
  /** All pipes, indexed by their element-local index. */
  pipes: Pipe[]
  /** NIC queue of each host. */
  nics: Queue[]
  /** The pipe delivering into each host; its sink is attached once hosts exist. */
  hostIngress: Pipe[]
}

export function buildLeafSpine(
  ctx: SimContext,
  topo: LeafSpineTopology,
  scheme: SchemeName,
  rng: Rng,
): Fabric {
  const { leaves, spines, hostsPerLeaf } = topo
  const hosts = leaves * hostsPerLeaf
  const delayPs = Math.round(topo.linkDelayNs * 1000)
  const queues: Queue[] = []
  const pipes: Pipe[] = []
  const link = (bps: number, capacity: number, to: PacketSink | null): { q: Queue; pipe: Pipe } => {
    const q = new Queue(ctx, bps, capacity, queues.length)
    queues.push(q)
    const pipe = new Pipe(ctx, delayPs, pipes.length)
    pipes.push(pipe)
    q.pipe = pipe
    pipe.next = to
    return { q, pipe }
  }

  const leafSw: Switch[] = []
  const spineSw: Switch[] = []
  for (let l = 0; l < leaves; l++) leafSw.push(new Switch(`leaf${l}`, ctx.pkts))
  for (let s = 0; s < spines; s++) spineSw.push(new Switch(`spine${s}`, ctx.pkts))

  const nics: Queue[] = []
  const hostIngress: Pipe[] = []
  for (let h = 0; h < hosts; h++) {
    nics.push(link(topo.hostLinkBps, Infinity, leafSw[Math.floor(h / hostsPerLeaf)]).q)
  }
  for (let l = 0; l < leaves; l++) {
    const sw = leafSw[l]
    for (let i = 0; i < hostsPerLeaf; i++) {
      const down = link(topo.hostLinkBps, topo.queuePackets, null)
      sw.ports.push(down.q)
      hostIngress.push(down.pipe)
    }
    sw.uplinkBase = hostsPerLeaf
    for (let s = 0; s < spines; s++) sw.ports.push(link(topo.fabricLinkBps, topo.queuePackets, spineSw[s]).q)
    sw.route = new Int32Array(hosts).fill(-1)
    for (let i = 0; i < hostsPerLeaf; i++) sw.route[l * hostsPerLeaf + i] = i
    sw.selector = createSelector(scheme, ctx, rng, l, spines)
  }
  for (let s = 0; s < spines; s++) {
    const sw = spineSw[s]
    for (let l = 0; l < leaves; l++) sw.ports.push(link(topo.fabricLinkBps, topo.queuePackets, leafSw[l]).q)
    sw.route = new Int32Array(hosts)
    for (let h = 0; h < hosts; h++) sw.route[h] = Math.floor(h / hostsPerLeaf)
  }
  return { hosts, switches: [...leafSw, ...spineSw], queues, pipes, nics, hostIngress }
}

// Assembles a run (flows, fabric, TCP endpoints, generator, sampler) and drives the event
// loop. The loop runs the top element in place (it usually re-arms itself, see
// EventHeap.finishTop) and dispatches on its kind with a switch over small integers, so
// each call site below stays monomorphic.

import { Counters, KIND_FLOW_TIMER, KIND_GENERATOR, KIND_PIPE, KIND_QUEUE, KIND_SAMPLER, SimContext } from './engine/context'
import { Rng } from './engine/rng'
import { Host, HostTx } from './net/host'
import { NewRenoSenders } from './tcp/newreno'
import { TcpReceivers } from './tcp/receiver'
import { Sampler } from './telemetry'
import { buildLeafSpine } from './topo/leafspine'
import { DEFAULT_HOST_QUEUE_PACKETS, type SimConfig, type SimCounters, type SimHooks, type SimResult } from './types'
import { buildFlows } from './workload'
import { FlowStarter } from './workload/starter'

/** PRNG stream for forwarding decisions (the workload uses its own). */
const FORWARDING_STREAM = 2
/** onProgress is called at most once per this much simulated time. */
const PROGRESS_EVERY_PS = 1e9

function checkConfig(cfg: SimConfig): void {
  const t = cfg.topology
  if (t.kind !== 'leaf-spine') throw new Error(`topology.kind '${String(t.kind)}' is not supported: use 'leaf-spine'`)
  for (const k of ['leaves', 'spines', 'hostsPerLeaf', 'queuePackets'] as const) {
    if (!(Number.isInteger(t[k]) && t[k] >= 1)) throw new Error(`topology.${k} must be an integer >= 1, got ${t[k]}`)
  }
  for (const k of ['hostLinkBps', 'fabricLinkBps'] as const) {
    if (!(t[k] > 0)) throw new Error(`topology.${k} must be > 0, got ${t[k]}`)
  }
  if (t.hostQueuePackets !== undefined && !(Number.isInteger(t.hostQueuePackets) && t.hostQueuePackets >= 1)) {
    throw new Error(`topology.hostQueuePackets must be an integer >= 1, got ${t.hostQueuePackets}`)
  }
  if (!(t.linkDelayNs >= 0)) throw new Error(`topology.linkDelayNs must be >= 0, got ${t.linkDelayNs}`)
  const tr = cfg.transport
  if (tr.kind !== 'newreno') throw new Error(`transport.kind '${String(tr.kind)}' is not supported: use 'newreno'`)
  if (!(Number.isInteger(tr.mssBytes) && tr.mssBytes >= 1)) throw new Error(`transport.mssBytes must be an integer >= 1`)
  if (!(tr.initCwndPackets >= 1)) throw new Error(`transport.initCwndPackets must be >= 1`)
  if (!(tr.minRtoNs > 0)) throw new Error(`transport.minRtoNs must be > 0`)
  if (!(cfg.maxSimTimeNs > 0)) throw new Error(`maxSimTimeNs must be > 0, got ${cfg.maxSimTimeNs}`)
  if (!Number.isFinite(cfg.seed)) throw new Error(`seed must be a finite number, got ${cfg.seed}`)
}

export function runSim(cfg: SimConfig, hooks: SimHooks = {}): SimResult {
  checkConfig(cfg)
  const ctx = new SimContext()
  const flows = buildFlows(cfg.workload, cfg.topology, cfg.transport.mssBytes, cfg.seed)
  const fabric = buildLeafSpine(ctx, cfg.topology, cfg.scheme, new Rng(cfg.seed, FORWARDING_STREAM))
  const hostTx = new HostTx(
    fabric.hosts,
    flows,
    cfg.topology.hostQueuePackets ?? DEFAULT_HOST_QUEUE_PACKETS,
    ctx.counters,
  )
  const senders = new NewRenoSenders(ctx, flows, fabric.nics, hostTx, cfg.transport)
  hostTx.senders = senders
  const receivers = new TcpReceivers(ctx, flows, fabric.nics)
  for (let h = 0; h < fabric.hosts; h++) {
    fabric.nics[h].hostTx = hostTx
    fabric.nics[h].host = h
    fabric.hostIngress[h].next = new Host(h, fabric.nics[h], ctx.pkts, senders, receivers)
  }
  const starter = new FlowStarter(ctx, flows, senders)
  const sampler = cfg.telemetryIntervalNs > 0 ? new Sampler(ctx, fabric.switches, cfg.telemetryIntervalNs, hooks) : null
  if (sampler !== null) hooks.onSeries?.(sampler.defs)

  const { heap, kind, local } = ctx
  const { queues, pipes } = fabric
  const maxPs = cfg.maxSimTimeNs * 1000
  const onProgress = hooks.onProgress
  let nextProgressPs = onProgress !== undefined ? PROGRESS_EVERY_PS : Infinity
  let events = 0
  let stoppedAtLimit = false
  while (flows.done < flows.n && heap.size > 0) {
    const t = heap.topTime()
    if (t > maxPs) {
      stoppedAtLimit = true
      break
    }
    const el = heap.topElem()
    const order = heap.topOrder()
    ctx.now = t
    events++
    switch (kind[el]) {
      case KIND_QUEUE:
        queues[local[el]].onEvent()
        break
      case KIND_PIPE:
        pipes[local[el]].onEvent()
        break
      case KIND_FLOW_TIMER:
        senders.onTimer(local[el])
        break
      case KIND_GENERATOR:
        starter.onEvent()
        break
      case KIND_SAMPLER:
        sampler!.onEvent()
        break
    }
    heap.finishTop(el, order)
    if (t >= nextProgressPs) {
      onProgress!({ simTimeNs: t / 1000, flowsDone: flows.done, flowsTotal: flows.n })
      nextProgressPs = t + PROGRESS_EVERY_PS
    }
  }
  const endPs = stoppedAtLimit ? maxPs : ctx.now
  sampler?.flush()
  onProgress?.({ simTimeNs: endPs / 1000, flowsDone: flows.done, flowsTotal: flows.n })

  const finishNs = new Float64Array(flows.n)
  const startNs = new Float64Array(flows.n)
  for (let f = 0; f < flows.n; f++) {
    startNs[f] = flows.startPs[f] / 1000
    finishNs[f] = flows.finishPs[f] >= 0 ? flows.finishPs[f] / 1000 : -1
  }
  ctx.counters.events = events
  return {
    flows: { src: flows.src, dst: flows.dst, sizeBytes: flows.sizeBytes, startNs, finishNs },
    counters: toSimCounters(ctx.counters, endPs, heap.maxSize, ctx.pkts.maxInUse),
  }
}

function toSimCounters(c: Counters, endPs: number, maxHeapSize: number, maxPackets: number): SimCounters {
  return {
    events: c.events,
    packetHops: c.packetHops,
    dataPacketsSent: c.dataPacketsSent,
    ackPacketsSent: c.ackPacketsSent,
    drops: c.drops,
    retransmits: c.retransmits,
    timeouts: c.timeouts,
    fastRetransmits: c.fastRetransmits,
    reorderedPackets: c.reorderedPackets,
    payloadBytesSent: c.payloadBytesSent,
    payloadBytesDelivered: c.payloadBytesDelivered,
    simTimeNs: endPs / 1000,
    maxHeapSize,
    maxPacketsInFlight: maxPackets,
    maxHostQueuePackets: c.maxHostQueuePackets,
  }
}

// Assembles a run (flows, fabric, routes, forwarding stage, TCP endpoints, generator,
// failures, sampler) and drives the event loop. The loop pops the earliest element (an
// element that wants another wake-up schedules it while it runs) and dispatches on its
// kind with a switch over small integers, so each call site below stays monomorphic.

import { buildFabric, linkByName } from '../model/topology'
import type { Fabric } from '../model/topology/types'
import {
  Counters,
  KIND_FLOW_TIMER,
  KIND_GENERATOR,
  KIND_LINK,
  KIND_LINK_EVENTS,
  KIND_SAMPLER,
  KIND_STAGE_TIMER,
  SimContext,
} from './engine/context'
import { Rng } from './engine/rng'
import { LinkSchedule, type ScheduledChange } from './net/failures'
import { Host, HostTx } from './net/host'
import type { StageFactory } from './routing/stage'
import { createStageEnv } from './routing/env'
import { computeRoutes, RouteTable } from './routing/routes'
import { TcpReceivers } from './tcp/receiver'
import { TcpSenders } from './tcp/sender'
import { DcqcnSenders, dcqcnParams } from './tcp/dcqcn'
import type { SharedBuffer } from './net/buffer'
import type { SimFabric } from './topo/build'
import type { FlowTable } from './tcp/flows'
import { Sampler, type SeriesGroup } from './telemetry'
import { buildSimFabric } from './topo/build'
import { DEFAULT_HOST_QUEUE_PACKETS, type SimConfig, type SimCounters, type SimFlowBatch, type SimHooks, type SimResult } from './types'
import { buildFlows } from './workload'
import { HostLayout } from './workload/layout'
import { FlowStarter } from './workload/starter'

/** PRNG stream for forwarding decisions (the workload uses its own). */
const FORWARDING_STREAM = 2
/** PRNG stream of RED marking at switches (DCQCN); 1 and 3 are the workloads', 2 forwarding. */
const MARKING_STREAM = 4
/** onProgress is called at most once per this much simulated time. */
const PROGRESS_EVERY_PS = 1e9
/** Finished flows go to onFlows once per this much simulated time, or once this many wait. */
const FLOWS_EVERY_PS = 1e9
const FLOWS_BATCH_MAX = 4096

function checkConfig(cfg: SimConfig): Fabric {
  const t = cfg.topology
  const kinds = ['leaf-spine', 'fat-tree', 'three-tier', 'custom']
  if (!kinds.includes(t.kind)) throw new Error(`topology.kind '${String(t.kind)}' is not supported: use one of ${kinds.join(', ')}`)
  if (t.kind === 'leaf-spine') {
    for (const k of ['leaves', 'spines', 'hostsPerLeaf'] as const) {
      if (!(Number.isInteger(t[k]) && t[k] >= 1)) throw new Error(`topology.${k} must be an integer >= 1, got ${t[k]}`)
    }
  }
  if (!(Number.isInteger(t.queuePackets) && t.queuePackets >= 1)) {
    throw new Error(`topology.queuePackets must be an integer >= 1, got ${t.queuePackets}`)
  }
  for (const k of ['hostLinkBps', 'fabricLinkBps'] as const) {
    if (k === 'fabricLinkBps' && t.kind === 'leaf-spine' && t.oversubscription !== undefined) continue
    if (!(t[k] > 0)) throw new Error(`topology.${k} must be > 0, got ${t[k]}`)
  }
  if (t.hostQueuePackets !== undefined && !(Number.isInteger(t.hostQueuePackets) && t.hostQueuePackets >= 1)) {
    throw new Error(`topology.hostQueuePackets must be an integer >= 1, got ${t.hostQueuePackets}`)
  }
  if (!(t.linkDelayNs >= 0)) throw new Error(`topology.linkDelayNs must be >= 0, got ${t.linkDelayNs}`)
  const tr = cfg.transport
  if (tr.kind !== 'newreno' && tr.kind !== 'dctcp' && tr.kind !== 'dcqcn') {
    throw new Error(`transport.kind '${String(tr.kind)}' is not supported: use 'newreno', 'dctcp' or 'dcqcn'`)
  }
  if (tr.kind === 'dcqcn') dcqcnParams(tr)
  checkBuffer(cfg)
  if (!(Number.isInteger(tr.mssBytes) && tr.mssBytes >= 1)) throw new Error(`transport.mssBytes must be an integer >= 1`)
  if (!(tr.initCwndPackets >= 1)) throw new Error(`transport.initCwndPackets must be >= 1`)
  if (!(tr.minRtoNs > 0)) throw new Error(`transport.minRtoNs must be > 0`)
  if (tr.ecnThresholdPackets !== undefined && !(Number.isInteger(tr.ecnThresholdPackets) && tr.ecnThresholdPackets >= 1)) {
    throw new Error(`transport.ecnThresholdPackets must be an integer >= 1, got ${tr.ecnThresholdPackets}`)
  }
  if (tr.dctcpG !== undefined && !(tr.dctcpG > 0 && tr.dctcpG <= 1)) throw new Error(`transport.dctcpG must be in (0, 1], got ${tr.dctcpG}`)
  if (!(cfg.maxSimTimeNs > 0)) throw new Error(`maxSimTimeNs must be > 0, got ${cfg.maxSimTimeNs}`)
  if (!Number.isFinite(cfg.seed)) throw new Error(`seed must be a finite number, got ${cfg.seed}`)
  if (cfg.failover !== undefined && cfg.failover !== 'global' && cfg.failover !== 'local') {
    throw new Error(`failover must be 'global' or 'local', got '${String(cfg.failover)}'`)
  }
  try {
    return buildFabric(t)
  } catch (e) {
    throw new Error(`topology: ${(e as Error).message}`, { cause: e })
  }
}

function checkBuffer(cfg: SimConfig): void {
  const b = cfg.buffer
  if (b === undefined) return
  if (b.kind !== 'shared') throw new Error(`buffer.kind '${String(b.kind)}' is not supported: use 'shared' (or leave buffer out for per-port queues)`)
  if (!(Number.isFinite(b.sizeBytes) && b.sizeBytes > 0)) throw new Error(`buffer.sizeBytes must be > 0, got ${b.sizeBytes}`)
  if (!(b.alpha > 0)) throw new Error(`buffer.alpha must be > 0, got ${b.alpha}`)
  const p = b.pfc
  if (p === undefined) return
  if (!(p.alpha > 0)) throw new Error(`buffer.pfc.alpha must be > 0, got ${p.alpha}`)
  if (!(p.xonOffsetBytes >= 0)) throw new Error(`buffer.pfc.xonOffsetBytes must be >= 0, got ${p.xonOffsetBytes}`)
  if (p.headroomBytes !== undefined && !(p.headroomBytes > 0)) throw new Error(`buffer.pfc.headroomBytes must be > 0, got ${p.headroomBytes}`)
}

function scheduledChanges(cfg: SimConfig, f: Fabric): ScheduledChange[] {
  return (cfg.linkEvents ?? []).map((ev, i) => {
    if (!(ev.atNs >= 0 && Number.isFinite(ev.atNs))) throw new Error(`linkEvents[${i}].atNs must be >= 0, got ${ev.atNs}`)
    if (typeof ev.up !== 'boolean') throw new Error(`linkEvents[${i}].up must be true or false`)
    let id: number
    try {
      id = linkByName(f, ev.link).id
    } catch (e) {
      throw new Error(`linkEvents[${i}]: ${(e as Error).message}`, { cause: e })
    }
    return { atPs: Math.round(ev.atNs * 1000), link: id, up: ev.up }
  })
}

/**
 * Width of the event wheel's buckets: its 4096 buckets should span about twice the
 * furthest a link arrival lies ahead (an MTU's serialization on the slowest link plus the
 * longest delay), so nearly every event lands in the wheel and a bucket holds one or two.
 */
function wheelBucketPs(cfg: SimConfig): number {
  const t = cfg.topology
  const slowest = Math.min(t.hostLinkBps, t.fabricLinkBps, ...Object.values(t.rates ?? {}))
  const ahead = ((cfg.transport.mssBytes + 100) * 8e12) / slowest + t.linkDelayNs * 1000
  return Math.max(64, (2 * ahead) / 4096)
}

/**
 * Runs one simulation with a scheme's forwarding stage. The simulator knows no scheme by
 * name: src-main/schemes passes the stage of cfg.scheme (its runSim).
 */
export function simulate(cfg: SimConfig, stageFactory: StageFactory, hooks: SimHooks = {}): SimResult {
  const graph = checkConfig(cfg)
  const changes = scheduledChanges(cfg, graph)
  const ctx = new SimContext(wheelBucketPs(cfg))
  const layout = new HostLayout(graph, cfg.topology.hostLinkBps)
  const flows = buildFlows(cfg.workload, layout, cfg.transport.mssBytes, cfg.seed)
  const dcqcn = cfg.transport.kind === 'dcqcn'
  const fab = buildSimFabric(ctx, graph, cfg.topology, cfg.transport, cfg.seed, cfg.buffer, dcqcn ? new Rng(cfg.seed, MARKING_STREAM) : undefined)
  const routes = new RouteTable(graph, cfg.routes ?? computeRoutes(graph), fab.switches, fab.hostSlot, fab.torSwitch)
  const failover = cfg.failover ?? 'global'
  routes.refresh(fab.portUp, failover)

  const hostTx = new HostTx(fab.nics, flows, cfg.topology.hostQueuePackets ?? DEFAULT_HOST_QUEUE_PACKETS)
  const senders = dcqcn ? new DcqcnSenders(ctx, flows, fab.nics, hostTx, cfg.transport) : new TcpSenders(ctx, flows, fab.nics, hostTx, cfg.transport)
  hostTx.senders = senders
  const receivers = new TcpReceivers(ctx, flows, fab.nics, dcqcn ? dcqcnParams(cfg.transport).cnpIntervalNs : 0)
  for (let h = 0; h < graph.hosts.length; h++) {
    const host = new Host(h, ctx.pkts, senders, receivers)
    host.nic = fab.nics[h]
    fab.hostIngress[h].next = host
  }

  const seriesGroups: SeriesGroup[] = []
  if (cfg.transport.kind === 'dctcp') {
    seriesGroups.push({
      defs: [{ kind: 'tcp.dctcpAlpha', entity: {}, unit: 'ratio' }],
      fill: (out) => (out[0] = senders.meanAlpha()),
    })
  }
  if (senders instanceof DcqcnSenders) {
    seriesGroups.push({
      defs: [{ kind: 'tcp.dcqcnRate', entity: {}, unit: 'bps' }],
      fill: (out) => (out[0] = senders.meanRate()),
    })
  }
  if (fab.buffer !== null) seriesGroups.push(bufferSeries(fab, fab.buffer))
  // With links failing, the packets switches send into a dead end (no live way on toward the
  // destination, as under failover: local): how long a load balancer keeps sending into it.
  if (changes.length > 0) seriesGroups.push(unroutableSeries(ctx.counters))
  const env = createStageEnv(ctx, fab, flows, new Rng(cfg.seed, FORWARDING_STREAM), cfg.schemeParams ?? {}, seriesGroups)
  const stage = stageFactory(env)
  for (const sw of fab.switches) sw.setStage(stage)

  const starter = new FlowStarter(ctx, flows, senders)
  const app: AppFlows = flows.msgs ?? flows
  const linkSchedule =
    changes.length > 0
      ? new LinkSchedule(ctx, changes, (c) => {
          const e = fab.ends[c.link]
          e.down.setUp(c.up)
          e.up.setUp(c.up)
          const ends: Array<[number, number]> = [
            [e.aSwitch, e.aPort],
            [e.bSwitch, e.bPort],
          ]
          for (const [s, p] of ends) if (s >= 0) fab.portUp[s][p] = c.up ? 1 : 0
          routes.refresh(fab.portUp, failover)
          ctx.logEvent(c.up ? 'link.up' : 'link.down', e.name)
          if (stage.onLinkChange !== undefined) for (const [s, p] of ends) if (s >= 0) stage.onLinkChange(s, p, c.up)
        })
      : null
  const sampler =
    cfg.telemetryIntervalNs > 0
      ? new Sampler(ctx, fab.switches, cfg.telemetryIntervalNs, hooks, seriesGroups, ctx.counters)
      : null
  if (sampler !== null) hooks.onSeries?.(sampler.defs)
  stage.start?.()

  const { heap, kind, local } = ctx
  const links = fab.links
  let nLinks = 0
  while (nLinks < links.length && links[nLinks].elem === nLinks) nLinks++
  const maxPs = cfg.maxSimTimeNs * 1000
  const onProgress = hooks.onProgress
  let nextProgressPs = onProgress !== undefined ? PROGRESS_EVERY_PS : Infinity
  const onFlows = hooks.onFlows
  let flowsSent = 0
  let nextFlowsPs = onFlows !== undefined ? FLOWS_EVERY_PS : Infinity
  const flowsBatchMax = onFlows !== undefined ? FLOWS_BATCH_MAX : Infinity
  let events = 0
  let stoppedAtLimit = false
  while (flows.done < flows.n && heap.size > 0) {
    const el = heap.pop()
    const t = heap.poppedTime
    if (t < ctx.now) throw new Error(`internal error: event of element ${el} (kind ${kind[el]}, local ${local[el]}) at ${t} ps after ${ctx.now} ps`)
    if (t > maxPs) {
      stoppedAtLimit = true
      break
    }
    ctx.now = t
    events++
    // Links are the first elements created, so their element id is their index.
    if (el < nLinks) links[el].onEvent()
    else switch (kind[el]) {
      case KIND_LINK:
        links[local[el]].onEvent()
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
      case KIND_STAGE_TIMER:
        stage.onTimer!(local[el])
        break
      case KIND_LINK_EVENTS:
        linkSchedule!.onEvent()
        break
    }
    if (t >= nextFlowsPs || app.done - flowsSent >= flowsBatchMax) {
      onFlows!(finishedSince(app, flowsSent))
      flowsSent = app.done
      nextFlowsPs = t + FLOWS_EVERY_PS
    }
    if (t >= nextProgressPs) {
      onProgress!({ simTimeNs: t / 1000, flowsDone: app.done, flowsTotal: app.n })
      nextProgressPs = t + PROGRESS_EVERY_PS
    }
  }
  // A run whose flows never end (long-lived, unbounded permutation) stops at the limit.
  const endPs = stoppedAtLimit || flows.done < flows.n ? maxPs : ctx.now
  if (endPs > ctx.now) ctx.now = endPs
  sampler?.flush()
  onProgress?.({ simTimeNs: endPs / 1000, flowsDone: app.done, flowsTotal: app.n })

  const n = app.n
  const msgs = flows.msgs
  const finishNs = new Float64Array(n)
  const startNs = new Float64Array(n)
  const sizeBytes = new Float64Array(n)
  const deliveredBytes = new Float64Array(n)
  for (let f = 0; f < n; f++) {
    startNs[f] = app.startPs[f] / 1000
    finishNs[f] = app.finishPs[f] >= 0 ? app.finishPs[f] / 1000 : -1
    sizeBytes[f] = Number.isFinite(app.sizeBytes[f]) ? app.sizeBytes[f] : -1
    deliveredBytes[f] =
      msgs !== null ? msgs.delivered(f, receivers.rcvNxt[msgs.conn[f]], cfg.transport.mssBytes) : flows.bytesBelow(f, receivers.rcvNxt[f])
  }
  ctx.counters.events = events
  return {
    flows: { src: app.src, dst: app.dst, sizeBytes, startNs, finishNs, deliveredBytes, group: app.group },
    counters: { ...toSimCounters(ctx.counters, endPs, heap.maxSize, ctx.pkts.maxInUse), ...bufferCounters(fab, ctx.counters.controlBytes, stage.maxHeldBytes) },
    events: ctx.events,
    eventsDropped: ctx.eventsDropped,
  }
}

/**
 * The flows as the run reports them: the flow table's rows, or on persistent connections
 * the flows they carry (tcp/messages.ts). Both tables name these columns alike.
 */
type AppFlows = Pick<FlowTable, 'n' | 'src' | 'dst' | 'sizeBytes' | 'startPs' | 'finishPs' | 'group' | 'done' | 'finishOrder'>

/** Packets dropped for lack of a live route, fabric-wide, per interval. */
function unroutableSeries(c: Counters): SeriesGroup {
  let last = 0
  return {
    defs: [{ kind: 'drops.unroutable', entity: {}, unit: 'count' }],
    fill: (out) => {
      out[0] = c.unroutableDrops - last
      last = c.unroutableDrops
    },
  }
}

/**
 * Per switch: bytes charged to its shared buffer (shared pool and headroom) at each sample.
 * Read as the buffer last accounted them: bringing the links up to date here could send a
 * resume frame at the sampler's instant, and the run must not depend on the sampling.
 */
function bufferSeries(fab: SimFabric, buffer: SharedBuffer): SeriesGroup {
  return {
    defs: fab.switches.map((sw) => ({ kind: 'buffer.used', entity: { switch: sw.name }, unit: 'bytes' })),
    fill: (out) => {
      for (let s = 0; s < fab.switches.length; s++) out[s] = buffer.shared[s] + buffer.hdrmTotal[s]
    },
  }
}

/**
 * The buffer measures: the most bytes held for one port per tier (ToR-up, ToR-down, core,
 * as the Floodgate paper reports them), and with a shared buffer its peak, drops and PFC frames.
 * What a port holds is its queue plus what the stage holds for it outside the queue
 * (Floodgate's VOQs, `held`, per global port); without such a stage, the queue alone.
 */
function bufferCounters(fab: SimFabric, controlBytes: number, held: Float64Array | undefined): Partial<SimCounters> {
  let torUp = 0
  let torDown = 0
  let core = 0
  const toHost = new Set(fab.hostIngress)
  let switchLinkBytes = 0
  fab.switches.forEach((sw, s) => {
    sw.ports.forEach((l, i) => {
      const most = held === undefined ? l.maxQueuedBytes : Math.max(l.maxQueuedBytes, held[fab.portBase[s] + i])
      if (fab.switchTor[s] < 0) core = Math.max(core, most)
      else if (toHost.has(l)) torDown = Math.max(torDown, most)
      else torUp = Math.max(torUp, most)
      if (!toHost.has(l)) switchLinkBytes += l.busyUntilNow() / l.psPerByte
    })
  })
  const out: Partial<SimCounters> = {
    maxQueueBytesTorUp: torUp,
    maxQueueBytesTorDown: torDown,
    maxQueueBytesCore: core,
    switchLinkBytes: Math.round(switchLinkBytes),
    controlShare: switchLinkBytes > 0 ? controlBytes / switchLinkBytes : 0,
  }
  const b = fab.buffer
  if (b === null) return out
  let lag = 0
  for (const l of fab.links) if (l.pfc !== null) lag = Math.max(lag, l.pfc.maxLagPs)
  return {
    ...out,
    maxSwitchBufferBytes: Math.max(0, ...b.maxUsed),
    losslessDrops: b.losslessDrops,
    lossyDrops: b.lossyDrops,
    pfcPauseFrames: b.pauseFrames,
    pfcResumeFrames: b.resumeFrames,
    pfcMaxPauseLagNs: lag / 1000,
  }
}

/** The flows that finished after the first `from` of flows.finishOrder, as SimResult gives them. */
function finishedSince(flows: AppFlows, from: number): SimFlowBatch {
  const k = flows.done - from
  const b: SimFlowBatch = {
    id: new Int32Array(k),
    src: new Int32Array(k),
    dst: new Int32Array(k),
    sizeBytes: new Float64Array(k),
    startNs: new Float64Array(k),
    finishNs: new Float64Array(k),
  }
  for (let i = 0; i < k; i++) {
    const f = flows.finishOrder[from + i]
    b.id[i] = f
    b.src[i] = flows.src[f]
    b.dst[i] = flows.dst[f]
    b.sizeBytes[i] = Number.isFinite(flows.sizeBytes[f]) ? flows.sizeBytes[f] : -1
    b.startNs[i] = flows.startPs[f] / 1000
    b.finishNs[i] = flows.finishPs[f] / 1000
  }
  return b
}

function toSimCounters(c: Counters, endPs: number, maxHeapSize: number, maxPackets: number): SimCounters {
  return {
    events: c.events,
    packetHops: c.packetHops,
    dataPacketsSent: c.dataPacketsSent,
    ackPacketsSent: c.ackPacketsSent,
    drops: c.drops,
    linkDownDrops: c.linkDownDrops,
    // Only on fabrics with lossy links, so other runs' counters stay as they were.
    ...(c.lossDrops > 0 ? { lossDrops: c.lossDrops } : {}),
    unroutableDrops: c.unroutableDrops,
    ecnMarks: c.ecnMarks,
    retransmits: c.retransmits,
    timeouts: c.timeouts,
    fastRetransmits: c.fastRetransmits,
    reorderedPackets: c.reorderedPackets,
    payloadBytesSent: c.payloadBytesSent,
    payloadBytesDelivered: c.payloadBytesDelivered,
    goodputBps: endPs > 0 ? (c.payloadBytesDelivered * 8 * 1e12) / endPs : 0,
    controlPackets: c.controlPackets,
    controlBytes: c.controlBytes,
    simTimeNs: endPs / 1000,
    maxHeapSize,
    maxPacketsInFlight: maxPackets,
    maxHostQueuePackets: c.maxHostQueuePackets,
  }
}

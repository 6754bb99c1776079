// The buffer measures per tier the Floodgate paper reports (ToR-up, ToR-down, core) count what
// a switch holds for a port wherever it holds it: Floodgate's VOQs as well as the port's queue.
import { expect, test } from 'vitest'
import { simulate, type BufferConfig, type ExplicitFlow, type SimConfig, type StageEnv, type TransportConfig } from '../../src-main/sim'
import { stageFor } from '../../src-main/schemes'
import { FloodgateStage } from '../../src-main/schemes/floodgate/stage'
import { config, topo } from './helpers'

const MB = 1_000_000

/**
 * 4 leaves × 1 spine, 10G hosts, 40G fabric: 23 hosts on leaves 0, 2 and 3 send 1 MB each to
 * h8 on leaf1 at once. Floodgate's windows toward h8 hold most of it in the source ToRs' VOQs.
 */
function incastCfg(scheme: 'ecmp' | 'floodgate', over: Partial<SimConfig> = {}, dst = (_src: number): number => 8): SimConfig {
  const flows: ExplicitFlow[] = []
  for (let h = 1; h < 32; h++) if (h < 8 || h >= 16) flows.push({ src: h, dst: dst(h), sizeBytes: 1 * MB, startNs: 0 })
  return config(
    { kind: 'explicit', flows },
    { scheme, topology: topo({ leaves: 4, spines: 1, hostsPerLeaf: 8, queuePackets: 100 }), telemetryIntervalNs: 5_000, ...over },
  )
}

type Tier = 'torUp' | 'torDown' | 'core'

function tierOf(env: StageEnv, s: number, g: number): Tier {
  if (env.switchTor[s] < 0) return 'core'
  return env.peerSwitch[g] < 0 ? 'torDown' : 'torUp'
}

/** Per tier: the largest maxQueuedBytes of any of its ports, the measure before VOQs counted. */
function portQueueMax(env: StageEnv): Record<Tier, number> {
  const out: Record<Tier, number> = { torUp: 0, torDown: 0, core: 0 }
  for (let s = 0; s < env.nSwitches; s++) {
    for (let g = env.portBase[s]; g < env.portBase[s + 1]; g++) {
      const t = tierOf(env, s, g)
      out[t] = Math.max(out[t], env.links[g].maxQueuedBytes)
    }
  }
  return out
}

test('ToR-up counts the VOQ bytes Floodgate holds at the source ToR, beyond what its port queues ever held', { timeout: 60_000 }, () => {
  let env: StageEnv | null = null
  let stage: FloodgateStage | null = null
  // Sampled independently of the stage's own peak: per ToR uplink, the VOQ bytes toward any
  // destination plus the port's queue, at every telemetry interval.
  let sampledVoq = 0
  let sampledHeld = 0
  const factory = (e: StageEnv): FloodgateStage => {
    env = e
    const st = (stage = new FloodgateStage(e))
    const H = e.fabric.hosts.length
    const uplinks: number[] = []
    for (let s = 0; s < e.nSwitches; s++) for (let g = e.portBase[s]; g < e.portBase[s + 1]; g++) if (tierOf(e, s, g) === 'torUp') uplinks.push(g)
    e.addSeries([{ kind: 'test.voq', entity: {}, unit: 'bytes' }], (out) => {
      for (const g of uplinks) {
        let voq = 0
        for (let h = 0; h < H; h++) voq += st.voqBytes[g * H + h]
        sampledVoq = Math.max(sampledVoq, voq)
        sampledHeld = Math.max(sampledHeld, voq + e.links[g].queuedBytes())
      }
      out[0] = sampledVoq
    })
    return st
  }
  const r = simulate(incastCfg('floodgate'), factory)
  expect(r.flows.finishNs.every((f) => f > 0)).toBe(true)
  expect(stage!.maxVoqBuf).toBeGreaterThan(100_000)
  const before = portQueueMax(env!)
  // The VOQs at the source ToRs held far more than any uplink queue did: a measure that left
  // them out (the port's maxQueuedBytes) stays below what was really held for the uplinks.
  expect(sampledVoq).toBeGreaterThan(before.torUp)
  expect(r.counters.maxQueueBytesTorUp!).toBeGreaterThanOrEqual(sampledHeld)
  // Nor does it count more than the switch's VOQs ever held plus the largest uplink queue.
  expect(r.counters.maxQueueBytesTorUp!).toBeLessThanOrEqual(stage!.maxVoqBuf + before.torUp)
  // No VOQ at a ToR's host ports (the destination ToR forwards) nor past the last hop: the
  // other tiers only ever grow by VOQ bytes, never fall below the port queues.
  expect(r.counters.maxQueueBytesTorDown!).toBe(before.torDown)
  expect(r.counters.maxQueueBytesCore!).toBeGreaterThanOrEqual(before.core)
})

test('for ECMP (no VOQs) the per-tier measures are the port queues\' maxima, as before', { timeout: 60_000 }, () => {
  let env: StageEnv | null = null
  const r = simulate(incastCfg('ecmp'), (e) => {
    env = e
    return stageFor('ecmp')(e)
  })
  const before = portQueueMax(env!)
  expect(before.torDown).toBeGreaterThan(0)
  expect(r.counters.maxQueueBytesTorUp).toBe(before.torUp)
  expect(r.counters.maxQueueBytesTorDown).toBe(before.torDown)
  expect(r.counters.maxQueueBytesCore).toBe(before.core)
})

// The template's lossless fabric: a 1 MB shared buffer per switch with PFC, DCQCN.
const LOSSLESS: Partial<SimConfig> = {
  buffer: { kind: 'shared', sizeBytes: 1_000_000, alpha: 1, pfc: { alpha: 1 / 8, xonOffsetBytes: 3000 } } satisfies BufferConfig,
  transport: { kind: 'dcqcn', mssBytes: 1460, initCwndPackets: 10, minRtoNs: 1_000_000 } satisfies TransportConfig,
}

test('under PFC, what a paused port holds off its schedule counts with its VOQs toward the tier maxima', { timeout: 60_000 }, () => {
  // Sampled independently of the stage's own peaks: per switch-facing port, its VOQ bytes,
  // the bytes on its schedule and the lossless bytes a pause holds back, at every interval.
  let stage: FloodgateStage | null = null
  let env: StageEnv | null = null
  let sampled = new Float64Array(0)
  let heldWithVoq = 0
  const factory = (e: StageEnv): FloodgateStage => {
    const st = (stage = new FloodgateStage(e))
    env = e
    sampled = new Float64Array(e.portBase[e.nSwitches])
    const ports: number[] = []
    for (let g = 0; g < sampled.length; g++) if (e.peerSwitch[g] >= 0) ports.push(g)
    e.addSeries([{ kind: 'test.held', entity: {}, unit: 'bytes' }], (out) => {
      for (const g of ports) {
        const link = e.links[g]
        const paused = link.pfc === null ? 0 : link.pfc.heldBytes
        if (paused > 0 && st.voqPortBytes[g] > 0) heldWithVoq++
        sampled[g] = Math.max(sampled[g], st.voqPortBytes[g] + link.queuedBytes() + paused)
      }
      out[0] = heldWithVoq
    })
    return st
  }
  // Every host of leaf1 receives from three senders: the spine's VOQs toward leaf1 outgrow its
  // buffer, so it pauses the ToR uplinks while their own VOQs hold the senders' backlog.
  const r = simulate(incastCfg('floodgate', LOSSLESS, (src) => 8 + (src % 8)), factory)
  expect(r.flows.finishNs.every((f) => f > 0)).toBe(true)
  expect(r.counters.pfcPauseFrames!).toBeGreaterThan(0)
  expect(r.counters.losslessDrops).toBe(0)
  // The case the measure must cover did occur: a paused port held packets while its VOQs held more.
  expect(heldWithVoq).toBeGreaterThan(0)
  // Per port, the measure (the stage's peak of queue, paused packets and VOQs, or the queue's
  // own peak when the VOQs were empty) is at least every sample of it.
  const st = stage as unknown as FloodgateStage
  const links = (env as unknown as StageEnv).links
  for (let g = 0; g < sampled.length; g++) expect(Math.max(st.maxHeldBytes[g], links[g].maxQueuedBytes)).toBeGreaterThanOrEqual(sampled[g])
  // Nor more than the switch's buffer: every byte counted is one the buffer holds.
  expect(r.counters.maxQueueBytesTorUp!).toBeLessThanOrEqual(1_000_000)
  expect(r.counters.maxQueueBytesCore!).toBeLessThanOrEqual(1_000_000)
})

// The buffer measures per tier the Floodgate paper reports (ToR-up, ToR-down, core) count what
// a switch holds for a port wherever it holds it: Floodgate's VOQs as well as the port's queue.
import { expect, test } from 'vitest'
import { simulate, type ExplicitFlow, type SimConfig, type StageEnv } from '../../src-main/sim'
import { stageFor } from '../../src-main/schemes'
import { FloodgateStage } from '../../src-main/schemes/floodgate/stage'
import { config, topo } from './helpers'

const MB = 1_000_000

/**
 * 4 leaves × 1 spine, 10G hosts, 40G fabric: 23 hosts on leaves 0, 2 and 3 send 1 MB each to
 * h8 on leaf1 at once. Floodgate's windows toward h8 hold most of it in the source ToRs' VOQs.
 */
function incastCfg(scheme: 'ecmp' | 'floodgate'): SimConfig {
  const flows: ExplicitFlow[] = []
  for (let h = 1; h < 32; h++) if (h < 8 || h >= 16) flows.push({ src: h, dst: 8, sizeBytes: 1 * MB, startNs: 0 })
  return config(
    { kind: 'explicit', flows },
    { scheme, topology: topo({ leaves: 4, spines: 1, hostsPerLeaf: 8, queuePackets: 100 }), telemetryIntervalNs: 5_000 },
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

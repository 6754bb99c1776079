// Every layer of the Floodgate stage sizes its state from the same checked parameters, and all of them must be checked before any layer allocates.

import type { StageEnv } from '../../sim/routing/stage'
import { FLOODGATE_PARAMS } from './params'

/** Most (port × destination) cells we allocate windows for (about 200 MB of state). */
export const MAX_CELLS = 8_000_000

/** `SimConfig.schemeParams` for Floodgate, with their defaults (see floodgate.ts). */
export interface FloodgateParams {
  /** creditIntervalNs, in picoseconds. */
  readonly intervalPs: number
  readonly creditBytes: number
  /** Credits also go when creditBytes are owed (the public code), not only on the timer (the paper). */
  readonly creditOnBytes: boolean
  readonly windowBdpFactor: number
  /** The smallest credit frame (an Ethernet minimum). */
  readonly creditFrameBytes: number
  /** Bytes of one (destination, credit) entry in a credit frame. */
  readonly creditEntryBytes: number
  readonly voqBufferBytes: number
  readonly pause: boolean
  /** Unset: windowBdpFactor × the host link's BDP. */
  readonly pauseThresholdBytes: number | undefined
}

/** Reads and checks the parameters; throws on a non-positive one or a fabric too large to allocate. */
export function floodgateParams(env: StageEnv): FloodgateParams {
  const prm = env.params
  const d = FLOODGATE_PARAMS
  const intervalNs = prm.creditIntervalNs ?? d.creditInterval.default
  const creditBytes = prm.creditBytes ?? d.creditBytes.default
  const factor = prm.windowBdpFactor ?? d.windowBdpFactor.default
  const frameBytes = prm.creditFrameBytes ?? d.creditFrameBytes.default
  const entryBytes = prm.creditEntryBytes ?? d.creditEntryBytes.default
  const voqBufferBytes = prm.voqBufferBytes ?? d.voqBufferBytes.default
  const pause = (prm.pause ?? d.pause.default) !== 0
  for (const [k, v] of [['creditIntervalNs', intervalNs], ['creditBytes', creditBytes], ['windowBdpFactor', factor], ['creditFrameBytes', frameBytes], ['creditEntryBytes', entryBytes], ['voqBufferBytes', voqBufferBytes]] as const) {
    if (!(v > 0)) throw new Error(`floodgate: ${k} must be > 0, got ${v}`)
  }
  const H = env.fabric.hosts.length
  const P = env.portBase[env.nSwitches]
  if (P * H > MAX_CELLS) {
    throw new Error(`floodgate: ${P} switch ports × ${H} destinations = ${P * H} windows, over the ${MAX_CELLS} this simulator allocates; use a smaller fabric`)
  }
  return {
    intervalPs: intervalNs * 1000,
    creditBytes,
    creditOnBytes: (prm.creditOnBytes ?? d.creditOnBytes.default) !== 0,
    windowBdpFactor: factor,
    creditFrameBytes: frameBytes,
    creditEntryBytes: entryBytes,
    voqBufferBytes,
    pause,
    pauseThresholdBytes: prm.pauseThresholdBytes,
  }
}

/** BDP(next hop) of global port g's link: C × 2 × delay, in bytes. */
export function hopBdpBytes(env: StageEnv, g: number): number {
  const link = env.links[g]
  return (link.bps / 8) * 2 * (link.delayPs / 1e12)
}

// One place maps a scheme name to its forwarding stage, so adding a scheme (CONGA, HULA,
// DHLB, Floodgate) is one new file plus one line here (and its name in SchemeName).

import type { SchemeName } from '../types'
import { CongaStage } from './conga'
import { CongaPrimeStage } from './conga-prime'
import { EcmpStage } from './ecmp'
import { FloodgateStage } from './floodgate'
import { RpsStage } from './rps'
import { HulaStage } from './hula'
import { DhlbStage } from './dhlb'
import type { StageFactory } from './stage'

export const SCHEMES: Record<SchemeName, StageFactory> = {
  ecmp: (env) => new EcmpStage(env),
  rps: (env) => new RpsStage(env),
  conga: (env) => new CongaStage(env),
  'conga-prime': (env) => new CongaPrimeStage(env),
  floodgate: (env) => new FloodgateStage(env),
  hula: (env) => new HulaStage(env),
  dhlb: (env) => new DhlbStage(env),
}

export function stageFactory(scheme: SchemeName): StageFactory {
  const f = (SCHEMES as Record<string, StageFactory | undefined>)[scheme]
  if (f === undefined) {
    throw new Error(`unknown forwarding scheme '${String(scheme)}': expected one of ${Object.keys(SCHEMES).join(', ')}`)
  }
  return f
}

export * from './stage'

import { defineScheme } from '../types'
import { rps as controlPlane } from './controlplane'
import { RpsStage } from './stage'

export const rps = defineScheme({
  name: 'rps',
  label: 'RPS',
  summary: 'random packet spraying: every packet takes a random shortest path',
  params: {},
  p4Program: 'rps',
  stage: (env) => new RpsStage(env),
  controlPlane,
})

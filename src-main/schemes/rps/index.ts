import { defineScheme } from '../types'
import { rps as controlPlane } from './controlplane'
import { RpsStage } from './stage'

export const rps = defineScheme({
  name: 'rps',
  label: 'RPS',
  summary: 'random packet spraying: every packet takes a random shortest path',
  params: {},
  p4Program: 'rps',
  // Sprays over every port on a shortest path: a parallel link is one more next hop.
  parallelLinks: true,
  stage: (env) => new RpsStage(env),
  controlPlane,
})

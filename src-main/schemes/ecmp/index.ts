import { defineScheme } from '../types'
import { ecmp as controlPlane } from './controlplane'
import { EcmpStage } from './stage'

export const ecmp = defineScheme({
  name: 'ecmp',
  label: 'ECMP',
  summary: 'equal-cost multipath: a hash of the 5-tuple picks one shortest path per flow',
  params: {},
  p4Program: 'ecmp',
  // Hashes over every port on a shortest path: a parallel link is one more next hop.
  parallelLinks: true,
  stage: (env) => new EcmpStage(env),
  controlPlane,
})

import { CONGA_PAPER, CONGA_TABLES } from '../conga'
import { conga as congaControlPlane } from '../conga/controlplane'
import { CONGA_PARAMS } from '../conga/params'
import { CONGA_SERIES } from '../conga/series'
import { defineScheme } from '../types'
import { CongaPrimeStage } from './stage'

export const congaPrime = defineScheme({
  name: 'conga-prime',
  label: 'CONGA′',
  summary: "CONGA inside each pod and flowlet ECMP across pods, HULA's baseline on a three-tier fabric",
  paper: CONGA_PAPER,
  params: CONGA_PARAMS,
  series: CONGA_SERIES,
  tables: CONGA_TABLES,
  // p4/ has no program of its own: in a leaf-spine (one pod) CONGA′ is CONGA, so it renders
  // the conga program there and nowhere else.
  p4Program: 'conga',
  // As CONGA: its uplink choice is per port.
  parallelLinks: true,
  stage: (env) => new CongaPrimeStage(env),
  controlPlane: { ...congaControlPlane, scheme: 'conga-prime' },
})

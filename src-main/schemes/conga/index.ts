import type { SwitchTableSpec } from '../../model/scheme'
import { defineScheme } from '../types'
import { conga as controlPlane } from './controlplane'
import { CONGA_PARAMS } from './params'
import { CONGA_SERIES } from './series'
import { CongaStage } from './stage'

export const CONGA_PAPER = { title: 'CONGA: Distributed Congestion-Aware Load Balancing for Datacenters', venue: 'ACM SIGCOMM 2014' }

export const CONGA_TABLES: readonly SwitchTableSpec[] = [
  {
    layout: 'matrix',
    title: 'congestion-to-leaf',
    note: 'metric per uplink',
    kind: 'conga.metric',
    switchKey: 'leaf',
    rowKey: 'dstLeaf',
    rowLabel: 'Dst leaf',
    colKey: 'uplink',
    colLabel: 'uplink',
    // The 3-bit metric is congestion: the least congested uplink is the one CONGA would pick.
    lowIsBest: true,
  },
]

export const conga = defineScheme({
  name: 'conga',
  label: 'CONGA',
  summary: 'leaf-to-leaf congestion feedback (DRE, 3-bit metrics) picks the least congested uplink per flowlet',
  paper: CONGA_PAPER,
  params: CONGA_PARAMS,
  series: CONGA_SERIES,
  tables: CONGA_TABLES,
  p4Program: 'conga',
  // Its LBTag is the leaf's uplink port, so two links to one spine are two paths (CONGA's testbed has them).
  parallelLinks: true,
  // Decided at the source leaf from leaf-to-leaf feedback: two tiers (stage.ts).
  simFabrics: ['leaf-spine'],
  probes: 'no probes: a CONGA header (ethertype 0x2346: LBTag, CE, feedback tag and metric) rides between Ethernet and IPv4 on data packets',
  stage: (env) => new CongaStage(env),
  controlPlane,
})

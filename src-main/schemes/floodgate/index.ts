import { defineScheme } from '../types'
import { floodgate as controlPlane } from './controlplane'
import { FLOODGATE_PARAMS } from './params'
import { FLOODGATE_SERIES } from './series'
import { FloodgateStage } from './stage'

export const floodgate = defineScheme({
  name: 'floodgate',
  label: 'Floodgate',
  summary: 'a per-destination window at every switch, refilled by credits from the next hop, holds incast traffic in VOQs before it reaches the last hop',
  paper: { title: 'Floodgate: Taming Incast in Datacenter Networks', venue: 'ACM CoNEXT 2021' },
  params: FLOODGATE_PARAMS,
  series: FLOODGATE_SERIES,
  tables: [
    {
      layout: 'per-destination',
      title: 'windows',
      note: 'per destination',
      switchKey: 'switch',
      rowKey: 'dst',
      rowLabel: 'Dst',
      columns: [
        { kind: 'floodgate.window', label: 'Window', format: 'bytes' },
        { kind: 'floodgate.voq', label: 'VOQ', format: 'packets' },
      ],
    },
  ],
  p4Program: 'floodgate',
  // Windows and credits are per port and destination, so each parallel link keeps its own.
  parallelLinks: true,
  probes: 'ethertype 0x2348: a credit frame of (destination, bytes) entries, one per upstream port every credit interval (and at creditBytes with creditOnBytes)',
  stage: (env) => new FloodgateStage(env),
  controlPlane,
})

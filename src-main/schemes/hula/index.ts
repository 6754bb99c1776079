import { n } from '../../model/controlplane/module'
import { defineScheme } from '../types'
import { hula as controlPlane } from './controlplane'
import { HULA_PARAMS } from './params'
import { HULA_SERIES } from './series'
import { HulaStage } from './stage'

export const hula = defineScheme({
  name: 'hula',
  label: 'HULA',
  summary: 'ToRs flood utilization probes; every switch keeps the best next hop toward each ToR and moves flowlets onto it',
  paper: { title: 'HULA: Scalable Load Balancing Using Programmable Data Planes', venue: 'ACM SOSR 2016' },
  params: HULA_PARAMS,
  series: HULA_SERIES,
  tables: [
    {
      layout: 'per-destination',
      title: 'best hop',
      note: 'per destination ToR',
      switchKey: 'switch',
      rowKey: 'dstTor',
      rowLabel: 'Dst ToR',
      columns: [
        { kind: 'hula.bestHop', label: 'Best hop', format: 'port' },
        { kind: 'hula.pathUtil', label: 'Path util', format: 'ratio' },
      ],
    },
  ],
  p4Program: 'hula',
  // Its replication (model/controlplane/replication.ts) sends a ToR's probe to every other port of the
  // aggregation switch, so a parallel link would carry it back down to the ToR that sent it.
  parallelLinks: false,
  probes: 'ethertype 0x2345: origin ToR id and the path utilization (8 bits), sent up by each ToR every probe period and replicated by the switches',
  stage: (env) => new HulaStage(env),
  controlPlane,
  // bestHop holds the port with a valid bit (0x8000) once a probe has set it.
  poll: (sw, state, iface) =>
    state.tors
      .filter((t) => t.name !== sw.name)
      .flatMap((t) => [
        { register: n(iface, 'bestHop'), index: t.index, def: { kind: 'hula.bestHop', entity: { switch: sw.name, dstTor: t.name }, unit: 'port' }, value: (v: number) => (v & 0x8000 ? v & 0x1ff : -1) },
        { register: n(iface, 'pathUtil'), index: t.index, def: { kind: 'hula.pathUtil', entity: { switch: sw.name, dstTor: t.name }, unit: 'level' }, value: (v: number) => v },
      ]),
})

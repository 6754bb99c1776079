import { utilTauRule } from '../shared/rules'
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
  rules: [utilTauRule],
  series: HULA_SERIES,
  tables: [
    {
      layout: 'per-destination',
      title: 'Best hops',
      switchKey: 'switch',
      rowKey: 'dstTor',
      columns: [
        { kind: 'hula.bestHop', label: 'best hop', format: 'port' },
        { kind: 'hula.pathUtil', label: 'path util', format: 'ratio' },
      ],
    },
  ],
  p4Program: 'hula',
  probes: 'ethertype 0x2345: origin ToR id and the path utilization (8 bits), sent up by each ToR every probe period and replicated by the switches',
  stage: (env) => new HulaStage(env),
  controlPlane,
})

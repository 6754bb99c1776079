import { formatDuration } from '../../model/units'
import { defineScheme } from '../types'
import { dhlb as controlPlane } from './controlplane'
import { DHLB_PARAMS, probePeriodTooShort } from './params'
import { DHLB_SERIES } from './series'
import { DhlbStage } from './stage'

export const dhlb = defineScheme({
  name: 'dhlb',
  label: 'DHLB',
  summary: 'INT probes fill a load-degree table per destination; flowlets split over next hops in proportion to their degrees, with a probe period that adapts to the load',
  paper: { title: 'DHLB: a distributed hop-by-hop load balancing architecture based on in-band network telemetry' },
  params: DHLB_PARAMS,
  rules: [
    (v, src) =>
      v.probePeriodNs !== undefined && v.flowletGapNs !== undefined && probePeriodTooShort(v.probePeriodNs, v.flowletGapNs)
        ? [{ key: src.probePeriodNs, message: `DHLB's probe period must be at least 2 × flowletGap (the DHLB paper: T_probe ≥ 2δ), got ${formatDuration(v.probePeriodNs)} < 2 × ${formatDuration(v.flowletGapNs)}` }]
        : [],
  ],
  series: DHLB_SERIES,
  tables: [
    {
      layout: 'matrix',
      title: 'load information',
      note: 'load degree per candidate port',
      kind: 'dhlb.loadDegree',
      switchKey: 'switch',
      rowKey: 'dstTor',
      rowLabel: 'Dst ToR',
      colKey: 'port',
      colLabel: 'port',
      // A degree is spare capacity (5 below 25 % utilization, 0 from 90 %): flowlets go to a
      // port in proportion to it, so the highest is the best path.
      lowIsBest: false,
    },
  ],
  p4Program: 'dhlb',
  // Like HULA's, its replication sends a probe from a ToR to every port but the ingress one,
  // so a parallel link would carry it back down to the ToR that sent it.
  parallelLinks: false,
  probes: 'ethertype 0x2347: origin ToR, hop count and one INT hop record (switch, port, load degree) per hop',
  stage: (env) => new DhlbStage(env),
  controlPlane,
})

import { n } from '../../model/controlplane/module'
import { defineScheme } from '../types'
import { letflow as controlPlane } from './controlplane'
import { LETFLOW_PARAMS } from './params'
import { LETFLOW_SERIES } from './series'
import { LetFlowStage } from './stage'

export const letflow = defineScheme({
  name: 'letflow',
  label: 'LetFlow',
  summary: 'flowlet switching alone: each new flowlet takes a random live path, with no congestion state at all',
  paper: { title: 'Let It Flow: Resilient Asymmetric Load Balancing with Flowlet Switching', venue: 'USENIX NSDI 2017' },
  params: LETFLOW_PARAMS,
  series: LETFLOW_SERIES,
  tables: [
    {
      layout: 'per-destination',
      title: 'Flowlets per uplink',
      switchKey: 'switch',
      rowKey: 'port',
      columns: [{ kind: 'letflow.flowlets', label: 'flowlets started', format: 'number' }],
    },
  ],
  p4Program: 'letflow',
  // Picks a port per flowlet among the shortest-path ports: a parallel link is one more choice.
  parallelLinks: true,
  stage: (env) => new LetFlowStage(env),
  controlPlane,
  // flowletStarts counts, per egress port, the packets that started a flowlet.
  poll: (sw, _state, iface) =>
    sw.ports
      .filter((p) => p.facing === 'up')
      .map((p) => ({ counter: n(iface, 'flowletStarts'), index: p.port, def: { kind: 'letflow.flowlets', entity: { switch: sw.name, port: p.port }, unit: 'count' } })),
})

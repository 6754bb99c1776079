// HULA (p4/hula/v1model/hula.p4, p4/hula/tna/hula.p4; p4/README.md "hula").
//   MyIngress.probeGroup   ingress port (exact)  setProbeGroup(group: 16) | drop()   default drop()
//   MyIngress.probeSource  hdr.pktgen.app_id (exact)  originateProbe(torId: 24, group: 16)   tna only
// Registers need no initial values: bestHop 0 means "no probe seen yet" and the program then
// falls back to nextHop. Multicast: HULA's rule (replication.ts), one group per distinct
// port set, chosen per ingress port by probeGroup. A port whose probes are consumed (a ToR's
// uplinks) gets an explicit drop, so the probe is not forwarded to egress port 0.
// Tofino ToRs also get the pktgen timer app (app id HULA_PKTGEN_APP, period T_p) whose
// packets probeSource turns into probes; its buffer carries hula_t { torId, minUtil 0 }.

import type { SchemeModule } from '../../model/controlplane/module'
import { iface, routingEntries } from '../shared/controlplane'
import { be } from '../shared/pktgen'
import { probeGroupEntries, probePktgen, probeSourceEntries } from '../shared/probe-controlplane'

/** pktgen application that generates HULA probes on Tofino (p4/hula/tna/hula.p4's probeSource key). */
export const HULA_PKTGEN_APP = 1

export const hula: SchemeModule = {
  scheme: 'hula',
  probes: 'hula',
  registers: () => [],
  iface: (target) =>
    iface(
      'hula',
      {
        probeGroup: 'MyIngress.probeGroup',
        setProbeGroup: 'MyIngress.setProbeGroup',
        bestHop: 'MyIngress.bestHop',
        pathUtil: 'MyIngress.pathUtil',
        ...(target === 'tofino' ? { probeSource: 'MyIngress.probeSource', originateProbe: 'MyIngress.originateProbe' } : {}),
      },
      { setProbeGroup: ['group'], ...(target === 'tofino' ? { originateProbe: ['torId', 'group'] } : {}) },
    ),
  render: (ctx) => ({
    entries: [...routingEntries(ctx), ...probeGroupEntries(ctx, 'HULA'), ...probeSourceEntries(ctx, HULA_PKTGEN_APP, '24 bits')],
    registers: [],
    mcastGroups: ctx.sw.mcastGroups,
    mirrors: [],
    // hula_t { torId: 24, minUtil: 8 }
    pktgen: probePktgen(ctx, HULA_PKTGEN_APP, [...be(Math.max(0, ctx.sw.torIndex), 3), 0], 'HULA'),
  }),
}

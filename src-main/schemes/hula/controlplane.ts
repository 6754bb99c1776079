// HULA (p4/hula/v1model/hula.p4, p4/hula/tna/hula.p4; p4/README.md "hula").
//   MyIngress.probeGroup   ingress port (exact)  setProbeGroup(group: 16) | drop()   default drop()
//   MyIngress.probeSource  hdr.pktgen.app_id (exact)  originateProbe(torId: 24, group: 16)   tna only
// Registers need no initial values: bestHop 0 means "no probe seen yet" and the program then
// falls back to nextHop. Multicast: HULA's rule (replication.ts), one group per distinct
// port set, chosen per ingress port by probeGroup. A port whose probes are consumed (a ToR's
// uplinks) gets an explicit drop, so the probe is not forwarded to egress port 0.
// Tofino ToRs also get the pktgen timer app (app id HULA_PKTGEN_APP, period T_p) whose
// packets probeSource turns into probes; its buffer carries hula_t { torId, minUtil 0 }.

import type { PktgenApp, RenderContext, SchemeModule } from '../../model/controlplane/module'
import type { TableEntry } from '../../model/controlplane/types'
import { iface, routingEntries } from '../shared/controlplane'
import { be, timerApp } from '../shared/pktgen'

/** pktgen application that generates HULA probes on Tofino (p4/hula/tna/hula.p4's probeSource key). */
export const HULA_PKTGEN_APP = 1

export function probeGroupEntries(ctx: RenderContext, scheme: string): TableEntry[] {
  const I = ctx.iface.names
  return ctx.sw.probeReplication.map((r) =>
    r.group > 0
      ? {
          table: I.probeGroup,
          action: I.setProbeGroup,
          match: [{ kind: 'exact', value: ctx.port(r.ingressPort) }],
          params: [r.group],
          comment: `${scheme} probes: ingress port -> multicast group`,
        }
      : {
          table: I.probeGroup,
          action: I.drop,
          match: [{ kind: 'exact', value: ctx.port(r.ingressPort) }],
          params: [],
          comment: `${scheme} probes: ingress port -> multicast group`,
        },
  )
}

/** Tofino ToRs originate probes from the packet generator, straight into the uplink group. */
export function probeSourceEntries(ctx: RenderContext, app: number, torIdWidthNote: string): TableEntry[] {
  const { sw } = ctx
  if (ctx.target !== 'tofino' || sw.role !== 'tor') return []
  const up = sw.probeReplication.find((r) => sw.ports[r.ingressPort].facing === 'host' && r.group > 0)
  if (!up) return []
  const I = ctx.iface.names
  return [
    {
      table: I.probeSource,
      action: I.originateProbe,
      match: [{ kind: 'exact', value: app }],
      params: [sw.torIndex, up.group],
      comment: `probes from pktgen app ${app}: this ToR's id (${torIdWidthNote}) and its uplink group`,
    },
  ]
}

/** The timer app of a Tofino ToR that originates probes (none elsewhere, or on BMv2). */
export function probePktgen(ctx: RenderContext, app: number, header: number[], what: string): PktgenApp | undefined {
  if (probeSourceEntries(ctx, app, '').length === 0) return undefined
  const period = ctx.state.params.probePeriodNs
  return timerApp(app, period, 1, header, `${what} probes: app ${app}, every ${period / 1000} us (probe period), 1 packet, probeSource[${app}] turns it into this ToR's probe`)
}

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

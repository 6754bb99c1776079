// Control-plane entries for the schemes whose probes travel like HULA's (HULA, DHLB): which
// multicast group an arriving probe is replicated to, and, on Tofino, the ToR's packet-generator
// app that originates them. Shared here so that neither scheme's folder imports the other's.

import type { PktgenApp, RenderContext } from '../../model/controlplane/module'
import type { TableEntry } from '../../model/controlplane/types'
import { timerApp } from './pktgen'

/** Per ingress port: the multicast group its probes are replicated to, or a drop where they end. */
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

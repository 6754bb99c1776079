// Floodgate (p4/v1model/floodgate.p4, p4/tna/floodgate.p4; p4/README.md "floodgate").
//   Ingress.switchInfo    keyless  setSwitchId(id: 16)
//   Ingress.creditPort    ingress port (exact)  setCreditSession(session: 16) | NoAction()   v1model only
//   Ingress.creditTarget  hdr.pktgen.packet_id (exact)  sendCredit(port: 9, dstTor: 16, counter: 16)   tna only
//   Ingress.window        int<32>[1024]  per dstTor: bytes the upstream may still send
//   Ingress.creditCount   bit<32>[16384] per (dstTor x 16 + ingress port mod 16)
// BMv2: every fabric port p gets mirror session p + 1 (mirroring_add <session> <port>), the
// clone that Egress turns into a credit back to the upstream switch. Tofino: packet i of the
// pktgen timer batch flushes one (fabric port, dstTor) counter.
// window[dstTor] starts at windowBdpFactor x BDP to the next hop + C_out x T (seed 001; public
// code: 1.5 x BDP, T = 10 us), from the fastest next-hop link; BDP = rate x 2 x link delay.

import type { SchemeModule } from '.'
import type { ControlPlaneState, RegisterInit, SwitchState, TableEntry } from '../types'
import { iface, routingEntries } from './common'

export const FLOODGATE_PORT_SLOTS = 16

/** Initial windows; rateScale is the target's rate factor (BMv2 runs links slower). */
function windows(sw: SwitchState, state: Omit<ControlPlaneState, 'switches'>, rateScale = 1): RegisterInit[] {
    const p = state.params
    const out: RegisterInit[] = []
    for (const g of sw.nextHops) {
      const links = g.ports.map((q) => sw.ports[q])
      const bps = Math.max(...links.map((l) => l.bps)) * rateScale
      const delay = Math.max(...links.map((l) => l.delayNs))
      const bdp = (bps / 8) * ((2 * delay) / 1e9)
      const value = Math.ceil(p.windowBdpFactor * bdp + (bps / 8) * (p.creditIntervalNs / 1e9) - 1e-6)
      out.push({
        register: 'window',
        index: g.dstTor,
        value,
        why: `initial window per destination ToR: ${p.windowBdpFactor} x BDP to the next hop + C_out x T (T = ${p.creditIntervalNs / 1000} us), bytes${rateScale !== 1 ? ` at the target's link rates (x ${rateScale})` : ''}`,
      })
    }
    return out
}

export const floodgate: SchemeModule = {
  scheme: 'floodgate',
  registers: (sw, state) => windows(sw, state),
  iface: (target) =>
    iface(
      'floodgate',
      {
        switchInfo: 'Ingress.switchInfo',
        setSwitchId: 'Ingress.setSwitchId',
        window: 'Ingress.window',
        creditCount: 'Ingress.creditCount',
        ...(target === 'bmv2'
          ? { creditPort: 'Ingress.creditPort', setCreditSession: 'Ingress.setCreditSession' }
          : { creditTarget: 'Ingress.creditTarget', sendCredit: 'Ingress.sendCredit' }),
      },
      { setSwitchId: ['id'], ...(target === 'bmv2' ? { setCreditSession: ['session'] } : { sendCredit: ['port', 'dstTor', 'counter'] }) },
    ),
  render: (ctx) => {
    const { sw, state } = ctx
    const I = ctx.iface.names
    const fabricPorts = sw.ports.filter((p) => p.facing !== 'host').map((p) => p.port)
    const entries: TableEntry[] = [
      { table: I.switchInfo, action: I.setSwitchId, isDefault: true, match: [], params: [sw.switchId], comment: 'switch id' },
      ...routingEntries(ctx),
    ]
    const mirrors = []
    if (ctx.target === 'bmv2') {
      for (const p of fabricPorts) {
        const session = p + 1
        entries.push({
          table: I.creditPort,
          action: I.setCreditSession,
          match: [{ kind: 'exact', value: ctx.port(p) }],
          params: [session],
          comment: 'credits go back upstream: fabric ingress port -> mirror session',
        })
        mirrors.push({ session, port: ctx.port(p), why: `credits to ${sw.ports[p].peer}` })
      }
    } else {
      // Only (port, dstTor) pairs data can arrive on: the peer's next hops to dstTor include
      // the link to us (or, at a ToR, dstTor is this ToR and the peer sends down to it).
      const byNode = new Map(state.switches.map((s) => [s.node, s]))
      let id = 0
      for (const p of fabricPorts) {
        const pi = sw.ports[p]
        const up = byNode.get(pi.peerNode)
        for (const t of state.tors) {
          const g = up?.nextHops.find((x) => x.dstTor === t.index)
          if (!g || !g.ports.includes(pi.peerPort)) continue
          entries.push({
            table: I.creditTarget,
            action: I.sendCredit,
            match: [{ kind: 'exact', value: id++ }],
            params: [ctx.port(p), t.index, t.index * FLOODGATE_PORT_SLOTS + (ctx.port(p) % FLOODGATE_PORT_SLOTS)],
            comment: 'pktgen credit batch: packet id -> (upstream port, dstTor, counter)',
          })
        }
      }
    }
    const registers = windows(sw, state, ctx.rateScale).map((r) => ({ register: I[r.register], index: r.index, value: r.value, comment: r.why }))
    return { entries, registers, mcastGroups: [], mirrors }
  },
}

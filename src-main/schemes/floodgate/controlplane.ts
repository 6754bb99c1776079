// Floodgate (p4/floodgate/v1model/floodgate.p4, p4/floodgate/tna/floodgate.p4; p4/README.md "floodgate").
//   MyIngress.switchInfo    keyless  setSwitchId(id: 16)
//   MyIngress.portSlot      ingress port (exact)  setSlot(slot: 8) | NoAction()
//   MyIngress.creditPort    ingress port (exact)  setCreditSession(session: 16) | NoAction()   v1model only
//   MyIngress.creditTarget  hdr.pktgen.packet_id (exact)  sendCredit(port: 9, dstTor: 16, counter: 16)   tna only
//   MyIngress.window        int<32>[MAX_TORS]  per dstTor: bytes the upstream may still send
//   MyIngress.creditCount   bit<32>[MAX_TORS x CREDIT_PORT_SLOTS]  per (dstTor << CREDIT_SLOT_SHIFT | slot)
// Every fabric port of a switch gets a dense slot 0..CREDIT_PORT_SLOTS-1 (portSlot, in port
// order), so credit counters never collide whatever the port numbers are (BMv2 ports, or
// Tofino DEV_PORTs 0, 4, 8, ..., 128, ...). The programs count toHost traffic under
// dstTor = switchId, which is right because a ToR's switch id is its ToR index (compute.ts).
// BMv2: every fabric port p gets mirror session p + 1 (mirroring_add <session> <port>), the
// clone that MyEgress turns into a credit back to the upstream switch. Tofino: packet i of the
// pktgen timer batch (app FLOODGATE_PKTGEN_APP, every creditIntervalNs) flushes one
// (fabric port, dstTor) counter; over-window packets go to queue 1 of their egress port,
// which gets a lower strict priority than queue 0 on fabric ports.
// window[dstTor] starts at windowBdpFactor x BDP to the next hop + C_out x T (the Floodgate paper; public
// code: 1.5 x BDP, T = 10 us), from the fastest next-hop link; BDP = rate x 2 x link delay.

import type { QueuePriority, SchemeModule } from '../../model/controlplane/module'
import type { ControlPlaneState, RegisterInit, SwitchState, TableEntry } from '../../model/controlplane/types'
import { iface, routingEntries } from '../shared/controlplane'
import { timerApp } from '../shared/pktgen'

/** floodgate.p4 CREDIT_PORT_SLOTS: fabric ports per switch that have credit counters. */
export const CREDIT_PORT_SLOTS = 32
/** p4/floodgate/tna/floodgate.p4 OVER_WINDOW_QID: the queue over-window packets are put in. */
export const OVER_WINDOW_QID = 1
/** The pktgen app of p4/floodgate/tna/floodgate.p4's credit timer (creditTarget is keyed by packet id only). */
export const FLOODGATE_PKTGEN_APP = 1

/** The dense credit slot of each fabric port of a switch, in port order. */
export function creditSlots(sw: SwitchState): Map<number, number> {
  const fabric = sw.ports.filter((p) => p.facing !== 'host').map((p) => p.port)
  if (fabric.length > CREDIT_PORT_SLOTS) {
    throw new Error(
      `floodgate: ${sw.name} has ${fabric.length} fabric ports; the programs count credits for at most CREDIT_PORT_SLOTS = ${CREDIT_PORT_SLOTS} per switch (p4/floodgate/*/floodgate.p4)`,
    )
  }
  return new Map(fabric.map((p, slot) => [p, slot]))
}

/** creditCount index of (dstTor, slot), as the programs compute it. */
export function creditIndex(dstTor: number, slot: number): number {
  return dstTor * CREDIT_PORT_SLOTS + slot
}

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
        switchInfo: 'MyIngress.switchInfo',
        setSwitchId: 'MyIngress.setSwitchId',
        window: 'MyIngress.window',
        creditCount: 'MyIngress.creditCount',
        portSlot: 'MyIngress.portSlot',
        setSlot: 'MyIngress.setSlot',
        ...(target === 'bmv2'
          ? { creditPort: 'MyIngress.creditPort', setCreditSession: 'MyIngress.setCreditSession' }
          : { creditTarget: 'MyIngress.creditTarget', sendCredit: 'MyIngress.sendCredit' }),
      },
      { setSwitchId: ['id'], setSlot: ['slot'], ...(target === 'bmv2' ? { setCreditSession: ['session'] } : { sendCredit: ['port', 'dstTor', 'counter'] }) },
    ),
  render: (ctx) => {
    const { sw, state } = ctx
    const I = ctx.iface.names
    const slots = creditSlots(sw)
    const fabricPorts = [...slots.keys()]
    const entries: TableEntry[] = [
      { table: I.switchInfo, action: I.setSwitchId, isDefault: true, match: [], params: [sw.switchId], comment: 'switch id (at a ToR: its ToR index, the dstTor of its own hosts)' },
      ...routingEntries(ctx),
    ]
    for (const [p, slot] of slots) {
      entries.push({
        table: I.portSlot,
        action: I.setSlot,
        match: [{ kind: 'exact', value: ctx.port(p) }],
        params: [slot],
        comment: `credit counters: fabric ingress port -> dense slot 0..${CREDIT_PORT_SLOTS - 1} (creditCount[dstTor x ${CREDIT_PORT_SLOTS} + slot])`,
      })
    }
    const mirrors = []
    let pktgen
    const queuePriorities: QueuePriority[] = []
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
            params: [ctx.port(p), t.index, creditIndex(t.index, slots.get(p)!)],
            comment: 'pktgen credit batch: packet id -> (upstream port, dstTor, counter = dstTor x CREDIT_PORT_SLOTS + port slot)',
          })
        }
      }
      if (id > 0) {
        const T = state.params.creditIntervalNs
        // credit_t { dstTor: 16, bytes: 32 }, filled in by sendCredit
        pktgen = timerApp(FLOODGATE_PKTGEN_APP, T, id, [0, 0, 0, 0, 0, 0], `Floodgate credits: app ${FLOODGATE_PKTGEN_APP}, every ${T / 1000} us (credit interval T), one batch of ${id} packets, one per creditTarget entry`)
      }
      for (const p of fabricPorts) {
        const why = `Floodgate: over-window packets (qid ${OVER_WINDOW_QID}) below in-window ones (qid 0) on fabric port ${p} (to ${sw.ports[p].peer})`
        queuePriorities.push({ port: ctx.port(p), qid: 0, priority: 1, why }, { port: ctx.port(p), qid: OVER_WINDOW_QID, priority: 0, why })
      }
    }
    const registers = windows(sw, state, ctx.rateScale).map((r) => ({ register: I[r.register], index: r.index, value: r.value, comment: r.why }))
    return { entries, registers, mcastGroups: [], mirrors, pktgen, queuePriorities }
  },
}

// DHLB (p4/dhlb/v1model/dhlb.p4, p4/dhlb/tna/dhlb.p4; p4/README.md "dhlb").
//   MyIngress.switchInfo    keyless  setSwitchId(id: 16)
//   MyIngress.probeGroup    ingress port (exact)  setProbeGroup(group: 16) | drop()
//   MyIngress.portSlot      ingress port (exact)  setSlot(slot: 8) | NoAction()
//   MyIngress.loadDegree    ingress port (exact), meta.util (range, 16 bits)  setDegree(degree: 8)   default setDegree(0)
//   MyIngress.weightedPick  meta.degree0..3, meta.pickRand (exact)  pickSlot(slot: 8) | NoAction()
//   MyIngress.slotPort      meta.slot (exact)  setEgress(port: 9) | drop()
//   MyIngress.probeSource   hdr.pktgen.app_id (exact)  originateProbe(torId: 16, group: 16)   tna only
// Slots are the switch's up-facing ports (at most 4). meta.util is the estimator's bytes per
// tau divided by 256; the load-degree ranges come from each fabric port's own link rate (as
// the target runs it: BMv2 links are scaled) and tau. Tofino ToRs get the pktgen timer app
// (period T_probe = probePeriodNs) whose packets probeSource turns into probes. pathDegree registers start at 0, which the
// program reads as "no probe yet" (all degrees 0: fall back to nextHop): nothing to initialise.

import type { RenderContext, SchemeModule } from '../../model/controlplane/module'
import type { CpTarget, TableEntry } from '../../model/controlplane/types'
import { iface, routingEntries } from '../shared/controlplane'
import { be } from '../shared/pktgen'
import { probeGroupEntries, probePktgen, probeSourceEntries } from '../shared/probe-controlplane'

export const DHLB_MAX_SLOTS = 4
/** pktgen application that generates DHLB probes on Tofino. */
export const DHLB_PKTGEN_APP = 1
/** The estimator's time constant: TAU_US = 512 in p4/dhlb/v1model/dhlb.p4 (2^9 us). */
export const DHLB_TAU_NS: Record<CpTarget, number> = { bmv2: 512_000, tofino: 524_288 }
/** Degree per utilization band (the DHLB paper): below 25% 5, 25-50% 3, 50-70% 2, 70-90% 1, above 0. */
export const DHLB_BANDS: ReadonlyArray<{ below: number; degree: number }> = [
  { below: 0.25, degree: 5 },
  { below: 0.5, degree: 3 },
  { below: 0.7, degree: 2 },
  { below: 0.9, degree: 1 },
]
const DEGREES = [0, 1, 2, 3, 5]
const PICK_RANDS = 16

/** Buckets 0..15 split over slots in proportion to their degrees (largest remainder, ties to the lower slot). */
export function proportionalBuckets(degrees: number[], buckets = PICK_RANDS): number[] {
  const sum = degrees.reduce((a, b) => a + b, 0)
  if (sum === 0) return []
  const exact = degrees.map((d) => (d * buckets) / sum)
  const share = exact.map(Math.floor)
  let left = buckets - share.reduce((a, b) => a + b, 0)
  const order = degrees.map((_, i) => i).sort((a, b) => exact[b] - share[b] - (exact[a] - share[a]) || a - b)
  for (const i of order) {
    if (left === 0) break
    share[i]++
    left--
  }
  const out: number[] = []
  share.forEach((c, slot) => {
    for (let k = 0; k < c; k++) out.push(slot)
  })
  return out
}

/**
 * loadDegree: per fabric port, the utilization bands as meta.util ranges (bytes per tau / 256)
 * from that port's own link rate (as the target runs it: BMv2 links are scaled), so a switch
 * with links of different speeds maps each link's utilization right. A probe's degree is
 * looked up with the port it arrived on, whose estimator it read.
 */
export function loadDegreeEntries(ctx: RenderContext): TableEntry[] {
  const I = ctx.iface.names
  const tauNs = DHLB_TAU_NS[ctx.target === 'bmv2' ? 'bmv2' : 'tofino']
  const out: TableEntry[] = []
  for (const p of ctx.sw.ports.filter((x) => x.facing !== 'host')) {
    const bps = p.bps * ctx.rateScale
    const capacity = (bps / 8) * (tauNs / 1e9) // bytes per tau at full rate
    let lo = 0
    DHLB_BANDS.forEach((band, i) => {
      const hi = Math.min(0xffff, Math.floor((band.below * capacity) / 256)) - 1
      if (hi >= lo) {
        out.push({
          table: I.loadDegree,
          action: I.setDegree,
          match: [
            { kind: 'exact', value: ctx.port(p.port) },
            { kind: 'range', lo, hi },
          ],
          params: [band.degree],
          priority: i + 1,
          comment: `load degree of port ${p.port} (to ${p.peer}) by utilization (bytes per tau / 256; ${Math.round(bps / 1e6)} Mbps x ${tauNs / 1000} us = ${Math.round(capacity)} B at 100%); above 90%: default 0`,
        })
      }
      lo = Math.max(lo, hi + 1)
    })
  }
  return out
}

function pickEntries(ctx: RenderContext, slots: number): TableEntry[] {
  const I = ctx.iface.names
  const out: TableEntry[] = []
  const combos: number[][] = [[]]
  for (let s = 0; s < slots; s++) {
    const next: number[][] = []
    for (const c of combos) for (const d of DEGREES) next.push([...c, d])
    combos.splice(0, combos.length, ...next)
  }
  for (const c of combos) {
    const buckets = proportionalBuckets(c)
    if (buckets.length === 0) continue
    const key = [...c, ...Array(DHLB_MAX_SLOTS - slots).fill(0)]
    buckets.forEach((slot, r) =>
      out.push({
        table: I.weightedPick,
        action: I.pickSlot,
        match: [...key.map((v) => ({ kind: 'exact' as const, value: v })), { kind: 'exact', value: r }],
        params: [slot],
        comment: `proportional split: degrees of slots 0..${DHLB_MAX_SLOTS - 1}, random 0..15 -> slot`,
      }),
    )
  }
  return out
}

export const dhlb: SchemeModule = {
  scheme: 'dhlb',
  probes: 'dhlb',
  registers: () => [],
  iface: (target) =>
    iface(
      'dhlb',
      {
        switchInfo: 'MyIngress.switchInfo',
        setSwitchId: 'MyIngress.setSwitchId',
        probeGroup: 'MyIngress.probeGroup',
        setProbeGroup: 'MyIngress.setProbeGroup',
        portSlot: 'MyIngress.portSlot',
        setSlot: 'MyIngress.setSlot',
        loadDegree: 'MyIngress.loadDegree',
        setDegree: 'MyIngress.setDegree',
        weightedPick: 'MyIngress.weightedPick',
        pickSlot: 'MyIngress.pickSlot',
        slotPort: 'MyIngress.slotPort',
        ...(target === 'tofino' ? { probeSource: 'MyIngress.probeSource', originateProbe: 'MyIngress.originateProbe' } : {}),
      },
      {
        setSwitchId: ['id'],
        setProbeGroup: ['group'],
        setSlot: ['slot'],
        setDegree: ['degree'],
        pickSlot: ['slot'],
        ...(target === 'tofino' ? { originateProbe: ['torId', 'group'] } : {}),
      },
    ),
  render: (ctx) => {
    const { sw } = ctx
    const I = ctx.iface.names
    const ups = sw.ports.filter((p) => p.facing === 'up').map((p) => p.port)
    if (ups.length > DHLB_MAX_SLOTS) throw new Error(`dhlb: ${sw.name} has ${ups.length} uplinks; the program has ${DHLB_MAX_SLOTS} path slots`)
    const entries: TableEntry[] = [
      { table: I.switchInfo, action: I.setSwitchId, isDefault: true, match: [], params: [sw.switchId], comment: 'switch id carried in probe hop records' },
      ...routingEntries(ctx),
      ...probeGroupEntries(ctx, 'DHLB'),
    ]
    ups.forEach((p, slot) => {
      entries.push({ table: I.portSlot, action: I.setSlot, match: [{ kind: 'exact', value: ctx.port(p) }], params: [slot], comment: 'path slots: uplink port -> slot' })
    })
    ups.forEach((p, slot) => {
      entries.push({ table: I.slotPort, action: I.setEgress, match: [{ kind: 'exact', value: slot }], params: [ctx.port(p)], comment: 'path slots: slot -> uplink port' })
    })
    entries.push(...loadDegreeEntries(ctx))
    if (ups.length > 0) entries.push(...pickEntries(ctx, ups.length))
    entries.push(...probeSourceEntries(ctx, DHLB_PKTGEN_APP, '16 bits'))
    // dhlb_t { originTor: 16, minDegree: 8 = 5, hopCount: 8 = 0 }
    const pktgen = probePktgen(ctx, DHLB_PKTGEN_APP, [...be(Math.max(0, sw.torIndex), 2), 5, 0], 'DHLB')
    return { entries, registers: [], mcastGroups: sw.mcastGroups, mirrors: [], pktgen }
  },
}

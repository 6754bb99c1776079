// CONGA′, as the HULA paper (the HULA paper, §6) defines its baseline: CONGA inside each pod, and
// for traffic across pods, ECMP at flowlet granularity (a hash of the 5-tuple and the
// flowlet id). CONGA's leaf-to-leaf feedback only spans the two tiers of a pod; across the
// spine layer it has no path identity to feed back, so there it balances blindly.
//
// Which hop does what, on HULA's 3-tier (ToR → agg → spine → agg → ToR) and on a fat-tree
// (edge → agg → core → agg → edge):
//   same pod, source ToR      CONGA's choice among its uplinks (the aggs): LBTag = the uplink,
//                             CE = max(DRE of the ToR uplink, DRE of the agg's downlink to
//                             the destination ToR), feedback from the destination ToR. The
//                             agg → ToR hop has one candidate.
//   other pod, source ToR     flowlet ECMP among its uplinks;
//   other pod, agg → spine    flowlet ECMP among the spines (cores) with a live way on;
//   other pod, spine → agg    flowlet ECMP among the destination pod's aggs (HULA's 3-tier
//                             links every spine to every agg; a fat-tree core has one);
//   agg → ToR, downward       one candidate.
// Packets across pods carry no CONGA header (hdr0 = 0), so no CE is gathered for them and
// no Congestion-From-Leaf entry is made from them; they still add to every port's DRE, which
// is what intra-pod choices see as local congestion. On a leaf-spine (one "pod") CONGA′ is
// CONGA. State, messages and parameters are CONGA's (conga.ts); each flowlet-ECMP hop uses
// the same per-switch flowlet table, a new flowlet being hashed with its entry's flowlet count.

import { CongaStage } from '../conga/stage'
import type { StageEnv } from '../../sim/routing/stage'

export class CongaPrimeStage extends CongaStage {
  constructor(env: StageEnv) {
    super(env, 'conga-prime')
  }

  protected override checkFabric(): void {
    // Any fabric: pods come from the graph (a leaf-spine's ToRs all have pod -1).
  }

  protected override congaPair(srcTor: number, dstTor: number): boolean {
    return this.torPod[srcTor] === this.torPod[dstTor]
  }
}

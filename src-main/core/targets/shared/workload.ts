// One cell's workload, once: the experiment's workload at the cell's load, as the simulator runs it
// (workloadFor) and as the agents on a testbed's hosts run it (agentWork). The BMv2 and Tofino
// drivers differ only in where each host's agent runs and how its link rate is scaled.

import type { ExperimentSpec } from '../../spec'
import type { WorkloadConfig } from '../../../sim/types'
import type { AgentAddress, AgentWorkload } from './agent'
import { destinationRuleOf, splitFlows } from './remote'

/** The TCP port each host's agent server listens on. */
export const AGENT_PORT = 5001
/** PRNG stream of host i's client: 16 + i (streams below 16 are the simulator's own). */
export const CLIENT_STREAM_BASE = 16

/** The workload of one run at `load` (the run's cell; 1 for the saturating kinds). */
export function workloadFor(w: ExperimentSpec['workload'], load: number): WorkloadConfig {
  switch (w.kind) {
    case 'incast':
      return {
        kind: 'incast',
        background: { cdf: w.cdf, load, flows: w.flows },
        incast: {
          events: w.incast.events,
          ratePerSec: w.incast.ratePerSec,
          flowBytes: w.incast.flowBytes,
          fanIn: typeof w.incast.fanIn === 'number' ? w.incast.fanIn : w.incast.fanIn.map(([n, weight]) => [n, weight]),
        },
      }
    case 'long-lived':
      return {
        kind: 'long-lived',
        ...(w.pairs ? { pairs: w.pairs.map(([s, d]) => [s, d]) } : {}),
        ...(w.flows !== undefined ? { flows: w.flows } : {}),
        ...(w.sizeBytes !== undefined ? { sizeBytes: w.sizeBytes } : {}),
        ...(w.startNs !== undefined ? { startNs: w.startNs } : {}),
      }
    case 'permutation':
      return {
        kind: 'permutation',
        ...(w.sizeBytes !== undefined ? { sizeBytes: w.sizeBytes } : {}),
        ...(w.startNs !== undefined ? { startNs: w.startNs } : {}),
      }
    default:
      return {
        kind: 'poisson',
        cdf: w.cdf,
        load,
        flows: w.flows,
        ...(w.destinations ? { destinations: w.destinations } : {}),
        ...(w.connections ? { connections: { ...w.connections } } : {}),
      }
  }
}


/** The experiment's flows split over `hosts` fabric hosts (one each when it gives no count). */
export function flowsPerHost(spec: ExperimentSpec, hosts: number): number[] {
  const w = spec.workload
  return splitFlows('flows' in w && typeof w.flows === 'number' ? w.flows : hosts, hosts)
}

/** What one fabric host's agent client runs: whom it sends to, and what. */
export interface AgentHostWork {
  /** Fabric host index. */
  index: number
  dsts: AgentAddress[]
  workload: AgentWorkload
}

/**
 * Each fabric host's client for one cell, in host order; a host with no flows to send has none.
 * `hosts[i].ip` is fabric host i's address, `cdfFile(i)` where host i's agent finds the CDF file,
 * `linkBps` the host link rate the Poisson clients pace their load against (scaled on BMv2).
 * Throws for the workload kinds the agents do not run yet, naming the kind.
 */
export function agentWork(
  spec: ExperimentSpec,
  load: number,
  hosts: ReadonlyArray<{ ip: string }>,
  o: { linkBps: number; cdfFile: (index: number) => string; target: string },
): AgentHostWork[] {
  const w = workloadFor(spec.workload, load)
  if (w.kind !== 'poisson' && w.kind !== 'long-lived') throw new Error(`the ${o.target} driver does not run ${w.kind} workloads yet`)
  if (w.kind === 'poisson' && w.connections !== undefined) {
    throw new Error(`the ${o.target} driver's traffic agent opens one connection per flow: remove workload.connections to run this experiment there`)
  }
  const perHost = flowsPerHost(spec, hosts.length)
  const isDestination = destinationRuleOf(spec)
  const out: AgentHostWork[] = []
  hosts.forEach((_, index) => {
    const dsts = hosts.flatMap((x, j) => (isDestination(index, j) ? [{ host: x.ip, port: AGENT_PORT }] : []))
    if (w.kind === 'long-lived') {
      const workload: AgentWorkload = { kind: 'long-lived', flows: Math.max(1, perHost[index]), ...(w.sizeBytes ? { sizeBytes: w.sizeBytes } : {}), durationS: spec.stopAfterNs / 1e9 }
      out.push({ index, dsts, workload })
    } else if (perHost[index] > 0) {
      const workload: AgentWorkload = { kind: 'poisson', cdf: o.cdfFile(index), load: w.load, linkBps: o.linkBps, flows: perHost[index], stream: CLIENT_STREAM_BASE + index }
      out.push({ index, dsts, workload })
    }
  })
  return out
}

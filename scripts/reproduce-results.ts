// The runs of one template, and the statistics the claims (reproduce-claims.ts) measure on them.
// Apart from reproduce.ts so that the claims can name it without importing the script itself.
import type { Core } from '../src-main/core'
import type { ExperimentSpec } from '../src-main/core/spec'
import type { RunRow } from '../src-main/core/store'
import { buildFabric, linkByName, peer } from '../src-main/model/topology'
import { warmupShare } from '../src-main/core/stats'
import { arrivalWindow, windowRate } from './reproduce-probes'
import { bottleneckPort, queueMeasures, type PortQueue, type QueueMeasures } from './reproduce-queues'

/** Runs of one template, grouped for the measures. */
export class Results {
  constructor(
    readonly core: Core,
    readonly spec: ExperimentSpec,
    readonly runs: RunRow[],
  ) {}

  private pick(scheme: string, load?: number): RunRow[] {
    const rs = this.runs.filter((r) => r.scheme === scheme && r.status === 'done' && (load === undefined || r.load === load))
    if (rs.length === 0) throw new Error(`no finished ${scheme} run${load === undefined ? '' : ` at load ${load}`}`)
    return rs
  }

  /** A flow-completion statistic, averaged over seeds. */
  fct(scheme: string, load: number | undefined, stat: 'meanNs' | 'p99Ns' | 'smallMeanNs' | 'largeMeanNs'): number {
    const vals = this.pick(scheme, load).map((r) => r.stats?.[stat] ?? NaN)
    return vals.reduce((a, b) => a + b, 0) / vals.length
  }

  /** Mean FCT of flows of a size class, from the stored flows (e.g. incast vs the rest). */
  flowMean(scheme: string, keep: (sizeBytes: number) => boolean, stat: 'mean' | 'p99'): number {
    const fcts: number[] = []
    for (const r of this.pick(scheme)) {
      for (const f of this.core.opts.store.listFlows(r.id)) if (f.fctNs !== null && keep(f.sizeBytes)) fcts.push(f.fctNs)
    }
    fcts.sort((a, b) => a - b)
    if (stat === 'mean') return fcts.reduce((a, b) => a + b, 0) / fcts.length
    return fcts[Math.min(fcts.length - 1, Math.ceil(0.99 * fcts.length) - 1)]
  }

  counter(scheme: string, load: number | undefined, name: string): number {
    const vals = this.pick(scheme, load).map((r) => r.counters?.[name] ?? NaN)
    return vals.reduce((a, b) => a + b, 0) / vals.length
  }

  /** Probe bytes per second while traffic arrives (reproduce-probes.ts), averaged over seeds. */
  probeBytesPerSecond(scheme: string, load: number): number {
    const vals = this.pick(scheme, load).map((run) => {
      const { fromNs, toNs } = arrivalWindow(this.core.opts.store.listFlows(run.id).map((f) => f.startNs), warmupShare(this.spec))
      const { defs, t, values } = this.core.opts.store.readSamples(run.id, ['probe.bytes'])
      const i = defs.findIndex((d) => d.kind === 'probe.bytes')
      return i < 0 ? NaN : windowRate(t, values[i], fromNs, toNs)
    })
    return vals.reduce((a, b) => a + b, 0) / vals.length
  }

  /**
   * The queue measures (reproduce-queues.ts) at the fabric's bottleneck: the switch-to-switch
   * port that is deepest (by p95) under `reference`. Ports facing hosts are left out: their
   * queues come from receivers' contention, which no load balancer can change, and the
   * paper's figure is of the fabric link the asymmetry overloads.
   */
  queueAt(scheme: string, reference: string): QueueMeasures {
    const q = this.portQueues(this.pick(scheme)[0]).get(bottleneckPort(this.portQueues(this.pick(reference)[0])))
    return q ? queueMeasures(q) : { p95: NaN, emptyShare: NaN, drops: NaN }
  }

  private portQueues(run: RunRow): Map<string, PortQueue> {
    const fabric = buildFabric(this.spec.topology)
    const facesSwitch = (entity: Record<string, string | number>) => {
      const node = fabric.nodes.find((n) => n.name === entity.switch)
      if (!node) return false
      return fabric.nodes[peer(fabric, node.id, Number(entity.port)).node].role !== 'host'
    }
    const { defs, values } = this.core.opts.store.readSamples(run.id, ['queue.depth', 'drops'])
    const out = new Map<string, PortQueue>()
    defs.forEach((d, i) => {
      if (!facesSwitch(d.entity)) return
      const key = JSON.stringify({ switch: d.entity.switch, port: d.entity.port })
      const q = out.get(key) ?? { depth: [], drops: [] }
      if (d.kind === 'queue.depth') q.depth = values[i]
      else q.drops = values[i]
      out.set(key, q)
    })
    return out
  }

  /** The worst time, after the first failure, for a best hop through the dead link to move off it. */
  hulaRecoveryNs(): number {
    const failure = this.spec.failures[0]
    if (!failure) throw new Error('the template has no failure')
    const fabric = buildFabric(this.spec.topology)
    const link = linkByName(fabric, failure.link)
    const dead = new Map([
      [fabric.nodes[link.a].name, link.aPort],
      [fabric.nodes[link.b].name, link.bPort],
    ])
    const run = this.pick('hula')[0]
    const { defs, t, values } = this.core.opts.store.readSamples(run.id, ['hula.bestHop'])
    let worst = 0
    let measured = 0
    defs.forEach((d, i) => {
      const port = dead.get(String(d.entity.switch))
      if (port === undefined) return
      let before = -1
      for (let j = 0; j < t.length && t[j] < failure.atNs; j++) before = j
      if (before < 0 || values[i][before] !== port) return
      measured++
      const after = t.findIndex((x, j) => x >= failure.atNs && values[i][j] >= 0 && values[i][j] !== port)
      worst = Math.max(worst, after < 0 ? Infinity : t[after] - failure.atNs)
    })
    // No best hop went through the link before it failed: there is nothing to time, not 0.
    return measured > 0 ? worst : NaN
  }
}

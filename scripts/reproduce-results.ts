// The runs of one template, and the statistics the claims (reproduce-claims.ts) measure on them.
// Apart from reproduce.ts so that the claims can name it without importing the script itself.
import type { Core } from '../src-main/core'
import type { ExperimentSpec } from '../src-main/core/spec'
import type { RunRow } from '../src-main/core/store'
import { buildFabric, linkByName, peer } from '../src-main/model/topology'
import { computeRoutes } from '../src-main/sim'
import { warmupShare } from '../src-main/core/stats'
import { arrivalWindow, windowRate } from './reproduce-probes'
import { bottleneckPort, inWindow, queueMeasures, type PortQueue, type QueueMeasures } from './reproduce-queues'
import { adjacentReroute, deadEndTraffic, deflection, rerouteBack, type Failure, type RerouteTime } from './reproduce-reroute'

/** Runs of one template, grouped for the measures. */
export class Results {
  constructor(
    readonly core: Core,
    readonly spec: ExperimentSpec,
    readonly runs: RunRow[],
    /** The other templates' runs on the same page, by experiment name: what companion() reads first. */
    readonly companions?: ReadonlyMap<string, Results>,
    /** Read no companion but those given (a sweep's row: a baseline from elsewhere would not be run alike). */
    readonly onlyGiven = false,
  ) {}

  /** The templates companion() was asked for, so a sensitivity sweep re-runs them with each setting too. */
  readonly companionsRead = new Set<string>()

  /** The (scheme, load) points the measures asked for, so a sensitivity sweep re-runs only those. */
  readonly picked: Array<{ scheme: string; load: number | undefined }> = []

  private pick(scheme: string, load?: number): RunRow[] {
    this.picked.push({ scheme, load })
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
   * paper's figure is of the fabric link the asymmetry overloads. Only the samples taken while
   * flows arrive count (reproduce-queues.ts, inWindow).
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
    const { defs, t, values } = this.core.opts.store.readSamples(run.id, ['queue.depth', 'drops'])
    const { fromNs, toNs } = arrivalWindow(this.core.opts.store.listFlows(run.id).map((f) => f.startNs), warmupShare(this.spec))
    const out = new Map<string, PortQueue>()
    defs.forEach((d, i) => {
      if (!facesSwitch(d.entity)) return
      const key = JSON.stringify({ switch: d.entity.switch, port: d.entity.port })
      const q = out.get(key) ?? { depth: [], drops: [] }
      if (d.kind === 'queue.depth') q.depth = values[i]
      else q.drops = values[i]
      out.set(key, q)
    })
    for (const [key, q] of out) out.set(key, inWindow(t, q, fromNs, toNs))
    return out
  }

  /**
   * Fig. 9's reroute times (reproduce-reroute.ts) around the template's first failure, from the
   * first run of `scheme` (HULA; the best-hop ones need HULA's series): away from it (the packets sent into dead ends), at the two switches at its
   * ends, and back onto it after the recovery (both from the hula.bestHop series).
   */
  reroute(which: 'away' | 'adjacent' | 'back', scheme = 'hula'): RerouteTime {
    const failure = this.spec.failures[0]
    if (!failure) throw new Error('the template has no failure')
    if (this.spec.failover !== 'local') throw new Error("the reroute measures need failover: local (under 'global' routing withdraws the dead ends at the failure itself)")
    const fabric = buildFabric(this.spec.topology)
    const f: Failure = { link: linkByName(fabric, failure.link).id, atNs: failure.atNs, recoverNs: failure.recoverNs }
    const run = this.pick(scheme)[0].id
    if (which === 'away') {
      const { t, values } = this.core.opts.store.readSamples(run, ['drops.unroutable'])
      if (values.length === 0) throw new Error('the run has no drops.unroutable series')
      return deadEndTraffic(t, values[0], f)
    }
    const { defs, t, values } = this.core.opts.store.readSamples(run, ['hula.bestHop'])
    const series = new Map<string, Map<string, ArrayLike<number>>>()
    defs.forEach((d, i) => {
      const sw = String(d.entity.switch)
      series.set(sw, (series.get(sw) ?? new Map<string, ArrayLike<number>>()).set(String(d.entity.dstTor), values[i]))
    })
    return (which === 'adjacent' ? adjacentReroute : rerouteBack)(fabric, computeRoutes(fabric), f, { t, series })
  }

  /**
   * Fig. 9b's deflection time (reproduce-reroute.ts) of a scheme's first run: the rate delivered
   * to the hosts (link.util of the switch ports facing hosts, times their rate) against the
   * failed link's utilization (either direction) before the template's first failure.
   */
  deflectionNs(scheme: string): number {
    const failure = this.spec.failures[0]
    if (!failure) throw new Error('the template has no failure')
    const fabric = buildFabric(this.spec.topology)
    const link = linkByName(fabric, failure.link)
    const { defs, t, values } = this.core.opts.store.readSamples(this.pick(scheme)[0].id, ['link.util'])
    const delivered = new Float64Array(t.length)
    const failed = new Float64Array(t.length)
    defs.forEach((d, i) => {
      const node = fabric.nodes.find((n) => n.name === d.entity.switch)
      if (!node) return
      const far = peer(fabric, node.id, Number(d.entity.port))
      if (far.link.id === link.id) for (let j = 0; j < t.length; j++) failed[j] = Math.max(failed[j], values[i][j])
      if (fabric.nodes[far.node].role === 'host') for (let j = 0; j < t.length; j++) delivered[j] += values[i][j] * far.link.bps
    })
    return deflection(t, delivered, failed, failure).worstNs
  }

  /**
   * Another template's runs in the same database, named as this one is (with --quick's suffix):
   * the baseline a claim compares with. The runs reproduce.ts picked for the page when it ran
   * that template too (reused or new); else (--only) its latest run of each (scheme, load,
   * seed), so a reused --db does not mix in older runs.
   */
  companion(name: string): Results {
    this.companionsRead.add(name)
    const suffix = this.spec.name.endsWith('-quick') ? '-quick' : ''
    const picked = this.companions?.get(name + suffix)
    if (picked) return picked
    if (this.onlyGiven) throw new Error(`${name} was not run with this setting`)
    const store = this.core.opts.store
    const exp = store.findExperimentByName(name + suffix)
    if (!exp) throw new Error(`no runs of ${name}${suffix} in this database: npm run reproduce runs it before ${this.spec.name}; with --only, run --only ${name} on the same --db first`)
    const latest = new Map<string, RunRow>()
    for (const r of store.listRuns({ experimentId: exp.id })) {
      const key = `${r.scheme} ${r.load} ${r.seed}`
      const had = latest.get(key)
      if (!had || r.id > had.id) latest.set(key, r)
    }
    return new Results(this.core, this.core.parseOrThrow(exp.yaml, exp.file), [...latest.values()])
  }
}

// A run as the runs table, the query language and compare see it: its parameters (the
// cell, the experiment's scheme params, what the spec fixes), the hashes of what ran, and
// its metrics. Flow-derived metrics are read only when something asks for them. Parameters
// and hashes come from the run's own record of what it ran with, never from the experiment's
// current text (which may have been edited since); only a run with no record falls back to it.
import { configKey, type ExperimentRow, type FlowRow, type RunRow, type Store } from '../store'
import { configHash, programHash, topologyHash } from './hashes'
import { METRICS, isMetric, metricFromFlows, metricFromStats } from './metrics'
import type { Queryable } from './query'
import { idealFctOfSpec } from '../slowdown'

export type FieldValue = string | number | null

/** Fields that identify or describe a run rather than parameterise it. */
export const BASE_FIELDS = ['id', 'experiment', 'target', 'scheme', 'load', 'seed', 'status', 'revision', 'stale'] as const
export const SPEC_FIELDS = ['topology', 'workload', 'flows', 'transport', 'failover', 'stopAfterNs'] as const
export const HASH_FIELDS = ['hash.program', 'hash.topology', 'hash.config'] as const

export class RunRecord implements Queryable {
  readonly fields: Record<string, FieldValue>
  readonly tags: string[]
  /** Parameter names (spec params and the run's own), sorted. */
  readonly paramNames: string[]
  /** What decides the run's results in its record (store/revisions.ts): a rename or a tag leaves it. */
  readonly configKey: string
  private flows: FlowRow[] | undefined
  /** The spec the run ran with (its record's; the experiment's only for a run with none). */
  private readonly spec: unknown
  private slowdowns: Float64Array | undefined
  private readonly metricCache = new Map<string, number | null>()

  constructor(
    readonly run: RunRow,
    readonly experiment: ExperimentRow,
    private readonly store: Store,
  ) {
    const ranWith = store.getRunRecord(run.id)
    const spec = (ranWith?.spec ?? experiment.spec ?? {}) as Record<string, unknown>
    this.spec = spec
    this.configKey = configKey(spec)
    const topo = (spec.topology ?? {}) as Record<string, unknown>
    const workload = (spec.workload ?? {}) as Record<string, unknown>
    const transport = (spec.transport ?? {}) as Record<string, unknown>
    const params: Record<string, FieldValue> = {}
    for (const [k, v] of Object.entries((spec.params ?? {}) as Record<string, unknown>)) params[k] = scalar(v)
    for (const [k, v] of Object.entries(run.params)) params[k] = scalar(v)
    this.paramNames = Object.keys(params).sort()
    this.fields = {
      id: run.id,
      experiment: experiment.name,
      target: run.target,
      scheme: run.scheme,
      load: run.load,
      seed: run.seed,
      status: run.status,
      revision: run.revision,
      stale: run.stale ? 'yes' : 'no',
      topology: scalar(topo.kind),
      workload: scalar(workload.kind),
      flows: scalar(workload.flows),
      transport: scalar(transport.kind),
      failover: scalar(spec.failover),
      stopAfterNs: scalar(spec.stopAfterNs),
      ...params,
      'hash.program': programHash(run.target, run.facts, run.scheme),
      'hash.topology': topologyHash(spec),
      'hash.config': configHash(spec),
    }
    // The experiment's (its YAML's and the store's) and the run's own: `tag:T` finds any.
    this.tags = [...new Set([...experiment.tags, ...experiment.storeTags, ...run.tags])]
  }

  get(field: string): FieldValue | undefined {
    if (isMetric(field)) return this.metric(field)
    return Object.prototype.hasOwnProperty.call(this.fields, field) ? this.fields[field] : undefined
  }

  /** A metric of a finished run; null when the run has none (not done, no such flows). */
  metric(name: (typeof METRICS)[number]): number | null {
    const cached = this.metricCache.get(name)
    if (cached !== undefined) return cached
    let v: number | null
    if (this.run.status !== 'done') v = null
    else {
      const fromStats = metricFromStats(this.run, name)
      if (fromStats !== undefined) v = fromStats
      else {
        this.flows ??= this.store.listFlows(this.run.id)
        v = metricFromFlows(this.flows, name)
      }
    }
    this.metricCache.set(name, v)
    return v
  }

  listFlows(): FlowRow[] {
    this.flows ??= this.store.listFlows(this.run.id)
    return this.flows
  }

  /** Each listed flow's FCT slowdown on the fabric the run ran on (NaN: unfinished, or no ideal). */
  flowSlowdowns(): Float64Array {
    if (this.slowdowns) return this.slowdowns
    const flows = this.listFlows()
    const ideal = idealFctOfSpec(this.spec)
    const out = new Float64Array(flows.length).fill(NaN)
    if (ideal) {
      flows.forEach((f, i) => {
        const id = f.fctNs === null ? null : ideal(f.src, f.dst, f.sizeBytes)
        if (id !== null && id > 0) out[i] = f.fctNs! / id
      })
    }
    return (this.slowdowns = out)
  }
}

function scalar(v: unknown): FieldValue {
  if (v === undefined || v === null) return null
  if (typeof v === 'number' || typeof v === 'string') return v
  if (typeof v === 'boolean') return String(v)
  return JSON.stringify(v)
}

/** The runs of the given experiments, in the order given and by id within each. */
export function loadRecords(store: Store, experimentIds: readonly number[]): RunRecord[] {
  const out: RunRecord[] = []
  for (const id of experimentIds) {
    const exp = store.getExperiment(id)
    if (!exp) throw new Error(`experiment ${id} does not exist`)
    for (const run of store.listRuns({ experimentId: id })) out.push(new RunRecord(run, exp, store))
  }
  return out
}

/** Every field a query may name over these runs. */
export function knownFields(records: readonly RunRecord[]): Set<string> {
  const known = new Set<string>([...BASE_FIELDS, ...SPEC_FIELDS, ...HASH_FIELDS, ...METRICS])
  for (const r of records) for (const p of r.paramNames) known.add(p)
  return known
}

/**
 * "Diff only": the parameters (hashes included) that differ between the given runs, each
 * with its value per run, in the runs' order. Metrics, ids and statuses are results, not parameters.
 */
export function diffOnly(records: readonly RunRecord[]): Array<{ field: string; values: FieldValue[] }> {
  const fields = new Set<string>()
  for (const r of records) for (const k of Object.keys(r.fields)) fields.add(k)
  fields.delete('id')
  fields.delete('status')
  fields.delete('stale')
  const order = [...BASE_FIELDS, ...SPEC_FIELDS] as readonly string[]
  const sorted = [...fields].sort((a, b) => rank(a, order) - rank(b, order) || (a < b ? -1 : a > b ? 1 : 0))
  const out: Array<{ field: string; values: FieldValue[] }> = []
  for (const f of sorted) {
    const values = records.map((r) => (Object.prototype.hasOwnProperty.call(r.fields, f) ? r.fields[f] : null))
    if (new Set(values.map((v) => JSON.stringify(v))).size > 1) out.push({ field: f, values })
  }
  return out
}

function rank(field: string, order: readonly string[]): number {
  const i = order.indexOf(field)
  if (i >= 0) return i
  return field.startsWith('hash.') ? 2000 : 1000
}

import { LineCounter, parseDocument } from 'yaml'
import type { z } from 'zod'
import type { SpecError } from '../../contract/schemas'
import type { BufferConfig, Topology, TransportConfig } from '../../sim/types'
import type { SchemeName } from '../../schemes'
import type { Fabric } from '../../model/topology'
import { canonicalLink, checkAgainstFabric, checkParams, toTopology } from './checks'
import { addressPlanProblems, budgetProblems, controlCharacterProblems, yamlSizeProblem } from './limits'
import { formatPath, locate, type FieldPath } from './locate'
import { DEFAULT_INT_PORT, describeValue, experimentSchema, type RawExperiment } from './schema'
import type { ExperimentSpec, FailureSpec, IntSpec, IntWatch, ParseOptions, ParseResult, PoissonWorkloadSpec, WorkloadSpec } from './types'
import { loadWorkloadCdf } from './workload'

/**
 * Parses and validates an experiment file. Every problem found is returned, each with
 * the file, line, column, field path and what was expected; nothing stops at the first.
 */
export function parseExperiment(text: string, opts: ParseOptions): ParseResult {
  const tooBig = yamlSizeProblem(text)
  if (tooBig) return { ok: false, errors: [{ file: opts.file, line: 1, column: 1, path: 'document', message: tooBig }] }
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const at = (line: number, column: number, path: string, message: string): SpecError => ({ file: opts.file, line, column, path, message })

  if (doc.errors.length > 0) {
    // The tree is unreliable past a syntax error, so report only those.
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0])
        return at(pos.line, pos.col, 'document', `YAML syntax error: ${e.message}`)
      }),
    }
  }

  let raw: unknown
  try {
    raw = doc.toJS({ maxAliasCount: 1000 })
  } catch (err) {
    return { ok: false, errors: [at(1, 1, 'document', (err as Error).message)] }
  }
  if (raw === null || raw === undefined) {
    return { ok: false, errors: [at(1, 1, 'document', 'the file is empty; expected a mapping with name, topology, schemes and workload')] }
  }

  const errors: SpecError[] = []
  const report = (path: FieldPath, message: string, keyOf = false, about: { node?: string; link?: string } = {}) => {
    const loc = locate(doc, lines, path, { keyOf })
    errors.push({
      ...at(loc.line, loc.column, formatPath(loc.path), message),
      ...(about.node !== undefined ? { node: about.node } : {}),
      ...(about.link !== undefined ? { link: about.link } : {}),
    })
  }

  for (const p of controlCharacterProblems(raw)) report(p.path, p.message, p.keyOf)

  const result = experimentSchema(opts.testbeds ?? ['sim']).safeParse(raw)
  if (!result.success) for (const issue of result.error.issues) reportIssue(issue, report)

  const workloadRaw = (raw as Record<string, unknown>).workload
  const cdf = typeof raw === 'object' && !Array.isArray(raw) ? loadWorkloadCdf(workloadRaw, opts) : undefined
  if (cdf && !cdf.ok) for (const p of cdf.problems) report(p.path, p.message)

  const fabric = isPlainObject(raw) ? checkAgainstFabric(raw) : { problems: [] }
  for (const p of fabric.problems) report(p.path, p.message, p.keyOf, p)
  if (isPlainObject(raw)) for (const p of checkParams(raw)) report(p.path, p.message, true)
  if (isPlainObject(raw) && fabric.fabric) {
    for (const p of [...addressPlanProblems(fabric.fabric), ...budgetProblems(raw, fabric.fabric)]) report(p.path, p.message, p.keyOf, p)
  }

  // A job array runs the simulator's cell runner: only sim experiments go to a cluster.
  if (isPlainObject(raw) && isPlainObject(raw.runner) && raw.runner.kind === 'slurm' && raw.testbed !== undefined && raw.testbed !== 'sim') {
    report(['runner', 'kind'], `a Slurm runner runs simulator cells only, and this experiment runs on testbed ${describeValue(raw.testbed)}; remove runner: or use testbed: sim`)
  }

  if (errors.length > 0 || !result.success || !cdf?.ok || !fabric.fabric) return { ok: false, errors: tidy(errors) }
  return { ok: true, spec: normalise(result.data, fabric.fabric, cdf) }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function reportIssue(issue: z.core.$ZodIssue, report: (path: FieldPath, message: string, keyOf?: boolean) => void): void {
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys) report([...issue.path, key], `unknown field '${key}'; ${issue.message}`, true)
  } else {
    report(issue.path, issue.message)
  }
}

/** In file order, each problem once (a value can fail two checks with one message). */
function tidy(errors: SpecError[]): SpecError[] {
  const seen = new Set<string>()
  return errors
    .filter((e) => {
      const key = `${e.line}:${e.column}:${e.path}:${e.message}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    .sort((a, b) => a.line - b.line || a.column - b.column)
}

function normalise(raw: RawExperiment, fabric: Fabric, cdf: { file?: string; cdf?: Array<[number, number]> }): ExperimentSpec {
  const link = (name: string) => canonicalLink(fabric, name) ?? name
  const topology: Topology = toTopology(raw.topology)
  if (topology.remove) topology.remove = topology.remove.map(link)
  if (topology.rates) topology.rates = Object.fromEntries(Object.entries(topology.rates).map(([name, bps]) => [link(name), bps]))

  const t = raw.transport
  const transport: TransportConfig = { kind: t.kind, mssBytes: t.mss, initCwndPackets: t.initCwnd, minRtoNs: t.minRto }
  if (t.kind === 'dctcp') {
    if (t.ecnThreshold !== undefined) transport.ecnThresholdPackets = t.ecnThreshold
    if (t.dctcpG !== undefined) transport.dctcpG = t.dctcpG
  }
  if (t.kind === 'dcqcn') {
    const d: NonNullable<TransportConfig['dcqcn']> = {}
    if (t.kmin !== undefined) d.kminBytes = t.kmin
    if (t.kmax !== undefined) d.kmaxBytes = t.kmax
    if (t.pmax !== undefined) d.pmax = t.pmax
    if (t.g !== undefined) d.g = t.g
    if (t.cnpInterval !== undefined) d.cnpIntervalNs = t.cnpInterval
    if (t.alphaTimer !== undefined) d.alphaTimerNs = t.alphaTimer
    if (t.rateTimer !== undefined) d.rateTimerNs = t.rateTimer
    if (t.byteCounter !== undefined) d.byteCounterBytes = t.byteCounter
    if (t.fastRecoverySteps !== undefined) d.fastRecoverySteps = t.fastRecoverySteps
    if (t.rai !== undefined) d.raiBps = t.rai
    if (t.rhai !== undefined) d.rhaiBps = t.rhai
    if (t.minRate !== undefined) d.minRateBps = t.minRate
    if (Object.keys(d).length > 0) transport.dcqcn = d
  }
  const b = raw.buffer
  const buffer: BufferConfig | undefined = b === undefined ? undefined : {
    kind: 'shared',
    sizeBytes: b.size,
    alpha: b.alpha,
    ...(b.pfc ? { pfc: { alpha: b.pfc.alpha, xonOffsetBytes: b.pfc.xonOffset, ...(b.pfc.headroom !== undefined ? { headroomBytes: b.pfc.headroom } : {}) } } : {}),
  }

  const failures: FailureSpec[] = raw.failures
    .map((f) => ({ link: link(f.link), atNs: f.at, ...(f.recover !== undefined ? { recoverNs: f.recover } : {}) }))
    .sort((a, b) => a.atNs - b.atNs)

  return {
    name: raw.name,
    description: raw.description,
    tags: raw.tags,
    testbed: raw.testbed,
    topology,
    transport,
    ...(buffer ? { buffer } : {}),
    schemes: raw.schemes as SchemeName[],
    workload: normaliseWorkload(raw.workload, cdf.file ?? '', cdf.cdf ?? []),
    params: raw.params,
    failures,
    failover: raw.failover as 'global' | 'local',
    seeds: raw.seeds,
    telemetryIntervalNs: raw.telemetry.interval,
    ...intSpec(raw.telemetry.int),
    stopAfterNs: raw.stopAfter,
    ...(raw.runner ? { runner: raw.runner } : {}),
  }
}

/** telemetry.int → { int } when on, {} when off or absent. */
function intSpec(v: RawExperiment['telemetry']['int']): { int?: IntSpec } {
  if (v === undefined || v === false) return {}
  if (v === true) return { int: { port: DEFAULT_INT_PORT, watch: 'all' } }
  const m = v as { port: number; watch: IntWatch }
  return { int: { port: m.port, watch: m.watch } }
}

function normaliseWorkload(w: RawExperiment['workload'], file: string, cdf: Array<[number, number]>): WorkloadSpec {
  const optional = (x: { size?: number; start?: number }) => ({
    ...(x.size !== undefined ? { sizeBytes: x.size } : {}),
    ...(x.start !== undefined ? { startNs: x.start } : {}),
  })
  switch (w.kind) {
    case 'incast':
      return {
        kind: 'incast',
        background: w.background,
        file,
        cdf,
        loads: w.load,
        flows: w.flows,
        incast: {
          events: w.incast.events,
          ratePerSec: w.incast.rate,
          flowBytes: w.incast.flowSize,
          fanIn: w.incast.fanIn as number | Array<[number, number]>,
        },
      }
    case 'long-lived':
      return {
        kind: 'long-lived',
        loads: [1],
        ...(w.pairs !== undefined ? { pairs: w.pairs } : {}),
        ...(w.flows !== undefined ? { flows: w.flows } : {}),
        ...optional(w),
      }
    case 'permutation':
      return { kind: 'permutation', loads: [1], ...optional(w) }
    default:
      return {
        kind: w.kind,
        file,
        cdf,
        loads: w.load,
        flows: w.flows,
        ...(w.destinations !== undefined && w.destinations !== 'other-racks' ? { destinations: w.destinations } : {}),
        ...(w.warmup !== undefined && w.warmup > 0 ? { warmup: w.warmup } : {}),
        ...(w.connections !== undefined ? { connections: connectionsOf(w.connections) } : {}),
      }
  }
}

/** The client-server settings as the spec keeps them: defaults left out, so specs without them hash as before. */
function connectionsOf(c: { perServer: number; servers?: number; choice?: 'random' | 'permutation' }): NonNullable<PoissonWorkloadSpec['connections']> {
  return {
    perServer: c.perServer,
    ...(c.servers !== undefined ? { servers: c.servers } : {}),
    ...(c.choice === 'permutation' ? { choice: c.choice } : {}),
  }
}

/** The run matrix: scheme-major, then load, then seed. */
export function expandRuns(spec: ExperimentSpec): Array<{ scheme: string; load: number; seed: number }> {
  const runs: Array<{ scheme: string; load: number; seed: number }> = []
  for (const scheme of spec.schemes) {
    for (const load of spec.workload.loads) {
      for (const seed of spec.seeds) runs.push({ scheme, load, seed })
    }
  }
  return runs
}

/** "file:line:column: path: message", the form editors and terminals link. */
export function formatSpecError(e: SpecError): string {
  return `${e.file}:${e.line}:${e.column}: ${e.path}: ${e.message}`
}

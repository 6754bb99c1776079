import { LineCounter, parseDocument } from 'yaml'
import type { z } from 'zod'
import type { SpecError } from '../../contract/schemas'
import type { SchemeName } from '../../sim/types'
import { formatPath, locate, type FieldPath } from './locate'
import { experimentSchema, type RawExperiment } from './schema'
import type { ExperimentSpec, ParseOptions, ParseResult, WorkloadKind } from './types'
import { loadWorkloadCdf } from './workload'

/**
 * Parses and validates an experiment file. Every problem found is returned, each with
 * the file, line, column, field path and what was expected; nothing stops at the first.
 */
export function parseExperiment(text: string, opts: ParseOptions): ParseResult {
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
  const report = (path: FieldPath, message: string, keyOf = false) => {
    const loc = locate(doc, lines, path, { keyOf })
    errors.push(at(loc.line, loc.column, formatPath(loc.path), message))
  }

  const result = experimentSchema(opts.testbeds ?? ['sim']).safeParse(raw)
  if (!result.success) for (const issue of result.error.issues) reportIssue(issue, report)

  const workloadRaw = (raw as Record<string, unknown>).workload
  const cdf = typeof raw === 'object' && !Array.isArray(raw) ? loadWorkloadCdf(workloadRaw, opts) : undefined
  if (cdf && !cdf.ok) for (const p of cdf.problems) report(p.path, p.message)

  if (errors.length > 0 || !result.success || !cdf?.ok) return { ok: false, errors: tidy(errors) }
  return { ok: true, spec: normalise(result.data, cdf.file, cdf.cdf) }
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

function normalise(raw: RawExperiment, file: string, cdf: Array<[number, number]>): ExperimentSpec {
  const t = raw.topology
  return {
    name: raw.name,
    description: raw.description,
    tags: raw.tags,
    testbed: raw.testbed,
    topology: {
      kind: 'leaf-spine',
      leaves: t.leaves,
      spines: t.spines,
      hostsPerLeaf: t.hostsPerLeaf,
      hostLinkBps: t.hostLink,
      fabricLinkBps: t.fabricLink,
      linkDelayNs: t.linkDelay,
      queuePackets: t.queuePackets,
      hostQueuePackets: t.hostQueuePackets,
    },
    transport: {
      kind: 'newreno',
      mssBytes: raw.transport.mss,
      initCwndPackets: raw.transport.initCwnd,
      minRtoNs: raw.transport.minRto,
    },
    schemes: raw.schemes as SchemeName[],
    workload: {
      kind: raw.workload.kind as WorkloadKind,
      file,
      cdf,
      loads: raw.workload.load,
      flows: raw.workload.flows,
    },
    seeds: raw.seeds,
    telemetryIntervalNs: raw.telemetry.interval,
    stopAfterNs: raw.stopAfter,
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

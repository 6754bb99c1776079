// A testbed's mapping (contract/testbed-mapping.ts): validated against the testbed's hosts,
// read from and shown as YAML, and laid over a fabric for a preview; what a mapping of each
// kind holds, and how it lays over a fabric, is the kind's (core/targets/<kind>/kind.ts).
import { LineCounter, parseDocument, stringify } from 'yaml'
import { z } from 'zod'
import { TestbedMapping, type TestbedMappingInput } from '../../contract/testbed-mapping'
import type { TestbedKind } from '../../contract/testbeds'
import { computeControlPlane } from '../controlplane'
import { CoreError } from '../errors'
import type { MappedHost } from '../targets/kind'
import { kindOfMapping } from '../targets/kinds'
import { buildFabric, type FabricSpec } from '../../model/topology'

type HostLike = MappedHost

function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p, n) => (typeof p === 'number' ? `[${p}]` : `${n ? '.' : ''}${String(p)}`)).join('')
}

/** The line of a path of the mapping in the YAML it was read from (of its closest parent when it is absent). */
export type LineOf = (path: ReadonlyArray<PropertyKey>) => number | undefined

/** The fields a mapping's object at `path` has (for an unknown one), by the mapping's kind. */
function knownFields(input: unknown, path: ReadonlyArray<PropertyKey>): string[] | undefined {
  const kind = input && typeof input === 'object' ? (input as { kind?: unknown }).kind : undefined
  const unwrap = (t: unknown): unknown => (t instanceof z.ZodOptional || t instanceof z.ZodDefault ? unwrap(t.unwrap()) : t)
  let t: unknown = TestbedMapping.options.find((o) => o.shape.kind.value === kind)
  for (const seg of path) {
    t = unwrap(t)
    if (t instanceof z.ZodArray) t = t.element
    else if (t instanceof z.ZodObject) t = (t.shape as Record<string, unknown>)[String(seg)]
    else return undefined
  }
  t = unwrap(t)
  return t instanceof z.ZodObject ? Object.keys(t.shape) : undefined
}

/** `line 4: mapping.hosts[0].host`, the line when the mapping was read from YAML. */
function placeOf(path: ReadonlyArray<PropertyKey>, lineOf?: LineOf): string {
  const line = lineOf?.(path)
  return `${line === undefined ? '' : `line ${line}: `}mapping${path.length ? '.' : ''}${issuePath(path)}`
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v = input
  for (const seg of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[seg] : undefined
  return v
}

/** A schema issue as one problem per field: `line 4: mapping.hosts[0].swiches: unknown field 'swiches'; expected one of …`. */
function issueTexts(input: unknown, issue: z.core.$ZodIssue, lineOf?: LineOf): string[] {
  const at = (path: ReadonlyArray<PropertyKey>) => placeOf(path, lineOf)
  if (issue.code === 'unrecognized_keys') {
    const known = knownFields(input, issue.path)
    return issue.keys.map((k) => `${at([...issue.path, k])}: unknown field '${k}'${known ? `; expected one of ${known.join(', ')}` : ''}`)
  }
  const v = valueAt(input, issue.path)
  const got = typeof v === 'string' ? `, got '${v}'` : typeof v === 'number' ? `, got ${v}` : ''
  return [`${at(issue.path)}: ${issue.message}${got}`]
}

/**
 * The mapping checked against the testbed's kind and hosts; throws naming each problem
 * (`mapping.hosts[0].host: …`), with its line when it was read from YAML (`lineOf`).
 */
export function validateMapping(kind: TestbedKind, hosts: readonly HostLike[], input: unknown, lineOf?: LineOf): TestbedMapping {
  const parsed = TestbedMapping.safeParse(input)
  if (!parsed.success) {
    throw new CoreError('invalid-request', `invalid mapping: ${parsed.error.issues.flatMap((i) => issueTexts(input, i, lineOf)).join('; ')}`)
  }
  const m = parsed.data
  const problems: string[] = []
  const at = (path: ReadonlyArray<PropertyKey>) => placeOf(path, lineOf)
  if (m.kind !== kind) problems.push(`${at(['kind'])}: this is a ${kind} testbed; its mapping is of kind '${kind}', not '${m.kind}'`)
  const role = (name: string) => hosts.find((h) => h.name === name)?.role
  const names = hosts.map((h) => h.name).join(', ')
  const need = (path: ReadonlyArray<PropertyKey>, name: string, want: string) => {
    const where = at(path)
    const r = role(name)
    if (r === undefined) problems.push(`${where}: the testbed has no host '${name}' (its hosts: ${names})`)
    else if (r !== want) problems.push(`${where}: '${name}' is a ${r} host, not a ${want} host`)
  }
  for (const p of kindOfMapping(m).mapping.problems(m, need)) problems.push(`${at(p.path)}: ${p.message}`)
  if (problems.length) throw new CoreError('invalid-request', `invalid mapping: ${problems.join('; ')}`)
  return m
}

/** Parses mapping YAML (as the view and `p4lab testbed map --file` give it); errors carry the line, and so can validateMapping's (lineOf). */
export function mappingFromYaml(text: string): { mapping: TestbedMappingInput; lineOf: LineOf } {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter })
  if (doc.errors.length) {
    const e = doc.errors[0]
    throw new CoreError('invalid-request', `mapping YAML, line ${e.linePos?.[0].line ?? '?'}: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`)
  }
  const v = doc.toJS() as unknown
  // The YAML may be the mapping itself or hold it under `mapping:`.
  const under = v && typeof v === 'object' && 'mapping' in v
  const lineOf: LineOf = (path) => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn([...(under ? ['mapping'] : []), ...path.slice(0, n)], true) as { range?: [number, number, number] } | undefined
      if (node?.range) return lineCounter.linePos(node.range[0]).line
    }
    return undefined
  }
  return { mapping: (under ? (v as { mapping: unknown }).mapping : v) as TestbedMappingInput, lineOf }
}

export function mappingToYaml(m: TestbedMapping): string {
  return stringify({ mapping: m }, { lineWidth: 0, flowCollectionPadding: false })
}

export interface MappingPreview {
  /** The fabric's switches and hosts, in the control plane's order. */
  switches: string[]
  fabricHosts: string[]
  /** Per testbed host: its switches, namespaces, veths and tunnels (BMv2). */
  lines: string[]
  /** What does not fit, each naming the switch or host. */
  problems: string[]
}

/** The mapping laid over a fabric: what goes where, and what does not fit. A null mapping lists the fabric only. */
export function previewMapping(topology: FabricSpec, mapping: TestbedMapping | null, hosts: readonly HostLike[]): MappingPreview {
  const state = computeControlPlane(buildFabric(topology), 'ecmp')
  const out: MappingPreview = { switches: state.switches.map((s) => s.name), fabricHosts: state.hosts.map((h) => h.name), lines: [], problems: [] }
  if (!mapping) return out
  const p = kindOfMapping(mapping).mapping.preview(state, mapping, hosts)
  out.lines = p.lines
  out.problems = p.problems
  return out
}

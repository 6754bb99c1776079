// A testbed's mapping (contract/testbed-mapping.ts): validated against the testbed's hosts,
// read from and shown as YAML, and laid over a fabric for a preview; what a mapping of each
// kind holds, and how it lays over a fabric, is the kind's (core/targets/<kind>/kind.ts).
import { parseDocument, stringify } from 'yaml'
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

/** The mapping checked against the testbed's kind and hosts; throws naming each problem (`mapping.hosts[0].host: …`). */
export function validateMapping(kind: TestbedKind, hosts: readonly HostLike[], input: unknown): TestbedMapping {
  const parsed = TestbedMapping.safeParse(input)
  if (!parsed.success) {
    throw new CoreError('invalid-request', `invalid mapping: ${parsed.error.issues.map((i) => `mapping${i.path.length ? '.' : ''}${issuePath(i.path)}: ${i.message}`).join('; ')}`)
  }
  const m = parsed.data
  const problems: string[] = []
  if (m.kind !== kind) problems.push(`mapping.kind: this is a ${kind} testbed; its mapping is of kind '${kind}', not '${m.kind}'`)
  const role = (name: string) => hosts.find((h) => h.name === name)?.role
  const names = hosts.map((h) => h.name).join(', ')
  const need = (where: string, name: string, want: string) => {
    const r = role(name)
    if (r === undefined) problems.push(`${where}: the testbed has no host '${name}' (its hosts: ${names})`)
    else if (r !== want) problems.push(`${where}: '${name}' is a ${r} host, not a ${want} host`)
  }
  problems.push(...kindOfMapping(m).mapping.problems(m, need))
  if (problems.length) throw new CoreError('invalid-request', `invalid mapping: ${problems.join('; ')}`)
  return m
}

/** Parses mapping YAML (as the view and `p4lab testbed map --file` give it); errors carry the line. */
export function mappingFromYaml(text: string): TestbedMappingInput {
  const doc = parseDocument(text)
  if (doc.errors.length) {
    const e = doc.errors[0]
    throw new CoreError('invalid-request', `mapping YAML, line ${e.linePos?.[0].line ?? '?'}: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`)
  }
  const v = doc.toJS() as unknown
  // The YAML may be the mapping itself or hold it under `mapping:`.
  return (v && typeof v === 'object' && 'mapping' in v ? (v as { mapping: unknown }).mapping : v) as TestbedMappingInput
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

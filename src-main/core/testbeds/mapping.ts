// A testbed's mapping (contract/testbed-mapping.ts): validated against the testbed's hosts,
// read from and shown as YAML, and laid over a fabric (the BMv2 per-host plan) for a preview.
import { parseDocument, stringify } from 'yaml'
import { TestbedMapping, type TestbedMappingInput } from '../../contract/testbed-mapping'
import type { TestbedKind } from '../../contract/testbeds'
import { computeControlPlane } from '../controlplane'
import { CoreError } from '../errors'
import { describePlan, mappingProblems, planMultiHost } from '../targets/bmv2/multihost'
import { buildFabric, type FabricSpec } from '../../model/topology'

interface HostLike {
  name: string
  role: string
  address: string
}

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
  if (m.kind !== kind) problems.push(`mapping.kind: this is a ${kind} testbed; its mapping is of kind '${kind}'`)
  const role = (name: string) => hosts.find((h) => h.name === name)?.role
  const names = hosts.map((h) => h.name).join(', ')
  const need = (where: string, name: string, want: string) => {
    const r = role(name)
    if (r === undefined) problems.push(`${where}: the testbed has no host '${name}' (its hosts: ${names})`)
    else if (r !== want) problems.push(`${where}: '${name}' is a ${r} host, not a ${want} host`)
  }
  if (m.kind === 'bmv2') {
    const seen = new Map<string, string>()
    m.hosts.forEach((h, i) => {
      need(`mapping.hosts[${i}].host`, h.host, 'switch-host')
      for (const s of h.switches) {
        if (seen.has(s)) problems.push(`mapping.hosts[${i}].switches: switch ${s} is also on ${seen.get(s)}; place it on one host`)
        seen.set(s, h.host)
      }
    })
  } else {
    m.switches.forEach((s, i) => {
      need(`mapping.switches[${i}].host`, s.host, 'sde')
      const fp = new Set<string>()
      const ports = new Set<number>()
      s.ports.forEach((p, j) => {
        if (fp.has(p.frontPanel)) problems.push(`mapping.switches[${i}].ports[${j}]: ${s.switch} front-panel port ${p.frontPanel} is used twice`)
        if (ports.has(p.port)) problems.push(`mapping.switches[${i}].ports[${j}]: ${s.switch} port ${p.port} is mapped twice`)
        fp.add(p.frontPanel)
        ports.add(p.port)
      })
    })
    m.servers.forEach((s, i) => need(`mapping.servers[${i}].host`, s.host, 'traffic'))
  }
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
  if (mapping.kind === 'bmv2') {
    out.problems = mappingProblems(state, mapping, hosts)
    // Names as a run makes them, with a stand-in prefix shown as <run>: each run has its own.
    if (!out.problems.length) out.lines = describePlan(planMultiHost(state, 'p4x-', mapping, hosts)).map((l) => l.replace(/p4x-/g, '<run>'))
    return out
  }
  const sw = new Set(out.switches)
  mapping.switches.forEach((s, i) => {
    const cp = state.switches.find((x) => x.name === s.switch)
    if (!sw.has(s.switch)) {
      out.problems.push(`mapping.switches[${i}]: the fabric has no switch '${s.switch}'`)
      return
    }
    const fabricPorts = new Set(cp!.ports.map((p) => p.port))
    for (const p of s.ports) if (!fabricPorts.has(p.port)) out.problems.push(`${s.switch}: the fabric has no port ${p.port} on it (its ports: ${[...fabricPorts].join(', ')})`)
    const missing = [...fabricPorts].filter((p) => !s.ports.some((x) => x.port === p))
    if (missing.length) out.problems.push(`${s.switch}: port${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'have' : 'has'} no front-panel port`)
    out.lines.push(`${s.host}: ${s.switch}, ${s.ports.map((p) => `port ${p.port} on ${p.frontPanel} ${p.speed} fec ${p.fec}`).join('; ')}`)
  })
  for (const s of out.switches) if (!mapping.switches.some((x) => x.switch === s)) out.problems.push(`switch ${s} is on no SDE host of the mapping`)
  return out
}

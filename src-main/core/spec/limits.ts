import type { Fabric } from '../../model/topology'
import { formatDuration } from '../../model/units'
import { describeControl, findControl, printable } from '../../model/printable'
import type { FieldPath } from './locate'
import { stopAfterSchema, telemetrySchema, workloadSchema } from './schema'

// The budgets an experiment file is held to before anything is stored: what one run may
// ask of the machine and of the store. Each is far above paper-scale experiments (the
// templates in resources/experiments use at most 10,000 flows per run and fabrics of a
// dozen switches) and far below what takes a machine down (a 1 ns telemetry interval grew a 9.6 GB database in under five minutes; 10¹² flows
// ran the process out of memory). README.md's "Limits" paragraph lists them.

export const SPEC_LIMITS = {
  /** Bytes of an experiment file (it is stored with every experiment, and parsed in full). */
  yamlBytes: 1024 * 1024,
  /** Flows one run generates: its background flows plus incast events × their largest fan-in. */
  flowsPerRun: 1_000_000,
  /** Samples one run may store: stopAfter ÷ telemetry.interval × series. */
  samplesPerRun: 100_000_000,
} as const

/**
 * The address plan (model/controlplane/address.ts): each ToR owns 10.<pod>.<tor>.0/24 with
 * hosts .1 to .254, a switch port's MAC carries a 16-bit switch id and an 8-bit port.
 */
export const ADDRESS_PLAN = { torsPerPod: 256, pods: 256, hostsPerTor: 254, portsPerSwitch: 256, switches: 65_536 } as const

export interface LimitProblem {
  path: FieldPath
  message: string
  keyOf?: boolean
  node?: string
  link?: string
}

const n = (x: number) => x.toLocaleString('en-US')

/** The file's size against its budget, checked before it is parsed. */
export function yamlSizeProblem(text: string): string | undefined {
  return yamlBytesProblem(Buffer.byteLength(text, 'utf8'))
}

/** The same check on a file's size, before it is read. */
export function yamlBytesProblem(bytes: number): string | undefined {
  if (bytes <= SPEC_LIMITS.yamlBytes) return undefined
  return `the file is ${n(bytes)} bytes; an experiment file may be at most ${n(SPEC_LIMITS.yamlBytes)} bytes (1 MiB, the YAML size budget). Put large data such as a flow-size CDF in a workload file (workload.file)`
}

/**
 * Every key and string value of the file, refused when it holds a control character: names,
 * tags, link names and the rest are all printed somewhere. A description may span lines.
 */
export function controlCharacterProblems(raw: unknown): LimitProblem[] {
  const problems: LimitProblem[] = []
  const seen = new Set<unknown>()
  const check = (s: string, path: FieldPath, keyOf: boolean) => {
    const multiLine = path.length === 1 && path[0] === 'description' && !keyOf
    const found = findControl(multiLine ? s.replace(/[\n\t]/g, ' ') : s)
    if (!found) return
    const what = keyOf ? 'this key' : path.length === 1 && path[0] === 'name' ? 'the experiment name' : 'this value'
    problems.push({
      path,
      keyOf,
      message: `${what} holds the control character ${describeControl(found.char)} at position ${found.index + 1} ('${printable(s)}'); names and values are printed to terminals, so control characters are refused${multiLine ? ' (a description may hold line feeds and tabs only)' : ''}`,
    })
  }
  const walk = (v: unknown, path: Array<string | number>) => {
    if (typeof v === 'string') return check(v, path, false)
    if (typeof v !== 'object' || v === null || seen.has(v)) return
    seen.add(v)
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]))
    else {
      for (const [k, x] of Object.entries(v)) {
        check(k, [...path, k], true)
        walk(x, [...path, k])
      }
    }
  }
  walk(raw, [])
  return problems
}

/** The flows one run generates, and where the file asks for them; undefined when the workload is invalid. */
function flowsPerRun(raw: Record<string, unknown>, hosts: number): { flows: number; path: FieldPath; how: string } | undefined {
  const w = workloadSchema.safeParse(raw.workload)
  if (!w.success) return undefined
  const d = w.data
  switch (d.kind) {
    case 'incast': {
      const fanIn = d.incast.fanIn as number | Array<[number, number]>
      const most = Array.isArray(fanIn) ? Math.max(...fanIn.map(([f]) => f)) : fanIn
      const incast = d.incast.events * most
      const path = d.flows >= incast ? ['workload', 'flows'] : ['workload', 'incast', 'events']
      return { flows: d.flows + incast, path, how: `${n(d.flows)} background flows + ${n(d.incast.events)} incast events × fan-in up to ${most}` }
    }
    case 'long-lived':
      return d.pairs ? { flows: d.pairs.length, path: ['workload', 'pairs'], how: '' } : { flows: d.flows ?? 0, path: ['workload', 'flows'], how: '' }
    case 'permutation':
      return { flows: hosts, path: ['workload'], how: `one flow per host, ${n(hosts)} hosts` }
    default:
      return { flows: d.flows, path: ['workload', 'flows'], how: '' }
  }
}

/** The series a sim run samples at least: five per switch port, plus the fabric-wide ones. */
export function minimumSeries(f: Fabric): number {
  let ports = 0
  for (const s of f.switches) ports += f.nodes[s].ports.length
  return 5 * ports + 1
}

/** The flows and samples budgets, for a file whose topology built `fabric`. */
export function budgetProblems(raw: Record<string, unknown>, fabric: Fabric): LimitProblem[] {
  const problems: LimitProblem[] = []
  const flows = flowsPerRun(raw, fabric.hosts.length)
  if (flows && flows.flows > SPEC_LIMITS.flowsPerRun) {
    problems.push({
      path: flows.path,
      message: `${flows.how ? `${flows.how}: ` : ''}${n(flows.flows)} flows in one run; the budget is ${n(SPEC_LIMITS.flowsPerRun)} flows per run. Use fewer flows per run and more seeds (each seed is a run of its own)`,
    })
  }
  const telemetry = telemetrySchema.safeParse(raw.telemetry)
  const stop = stopAfterSchema.safeParse(raw.stopAfter)
  if (telemetry.success && stop.success) {
    const interval = telemetry.data.interval
    const series = minimumSeries(fabric)
    const instants = Math.floor(stop.data / interval)
    const samples = instants * series
    if (samples > SPEC_LIMITS.samplesPerRun) {
      const shortest = Math.ceil((stop.data * series) / SPEC_LIMITS.samplesPerRun)
      problems.push({
        path: ['telemetry', 'interval'],
        message:
          `sampling every ${formatDuration(interval)} for up to ${formatDuration(stop.data)} (stopAfter) over at least ${n(series)} series ` +
          `(5 per switch port) is up to ${samples.toExponential(2)} samples in one run; the budget is ${n(SPEC_LIMITS.samplesPerRun)} samples per run ` +
          `(stopAfter ÷ interval × series). Use an interval of at least ${formatDuration(shortest)} here, or a shorter stopAfter`,
      })
    }
  }
  return problems
}

/** Where a fabric does not fit the address plan, reported at the topology field that sets it. */
export function addressPlanProblems(f: Fabric): LimitProblem[] {
  const problems: LimitProblem[] = []
  // A custom topology's problems sit at the node at fault (node ids are the order of nodes:).
  const custom = f.kind === 'custom'
  const at = (generated: string, node: number) => (custom ? ['topology', 'nodes', node] : ['topology', generated])
  const field = {
    'leaf-spine': { tors: 'leaves', pods: 'leaves', hosts: 'hostsPerLeaf' },
    'fat-tree': { tors: 'k', pods: 'k', hosts: 'k' },
    'three-tier': { tors: 'torsPerPod', pods: 'pods', hosts: 'hostsPerTor' },
    custom: { tors: 'nodes', pods: 'nodes', hosts: 'nodes' },
  }[f.kind]
  const torsInPod = new Map<number, number>()
  let crowded = -1
  let mostTors = 0
  for (const t of f.tors) {
    const pod = Math.max(0, f.nodes[t].pod)
    if (custom && pod > ADDRESS_PLAN.pods - 1) {
      problems.push({
        path: ['topology', 'nodes', t, 'pod'],
        node: f.nodes[t].name,
        message: `${f.nodes[t].name} is in pod ${pod}, which does not fit the address plan 10.<pod>.<tor>.0/24: pods are numbered 0 to ${ADDRESS_PLAN.pods - 1}`,
      })
    }
    const count = (torsInPod.get(pod) ?? 0) + 1
    torsInPod.set(pod, count)
    if (count > mostTors) mostTors = count
    if (count === ADDRESS_PLAN.torsPerPod + 1) crowded = t
  }
  if (mostTors > ADDRESS_PLAN.torsPerPod) {
    problems.push({
      path: at(field.tors, crowded),
      ...(custom ? { node: f.nodes[crowded].name } : {}),
      message: `${custom ? `${f.nodes[crowded].name}: ` : ''}${n(mostTors)} ToRs in one pod do not fit the address plan: each ToR owns a subnet 10.<pod>.<tor>.0/24, so a pod holds at most ${ADDRESS_PLAN.torsPerPod} ToRs (the topology budget)`,
    })
  }
  if (torsInPod.size > ADDRESS_PLAN.pods) {
    problems.push({
      path: ['topology', field.pods],
      message: `${n(torsInPod.size)} pods do not fit the address plan 10.<pod>.<tor>.0/24: at most ${ADDRESS_PLAN.pods} pods (the topology budget)`,
    })
  }
  const hostsOnTor = new Map<number, number>()
  for (const t of f.torOfHost) hostsOnTor.set(t, (hostsOnTor.get(t) ?? 0) + 1)
  let mostHosts = 0
  let fullTor = -1
  for (const [t, count] of hostsOnTor) if (count > mostHosts) [mostHosts, fullTor] = [count, t]
  if (mostHosts > ADDRESS_PLAN.hostsPerTor) {
    problems.push({
      path: at(field.hosts, fullTor),
      ...(custom ? { node: f.nodes[fullTor].name } : {}),
      message: `${custom ? `${f.nodes[fullTor].name}: ` : ''}${n(mostHosts)} hosts on one ToR do not fit the address plan: a ToR's /24 holds hosts .1 to .254, at most ${ADDRESS_PLAN.hostsPerTor} hosts per ToR (the topology budget)`,
    })
  }
  let widest = { ports: 0, name: '', id: -1 }
  for (const s of f.switches) if (f.nodes[s].ports.length > widest.ports) widest = { ports: f.nodes[s].ports.length, name: f.nodes[s].name, id: s }
  if (widest.ports > ADDRESS_PLAN.portsPerSwitch) {
    problems.push({
      path: custom ? ['topology', 'nodes', widest.id] : ['topology'],
      node: widest.name,
      message: `switch ${widest.name} would have ${n(widest.ports)} ports; a switch port's MAC address (02:53:<switch>:00:<port>) numbers at most ${ADDRESS_PLAN.portsPerSwitch} ports per switch (the topology budget)`,
    })
  }
  if (f.switches.length > ADDRESS_PLAN.switches) {
    problems.push({
      path: ['topology'],
      message: `${n(f.switches.length)} switches do not fit the address plan: switch ids are 16 bits, at most ${n(ADDRESS_PLAN.switches)} switches (the topology budget)`,
    })
  }
  return problems
}

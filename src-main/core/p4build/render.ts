// The control-plane files of a topology, for `p4lab p4 render` and `pipelines.render`: one
// simple_switch_CLI file (BMv2) or bfrt_python script (Tofino) per switch, the BMv2 queue
// mapping and the computed state, all from src-main/core/controlplane (one computation).
//
// The topology comes from an experiment file (its topology and params) or from a topology-only
// YAML: either a mapping with `topology:` (and optionally `params:`), or the topology mapping
// itself (`kind: three-tier, pods: 2, ...`). Errors are `file:line:column: field: message`.

import { isAbsolute, dirname, resolve } from 'node:path'
import { LineCounter, parseDocument } from 'yaml'
import type { SpecError } from '../../contract/schemas'
import type { Topology } from '../../sim/types'
import { buildFabric, type FabricSpec } from '../../model/topology'
import {
  computeControlPlane,
  schemeModule,
  type Bmv2QueueMapping,
  type ControlPlaneState,
  type CpScheme,
  type CpTarget,
  type SchemeParams,
} from '../controlplane'
import { DEFAULT_PARAMS } from '../controlplane/defaults'
import { isSchemeName, SCHEME_NAMES } from '../../schemes'
import { parseExperiment, type IntSpec } from '../spec'
import { programRelPath } from './programs'
import { KINDS } from '../targets/kinds'
import { toTopology } from '../spec/checks'
import { formatPath, locate } from '../spec/locate'
import { normaliseParams } from '../spec/params'
import { topologySchema } from '../spec/schema'

export class TopologyInputError extends Error {
  constructor(readonly errors: SpecError[]) {
    const first = errors[0]
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''
    super(`${first.file}:${first.line}:${first.column}: ${first.path}: ${first.message}${more}`)
    this.name = 'TopologyInputError'
  }
}

export interface TopologyInput {
  topology: Topology
  /** Scheme parameters in base units (`flowletGapNs`, ...), as the experiment gives them. */
  params: Record<string, number>
  /** 'experiment' or 'topology': what the file was. */
  kind: 'experiment' | 'topology'
  /** An experiment's telemetry.int, when on (BMv2 files then carry the INT entries). */
  int?: IntSpec
}

/** Reads an experiment file or a topology-only file. Throws TopologyInputError. */
export function readTopologyYaml(text: string, file: string, workloadsDir: string): TopologyInput {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const at = (line: number, column: number, path: string, message: string): SpecError => ({ file, line, column, path, message })
  if (doc.errors.length > 0) {
    throw new TopologyInputError(
      doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0])
        return at(pos.line, pos.col, 'document', `YAML syntax error: ${e.message}`)
      }),
    )
  }
  const raw = doc.toJS({ maxAliasCount: 1000 }) as unknown
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new TopologyInputError([at(1, 1, 'document', 'expected an experiment file or a topology mapping (kind: three-tier, ...)')])
  }
  const obj = raw as Record<string, unknown>
  const isExperiment = 'schemes' in obj || 'workload' in obj || 'name' in obj
  if (isExperiment) {
    // A file written for a bmv2 or tofino testbed is still a topology: accept the testbed it names.
    const testbeds = typeof obj.testbed === 'string' ? ['sim', obj.testbed] : ['sim']
    const parsed = parseExperiment(text, { file, baseDir: isAbsolute(file) ? dirname(file) : resolve(dirname(file)), workloadsDir, testbeds })
    if (!parsed.ok) throw new TopologyInputError(parsed.errors)
    return { topology: parsed.spec.topology, params: parsed.spec.params, kind: 'experiment', ...(parsed.spec.int ? { int: parsed.spec.int } : {}) }
  }
  const prefix = 'topology' in obj ? ['topology'] : []
  const topoRaw = 'topology' in obj ? obj.topology : obj
  const errors: SpecError[] = []
  const report = (path: Array<string | number | symbol>, message: string, keyOf = false) => {
    const loc = locate(doc, lines, path, { keyOf })
    errors.push(at(loc.line, loc.column, formatPath(loc.path), message))
  }
  if ('topology' in obj) {
    for (const k of Object.keys(obj)) if (k !== 'topology' && k !== 'params') report([k], `unknown field '${k}'; a topology file has topology and params`, true)
  }
  const t = topologySchema.safeParse(topoRaw)
  if (!t.success) for (const issue of t.error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) report([...prefix, ...issue.path, key], `unknown field '${key}'; ${issue.message}`, true)
    else report([...prefix, ...issue.path], issue.message)
  }
  let params: Record<string, number> = {}
  if ('params' in obj && obj.params !== undefined) {
    if (typeof obj.params !== 'object' || obj.params === null || Array.isArray(obj.params)) report(['params'], 'expected a mapping of scheme parameters such as { flowletGap: 100us }')
    else {
      const n = normaliseParams(obj.params as Record<string, unknown>)
      for (const p of n.problems) report(['params', p.key], p.message, true)
      params = n.values
    }
  }
  if (errors.length > 0 || !t.success) throw new TopologyInputError(errors.length > 0 ? errors : [at(1, 1, 'topology', 'invalid topology')])
  const topology = toTopology(t.data)
  try {
    buildFabric(topology as FabricSpec)
  } catch (e) {
    throw new TopologyInputError([at(1, 1, formatPath(prefix), (e as Error).message)])
  }
  return { topology, params, kind: 'topology' }
}

/** The control-plane parameters an experiment's params and topology give (defaults for the rest). */
export function schemeParams(topology: Topology, params: Record<string, number>): Partial<SchemeParams> {
  const out: Partial<SchemeParams> = { queuePackets: topology.queuePackets }
  for (const k of Object.keys(DEFAULT_PARAMS) as Array<keyof SchemeParams>) {
    if (typeof params[k] === 'number' && Number.isFinite(params[k])) out[k] = params[k]
  }
  return out
}

export function isCpScheme(s: string): s is CpScheme {
  return isSchemeName(s)
}

export interface RenderedSwitch {
  name: string
  role: string
  switchId: number
  /** `<switch>.cli` (commands only) or `<switch>.py`. */
  fileName: string
  /** The full rendering, comments included (what people read). */
  text: string
  /** What is sent to the switch: for BMv2 the command lines only (simple_switch_CLI rejects comments); for Tofino the script. */
  deployText: string
}

export interface RenderedPipeline {
  scheme: CpScheme
  target: CpTarget
  /** The program, relative to p4/: `<program>/<arch>/<program>.p4`. */
  program: string
  switches: RenderedSwitch[]
  /** BMv2 only. */
  queues: Bmv2QueueMapping | null
  state: ControlPlaneState
}

/**
 * Every switch's file for a target. `opts.int` (an experiment's telemetry.int) adds the INT
 * entries to BMv2 files, as a BMv2 run with INT on deploys them (the TNA programs have no INT).
 */
export function renderPipeline(topology: Topology, scheme: string, target: CpTarget, params: Record<string, number> = {}, opts: { int?: IntSpec } = {}): RenderedPipeline {
  if (!isCpScheme(scheme)) throw new Error(`unknown scheme '${scheme}'; expected one of ${SCHEME_NAMES.join(', ')}`)
  const state = computeControlPlane(buildFabric(topology as FabricSpec), scheme, schemeParams(topology, params))
  const mod = schemeModule(scheme)
  const program = programRelPath({ scheme: mod.iface(target).programName, target })
  const kind = KINDS[target].controlPlane
  const files = kind.render(state, opts.int)
  const switches = state.switches.map((sw, i) => ({ name: sw.name, role: sw.role, switchId: sw.switchId, fileName: `${sw.name}.${kind.ext}`, ...files[i] }))
  return { scheme, target, program, switches, queues: kind.queues(state), state }
}

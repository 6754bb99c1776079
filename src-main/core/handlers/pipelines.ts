// The contract's pipelines.* methods: the P4 programs in p4/, their per-experiment variants,
// builds through the artifact cache (p4build), and the control-plane files of a topology.

import { existsSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import type { Handlers, PipelineArtifact, PipelineProgram, PipelineRender, PipelineSource } from '../../contract'
import { CoreError, notFound } from '../errors'
import {
  BuildFailedError,
  CompilerMissingError,
  P4Builder,
  P4_ARCH,
  TopologyInputError,
  collectSources,
  createVariant,
  declarationsOf,
  listProgramFiles,
  programPath,
  programRelPath,
  readTopologyYaml,
  readVariant,
  renderPipeline,
  saveVariantFile,
  type CompilerRunner,
  type P4Target,
  type ProgramRef,
} from '../p4build'
import type { ExperimentSpec } from '../spec'
import type { Store } from '../store'
import type { ArtifactRow } from '../store/artifacts'
import type { Topology } from '../../sim/types'

export interface PipelineDeps {
  store: Store
  /** The user data directory: artifacts/ and variants/ live under it. */
  dataDir: string
  /** The shipped programs (the package's p4/). */
  p4Dir: string
  workloadsDir: string
  /** Parses an experiment's YAML as the core does (throws CoreError invalid-spec). */
  parseExperiment(yaml: string, file: string | null): ExperimentSpec
  /** Where builds run; default this machine. */
  runner?: CompilerRunner
}

type PipelineMethods = 'pipelines.list' | 'pipelines.source' | 'pipelines.render' | 'pipelines.artifacts' | 'pipelines.build' | 'pipelines.variant' | 'pipelines.saveVariant'

export function toPipelineArtifact(r: ArtifactRow): PipelineArtifact {
  return {
    id: r.id,
    key: r.hash,
    target: r.target,
    program: r.program,
    compiler: r.compiler,
    options: r.options,
    status: r.outputs.status,
    exitCode: r.outputs.exitCode,
    files: r.outputs.files,
    diagnostics: r.outputs.diagnostics,
    log: r.log,
    main: r.outputs.main,
    where: r.outputs.where,
    durationMs: r.outputs.durationMs,
    createdAt: r.createdAt,
  }
}

export function describeTopology(t: Topology): string {
  switch (t.kind) {
    case 'leaf-spine':
      return `leaf-spine: ${t.leaves} leaves × ${t.hostsPerLeaf} hosts, ${t.spines} spines`
    case 'fat-tree':
      return `fat-tree: k = ${t.k}${t.hostsPerTor !== undefined ? `, ${t.hostsPerTor} hosts per ToR` : ''}`
    case 'three-tier':
      return `three-tier: ${t.pods} pods × ${t.torsPerPod} ToRs × ${t.hostsPerTor} hosts, ${t.aggsPerPod} aggs per pod, ${t.spines} spines`
    case 'custom':
      return `custom: ${t.nodes.length} nodes, ${t.links.length} links`
  }
}

export function pipelineHandlers(deps: PipelineDeps): Pick<Handlers, PipelineMethods> {
  const builder = new P4Builder({ store: deps.store, artifactsDir: join(deps.dataDir, 'artifacts'), runner: deps.runner })

  const toPosix = (p: string) => (sep === '/' ? p : p.split(sep).join('/'))
  const shippedName = (ref: ProgramRef) => `p4/${programRelPath(ref)}`

  const shipped = (ref: ProgramRef): string => {
    const file = programPath(deps.p4Dir, ref)
    if (!existsSync(file)) throw notFound('program', shippedName(ref))
    return file
  }

  const experimentExists = (id: number) => {
    if (!deps.store.getExperiment(id)) throw notFound('experiment', id)
  }

  /** The file to read or build: the experiment's variant when it has one, else the shipped program. */
  const resolve = (ref: ProgramRef, experimentId?: number) => {
    if (experimentId !== undefined) {
      experimentExists(experimentId)
      const v = readVariant(deps.dataDir, experimentId, ref)
      if (v) return { file: v.file, program: toPosix(relative(deps.dataDir, v.file)), variant: v.info }
    }
    return { file: shipped(ref), program: shippedName(ref), variant: null }
  }

  const source = (ref: ProgramRef, experimentId?: number): PipelineSource => {
    const r = resolve(ref, experimentId)
    const s = collectSources(r.file)
    return {
      scheme: ref.scheme,
      target: ref.target,
      program: r.program,
      main: s.main,
      files: s.files.map((f) => ({ path: f.path, text: f.text })),
      variant: r.variant,
    }
  }

  const wrap = <T>(fn: () => T): T => {
    try {
      return fn()
    } catch (e) {
      if (e instanceof CoreError) throw e
      if (e instanceof TopologyInputError) throw new CoreError('invalid-spec', e.message, e.errors)
      throw new CoreError('invalid-request', (e as Error).message)
    }
  }

  return {
    'pipelines.list': async () =>
      listProgramFiles(deps.p4Dir).map((ref): PipelineProgram => {
        const base = { scheme: ref.scheme, target: ref.target, arch: P4_ARCH[ref.target], path: shippedName(ref) }
        try {
          const d = declarationsOf(collectSources(programPath(deps.p4Dir, ref)))
          return {
            ...base,
            tables: d.tables.map((t) => ({ name: t.name, keys: t.keys.map((k) => `${k.field}:${k.matchKind}`), actions: t.actions, size: t.size })),
            registers: d.registers.map((r) => ({ name: r.name, bits: r.bits, size: r.size })),
            counters: d.counters.map((c) => ({ name: c.name, size: c.size })),
            usesMulticast: d.usesMulticast,
            error: null,
          }
        } catch (e) {
          return { ...base, tables: [], registers: [], counters: [], usesMulticast: false, error: (e as Error).message }
        }
      }),

    'pipelines.source': async ({ scheme, target, experimentId }) => source({ scheme, target }, experimentId),

    'pipelines.render': async ({ scheme, target, experimentId, topology }): Promise<PipelineRender> => {
      let topo: Topology
      let params: Record<string, number> = {}
      if (experimentId !== undefined) {
        const exp = deps.store.getExperiment(experimentId)
        if (!exp) throw notFound('experiment', experimentId)
        const spec = deps.parseExperiment(exp.yaml, exp.file)
        topo = spec.topology
        params = spec.params
      } else {
        const input = wrap(() => readTopologyYaml(JSON.stringify({ topology }), 'topology', deps.workloadsDir))
        topo = input.topology
      }
      const r = wrap(() => renderPipeline(topo, scheme, target as P4Target, params))
      return {
        scheme: r.scheme,
        target: r.target,
        program: `p4/${r.program}`,
        topology: describeTopology(topo),
        switches: r.switches.map((s) => ({ name: s.name, role: s.role, switchId: s.switchId, fileName: s.fileName, text: s.text, deployText: s.deployText })),
        queues: r.queues,
      }
    },

    'pipelines.artifacts': async ({ program, limit }) => deps.store.listArtifacts({ program, limit }).map(toPipelineArtifact),

    'pipelines.build': async ({ scheme, target, experimentId }) => {
      const r = resolve({ scheme, target }, experimentId)
      try {
        const b = await builder.build({ file: r.file, target, program: r.program })
        return { hit: b.hit, artifact: toPipelineArtifact(b.artifact) }
      } catch (e) {
        if (e instanceof BuildFailedError) return { hit: false, artifact: toPipelineArtifact(e.artifact) }
        if (e instanceof CompilerMissingError) throw new CoreError('not-found', e.message)
        throw e
      }
    },

    'pipelines.variant': async ({ experimentId, scheme, target }) => {
      experimentExists(experimentId)
      shipped({ scheme, target })
      wrap(() => createVariant(deps.p4Dir, deps.dataDir, experimentId, { scheme, target }))
      return source({ scheme, target }, experimentId)
    },

    'pipelines.saveVariant': async ({ experimentId, scheme, target, path, text }) => {
      experimentExists(experimentId)
      wrap(() => saveVariantFile(deps.dataDir, experimentId, { scheme, target }, path, text))
      return source({ scheme, target }, experimentId)
    },
  }
}

/** Reads a stored artifact's output file (for callers that want the bytes). */
export function readArtifactFile(dataDir: string, a: PipelineArtifact, name: string): string | null {
  const rel = a.files[name]
  if (!rel) return null
  const file = join(dataDir, 'artifacts', a.key, ...rel.split('/'))
  return existsSync(file) ? readFileSync(file, 'utf8') : null
}

// What goes between p4lab and the nodes of a Slurm sweep, as files on the cluster's shared
// file system: the sweep's job file (every cell's full simulator configuration, CDF points
// included, so a node needs nothing but Node and the runner), and one result bundle per task,
// a folder with a manifest.json in our archives' format (every file's sha256 and size).
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SimConfig, SimCounters, SimEvent, SimFlows } from '../../sim/types'
import { ARCHIVE_FORMAT, ARCHIVE_FORMAT_VERSION, MANIFEST, type Manifest } from '../archive/manifest'

export const JOB_FILE = 'job.json'
export const JOB_FORMAT = 'p4lab-slurm-job'
/** Files of a result bundle, besides manifest.json; the first three are required. */
export const BUNDLE = { cell: 'cell.json', flows: 'flows.json', result: 'result.json', series: 'series.json', telemetry: 'telemetry.ndjson' } as const
export const REQUIRED_BUNDLE_FILES = [BUNDLE.cell, BUNDLE.flows, BUNDLE.result]

export interface JobCell {
  runId: number
  scheme: string
  load: number
  seed: number
  config: SimConfig
}

export interface JobFile {
  format: typeof JOB_FORMAT
  version: 1
  p4labVersion: string
  schemaVersion: number
  experiment: { name: string }
  /** Array task i runs cells[i]. */
  cells: JobCell[]
}

export interface BundleCell {
  runId: number
  scheme: string
  load: number
  seed: number
  jobId: string
  taskId: number
  node: string
  nodeVersion: string
  wallMs: number
  /** The task's CPU time (user and system) while it simulated; absent from runners before it was recorded. */
  cpuMs?: number
}

export type BundleFlows = { [K in keyof SimFlows]: number[] }

export interface BundleResult {
  counters: SimCounters
  events: SimEvent[]
  eventsDropped: number
}

export function flowsToJson(f: SimFlows): BundleFlows {
  return {
    src: Array.from(f.src),
    dst: Array.from(f.dst),
    sizeBytes: Array.from(f.sizeBytes),
    startNs: Array.from(f.startNs),
    finishNs: Array.from(f.finishNs),
    deliveredBytes: Array.from(f.deliveredBytes),
    group: Array.from(f.group),
  }
}

/** JSON numbers carry doubles exactly, so the typed arrays come back bit for bit. */
export function flowsFromJson(f: BundleFlows): SimFlows {
  const n = f.src.length
  for (const [k, v] of Object.entries(f)) {
    if (!Array.isArray(v) || v.length !== n) throw new Error(`${BUNDLE.flows}: column ${k} has ${Array.isArray(v) ? v.length : 'no'} values, src has ${n}`)
  }
  return {
    src: Int32Array.from(f.src),
    dst: Int32Array.from(f.dst),
    sizeBytes: Float64Array.from(f.sizeBytes),
    startNs: Float64Array.from(f.startNs),
    finishNs: Float64Array.from(f.finishNs),
    deliveredBytes: Float64Array.from(f.deliveredBytes),
    group: Int32Array.from(f.group),
  }
}

export interface TelemetryLine {
  t: number[]
  values: number[]
}

/** Writes manifest.json over the files already in `dir`, in the archives' format. */
export function writeBundleManifest(dir: string, files: string[], o: { p4labVersion: string; schemaVersion: number; experiment: string; cell: BundleCell }): Manifest {
  const manifest: Manifest = {
    format: ARCHIVE_FORMAT,
    formatVersion: ARCHIVE_FORMAT_VERSION,
    p4labVersion: o.p4labVersion,
    schemaVersion: o.schemaVersion,
    createdAt: new Date().toISOString(),
    experiment: { name: o.experiment, runs: 1, schemes: [o.cell.scheme], loads: [o.cell.load], seeds: [o.cell.seed], targets: ['sim'] },
    tools: { node: o.cell.nodeVersion, host: o.cell.node },
    targets: { sim: { engine: 'p4lab-sim v0' } },
    files: files.map((path) => {
      const bytes = readFileSync(join(dir, path))
      return { path, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length }
    }),
    notes: [`one cell of a Slurm sweep: job ${o.cell.jobId}, array task ${o.cell.taskId}, run ${o.cell.runId}`],
  }
  writeFileSync(join(dir, MANIFEST), JSON.stringify(manifest, null, 2) + '\n')
  return manifest
}

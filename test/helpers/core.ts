import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createNodeCore, type Core, type NodeCoreOptions } from '../../src-main/core'
import { workloadsDir } from '../../src-main/core/paths'
import { parseExperiment, type ExperimentSpec } from '../../src-main/core/spec'

export const TINY_YAML = `name: tiny
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp, rps]
workload: { kind: web-search, load: [0.3, 0.5], flows: 30 }
seeds: [1]
`

/** A core on a fresh SQLite file in a temporary directory. */
export function tempCore(parallelRuns = 2, more: Partial<NodeCoreOptions> = {}): { core: Core; dir: string; dbPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-core-'))
  const dbPath = join(dir, 'p4lab.db')
  return { core: createNodeCore({ dbPath, baseDir: dir, parallelRuns, ...more }), dir, dbPath }
}

/** An experiment text parsed as the core does (workloads from the project), or the errors thrown. */
export function specOf(yaml: string, o: { baseDir: string; testbeds: string[] }): ExperimentSpec {
  const parsed = parseExperiment(yaml, { file: 'x.yaml', baseDir: o.baseDir, workloadsDir: workloadsDir(), testbeds: o.testbeds })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  return parsed.spec
}

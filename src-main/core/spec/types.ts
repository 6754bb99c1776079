import type { SpecError } from '../../contract/schemas'
import type { LeafSpineTopology, SchemeName, TransportConfig } from '../../sim/types'

export interface ParseOptions {
  /** How errors name the experiment file (as the user typed it, or a display name). */
  file: string
  /** Where a relative workload `file:` is resolved from: the experiment file's folder. */
  baseDir: string
  /** Where the built-in workload CDFs live (resources/workloads). */
  workloadsDir: string
  /** Known testbed names; default ['sim']. */
  testbeds?: string[]
}

export type ParseResult = { ok: true; spec: ExperimentSpec } | { ok: false; errors: SpecError[] }

/** The schemes the embedded simulator implements today. */
export const SCHEMES: readonly SchemeName[] = ['ecmp', 'rps']

export type WorkloadKind = 'web-search' | 'data-mining' | 'cdf'
export const WORKLOAD_KINDS: readonly WorkloadKind[] = ['web-search', 'data-mining', 'cdf']

/** An experiment file after validation: units normalised to bit/s, bytes and ns. */
export interface ExperimentSpec {
  name: string
  description: string
  tags: string[]
  testbed: string
  topology: LeafSpineTopology
  transport: TransportConfig
  schemes: SchemeName[]
  workload: {
    kind: WorkloadKind
    /** Absolute path of the CDF that was read. */
    file: string
    cdf: Array<[number, number]>
    loads: number[]
    flows: number
  }
  seeds: number[]
  telemetryIntervalNs: number
  stopAfterNs: number
}

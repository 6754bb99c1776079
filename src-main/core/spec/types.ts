import type { SpecError } from '../../contract/schemas'
import { SCHEME_NAMES, type SchemeName } from '../../schemes'
import type { BufferConfig, Topology, TransportConfig } from '../../sim/types'

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

/** The schemes an experiment file may name: the scheme registry's (src-main/schemes/registry.ts). */
export const SCHEMES: readonly SchemeName[] = SCHEME_NAMES

export type TopologyKind = Topology['kind']
export const TOPOLOGY_KINDS: readonly TopologyKind[] = ['leaf-spine', 'fat-tree', 'three-tier', 'custom']

/** Poisson flow arrivals with sizes from a CDF (also the background of an incast mix). */
export type CdfKind = 'web-search' | 'data-mining' | 'cdf'
export const CDF_KINDS: readonly CdfKind[] = ['web-search', 'data-mining', 'cdf']

export type WorkloadKind = CdfKind | 'incast' | 'long-lived' | 'permutation'
export const WORKLOAD_KINDS: readonly WorkloadKind[] = [...CDF_KINDS, 'incast', 'long-lived', 'permutation']

/** Floodgate's incast mix (TrafficGenerator): fan-in 1, 5 or 10 with weights 10, 60, 30. */
export const DEFAULT_FAN_IN: ReadonlyArray<readonly [number, number]> = [
  [1, 10],
  [5, 60],
  [10, 30],
]

/** Poisson flows, sizes from a CDF, at each of `loads` (relative to the host link). */
export interface PoissonWorkloadSpec {
  kind: CdfKind
  /** Absolute path of the CDF that was read. */
  file: string
  cdf: Array<[number, number]>
  loads: number[]
  flows: number
  /** Given only when not the default, other-racks (so existing specs hash as before). */
  destinations?: 'other-pods' | 'any'
  /** Share of the flows, in arrival order, left out of the FCT statistics as warm-up; omitted: 0. */
  warmup?: number
  /**
   * Persistent client-server connections (the HULA paper's model); omitted: one connection per flow.
   * `choice` is given only when not the default, random (so existing specs hash as before).
   */
  connections?: { perServer: number; servers?: number; choice?: 'permutation' }
}

/** Incast events on top of Poisson background traffic; `loads` are the background's. */
export interface IncastWorkloadSpec {
  kind: 'incast'
  background: CdfKind
  /** Absolute path of the background's CDF. */
  file: string
  cdf: Array<[number, number]>
  loads: number[]
  /** Background flows. */
  flows: number
  incast: {
    events: number
    ratePerSec: number
    flowBytes: number
    /** A fixed fan-in, or [fanIn, weight] choices; default DEFAULT_FAN_IN. */
    fanIn: number | Array<[number, number]>
  }
}

/**
 * Long-lived flows between given host pairs, or `flows` random pairs on different racks.
 * Saturating: there is no offered load, so `loads` is always [1] (one run per scheme and
 * seed, recorded with load 1).
 */
export interface LongLivedWorkloadSpec {
  kind: 'long-lived'
  loads: [1]
  pairs?: Array<[number, number]>
  flows?: number
  /** Omitted: unbounded, the flows run until stopAfter. */
  sizeBytes?: number
  startNs?: number
}

/** Every host sends one flow to a distinct host. Saturating, like long-lived: `loads` is [1]. */
export interface PermutationWorkloadSpec {
  kind: 'permutation'
  loads: [1]
  sizeBytes?: number
  startNs?: number
}

export type WorkloadSpec = PoissonWorkloadSpec | IncastWorkloadSpec | LongLivedWorkloadSpec | PermutationWorkloadSpec

/**
 * Which egress ports of every switch send an INT postcard per IPv4 data packet: every fabric
 * and host port (`all`), the switch-to-switch ports only (`fabric`), or the host ports only (`hosts`).
 */
export type IntWatch = 'all' | 'fabric' | 'hosts'
export const INT_WATCH: readonly IntWatch[] = ['all', 'fabric', 'hosts']

/** telemetry.int when it is on: INT-XD postcard reports from the v1model programs to a collector. */
export interface IntSpec {
  /** UDP destination port of the reports (the collector's port). */
  port: number
  watch: IntWatch
}

/** A link that goes down during the run, and comes back at recoverNs when that is given. */
export interface FailureSpec {
  /** Canonical link name of the fabric (upper node first: "spine1-agg3"). */
  link: string
  atNs: number
  recoverNs?: number
}

/** An experiment file after validation: units normalised to bit/s, bytes and ns. */
export interface ExperimentSpec {
  name: string
  description: string
  tags: string[]
  testbed: string
  /** The sim's topology; `remove` and `rates` (from `slow:`) use canonical link names. */
  topology: Topology
  transport: TransportConfig
  /** Switch buffers (SimConfig.buffer); absent: per-port queues. */
  buffer?: BufferConfig
  schemes: SchemeName[]
  workload: WorkloadSpec
  /**
   * Scheme parameters in base units, as SimConfig.schemeParams: durations as
   * `<name>Ns`, rates as `<name>Bps`, sizes as `<name>Bytes`, plain numbers as written.
   */
  params: Record<string, number>
  /** Link failures during the run, ordered by time. */
  failures: FailureSpec[]
  /** What routing does when a link goes down or comes back (SimConfig.failover). */
  failover: 'global' | 'local'
  seeds: number[]
  telemetryIntervalNs: number
  /**
   * INT postcard reports (telemetry.int), present only when on (so specs without it hash as
   * before). BMv2 testbeds build with -DP4LAB_INT and collect them; the sim ignores it; Tofino refuses it.
   */
  int?: IntSpec
  stopAfterNs: number
  /** Where the cells run, when the file says (runner:); absent: on this machine. Not part of the config key. */
  runner?: RunnerSpec
}

export type RunnerSpec =
  | { kind: 'local' }
  | { kind: 'slurm'; cluster: string; partition?: string; account?: string; time?: string; cpusPerTask?: number; maxParallel?: number }

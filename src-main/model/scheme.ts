// What a load-balancing scheme declares about itself, in data every layer can read: its name,
// what it is, the paper it comes from, its parameters (unit, default, doc and check in one
// declaration), the telemetry series it emits, the switch tables the UI shows, its P4 programs
// and its probes. The simulator stage and the control-plane module, which are code, join this
// in the scheme's folder (src-main/schemes/<name>/index.ts).

// The data shapes the UI receives too (ParamUnit, PaperRef, SwitchTableSpec) are declared once,
// in the contract, which 'schemes.list' sends them through.
import type { ParamUnit, PaperRef, SwitchTableSpec } from '../contract/schemes'
import type { SeriesKindDef } from './series'

export type { ParamUnit, PaperRef, SwitchTableSpec }

/** The suffix a parameter's name takes once normalised to its base unit (flowletGap → flowletGapNs). */
export const UNIT_SUFFIX: Readonly<Partial<Record<ParamUnit, string>>> = { duration: 'Ns', size: 'Bytes', rate: 'Bps' }

export interface ParamDecl {
  unit: ParamUnit
  /** In base units (ns, bytes, bit/s; 1/0 for a flag). Absent: the stage derives it (doc says how). */
  default?: number
  doc: string
}

/** The name a parameter is passed under: `key` plus its unit's suffix, unless it already ends in it. */
export function paramName(key: string, unit: ParamUnit): string {
  const suffix = UNIT_SUFFIX[unit]
  return suffix === undefined || key.endsWith(suffix) ? key : key + suffix
}

/** A rule between parameters; `values` are normalised (flowletGapNs, ...), `sourceOf` maps them back to the keys written. */
export type ParamRule = (values: Readonly<Record<string, number>>, sourceOf: Readonly<Record<string, string>>) => Array<{ key: string; message: string }>

export interface SchemeInfo {
  /** The name experiment files use. */
  readonly name: string
  /** How the UI and docs write it (CONGA′). */
  readonly label: string
  readonly summary: string
  readonly paper?: PaperRef
  readonly params: Readonly<Record<string, ParamDecl>>
  readonly rules?: readonly ParamRule[]
  /** Series kinds only this scheme emits (the shared vocabulary is in series.ts). */
  readonly series?: Readonly<Record<string, SeriesKindDef>>
  readonly tables?: readonly SwitchTableSpec[]
  /** The program name of its P4 programs (p4/<program>/{v1model,tna}/<program>.p4), when it has any. */
  readonly p4Program?: string
  /** The probe or credit frame it sends, in words (ethertype, fields), when it has one. */
  readonly probes?: string
  /**
   * Whether it runs on a fabric with two or more links between the same two switches
   * (`spine0-leaf0/2`); the experiment file is refused otherwise, naming the link.
   */
  readonly parallelLinks: boolean
  /**
   * The fabric kinds its simulator stage is defined on (all when absent). On a testbed, the
   * P4 program's own list (`controlPlane.fabrics`) applies instead.
   */
  readonly simFabrics?: ReadonlyArray<'leaf-spine' | 'fat-tree' | 'three-tier' | 'custom'>
}

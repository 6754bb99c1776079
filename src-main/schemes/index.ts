// The scheme registry and what derives from it. A scheme is a folder here with one line in
// registry.ts; this file turns that list into the lookups the rest of p4lab uses.

import type { SchemeModule } from '../model/controlplane/module'
import type { ParamDecl, ParamUnit, SchemeInfo } from '../model/scheme'
import { paramName } from '../model/scheme'
import { SERIES_KINDS as COMMON_SERIES, type SeriesKindDef } from '../model/series'
import { simulate } from '../sim/run'
import type { SimConfig, SimHooks, SimResult } from '../sim/types'
import type { StageFactory } from '../sim/routing/stage'
import * as registry from './registry'
import type { SchemeDescriptor } from './types'
import { SHARED_RULES } from './shared/rules'

type Registered = (typeof registry)[keyof typeof registry]

/** Every scheme, in the order the UI and help list them: ECMP and RPS first, then by name. */
export const SCHEMES: readonly Registered[] = (Object.values(registry) as Registered[]).sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name))

function rank(d: SchemeDescriptor): number {
  return d.name === 'ecmp' ? 0 : d.name === 'rps' ? 1 : 2
}

export type SchemeName = Registered['name']
export const SCHEME_NAMES: readonly SchemeName[] = SCHEMES.map((d) => d.name)

export function isSchemeName(name: string): name is SchemeName {
  return (SCHEME_NAMES as readonly string[]).includes(name)
}

/** The descriptor of a scheme; throws naming the known ones for any other name. */
export function schemeOf(name: string): SchemeDescriptor {
  const d = SCHEMES.find((s) => s.name === name)
  if (!d) throw new Error(`unknown scheme '${name}': expected one of ${SCHEME_NAMES.join(', ')}`)
  return d
}

/** What the renderer and the contract see of a scheme (no code). */
export function schemeInfo(d: SchemeDescriptor): SchemeInfo {
  const { stage: _stage, controlPlane: _cp, rules: _rules, ...info } = d
  return info
}

export function stageFor(name: string): StageFactory {
  return schemeOf(name).stage
}

export function controlPlaneOf(name: string): SchemeModule {
  return schemeOf(name).controlPlane
}

/** Runs the simulator with the stage of `cfg.scheme`. */
export function runSim(cfg: SimConfig, hooks: SimHooks = {}): SimResult {
  return simulate(cfg, stageFor(cfg.scheme), hooks)
}

// ---- parameters -------------------------------------------------------------------------

export interface KnownParam {
  unit: ParamUnit
  /** The schemes that read it, for messages and the CLI's help. */
  schemes: string[]
  doc: string
}

/** Every declared parameter, by the key written in `params:`. A key two schemes declare must have one unit. */
export const KNOWN_PARAMS: Readonly<Record<string, KnownParam>> = (() => {
  const out: Record<string, KnownParam> = {}
  for (const d of SCHEMES) {
    for (const [key, decl] of Object.entries(d.params as Record<string, ParamDecl>)) {
      const known = out[key]
      if (known && known.unit !== decl.unit) throw new Error(`parameter ${key}: ${known.schemes[0]} declares it a ${known.unit}, ${d.name} a ${decl.unit}`)
      if (known) known.schemes.push(d.name)
      else out[key] = { unit: decl.unit, schemes: [d.name], doc: decl.doc }
    }
  }
  return out
})()

/**
 * Each parameter's default by the name it is passed under (flowletGapNs), over every scheme.
 * Two schemes that declare a parameter declare the same default, or this throws: the control
 * plane computes one state for all of them.
 */
export const PARAM_DEFAULTS: Readonly<Record<string, number>> = (() => {
  const out: Record<string, number> = {}
  const from: Record<string, string> = {}
  for (const d of SCHEMES) {
    for (const [key, decl] of Object.entries(d.params as Record<string, ParamDecl>)) {
      if (decl.default === undefined) continue
      const name = paramName(key, decl.unit)
      if (name in out && out[name] !== decl.default) throw new Error(`parameter ${key}: ${from[name]} defaults it to ${out[name]}, ${d.name} to ${decl.default}`)
      out[name] = decl.default
      from[name] = d.name
    }
  }
  return out
})()

/** The rules between parameters: the shared ones (parameters several schemes read) always, and those of the schemes an experiment runs. */
export function paramRuleProblems(values: Readonly<Record<string, number>>, sourceOf: Readonly<Record<string, string>>, schemes: readonly string[]): Array<{ key: string; message: string }> {
  const seen = new Set<unknown>(SHARED_RULES)
  const out: Array<{ key: string; message: string }> = SHARED_RULES.flatMap((rule) => rule(values, sourceOf))
  for (const d of SCHEMES) {
    if (!schemes.includes(d.name)) continue
    for (const rule of (d as SchemeDescriptor).rules ?? []) {
      if (seen.has(rule)) continue
      seen.add(rule)
      out.push(...rule(values, sourceOf))
    }
  }
  return out
}

// ---- series ------------------------------------------------------------------------------

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never
type SchemeSeries = UnionToIntersection<NonNullable<Registered extends infer R ? (R extends { series: infer S } ? S : never) : never>>

/** The whole series vocabulary: the shared kinds and every scheme's own. */
export const SERIES_KINDS = Object.assign({}, COMMON_SERIES, ...SCHEMES.map((d) => (d as SchemeDescriptor).series ?? {})) as typeof COMMON_SERIES & SchemeSeries
export type SeriesKind = keyof typeof SERIES_KINDS

export function isSeriesKind(kind: string): kind is SeriesKind {
  return Object.prototype.hasOwnProperty.call(SERIES_KINDS, kind)
}

/** Builds a series definition, checked at compile time against the vocabulary. */
export function series<K extends SeriesKind>(
  kind: K,
  entity: { [P in (typeof SERIES_KINDS)[K]['entity'][number]]: string | number },
  unit: (typeof SERIES_KINDS)[K]['units'][number],
): { kind: string; entity: Record<string, string | number>; unit: string } {
  return { kind, entity: entity as Record<string, string | number>, unit }
}

/** Why a series definition does not follow the vocabulary, or null when it does. */
export function seriesProblem(d: { kind: string; entity: Record<string, string | number>; unit: string }): string | null {
  if (!isSeriesKind(d.kind)) return `unknown series kind '${d.kind}'`
  const def: SeriesKindDef = SERIES_KINDS[d.kind]
  const keys = Object.keys(d.entity)
  const wanted = def.entity
  const fabricWide = def.fabricWide === true && keys.length === 0
  if (!fabricWide && (keys.length !== wanted.length || wanted.some((k) => !keys.includes(k)))) {
    return `${d.kind}: entity keys {${keys.join(',')}} (expected {${wanted.join(',')}}${def.fabricWide ? ' or {}' : ''})`
  }
  if (!(def.units as readonly string[]).includes(d.unit)) return `${d.kind}: unit '${d.unit}' (expected ${def.units.join(' or ')})`
  return null
}

export type { SchemeDescriptor } from './types'

// The schemes and their parameters as `p4lab run --help` and `p4lab p4 --help` list them: from
// the registry, so a new scheme folder shows up here with no change to the CLI.
import { schemeListing } from '../core/handlers/schemes'
import { SCHEMES } from '../schemes'

const pad = (s: string, n: number) => (s.length >= n ? `${s} ` : s.padEnd(n))

/** One line per scheme: its name, label, what it is and its paper. */
export function schemesHelp(): string[] {
  const list = SCHEMES.map((d) => schemeListing(d))
  const w = Math.max(...list.map((s) => s.name.length)) + 2
  return [
    'schemes (an experiment file\'s `schemes:`):',
    ...list.map((s) => `  ${pad(s.name, w)}${s.label}: ${s.summary}${s.paper ? ` (${s.paper.title}${s.paper.venue ? `, ${s.paper.venue}` : ''})` : ''}`),
  ]
}

/** One line per parameter key: unit, default, the schemes that read it, and what it does. */
export function paramsHelp(): string[] {
  const seen = new Map<string, { unit: string; def: string; schemes: string[]; doc: string }>()
  for (const d of SCHEMES) {
    for (const p of schemeListing(d).params) {
      if (!seen.has(p.key)) seen.set(p.key, { unit: p.unit, def: p.defaultText ?? 'derived', schemes: p.schemes, doc: p.doc })
    }
  }
  const rows = [...seen.entries()].sort(([a], [b]) => a.localeCompare(b))
  const wk = Math.max(...rows.map(([k]) => k.length)) + 2
  const wu = Math.max(...rows.map(([, r]) => r.unit.length)) + 2
  const wd = Math.max(...rows.map(([, r]) => r.def.length)) + 2
  return [
    'params (an experiment file\'s `params:`; a duration as 100us, a size as 10KB, a rate as 10Gbps):',
    ...rows.map(([k, r]) => `  ${pad(k, wk)}${pad(r.unit, wu)}${pad(r.def, wd)}${r.schemes.join(', ')}: ${r.doc}`),
  ]
}

/** The schemes that have P4 programs, for `p4 render --scheme`. */
export function p4SchemeNames(): string[] {
  return SCHEMES.filter((d) => d.p4Program !== undefined).map((d) => d.name)
}

/** The schemes `p4 render --scheme` takes, with the program each renders for (p4/{v1model,tna}/<program>.p4) and its probe frame. */
export function p4SchemesHelp(): string[] {
  const list = SCHEMES.map((d) => schemeListing(d)).filter((s) => s.p4Program !== null)
  const w = Math.max(...list.map((s) => s.name.length)) + 2
  const wp = Math.max(...list.map((s) => `${s.p4Program}.p4`.length)) + 2
  return [
    'schemes (--scheme), with their program in p4/v1model and p4/tna:',
    ...list.map((s) => `  ${pad(s.name, w)}${pad(`${s.p4Program}.p4`, wp)}${s.label}${s.probes ? `: ${s.probes}` : ''}`),
  ]
}

// The contract's schemes.list: the registry's schemes as plain data, so the UI builds its
// switch tables, labels and parameter help from it and names no scheme itself.
import type { Handlers, Scheme } from '../../contract'
import type { ParamDecl, ParamUnit } from '../../model/scheme'
import { paramName } from '../../model/scheme'
import { formatDuration, formatRate, formatSize } from '../../model/units'
import type { SeriesKindDef } from '../../model/series'
import { KNOWN_PARAMS, SCHEMES, schemeInfo, type SchemeDescriptor } from '../../schemes'

/** A parameter's value as an experiment file writes it: 100000 ns → 100us. */
export function paramText(unit: ParamUnit, v: number): string {
  if (unit === 'duration') return formatDuration(v)
  if (unit === 'size') return formatSize(v)
  if (unit === 'rate') return formatRate(v)
  if (unit === 'flag') return v ? 'true' : 'false'
  return String(v)
}

/** One scheme as the contract sends it (no code: the stage, control plane and rules stay here). */
export function schemeListing(d: SchemeDescriptor): Scheme {
  const info = schemeInfo(d)
  return {
    name: info.name,
    label: info.label,
    summary: info.summary,
    paper: info.paper ? { title: info.paper.title, ...(info.paper.venue ? { venue: info.paper.venue } : {}) } : null,
    params: Object.entries(info.params as Record<string, ParamDecl>).map(([key, p]) => ({
      key,
      name: paramName(key, p.unit),
      unit: p.unit,
      default: p.default ?? null,
      defaultText: p.default === undefined ? null : paramText(p.unit, p.default),
      doc: p.doc,
      schemes: [...KNOWN_PARAMS[key].schemes],
    })),
    series: Object.entries((info.series ?? {}) as Record<string, SeriesKindDef>).map(([kind, s]) => ({
      kind,
      entity: [...s.entity],
      units: [...s.units],
      what: s.what,
      categorical: s.categorical === true,
      fabricWide: s.fabricWide === true,
    })),
    tables: (info.tables ?? []).map((t) => structuredClone(t)),
    p4Program: info.p4Program ?? null,
    probes: info.probes ?? null,
  }
}

export function schemeHandlers(): Pick<Handlers, 'schemes.list'> {
  const listing = SCHEMES.map((d) => schemeListing(d))
  return { 'schemes.list': async () => listing }
}

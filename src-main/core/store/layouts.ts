import { fromJson, toJson, type StoreContext } from './rows'

export interface LayoutRow {
  positions: Record<string, { x: number; y: number }>
  updatedAt: string | null
}

export function getLayout(s: StoreContext, experimentId: number): LayoutRow {
  const r = s.stmt('SELECT positions, updated_at FROM topology_layouts WHERE experiment_id = ?').get(experimentId) as
    | { positions: string; updated_at: string }
    | undefined
  return r ? { positions: fromJson<LayoutRow['positions']>(r.positions) ?? {}, updatedAt: r.updated_at } : { positions: {}, updatedAt: null }
}

/** Replaces the positions; an empty mapping forgets them. */
export function saveLayout(s: StoreContext, experimentId: number, positions: LayoutRow['positions']): LayoutRow {
  return s.write(() => {
    if (Object.keys(positions).length === 0) {
      s.stmt('DELETE FROM topology_layouts WHERE experiment_id = ?').run(experimentId)
      return { positions: {}, updatedAt: null }
    }
    const at = s.isoNow()
    s.stmt(
      `INSERT INTO topology_layouts (experiment_id, positions, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (experiment_id) DO UPDATE SET positions = excluded.positions, updated_at = excluded.updated_at`,
    ).run(experimentId, toJson(positions), at)
    return { positions, updatedAt: at }
  })
}

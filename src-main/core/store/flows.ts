import type { RunStatus } from '../../contract'
import type { FlowRow, StoreContext } from './rows'
import { isTerminal } from './runs'

export interface FlowColumns {
  src: ArrayLike<number>
  dst: ArrayLike<number>
  sizeBytes: ArrayLike<number>
  startNs: ArrayLike<number>
  /** Negative for a flow that had not finished when the run stopped. */
  finishNs: ArrayLike<number>
}

/**
 * Appends a batch of flows. Without ids, ids continue from the run's last flow, so a driver
 * can deliver flows in several batches and id stays the flow's index within the run. With
 * ids (flows sent as they finish, out of order), each flow gets its own.
 */
export function insertFlows(s: StoreContext, runId: number, f: FlowColumns, ids?: ArrayLike<number>): void {
  const n = f.src.length
  for (const [name, col] of [...Object.entries(f), ...(ids ? [['ids', ids] as const] : [])]) {
    if (col.length !== n) throw new Error(`insertFlows: column ${name} has ${col.length} values, src has ${n}`)
  }
  const insert = s.stmt(
    `INSERT INTO flows (run_id, id, src, dst, size_bytes, start_ns, finish_ns, fct_ns)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  s.write(() => {
    const run = s.stmt('SELECT status FROM runs WHERE id = ?').get(runId) as { status: RunStatus } | undefined
    if (!run) throw new Error(`run ${runId} does not exist`)
    if (isTerminal(run.status)) throw new Error(`run ${runId} has ended (${run.status}): its flows stay as they were stored`)
    const next = ids
      ? 0
      : (s.stmt('SELECT COALESCE(MAX(id) + 1, 0) AS next FROM flows WHERE run_id = ?').get(runId) as { next: number }).next
    for (let i = 0; i < n; i++) {
      const finish = f.finishNs[i]
      const done = finish >= 0
      insert.run(
        runId,
        ids ? ids[i] : next + i,
        f.src[i],
        f.dst[i],
        f.sizeBytes[i],
        f.startNs[i],
        done ? finish : null,
        done ? finish - f.startNs[i] : null,
      )
    }
  })
}

export function listFlows(s: StoreContext, runId: number): FlowRow[] {
  return s
    .stmt(
      `SELECT id, src, dst, size_bytes AS sizeBytes, start_ns AS startNs, finish_ns AS finishNs, fct_ns AS fctNs
       FROM flows WHERE run_id = ? ORDER BY id`,
    )
    .all(runId) as FlowRow[]
}

import { TERMINAL_STATUSES, type FctStats, type RunCompletion, type RunStatus } from '../../contract/schemas'
import { fromJson, shownWhere, toJson, type RunRow, type Shown, type StoreContext } from './rows'
import type { RunRecordJson } from './revisions'
import type { TestbedSeen } from './testbeds'
import { addEvent } from './telemetry'

interface RunRecord {
  id: number
  experiment_id: number
  experiment_name: string
  target: string
  scheme: string
  load: number
  seed: number
  params: string
  status: RunStatus
  owner: string
  created_at: string
  started_at: string | null
  finished_at: string | null
  error: string | null
  stats: string | null
  counters: string | null
  facts: string | null
  completion: string | null
  revision: number | null
  record: string | null
  stale: number
  tags: string
  notes: string
  archived_at: string | null
  deleted_at: string | null
}

// Stale: a run without a revision, on another target than the current revision's, or of a
// revision that runs cells differently (its config key differs; a rename keeps the key).
const SELECT_RUN = `SELECT r.*, e.name AS experiment_name,
    CASE WHEN r.revision IS NULL OR cur.rev IS NULL THEN 1
         WHEN r.target <> cur.testbed THEN 1
         WHEN rv.config_key IS NULL OR rv.config_key <> cur.config_key THEN 1
         ELSE 0 END AS stale
  FROM runs r JOIN experiments e ON e.id = r.experiment_id
  LEFT JOIN experiment_revisions cur ON cur.experiment_id = e.id AND cur.rev = e.revision
  LEFT JOIN experiment_revisions rv ON rv.experiment_id = r.experiment_id AND rv.rev = r.revision`

function toRow(s: StoreContext, r: RunRecord): RunRow {
  const row = storedRow(r)
  // A store that cannot write reads a run whose owner is gone as the next writable open marks it.
  const cut = isTerminal(r.status) ? undefined : s.unrecorded.get(r.id)
  return cut ? { ...row, status: 'interrupted', error: cut.error, finishedAt: cut.finishedAt } : row
}

function storedRow(r: RunRecord): RunRow {
  return {
    id: r.id,
    experimentId: r.experiment_id,
    experimentName: r.experiment_name,
    target: r.target,
    scheme: r.scheme,
    load: r.load,
    seed: r.seed,
    params: fromJson<Record<string, unknown>>(r.params) ?? {},
    status: r.status,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    error: r.error,
    stats: fromJson<FctStats>(r.stats),
    counters: fromJson<Record<string, number>>(r.counters),
    facts: fromJson<Record<string, unknown>>(r.facts),
    completion: fromJson<RunCompletion>(r.completion),
    owner: r.owner,
    revision: r.revision,
    stale: r.stale === 1,
    tags: fromJson<string[]>(r.tags) ?? [],
    notes: r.notes,
    archivedAt: r.archived_at,
    deletedAt: r.deleted_at,
  }
}

/** What the run ran with (runs.record); null for a run that has none. */
export function getRunRecord(s: StoreContext, id: number): RunRecordJson | null {
  const r = s.stmt('SELECT record FROM runs WHERE id = ?').get(id) as { record: string | null } | undefined
  if (!r) throw new Error(`run ${id} does not exist`)
  return fromJson<RunRecordJson>(r.record)
}

/**
 * The testbed as the run saw it when it started (runs.testbed), as stored: null for a sim run or
 * one started before it was kept. Unchecked (an imported archive may bring anything): read it
 * through readSeenTestbed.
 */
export function getRunTestbed(s: StoreContext, id: number): unknown {
  const r = s.stmt('SELECT testbed FROM runs WHERE id = ?').get(id) as { testbed: string | null } | undefined
  if (!r) throw new Error(`run ${id} does not exist`)
  return fromJson<unknown>(r.testbed)
}

/**
 * Records the testbed a run starts on. Once: what a run saw is its record, and a run that has
 * ended says where it ran as it did then.
 */
export function setRunTestbed(s: StoreContext, id: number, seen: TestbedSeen): void {
  s.write(() => {
    const r = s.stmt('SELECT status, testbed FROM runs WHERE id = ?').get(id) as { status: RunStatus; testbed: string | null } | undefined
    if (!r) throw new Error(`run ${id} does not exist`)
    if (isTerminal(r.status)) throw new Error(`run ${id} has ended (${r.status}): the testbed it ran on stays as it was recorded`)
    if (r.testbed !== null) throw new Error(`run ${id} already recorded the testbed it started on`)
    s.stmt('UPDATE runs SET testbed = ? WHERE id = ?').run(toJson(seen), id)
  })
}

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status)
}

export function getRun(s: StoreContext, id: number): RunRow | undefined {
  const r = s.stmt(`${SELECT_RUN} WHERE r.id = ?`).get(id) as RunRecord | undefined
  return r && toRow(s, r)
}

/**
 * Ordered by id. `shown` picks the active runs (default: what views, compare, the run matrix and
 * exports see), the archived, the trash, or all.
 */
export function listRuns(s: StoreContext, filter: { experimentId?: number; shown?: Shown } = {}): RunRow[] {
  const where = shownWhere('r', filter.shown ?? 'active')
  const rows =
    filter.experimentId === undefined
      ? s.stmt(`${SELECT_RUN} WHERE ${where} ORDER BY r.id`).all()
      : s.stmt(`${SELECT_RUN} WHERE r.experiment_id = ? AND ${where} ORDER BY r.id`).all(filter.experimentId)
  return (rows as RunRecord[]).map((r) => toRow(s, r))
}

/**
 * Queues runs of the experiment's current revision, each with its record: the revision's text,
 * and `ran.spec` (the spec as resolved for these runs, files read) or else the revision's.
 */
export function createRuns(
  s: StoreContext,
  experimentId: number,
  target: string,
  owner: string,
  runs: Array<{ scheme: string; load: number; seed: number; params: Record<string, unknown> }>,
  ran: { spec?: unknown } = {},
): RunRow[] {
  return s.write(() => {
    const exp = s.stmt('SELECT yaml, spec, revision FROM experiments WHERE id = ?').get(experimentId) as { yaml: string; spec: string; revision: number } | undefined
    if (!exp) throw new Error(`cannot create runs: experiment ${experimentId} does not exist`)
    const spec = ran.spec ?? fromJson<unknown>(exp.spec)
    const specParams = ((spec as { params?: Record<string, unknown> } | null)?.params ?? {})
    const insert = s.stmt(
      `INSERT INTO runs (experiment_id, target, scheme, load, seed, params, status, owner, created_at, revision, record)
       VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)`,
    )
    const at = s.isoNow()
    const ids: number[] = []
    for (const r of runs) {
      const record: RunRecordJson = { revision: exp.revision, yaml: exp.yaml, spec, params: { ...specParams, ...r.params }, reconstructed: false }
      const id = Number(insert.run(experimentId, target, r.scheme, r.load, r.seed, toJson(r.params), owner, at, exp.revision, toJson(record)).lastInsertRowid)
      addEvent(s, id, null, 'status', { from: null, to: 'queued', error: null }, at)
      ids.push(id)
    }
    return ids.map((id) => getRun(s, id)!)
  })
}

/**
 * Moves a run to a new status and records the move as a 'status' event. A terminal run
 * never moves again: a late message from a dying worker must not resurrect it. Setting
 * startedAt is the first move to an active status: a run cancelled while queued never started.
 * the status a run already has is a no-op (no event); moving back to 'queued' is refused.
 */
export function setRunStatus(
  s: StoreContext,
  id: number,
  status: RunStatus,
  opts: { error?: string | null; finishedAt?: string; detail?: Record<string, unknown> } = {},
): RunRow {
  return s.write(() => {
    const run = getRun(s, id)
    if (!run) throw new Error(`run ${id} does not exist`)
    if (isTerminal(run.status)) {
      throw new Error(`run ${id} is already ${run.status}; it cannot move to ${status}`)
    }
    if (status === run.status) return run
    if (status === 'queued') throw new Error(`run ${id} is ${run.status}; it cannot move back to queued`)
    const at = s.isoNow()
    const error = opts.error ?? null
    const active = !isTerminal(status)
    // A move to an active status is a sign of life of the owner, as its heartbeat is.
    s.stmt(
      `UPDATE runs SET status = ?,
         started_at = CASE WHEN ? THEN COALESCE(started_at, ?) ELSE started_at END,
         finished_at = ?,
         heartbeat_at = CASE WHEN ? THEN ? ELSE heartbeat_at END,
         error = COALESCE(?, error)
       WHERE id = ?`,
    ).run(status, active ? 1 : 0, at, active ? null : (opts.finishedAt ?? at), active ? 1 : 0, at, error, id)
    addEvent(s, id, null, 'status', { from: run.status, to: status, error, ...opts.detail }, at)
    return getRun(s, id)!
  })
}

/** Stores a run's results. Facts are merged into those already recorded (e.g. at deploy). */
export function setRunResults(
  s: StoreContext,
  id: number,
  r: { stats: FctStats; counters: Record<string, number>; facts?: Record<string, unknown>; completion?: RunCompletion },
): void {
  s.write(() => {
    const run = getRun(s, id)
    if (!run) throw new Error(`run ${id} does not exist`)
    // What a run that ended holds is its record: views, compare and archives read it as final.
    if (isTerminal(run.status)) throw new Error(`run ${id} has ended (${run.status}): its results stay as they were stored`)
    const facts = r.facts === undefined ? run.facts : { ...(run.facts ?? {}), ...r.facts }
    const completion = r.completion ?? run.completion
    s.stmt('UPDATE runs SET stats = ?, counters = ?, facts = ?, completion = ? WHERE id = ?').run(
      toJson(r.stats),
      toJson(r.counters),
      facts === null ? null : toJson(facts),
      completion === null ? null : toJson(completion),
      id,
    )
  })
}

/**
 * Marks the owner's runs that are still in flight as alive now (their heartbeat_at), so that
 * if the owner dies, the runs are stamped with when it was last seen. Returns how many.
 */
export function heartbeat(s: StoreContext, owner: string): number {
  return s
    .stmt(`UPDATE runs SET heartbeat_at = ? WHERE owner = ? AND status NOT IN (${TERMINAL_STATUSES.map(() => '?').join(', ')})`)
    .run(s.isoNow(), owner, ...TERMINAL_STATUSES).changes
}

/**
 * After a crash or restart: every run still in flight whose owning process is gone can
 * never finish, so it becomes 'interrupted'. isOwnerAlive is asked once per owner. The run
 * ends when its owner was last seen alive: its last heartbeat, else its last event.
 */
export function markInterruptedRuns(s: StoreContext, isOwnerAlive: (owner: string) => boolean): number[] {
  // Read and write under one write lock, so a run another process finishes meanwhile
  // is not touched.
  return s.write(() => {
    const dead = deadOwnerRuns(s, isOwnerAlive)
    for (const r of dead) {
      setRunStatus(s, r.id, 'interrupted', {
        error: ownerGone(r),
        ...(r.seen ? { finishedAt: r.seen, detail: { lastSeenAt: r.seen } } : {}),
      })
    }
    return dead.map((r) => r.id)
  })
}

/**
 * For a store opened read-only, which cannot mark them: the runs markInterruptedRuns would mark
 * read as interrupted from now on, with why and that it is not recorded; nothing is written.
 * A status never says a run goes on when its process is gone. Returns their ids.
 */
export function readInterrupted(s: StoreContext, isOwnerAlive: (owner: string) => boolean): number[] {
  const dead = deadOwnerRuns(s, isOwnerAlive)
  for (const r of dead) s.unrecorded.set(r.id, { error: `${ownerGone(r)} (not recorded: the database is read-only here)`, finishedAt: r.seen })
  return dead.map((r) => r.id)
}

/** The runs in flight whose owner is gone, with when it was last seen: its last heartbeat, else its last event. isOwnerAlive is asked once per owner. */
function deadOwnerRuns(s: StoreContext, isOwnerAlive: (owner: string) => boolean): Array<{ id: number; owner: string; seen: string | null }> {
  const open = s
    .stmt(
      `SELECT r.id, r.owner, COALESCE(r.heartbeat_at, (SELECT MAX(e.at) FROM events e WHERE e.run_id = r.id)) AS seen
       FROM runs r WHERE r.status NOT IN (${TERMINAL_STATUSES.map(() => '?').join(', ')}) ORDER BY r.id`,
    )
    .all(...TERMINAL_STATUSES) as Array<{ id: number; owner: string; seen: string | null }>
  const alive = new Map<string, boolean>()
  return open.filter((r) => {
    if (!alive.has(r.owner)) alive.set(r.owner, isOwnerAlive(r.owner))
    return !alive.get(r.owner)
  })
}

const ownerGone = (r: { owner: string; seen: string | null }) => `the process that owned this run (${r.owner}) is gone${r.seen ? `; it was last seen alive at ${r.seen}` : ''}`

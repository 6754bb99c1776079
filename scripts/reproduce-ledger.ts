// What `npm run reproduce` remembers between invocations, in two tables of its own inside the
// run database: which runs it made (for which resolved spec and which simulator), how much CPU
// and wall time each took, and each invocation's wall time. A run is reused only when it is
// `done` and its spec hash and simulator fingerprint both match (reproduce-runner.ts).
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import Database from 'better-sqlite3'
import { configKey, specTestbed } from '../src-main/core/store/revisions'

/**
 * The simulator's fingerprint: a SHA-256 over the bundled worker every local run executes
 * (out/main/sim-worker.js, self-contained: vite.worker.config.mts) and over the sources of
 * everything else that decides what a run computes: the simulator, the schemes and the model
 * themselves (so a bundle left unbuilt after an edit still changes it), the spec parser (its
 * defaults), the sim target's configuration and routes (targets/sim/config.ts) with the workload
 * it maps (targets/shared/workload.ts), the control plane the routes come from, the Slurm cell
 * that runs a cell on a cluster, and the statistics stored from a run's flows. A change in any of
 * them could change a result, so any change reruns every run; a change elsewhere (the UI, SSH
 * targets, how the worker thread is started and stopped) does not.
 */
export const FINGERPRINT_PATHS = [
  'out/main/sim-worker.js',
  'src-main/sim',
  'src-main/schemes',
  'src-main/model',
  'src-main/core/spec',
  'src-main/core/targets/sim/config.ts',
  'src-main/core/targets/shared/workload.ts',
  'src-main/core/controlplane',
  'src-main/core/slurm/cell.ts',
  'src-main/core/stats.ts',
  'src-main/core/slowdown.ts',
  'src-main/core/completion.ts',
]

export function simulatorFingerprint(root: string, paths: readonly string[] = FINGERPRINT_PATHS): string {
  const h = createHash('sha256')
  for (const p of paths) {
    const full = join(root, p)
    if (!existsSync(full)) {
      h.update(`missing ${p}\n`)
      continue
    }
    const files = statSync(full).isDirectory()
      ? readdirSync(full, { withFileTypes: true, recursive: true })
          .filter((e) => e.isFile())
          .map((e) => join(e.parentPath ?? e.path, e.name))
          .sort()
      : [full]
    for (const f of files) {
      h.update(`${relative(root, f)}\n`)
      h.update(readFileSync(f))
    }
  }
  return h.digest('hex').slice(0, 16)
}

/** The hash of a resolved run spec: the text as run (after --quick or the sweep's edits) and the spec parsed from it (files read in). */
export function specHash(text: string, resolved: unknown): string {
  return createHash('sha256').update(text).update('\0').update(JSON.stringify(resolved)).digest('hex').slice(0, 16)
}

/**
 * What a run computes, without how its text is written: the resolved spec's configKey (the store's
 * test of a stale run: defaults filled, files read in; no comments, layout, description or tags),
 * its name (the page's sections are assembled by experiment) and its testbed. A template whose
 * comment is edited keeps its runs; any changed value, or a changed workload file, does not.
 */
export function computeKey(resolved: unknown): string {
  const name = (resolved as { name?: unknown } | null)?.name
  return createHash('sha256').update(configKey(resolved)).update('\0').update(String(name)).update('\0').update(specTestbed(resolved)).digest('hex').slice(0, 16)
}

export interface LedgerRun {
  runId: number
  specHash: string
  /** computeKey of the spec it ran; null for a row from before the key whose record could not vouch for one. */
  computeKey: string | null
  fingerprint: string
  scheme: string
  load: number
  seed: number
  /** The run's expected cost (bytes it carries), for the order and the estimates. */
  cost: number
  invocationId: number
  cpuMs: number | null
  wallMs: number | null
}

export interface Invocation {
  id: number
  startedAt: string
  wallMs: number
  /** The whole process's CPU time: the runs' threads and the main thread that stores their results. */
  cpuMs: number
}

export class Ledger {
  private readonly db: Database.Database

  /** Opens the ledger inside the run database at `dbPath` (a second connection beside the store's). */
  constructor(dbPath: string) {
    this.db = new Database(dbPath)
    this.db.pragma('busy_timeout = 10000')
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS reproduce_invocation (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, wall_ms INTEGER NOT NULL DEFAULT 0, cpu_ms INTEGER NOT NULL DEFAULT 0, args TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS reproduce_run (
        run_id INTEGER PRIMARY KEY, spec_hash TEXT NOT NULL, fingerprint TEXT NOT NULL, scheme TEXT NOT NULL, load REAL NOT NULL,
        seed INTEGER NOT NULL, cost REAL NOT NULL, invocation_id INTEGER NOT NULL, cpu_ms INTEGER, wall_ms INTEGER);
      CREATE INDEX IF NOT EXISTS reproduce_run_cell ON reproduce_run (spec_hash, fingerprint, scheme, load, seed);
    `)
    // A ledger from before invocations recorded their process CPU time.
    const cols = (this.db.prepare('PRAGMA table_info(reproduce_invocation)').all() as Array<{ name: string }>).map((c) => c.name)
    if (!cols.includes('cpu_ms')) this.db.exec('ALTER TABLE reproduce_invocation ADD COLUMN cpu_ms INTEGER NOT NULL DEFAULT 0')
    // A ledger from before runs were matched on what they compute (computeKey), not their text.
    const runCols = (this.db.prepare('PRAGMA table_info(reproduce_run)').all() as Array<{ name: string }>).map((c) => c.name)
    if (!runCols.includes('compute_key')) this.db.exec('ALTER TABLE reproduce_run ADD COLUMN compute_key TEXT')
    this.db.exec('CREATE INDEX IF NOT EXISTS reproduce_run_compute ON reproduce_run (compute_key, fingerprint, scheme, load, seed)')
  }

  /**
   * Gives rows made before computeKey their key, from what `recorded` returns for the run: the
   * text and resolved spec its record kept. Only a record that hashes to the row's own specHash
   * vouches for its spec; a row without one keeps matching on its text alone.
   */
  backfillComputeKeys(recorded: (runId: number) => { yaml: string; spec: unknown } | undefined): number {
    const rows = this.db.prepare('SELECT run_id AS runId, spec_hash AS specHash FROM reproduce_run WHERE compute_key IS NULL').all() as Array<{ runId: number; specHash: string }>
    const set = this.db.prepare('UPDATE reproduce_run SET compute_key = ? WHERE run_id = ?')
    let n = 0
    this.db.transaction(() => {
      for (const r of rows) {
        const rec = recorded(r.runId)
        if (!rec || specHash(rec.yaml, rec.spec) !== r.specHash) continue
        set.run(computeKey(rec.spec), r.runId)
        n++
      }
    })()
    return n
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  startInvocation(args: string): Invocation {
    const startedAt = new Date().toISOString()
    const id = Number(this.db.prepare('INSERT INTO reproduce_invocation (started_at, args) VALUES (?, ?)').run(startedAt, args).lastInsertRowid)
    return { id, startedAt, wallMs: 0, cpuMs: 0 }
  }

  /** Stored as it goes, so an invocation that is killed still counts the time it ran. */
  setInvocationTimes(id: number, wallMs: number, cpuMs: number): void {
    this.db.prepare('UPDATE reproduce_invocation SET wall_ms = ?, cpu_ms = ? WHERE id = ?').run(Math.round(wallMs), Math.round(cpuMs), id)
  }

  invocations(ids: readonly number[]): Invocation[] {
    if (ids.length === 0) return []
    const rows = this.db
      .prepare(`SELECT id, started_at AS startedAt, wall_ms AS wallMs, cpu_ms AS cpuMs FROM reproduce_invocation WHERE id IN (${ids.map(() => '?').join(',')}) ORDER BY id`)
      .all(...ids) as Invocation[]
    return rows
  }

  /** The runs made for this cell of this spec (the same text, or the same computeKey) on this simulator, newest first. */
  candidates(cell: { specHash: string; computeKey: string; fingerprint: string; scheme: string; load: number; seed: number }): LedgerRun[] {
    return this.db
      .prepare(
        `SELECT run_id AS runId, spec_hash AS specHash, compute_key AS computeKey, fingerprint, scheme, load, seed, cost, invocation_id AS invocationId, cpu_ms AS cpuMs, wall_ms AS wallMs
         FROM reproduce_run WHERE (spec_hash = ? OR compute_key = ?) AND fingerprint = ? AND scheme = ? AND load = ? AND seed = ? ORDER BY run_id DESC`,
      )
      .all(cell.specHash, cell.computeKey, cell.fingerprint, cell.scheme, cell.load, cell.seed) as LedgerRun[]
  }

  get(runId: number): LedgerRun | undefined {
    return this.db
      .prepare(
        `SELECT run_id AS runId, spec_hash AS specHash, compute_key AS computeKey, fingerprint, scheme, load, seed, cost, invocation_id AS invocationId, cpu_ms AS cpuMs, wall_ms AS wallMs
         FROM reproduce_run WHERE run_id = ?`,
      )
      .get(runId) as LedgerRun | undefined
  }

  record(r: Omit<LedgerRun, 'cpuMs' | 'wallMs'>): void {
    this.db
      .prepare('INSERT OR REPLACE INTO reproduce_run (run_id, spec_hash, compute_key, fingerprint, scheme, load, seed, cost, invocation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(r.runId, r.specHash, r.computeKey, r.fingerprint, r.scheme, r.load, r.seed, r.cost, r.invocationId)
  }

  setTimes(runId: number, cpuMs: number | null, wallMs: number | null): void {
    this.db.prepare('UPDATE reproduce_run SET cpu_ms = ?, wall_ms = ? WHERE run_id = ?').run(cpuMs === null ? null : Math.round(cpuMs), wallMs === null ? null : Math.round(wallMs), runId)
  }

  /** Seconds of CPU per unit of cost over every timed run in the database (any simulator), for estimates; undefined when none is timed. */
  cpuPerCost(): number | undefined {
    const r = this.db.prepare('SELECT SUM(cpu_ms) AS cpu, SUM(cost) AS cost FROM reproduce_run WHERE cpu_ms IS NOT NULL AND cost > 0').get() as { cpu: number | null; cost: number | null }
    return r.cpu && r.cost ? r.cpu / 1000 / r.cost : undefined
  }
}

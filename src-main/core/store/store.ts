import { closeSync, existsSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import { makeDirs } from '../paths'
import type { FctStats, RunCompletion, RunStatus } from '../../contract/schemas'
import * as artifacts from './artifacts'
import * as clusters from './clusters'
import * as experiments from './experiments'
import * as flows from './flows'
import * as layouts from './layouts'
import * as manage from './manage'
import { migrate } from './migrations'
import { newDatabase, notWritable, openReadOnly, ReadOnlyStoreError } from './readonly'
import { StoreContext, type Shown, type EventRow, type ExperimentRow, type ExperimentSummaryRow, type FlowRow, type RunRow, type SeriesRow } from './rows'
import * as rollups from './rollups'
import * as revisions from './revisions'
import * as runs from './runs'
import * as samples from './samples'
import * as slurm from './slurm'
import * as telemetry from './telemetry'
import * as testbeds from './testbeds'

export { notWritable, ReadOnlyStoreError }

export interface OpenStoreOptions {
  /** Path to better_sqlite3.node when it is not where the package expects it (packaged app). */
  nativeBinding?: string
  /** Wall clock for the *At columns; tests pass a fixed one. */
  now?: () => Date
  /**
   * The caller only reads: a database this process cannot write (read-only media, a file or
   * folder without write permission) is opened read-only instead of refused. Its schema must
   * then be current, since migrating writes.
   */
  forReading?: boolean
}

/**
 * Opens (creating if needed) the SQLite database at file and brings its schema up to
 * date. Throws if the file was written by a newer p4lab, and ReadOnlyStoreError if it
 * exists but cannot be written (unless opts.forReading, see there).
 */
export function openStore(file: string, opts: OpenStoreOptions = {}): Store {
  const readOnly = file !== ':memory:' && existsSync(file) ? notWritable(file) : null
  if (readOnly !== null) {
    if (opts.forReading) {
      const { db, name } = openReadOnly(file, readOnly, opts.nativeBinding)
      return new Store(file, new StoreContext(db, opts.now ?? (() => new Date())), true, name)
    }
    throw new ReadOnlyStoreError(`${file}: it is read-only here (${readOnly}), and this writes to it: make it writable, or copy it where it can be written and use the copy`)
  }
  if (file !== ':memory:') createPrivate(file)
  const db = newDatabase(file, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {})
  try {
    // WAL lets the UI read while a run writes telemetry; NORMAL is durable enough under
    // WAL (a power cut may lose the last commits, never corrupt the file).
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 10000')
    migrate(db, file)
  } catch (e) {
    db.close()
    throw e
  }
  return new Store(file, new StoreContext(db, opts.now ?? (() => new Date())), false)
}

/**
 * Creates the database file readable by its owner only (0600), and its folder (0700), before
 * SQLite opens it: the database holds hosts, users and weeks of results. SQLite gives the
 * -wal and -shm files the mode of the database file. An existing file keeps its mode.
 */
function createPrivate(file: string): void {
  makeDirs(dirname(file), 0o700)
  try {
    closeSync(openSync(file, 'wx', 0o600))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
}

/** The persistent record of experiments, runs and what they measured. */
export class Store {
  constructor(
    readonly file: string,
    private readonly s: StoreContext,
    /** Opened read-only (OpenStoreOptions.forReading on a database this process cannot write): every write throws. */
    readonly readOnly: boolean,
    /** The name a second connection (ATTACH) opens the database by: the file, or the URI openReadOnly needed. */
    readonly connectName: string = file,
  ) {}

  close(): void {
    this.s.db.close()
  }

  /** False once closed. */
  get open(): boolean {
    return this.s.db.open
  }

  /** Runs fn in one transaction (nested calls become savepoints); a throw rolls it all back. */
  transaction<T>(fn: () => T): T {
    return this.s.write(fn)
  }

  /** Refuses a name another experiment has (experiments.NameTakenError). */
  createExperiment(input: { name: string; yaml: string; spec: unknown; file: string | null; tags: string[] }, note?: string): ExperimentRow {
    return experiments.createExperiment(this.s, input, note)
  }

  /** A new revision when the text changed; refuses a text that renames the experiment. */
  updateExperiment(id: number, input: { name: string; yaml: string; spec: unknown; tags: string[] }, note?: string): ExperimentRow {
    return experiments.updateExperiment(this.s, id, input, note)
  }

  /** Renames, as a new revision whose text says the new name; refuses a name another experiment has. */
  renameExperiment(id: number, name: string): ExperimentRow {
    return experiments.renameExperiment(this.s, id, name)
  }

  findExperimentByName(name: string): ExperimentRow | undefined {
    return experiments.findExperimentByName(this.s, name)
  }

  /** Experiments once named `name` and renamed since, by their names now. */
  experimentsRenamedFrom(name: string): Array<{ id: number; name: string }> {
    return revisions.renamedFrom(this.s, name)
  }

  /** `name` if free, else the first free `name (N)`. */
  freeExperimentName(name: string): string {
    return experiments.freeName(this.s, name)
  }

  /** Oldest first. */
  listRevisions(experimentId: number): revisions.RevisionRow[] {
    return revisions.listRevisions(this.s, experimentId)
  }

  getRevision(experimentId: number, rev: number): revisions.RevisionRow | undefined {
    return revisions.getRevision(this.s, experimentId, rev)
  }

  /** The testbed a run saw when it started, unchecked; null for a sim run or one started before it was kept. */
  getRunTestbed(runId: number): unknown {
    return runs.getRunTestbed(this.s, runId)
  }

  setRunTestbed(runId: number, seen: testbeds.TestbedSeen): void {
    runs.setRunTestbed(this.s, runId, seen)
  }

  /** What a run ran with; null when it has no record. */
  getRunRecord(runId: number): revisions.RunRecordJson | null {
    return runs.getRunRecord(this.s, runId)
  }

  /** Where the topology editor's nodes sit for an experiment (empty when never saved). */
  getLayout(experimentId: number): layouts.LayoutRow {
    return layouts.getLayout(this.s, experimentId)
  }

  saveLayout(experimentId: number, positions: layouts.LayoutRow['positions']): layouts.LayoutRow {
    return layouts.saveLayout(this.s, experimentId, positions)
  }

  getExperiment(id: number): ExperimentRow | undefined {
    return experiments.getExperiment(this.s, id)
  }

  /** The newest experiment with this name and exactly this YAML text. */
  findExperiment(name: string, yaml: string): ExperimentRow | undefined {
    return experiments.findExperiment(this.s, name, yaml)
  }

  /** Newest first; the active ones unless `shown` says otherwise. */
  listExperiments(shown?: Shown): ExperimentSummaryRow[] {
    return experiments.listExperiments(this.s, shown)
  }

  createRuns(
    experimentId: number,
    target: string,
    owner: string,
    list: Array<{ scheme: string; load: number; seed: number; params: Record<string, unknown> }>,
    ran?: { spec?: unknown },
  ): RunRow[] {
    return runs.createRuns(this.s, experimentId, target, owner, list, ran)
  }

  getRun(id: number): RunRow | undefined {
    return runs.getRun(this.s, id)
  }

  /** Ordered by id; the active runs unless `filter.shown` says otherwise. */
  listRuns(filter?: { experimentId?: number; shown?: Shown }): RunRow[] {
    return runs.listRuns(this.s, filter)
  }

  /** The store's own tags of an experiment (its YAML's stay as the text says). */
  setExperimentTags(id: number, tags: readonly string[]): void {
    manage.setExperimentTags(this.s, id, tags)
  }

  setRunTags(id: number, tags: readonly string[]): void {
    manage.setRunTags(this.s, id, tags)
  }

  setNotes(kind: manage.ManagedKind, id: number, notes: string): void {
    manage.setNotes(this.s, kind, id, notes)
  }

  /** Archives or deletes (to the trash); refuses runs in flight (manage.ManageError). Returns the ids changed. */
  setAside(kind: manage.ManagedKind, ids: readonly number[], how: manage.SetAside): number[] {
    return manage.setAside(this.s, kind, ids, how)
  }

  /** Throws the ManageError setAside would, writing nothing. */
  checkSetAside(kind: manage.ManagedKind, ids: readonly number[], how: manage.SetAside): void {
    manage.checkSetAside(this.s, kind, ids, how)
  }

  /** Back from the archive or the trash; returns the ids changed. */
  restore(kind: manage.ManagedKind, ids: readonly number[]): number[] {
    return manage.restore(this.s, kind, ids)
  }

  trash(): ReturnType<typeof manage.trash> {
    return manage.trash(this.s)
  }

  /** Removes what is in the trash for good. */
  purgeDeleted(): { runs: number; experiments: number } {
    return manage.purgeDeleted(this.s)
  }

  recordArchiveHash(experimentId: number, hash: string, how: 'exported' | 'imported'): void {
    manage.recordArchiveHash(this.s, experimentId, hash, how)
  }

  /** The experiment (not in the trash) holding an archive of this content hash. */
  findArchiveHash(hash: string): ReturnType<typeof manage.findArchiveHash> {
    return manage.findArchiveHash(this.s, hash)
  }

  setRunStatus(id: number, status: RunStatus, opts?: { error?: string | null; finishedAt?: string; detail?: Record<string, unknown> }): RunRow {
    return runs.setRunStatus(this.s, id, status, opts)
  }

  setRunResults(id: number, r: { stats: FctStats; counters: Record<string, number>; facts?: Record<string, unknown>; completion?: RunCompletion }): void {
    runs.setRunResults(this.s, id, r)
  }

  /** Stamps the owner's runs in flight as alive now; returns how many. */
  heartbeat(owner: string): number {
    return runs.heartbeat(this.s, owner)
  }

  markInterruptedRuns(isOwnerAlive: (owner: string) => boolean): number[] {
    return runs.markInterruptedRuns(this.s, isOwnerAlive)
  }

  /** Read-only stores: the runs markInterruptedRuns would mark read as interrupted from now on, unwritten; returns their ids. */
  readInterrupted(isOwnerAlive: (owner: string) => boolean): number[] {
    return runs.readInterrupted(this.s, isOwnerAlive)
  }

  /** ids: each flow's index in the run (flows stored as they finish); else they follow the run's last. */
  insertFlows(runId: number, f: flows.FlowColumns, ids?: ArrayLike<number>): void {
    flows.insertFlows(this.s, runId, f, ids)
  }

  listFlows(runId: number): FlowRow[] {
    return flows.listFlows(this.s, runId)
  }

  defineSeries(runId: number, defs: Array<{ kind: string; entity: Record<string, string | number>; unit: string }>): number[] {
    return telemetry.defineSeries(this.s, runId, defs)
  }

  insertSamples(seriesIds: number[], t: ArrayLike<number>, values: ArrayLike<number>): void {
    telemetry.insertSamples(this.s, seriesIds, t, values)
  }

  listSeries(runId: number): SeriesRow[] {
    return telemetry.listSeries(this.s, runId)
  }

  /** Raw samples, or with opts.pixels a roll-up level chosen by the time range and width (telemetry.ts). */
  readSamples(runId: number, kinds?: string[], opts?: telemetry.ReadSamplesOptions): telemetry.SamplesRead {
    return telemetry.readSamples(this.s, runId, kinds, opts)
  }

  /** Samples as parallel columns (series id, t, value), grouped by series; one transaction unless inside one. */
  insertSampleRows(seriesId: ArrayLike<number>, tNs: ArrayLike<number>, value: ArrayLike<number>): void {
    samples.insertSampleRows(this.s, seriesId, tNs, value)
  }

  /** One series' raw samples with t in [fromNs, toNs], in time order, an instant written twice read as the last write. */
  readSeries(seriesId: number, fromNs?: number, toNs?: number): samples.SeriesSamples {
    return samples.readSeries(this.s, seriesId, fromNs, toNs)
  }

  /** Rewrites series' sample chunks as disjoint, full chunks (see samples.ts); returns the ids rewritten. */
  compactSamples(seriesIds: readonly number[], opts?: { force?: boolean }): number[] {
    return samples.compactSamples(this.s, seriesIds, opts)
  }

  /** Replaces roll-up buckets with the state given. */
  writeRollups(rows: rollups.RollupRows): void {
    rollups.writeRollups(this.s, rows)
  }

  /** Recomputes these series' roll-ups from their raw samples. */
  rebuildRollups(seriesIds: readonly number[], widths?: readonly number[]): void {
    rollups.rebuildRollups(this.s, seriesIds, widths)
  }

  readRollups(seriesId: number, widthNs: number, fromNs?: number, toNs?: number): rollups.RollupRead {
    return rollups.readRollups(this.s, seriesId, widthNs, fromNs, toNs)
  }

  /** Stores an event of the run; returns it as stored (with its id and wall clock). */
  addEvent(runId: number, tNs: number | null, kind: string, detail: unknown): EventRow {
    return telemetry.addEvent(this.s, runId, tNs, kind, detail)
  }

  listEvents(runId: number): EventRow[] {
    return telemetry.listEvents(this.s, runId)
  }

  addLog(runId: number, source: string, line: string): void {
    telemetry.addLog(this.s, runId, source, line)
  }

  /** The run's log lines, oldest first; `limit` keeps the newest. */
  listLogs(runId: number, opts?: telemetry.ListLogsOptions): telemetry.LogRow[] {
    return telemetry.listLogs(this.s, runId, opts)
  }

  /** Every testbed with its hosts, by name; the built-in 'sim' included. */
  listTestbeds(): testbeds.TestbedRow[] {
    return testbeds.listTestbeds(this.s)
  }

  testbedNames(): string[] {
    return testbeds.testbedNames(this.s)
  }

  getTestbed(name: string): testbeds.TestbedRow | undefined {
    return testbeds.getTestbed(this.s, name)
  }

  createTestbed(input: testbeds.TestbedRowInput): testbeds.TestbedRow {
    return testbeds.createTestbed(this.s, input)
  }

  updateTestbed(id: number, input: testbeds.TestbedRowInput): { row: testbeds.TestbedRow; removedHostIds: number[] } {
    return testbeds.updateTestbed(this.s, id, input)
  }

  deleteTestbed(id: number): number[] {
    return testbeds.deleteTestbed(this.s, id)
  }

  setTestbedMapping(testbedId: number, mapping: unknown): void {
    testbeds.setTestbedMapping(this.s, testbedId, mapping)
  }

  setHostKey(hostId: number, hostKey: string | null): void {
    testbeds.setHostKey(this.s, hostId, hostKey)
  }

  getArtifact(hash: string): artifacts.ArtifactRow | undefined {
    return artifacts.getArtifact(this.s, hash)
  }

  putArtifact(input: Omit<artifacts.ArtifactRow, 'id' | 'createdAt'>): artifacts.ArtifactRow {
    return artifacts.putArtifact(this.s, input)
  }

  /** Newest first. */
  listArtifacts(filter?: { program?: string; limit?: number }): artifacts.ArtifactRow[] {
    return artifacts.listArtifacts(this.s, filter)
  }

  addSlurmJob(input: Parameters<typeof slurm.addSlurmJob>[1]): slurm.SlurmJobRow {
    return slurm.addSlurmJob(this.s, input)
  }

  addSlurmSubmission(input: Parameters<typeof slurm.addSlurmSubmission>[1]): number {
    return slurm.addSlurmSubmission(this.s, input)
  }

  listSlurmSubmissions(): slurm.SlurmSubmissionRow[] {
    return slurm.listSlurmSubmissions(this.s)
  }

  removeSlurmSubmission(id: number): boolean {
    return slurm.removeSlurmSubmission(this.s, id)
  }

  adoptSlurmSubmission(sub: slurm.SlurmSubmissionRow, jobId: string, owner: string): ReturnType<typeof slurm.adoptSlurmSubmission> {
    return slurm.adoptSlurmSubmission(this.s, sub, jobId, owner)
  }

  getSlurmJob(id: number): slurm.SlurmJobRow | undefined {
    return slurm.getSlurmJob(this.s, id)
  }

  listSlurmJobs(filter?: { experimentId?: number; open?: boolean }): slurm.SlurmJobRow[] {
    return slurm.listSlurmJobs(this.s, filter)
  }

  listSlurmTasks(slurmJob: number): slurm.SlurmTaskRow[] {
    return slurm.listSlurmTasks(this.s, slurmJob)
  }

  slurmTaskOfRun(runId: number): (slurm.SlurmTaskRow & { jobId: string }) | undefined {
    return slurm.slurmTaskOfRun(this.s, runId)
  }

  setSlurmTaskState(runId: number, state: string, reason: string | null, settled?: boolean): void {
    slurm.setSlurmTaskState(this.s, runId, state, reason, settled)
  }

  endSlurmJob(id: number): void {
    slurm.endSlurmJob(this.s, id)
  }

  listClusters(): clusters.ClusterRow[] {
    return clusters.listClusters(this.s)
  }

  getCluster(name: string): clusters.ClusterRow | undefined {
    return clusters.getCluster(this.s, name)
  }

  saveCluster(input: clusters.ClusterRowInput, replacing?: string): clusters.ClusterRow {
    return clusters.saveCluster(this.s, input, replacing)
  }

  deleteCluster(name: string): number | null {
    return clusters.deleteCluster(this.s, name)
  }
}

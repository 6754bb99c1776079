// Brings one finished task's result bundle into the store: fetched as a tar stream from the
// cluster, extracted with the archives' safe extractor, checked file by file against its
// manifest (the archives' check), then stored as the local sim path stores a run: telemetry
// through the ingest, then flows, events, statistics, completion and status in one transaction.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ArchiveRefusedError, extractSafely, verifyExtracted } from '../archive'
import { assessCompletion, incompleteReason } from '../completion'
import { fctStats, warmupShare } from '../stats'
import { withSlowdown } from '../slowdown'
import type { ExperimentSpec } from '../spec'
import type { RunRow, SlurmJobRow, Store } from '../store'
import { Ingest } from '../telemetry/ingest'
import { BUNDLE, REQUIRED_BUNDLE_FILES, flowsFromJson, type BundleCell, type BundleFlows, type BundleResult, type TelemetryLine } from './bundle'
import type { SimSeriesDef } from '../../sim/types'
import type { ClusterShell } from './shell'

/** A bundle that is not what its task should have written: the run is marked failed with this. */
export class BundleRefusedError extends Error {}

async function fetchBundle(shell: ClusterShell, sweepDir: string, index: number, tmp: string): Promise<{ dir: string; files: string[] }> {
  const r = await shell.run(['tar', '-C', `${sweepDir}/results`, '-czf', '-', String(index)])
  if (r.code !== 0) throw new BundleRefusedError(`cannot read the result bundle results/${index}: ${r.stderr.trim()}`)
  const file = join(tmp, 'bundle.tar.gz')
  writeFileSync(file, r.stdout)
  const out = join(tmp, 'x')
  mkdirSync(out)
  const extracted = await extractSafely(file, out, { maxEntries: 64, maxBytes: 2 * 1024 ** 3 }).catch((err: unknown) => {
    throw new BundleRefusedError(`result bundle refused: ${err instanceof Error ? err.message : String(err)}`)
  })
  const prefix = `${index}/`
  return { dir: join(out, String(index)), files: extracted.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length)) }
}

/**
 * Merges the bundle of the task carrying `run`. Throws BundleRefusedError when the bundle is
 * missing, fails its manifest or belongs to another run; nothing of it is stored then.
 */
export async function mergeTask(o: { store: Store; shell: ClusterShell; job: SlurmJobRow; run: RunRow; index: number; spec: ExperimentSpec }): Promise<RunRow> {
  const { store, run } = o
  const tmp = mkdtempSync(join(tmpdir(), 'p4lab-slurm-bundle-'))
  try {
    const { dir, files } = await fetchBundle(o.shell, o.job.sweepDir, o.index, tmp)
    try {
      verifyExtracted(dir, files, REQUIRED_BUNDLE_FILES)
    } catch (err) {
      if (err instanceof ArchiveRefusedError) throw new BundleRefusedError(`result bundle refused: ${err.message.replace(/^archive refused: /, '')}`)
      throw err
    }
    const read = <T>(name: string): T => JSON.parse(readFileSync(join(dir, name), 'utf8')) as T
    const cell = read<BundleCell>(BUNDLE.cell)
    if (cell.runId !== run.id || cell.scheme !== run.scheme || cell.load !== run.load || cell.seed !== run.seed) {
      throw new BundleRefusedError(`result bundle refused: it is for run ${cell.runId} (${cell.scheme} load=${cell.load} seed=${cell.seed}), not run ${run.id}`)
    }
    const flows = flowsFromJson(read<BundleFlows>(BUNDLE.flows))
    const result = read<BundleResult>(BUNDLE.result)

    // A merge cut off after its telemetry (the process died) is not repeated in part: the
    // series are there once, and the results below go in as one transaction.
    if (files.includes(BUNDLE.series) && store.listSeries(run.id).length === 0) {
      const ingest = new Ingest({ store, runId: run.id })
      try {
        ingest.defineSeries(read<SimSeriesDef[]>(BUNDLE.series))
        for (const line of readFileSync(join(dir, BUNDLE.telemetry), 'utf8').split('\n')) {
          if (!line) continue
          const f = JSON.parse(line) as TelemetryLine
          ingest.pushFrame(f.t, f.values)
          await ingest.ready()
        }
      } finally {
        await ingest.close()
      }
    }

    const counters: Record<string, number> = { ...result.counters }
    const facts = {
      target: 'sim',
      engine: 'p4lab-sim v0',
      wallMs: cell.wallMs,
      ...(typeof cell.cpuMs === 'number' ? { cpuMs: cell.cpuMs } : {}),
      eventsDropped: result.eventsDropped,
      runner: 'slurm',
      slurmTask: `${o.job.jobId}_${o.index}`,
      node: cell.node,
      nodeVersion: cell.nodeVersion,
    }
    const completion = assessCompletion({ flows, counters, facts, stopAfterNs: o.spec.stopAfterNs, log: () => store.listLogs(run.id).map((l) => l.line) })
    return store.transaction(() => {
      // Another process following the same job (the app and `p4lab slurm follow`) merged it meanwhile.
      if (store.slurmTaskOfRun(run.id)?.settled) return store.getRun(run.id)!
      store.insertFlows(run.id, flows)
      for (const e of result.events) store.addEvent(run.id, e.tNs, e.kind, e.detail)
      store.setRunResults(run.id, { stats: withSlowdown(fctStats(flows, warmupShare(o.spec)), flows, o.spec), counters, facts, completion })
      store.addLog(run.id, 'slurm', `merged the result bundle of task ${o.job.jobId}_${o.index} from ${cell.node} (${files.length} files, each checked against its manifest)`)
      store.setSlurmTaskState(run.id, 'COMPLETED', null, true)
      return completion.complete ? store.setRunStatus(run.id, 'done') : store.setRunStatus(run.id, 'incomplete', { error: incompleteReason(completion) })
    })
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

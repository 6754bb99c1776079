// The cell runner: what a Slurm array task runs on a node, bundled into one JavaScript file
// (out/cell/p4lab-cell.mjs) so the node needs nothing but Node 20 or newer. It reads the
// sweep's job file, runs the cell of its array task in the simulator, and writes the result
// bundle under results/<task>/ (written aside, then renamed: a bundle is there whole or not at all).
//   node p4lab-cell.mjs SWEEP_DIR [TASK]        (TASK defaults to SLURM_ARRAY_TASK_ID)
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, appendFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { runSim } from '../../schemes'
import { BUNDLE, JOB_FILE, JOB_FORMAT, flowsToJson, writeBundleManifest, type BundleCell, type BundleResult, type JobFile } from './bundle'

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start)
  return (u.user + u.system) / 1000
}

function main(argv: string[]): number {
  const [sweepDir, taskText = process.env.SLURM_ARRAY_TASK_ID] = argv
  if (!sweepDir || taskText === undefined) {
    process.stderr.write('usage: node p4lab-cell.mjs SWEEP_DIR [TASK] (TASK defaults to SLURM_ARRAY_TASK_ID)\n')
    return 2
  }
  const task = Number(taskText)
  const job = JSON.parse(readFileSync(join(sweepDir, JOB_FILE), 'utf8')) as JobFile
  if (job.format !== JOB_FORMAT || job.version !== 1) throw new Error(`${JOB_FILE}: not a p4lab Slurm job file of version 1 (format ${String(job.format)}, version ${String(job.version)})`)
  const cell = job.cells[task]
  if (!Number.isInteger(task) || !cell) throw new Error(`task ${taskText}: the job file has cells 0 to ${job.cells.length - 1}`)

  const final = join(sweepDir, 'results', String(task))
  const dir = `${final}.partial`
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const files: string[] = []
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text)
    if (!files.includes(name)) files.push(name)
  }
  write(BUNDLE.telemetry, '')
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const result = runSim(cell.config, {
    onSeries: (defs) => write(BUNDLE.series, JSON.stringify(defs)),
    onTelemetry: (t, values) => appendFileSync(join(dir, BUNDLE.telemetry), JSON.stringify({ t: Array.from(t), values: Array.from(values) }) + '\n'),
  })
  const info: BundleCell = {
    runId: cell.runId,
    scheme: cell.scheme,
    load: cell.load,
    seed: cell.seed,
    jobId: process.env.SLURM_ARRAY_JOB_ID ?? '',
    taskId: task,
    node: hostname(),
    nodeVersion: process.version,
    wallMs: Math.round(performance.now() - t0),
    // The task is this process alone: its CPU time is the run's.
    cpuMs: Math.round(cpuMsSince(cpu0)),
  }
  const out: BundleResult = { counters: result.counters, events: result.events, eventsDropped: result.eventsDropped }
  write(BUNDLE.flows, JSON.stringify(flowsToJson(result.flows)))
  write(BUNDLE.result, JSON.stringify(out))
  write(BUNDLE.cell, JSON.stringify(info))
  writeBundleManifest(dir, files.sort(), { p4labVersion: job.p4labVersion, schemaVersion: job.schemaVersion, experiment: job.experiment.name, cell: info })
  rmSync(final, { recursive: true, force: true })
  renameSync(dir, final)
  process.stdout.write(`p4lab cell ${task}: run ${cell.runId} ${cell.scheme} load=${cell.load} seed=${cell.seed}: ${result.flows.src.length} flows in ${info.wallMs} ms\n`)
  return 0
}

try {
  process.exitCode = main(process.argv.slice(2))
} catch (err) {
  process.stderr.write(`p4lab cell failed: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exitCode = 1
}

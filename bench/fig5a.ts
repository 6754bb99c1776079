// The full HULA Fig. 5a sweep (3 schemes × 9 loads × 3 seeds of the template), run as a
// user runs it: through the core, a worker thread per run, as many at once as cores,
// into a fresh SQLite file. Prints the wall time, the runs per minute, and the peak
// resident memory of the process (every run's worker thread included).
import { availableParallelism } from 'node:os'
import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { createNodeCore } from '../src-main/core'
import { packageRoot } from '../src-main/core/paths'

async function main(): Promise<void> {
  const file = join(packageRoot(), 'resources', 'experiments', 'hula-fig5a-websearch.yaml')
  const core = createNodeCore({ dbPath: join(mkdtempSync(join(tmpdir(), 'p4lab-fig5a-')), 'bench.db') })
  core.start()
  let peakRss = 0
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100)
  const t0 = performance.now()
  const exp = core.findOrCreateExperiment(readFileSync(file, 'utf8'), file)
  const runs = core.runExperiment(exp.id)
  await core.orchestrator.wait(runs.map((r) => r.id))
  const wallS = (performance.now() - t0) / 1000
  clearInterval(sampler)
  const done = runs.filter((r) => core.opts.store.getRun(r.id)!.status === 'done').length
  const flows = runs.reduce((n, r) => n + (core.opts.store.getRun(r.id)!.stats?.flows ?? 0), 0)
  console.log(`\n== HULA Fig. 5a sweep: ${runs.length} runs (${done} done), ${flows.toLocaleString('en-US')} flows, ${availableParallelism()} at a time`)
  console.log(`wall time            ${wallS.toFixed(1)} s  (target: under 300 s on 2 cores)`)
  console.log(`runs per minute      ${((runs.length / wallS) * 60).toFixed(1)}`)
  console.log(`peak memory          rss ${(peakRss / 2 ** 20).toFixed(0)} MiB for ${availableParallelism()} concurrent runs (target: under 1 GiB per run)`)
  const errors = new Map<string, number>()
  for (const r of runs) {
    const row = core.opts.store.getRun(r.id)!
    if (row.status !== 'done') errors.set(row.error ?? row.status, (errors.get(row.error ?? row.status) ?? 0) + 1)
  }
  for (const [error, n] of errors) console.log(`not done             ${n} run(s): ${error}`)
  core.opts.store.close()
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})

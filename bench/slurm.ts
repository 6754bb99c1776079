// The HULA Fig. 5a sweep (3 schemes × 9 loads × 3 seeds = 81 runs) at --quick size (a quarter
// of the flows), once on local worker threads and once as a Slurm job array on a one-node
// cluster started on this machine (root and Debian's slurmctld, slurmd, munge; test/helpers/slurm.ts),
// in one process. Prints both wall times: submit to merged for Slurm, first run to last locally.
// In the default `npm run bench` list; when the cluster cannot start (not root, no Slurm
// packages) it prints one line saying why and measures nothing.
import { availableParallelism, tmpdir } from 'node:os'
import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createNodeCore } from '../src-main/core'
import { packageRoot } from '../src-main/core/paths'
import { LocalShell, SlurmSweeps } from '../src-main/core/slurm'
import type { ExperimentSpec } from '../src-main/core/spec'
import { startSlurm, type SlurmCluster } from '../test/helpers/slurm'

async function main(): Promise<void> {
  const file = join(packageRoot(), 'resources', 'experiments', 'hula-fig5a-websearch.yaml')
  const yaml = readFileSync(file, 'utf8').replace(/flows: 1000 \}/, 'flows: 250 }')
  if (!yaml.includes('flows: 250 }')) throw new Error(`${file}: the workload line changed; update this bench`)
  // The cluster first: when it cannot start, the local half alone would compare nothing.
  let cluster: SlurmCluster
  try {
    cluster = await startSlurm()
  } catch (err) {
    console.log(`\n== Slurm sweep bench skipped: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`)
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-bench-slurm-'))

  const local = createNodeCore({ dbPath: join(dir, 'local.db') })
  local.start()
  let t0 = performance.now()
  const lexp = local.findOrCreateExperiment(yaml, file)
  const runs = local.runExperiment(lexp.id)
  await local.orchestrator.wait(runs.map((r) => r.id))
  const localS = (performance.now() - t0) / 1000
  const localDone = runs.filter((r) => local.opts.store.getRun(r.id)!.status === 'done').length
  local.opts.store.close()

  try {
    const core = createNodeCore({ dbPath: join(dir, 'slurm.db') })
    core.start()
    const store = core.opts.store
    const exp = core.findOrCreateExperiment(yaml, file)
    const spec = exp.spec as ExperimentSpec
    const cells = spec.schemes.flatMap((scheme) => spec.workload.loads.flatMap((load) => spec.seeds.map((seed) => ({ scheme, load, seed }))))
    const sweeps = new SlurmSweeps({ store, shell: new LocalShell(cluster.env) })
    t0 = performance.now()
    const { job } = await sweeps.submit(exp, spec, cells, { workDir: join(cluster.work, 'bench') })
    const submitS = (performance.now() - t0) / 1000
    const end = await sweeps.follow(job.id, { intervalMs: 1000 })
    const slurmS = (performance.now() - t0) / 1000
    const done = end.tasks.filter((t) => t.runStatus === 'done').length
    store.close()
    console.log(`\n== HULA Fig. 5a sweep at --quick size: ${cells.length} runs of 250 flows`)
    console.log(`local worker threads  ${localS.toFixed(1)} s  (${localDone} done, ${availableParallelism()} at a time)`)
    console.log(`Slurm job array       ${slurmS.toFixed(1)} s  submit to merged (${done} done; submit ${submitS.toFixed(1)} s; one node, 2 CPUs)`)
  } finally {
    await cluster.stop()
  }
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})

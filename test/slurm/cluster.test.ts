import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startSlurm, type SlurmCluster } from '../helpers/slurm'

// The test cluster itself: a job array runs on it, and stop() leaves no daemon behind.
describe('the one-node Slurm test cluster', { timeout: 120_000 }, () => {
  let cluster: SlurmCluster
  beforeAll(async () => {
    cluster = await startSlurm()
  }, 60_000)
  afterAll(async () => cluster?.stop())

  it('runs a job array to its end', async () => {
    const out = join(cluster.work, 'out-%a.txt')
    const id = cluster.run(['/usr/bin/sbatch', '--parsable', '--array=0-2%2', '-o', out, '--wrap', 'echo task $SLURM_ARRAY_TASK_ID']).trim()
    expect(id).toMatch(/^\d+$/)
    for (let i = 0; i < 300 && cluster.queued().length > 0; i++) await new Promise((r) => setTimeout(r, 200))
    expect(cluster.queued()).toEqual([])
    for (const t of [0, 1, 2]) expect(readFileSync(join(cluster.work, `out-${t}.txt`), 'utf8')).toBe(`task ${t}\n`)
  })
})

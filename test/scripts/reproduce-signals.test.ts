// `npm run reproduce` (scripts/reproduce.ts, as npm runs it: node scripts/run-ts.mjs) ended by
// its terminal closed (the kernel's SIGHUP, its writes failing after) or by `kill -HUP`, as
// Ctrl-C ends it: the runs under way are cancelled (on Slurm, their job arrays scancelled), the
// finished ones kept, none left `running` or queued; the exit status is 128 + 1; and the same
// command continues from there. One quick template into a database of its own.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withDb } from '../helpers/cli'
import { startSlurm, type SlurmCluster } from '../helpers/slurm'
import { ROOT } from '../helpers/start'
import { start, stateReached } from '../helpers/terminal'

// Three runs of 2,500 flows under --quick: long enough to be caught under way.
const TEMPLATE = 'hula-fig6-asymmetric'

function reproduce(dir: string, more: string[], o: { terminal: boolean; env?: NodeJS.ProcessEnv }) {
  const argv = [process.execPath, join(ROOT, 'scripts', 'run-ts.mjs'), join(ROOT, 'scripts', 'reproduce.ts'), '--quick', '--only', TEMPLATE, '--db', join(dir, 'r.db'), '--out', join(dir, 'results.md'), ...more]
  return start(argv, { cwd: dir, env: { ...process.env, P4LAB_HOME: join(dir, 'home'), ...o.env }, terminal: o.terminal, maxMs: 280_000 })
}

const runs = (dir: string) => withDb(join(dir, 'r.db'), (d) => d.prepare('SELECT status FROM runs ORDER BY id').pluck().all() as string[])

describe('npm run reproduce: SIGHUP', { timeout: 300_000 }, () => {
  it.each([
    ['its terminal closed', true],
    ['kill -HUP', false],
  ] as const)('%s while a run is running: the runs under way are cancelled, the finished kept, exit 129, and the same command continues', async (_how, terminal) => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-reproduce-hup-'))
    const p = reproduce(dir, ['--parallel', '1'], { terminal })
    await stateReached(join(dir, 'r.db'), (d) => d.prepare("SELECT COUNT(*) FROM runs WHERE status = 'running'").pluck().get() === 1, p.ended)
    if (terminal) p.hangUp()
    else p.kill('SIGHUP')
    const r = await p.ended
    expect([r.code, r.signal], r.output).toEqual([129, null])
    if (!terminal) expect(r.output).toContain('reproduce: SIGHUP: cancelling the runs under way, keeping the finished ones')
    const statuses = runs(dir)
    expect(statuses).toHaveLength(3)
    // The run caught running may just have finished; every other is cancelled, none left open.
    expect(statuses.filter((s) => s !== 'done').every((s) => s === 'cancelled'), statuses.join(', ')).toBe(true)
    expect(statuses).toContain('cancelled')
    const done = statuses.filter((s) => s === 'done').length
    const plan = reproduce(dir, ['--plan'], { terminal: false })
    const planned = await plan.ended
    expect(planned.code, planned.output).toBe(0)
    expect(planned.output).toMatch(new RegExp(`^${TEMPLATE}: ${3 - done} to run \\(about [^)]*\\), ${done} reused`, 'm'))
  })
})

describe('npm run reproduce -- --on slurm: SIGHUP', { timeout: 300_000 }, () => {
  let cluster: SlurmCluster
  beforeAll(async () => {
    cluster = await startSlurm()
  }, 90_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  it('its terminal closed once the job array is submitted: the array is cancelled (scancel), every task settled, none of its runs left open, exit 129', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'p4lab-reproduce-hup-slurm-'))
    // This machine is the login node; one task at a time, so the others are still pending.
    const p = reproduce(dir, ['--on', 'slurm', '--work', join(cluster.work, 'hup'), '--partition', cluster.partition, '--max-parallel', '1'], { terminal: true, env: { SLURM_CONF: cluster.conf } })
    await p.printed(/runs submitted as Slurm job \d+/)
    p.hangUp()
    const r = await p.ended
    expect([r.code, r.signal], r.output).toEqual([129, null])
    const stored = withDb(join(dir, 'r.db'), (d) => ({
      jobs: d.prepare('SELECT job_id, ended_at IS NOT NULL AS ended FROM slurm_jobs').all() as Array<{ job_id: string; ended: number }>,
      unsettled: d.prepare('SELECT COUNT(*) FROM slurm_tasks WHERE settled = 0').pluck().get(),
    }))
    expect(stored.jobs.map((j) => j.ended)).toEqual([1])
    expect(stored.unsettled).toBe(0)
    expect(cluster.run(['scontrol', 'show', 'job', stored.jobs[0].job_id])).toMatch(/JobState=(CANCELLED|COMPLETED)\b/)
    expect(cluster.queued()).toEqual([])
    const statuses = runs(dir)
    expect(statuses).toHaveLength(3)
    expect(statuses.filter((s) => s !== 'done').every((s) => s === 'cancelled'), statuses.join(', ')).toBe(true)
    expect(statuses).toContain('cancelled')
  })
})

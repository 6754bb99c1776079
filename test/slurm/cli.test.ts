import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../helpers/start'
import { startSlurm, type SlurmCluster } from '../helpers/slurm'
import { startSshd, type Sshd } from '../helpers/sshd'

// `p4lab run FILE --on slurm` as a user runs it: the built CLI, a real cluster behind the test
// sshd, the login node's key pinned only when the user names its fingerprint.
const YAML = `name: slurm-cli
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 30 }
seeds: [1, 2]
`

describe('p4lab run --on slurm', { timeout: 240_000 }, () => {
  let cluster: SlurmCluster
  let sshd: Sshd
  let dir: string
  beforeAll(async () => {
    cluster = await startSlurm()
    sshd = await startSshd({ config: [`SetEnv SLURM_CONF=${cluster.conf}`] })
    dir = mkdtempSync(join(tmpdir(), 'p4lab-slurm-cli-'))
    writeFileSync(join(dir, 'small.yaml'), YAML)
  }, 90_000)
  afterAll(async () => {
    await sshd?.stop()
    await cluster?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const p4lab = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const c = spawn(process.execPath, [join(ROOT, 'bin', 'p4lab.cjs'), ...args], { cwd: dir, env: { ...process.env, P4LAB_HOME: join(dir, 'home') } })
      let stdout = ''
      let stderr = ''
      c.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
      c.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
      c.on('close', (code) => resolve({ code, stdout, stderr }))
    })
  const on = () => ['--db', 'x.db', '--on', 'slurm', '--login', `${sshd.user}@127.0.0.1:${sshd.port}`, '--key', sshd.plainKey, '--work', join(cluster.work, 'cli'), '--partition', cluster.partition, '--max-parallel', '2']

  it('pins the login node on request, submits, follows later, lists Slurm states and resumes nothing once done', async () => {
    const unknown = await p4lab(['run', 'small.yaml', ...on()])
    expect(unknown.code).toBe(1)
    const fp = /--trust-host-key (SHA256:\S+)/.exec(unknown.stderr)?.[1]
    expect(unknown.stderr).toContain('cannot be established')
    expect(fp).toBeTruthy()

    const submitted = await p4lab(['run', 'small.yaml', ...on(), '--trust-host-key', fp!, '--detach'])
    expect(submitted.stderr).toMatch(/submitted 2 cell\(s\) as Slurm job \d+/)
    expect(submitted.code).toBe(0)
    const listed = await p4lab(['list', '--db', 'x.db'])
    expect(listed.stdout).toMatch(/queued \(Slurm SUBMITTED\)/)

    const followed = await p4lab(['slurm', 'follow', '--db', 'x.db'])
    expect(followed.code, followed.stderr).toBe(0)
    expect(followed.stdout).toMatch(/run 1 ecmp load=0.3 seed=1: done \(Slurm COMPLETED\)/)
    expect(followed.stdout).toMatch(/run 2 ecmp load=0.3 seed=2: done \(Slurm COMPLETED\)/)
    const after = JSON.parse((await p4lab(['list', '--db', 'x.db', '--json'])).stdout) as Array<{ runs: Array<{ status: string; slurm: { state: string } }> }>
    expect(after[0].runs.map((r) => [r.status, r.slurm.state])).toEqual([['done', 'COMPLETED'], ['done', 'COMPLETED']])

    const resumed = await p4lab(['run', 'small.yaml', ...on(), '--resume'])
    expect(resumed.code).toBe(0)
    expect(resumed.stderr).toContain('2 of 2 cell(s) already done, 0 to submit')
    expect(cluster.queued()).toEqual([])
  })

  it('refuses Slurm options without --on slurm', async () => {
    const r = await p4lab(['run', 'small.yaml', '--db', 'y.db', '--partition', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--partition goes with --on slurm')
  })
})

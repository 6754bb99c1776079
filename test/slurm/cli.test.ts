import { beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { p4labAsync } from '../helpers/cli'
import { useSlurmLogin } from '../helpers/slurm'

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
  const lab = useSlurmLogin('slurm-cli')
  beforeAll(() => {
    writeFileSync(join(lab.dir, 'small.yaml'), YAML)
  })

  const p4lab = (args: string[]) => p4labAsync(args, lab.dir)
  const on = () => ['--db', 'x.db', '--on', 'slurm', '--login', `${lab.sshd.user}@127.0.0.1:${lab.sshd.port}`, '--key', lab.sshd.plainKey, '--work', join(lab.cluster.work, 'cli'), '--partition', lab.cluster.partition, '--max-parallel', '2']

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
    expect(lab.cluster.queued()).toEqual([])
  })

  it('refuses Slurm options without --on slurm', async () => {
    const r = await p4lab(['run', 'small.yaml', '--db', 'y.db', '--partition', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--partition goes with --on slurm')
  })
})

import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { p4labAsync } from '../helpers/cli'
import { useSlurmLogin } from '../helpers/slurm'

// `p4lab cluster add|list|check|rm` and `runner:` in the experiment file, as a user runs them:
// the built CLI, a real cluster behind the test sshd, a passphrase-protected key.
const yaml = (runner: string) => `name: slurm-runner
testbed: sim
topology: { kind: leaf-spine, leaves: 2, spines: 2, hostsPerLeaf: 2, hostLink: 10Gbps, fabricLink: 10Gbps, linkDelay: 1us, queuePackets: 100 }
schemes: [ecmp]
workload: { kind: web-search, load: [0.3], flows: 30 }
seeds: [1, 2]
${runner}
`

describe('p4lab cluster and runner:', { timeout: 240_000 }, () => {
  const lab = useSlurmLogin('slurm-cluster')

  const p4lab = (args: string[], env: NodeJS.ProcessEnv = {}) => p4labAsync(args, lab.dir, { env })

  it('saves a cluster with its key passphrase, pins its login node on request, runs a file with runner: (flags override) and removes it', async () => {
    const login = `${lab.sshd.user}@127.0.0.1:${lab.sshd.port}`
    const noVar = await p4lab(['cluster', 'add', 'lab', '--db', 'x.db', '--login', login, '--key', lab.sshd.secretKey, '--passphrase-env', 'LAB_PASS', '--work', join(lab.cluster.work, 'cli')])
    expect(noVar.code).toBe(2)
    expect(noVar.stderr).toContain('--passphrase-env LAB_PASS: that environment variable is not set')
    const badTime = await p4lab(['cluster', 'add', 'lab', '--db', 'x.db', '--login', login, '--work', 'w', '--time', 'soon'])
    expect(badTime.code).toBe(2)
    expect(badTime.stderr).toMatch(/time: "soon" is not a Slurm time limit/)

    const added = await p4lab(['cluster', 'add', 'lab', '--db', 'x.db', '--login', login, '--key', lab.sshd.secretKey, '--passphrase-env', 'LAB_PASS', '--work', join(lab.cluster.work, 'cli'), '--partition', lab.cluster.partition, '--time', '9'], { LAB_PASS: lab.sshd.keyPassphrase })
    expect(added.stderr).toBe('')
    expect(added.stdout).toContain('key passphrase in the secret store')
    expect(added.code).toBe(0)
    // The passphrase is in the secret store, never in the database.
    expect(readFileSync(join(lab.dir, 'x.db')).includes(Buffer.from(lab.sshd.keyPassphrase))).toBe(false)
    const listed = await p4lab(['cluster', 'list', '--db', 'x.db', '--json'])
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'lab', label: login, hasPassphrase: true, partition: lab.cluster.partition, time: '9' }])

    const unknown = await p4lab(['cluster', 'check', 'lab', '--db', 'x.db'])
    expect(unknown.code).toBe(1)
    const fp = /--trust-host-key (SHA256:\S+)/.exec(unknown.stdout)?.[1]
    expect(fp).toBeTruthy()
    const checked = await p4lab(['cluster', 'check', 'lab', '--db', 'x.db', '--trust-host-key', fp!])
    expect(checked.stdout).toMatch(/^ok +sbatch/m)
    expect(checked.stdout).toMatch(/^ok +node >= 20 +Node v\d+/m)
    expect(checked.stdout).toMatch(/^ok +shared work folder/m)
    expect(checked.stdout).toContain('lab: ready')
    expect(checked.code).toBe(0)

    // A file naming a cluster that is not saved: exit 2, nothing written.
    writeFileSync(join(lab.dir, 'nope.yaml'), yaml('runner: { kind: slurm, cluster: nope }'))
    const nope = await p4lab(['run', 'nope.yaml', '--db', 'y.db'])
    expect(nope.code).toBe(2)
    expect(nope.stderr).toContain("runner.cluster in the experiment file: no saved Slurm cluster 'nope'")
    // A bad runner: is a spec error at its line.
    writeFileSync(join(lab.dir, 'bad.yaml'), yaml('runner: { kind: slurm, cluster: lab, maxParallel: 0 }'))
    const bad = await p4lab(['run', 'bad.yaml', '--db', 'y.db'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/bad\.yaml:7:\d+: runner\.maxParallel: expected a positive integer/)
    expect(existsSync(join(lab.dir, 'y.db'))).toBe(false)

    // runner: sends it to the cluster with the file's options; --max-parallel overrides the file's.
    writeFileSync(join(lab.dir, 'small.yaml'), yaml('runner: { kind: slurm, cluster: lab, time: "0:07:00", maxParallel: 2 }'))
    const sub = await p4lab(['run', 'small.yaml', '--db', 'x.db', '--max-parallel', '1', '--detach'])
    expect(sub.stderr).toMatch(/submitted 2 cell\(s\) as Slurm job \d+ on /)
    expect(sub.code).toBe(0)
    const jobId = sub.stdout.trim()
    const info = lab.cluster.run(['scontrol', 'show', 'job', jobId])
    expect(info).toMatch(/ArrayTaskThrottle=1\b/)
    expect(info).toMatch(/TimeLimit=00:07:00/)
    expect(info).toMatch(new RegExp(`Partition=${lab.cluster.partition}\\b`))
    const followed = await p4lab(['slurm', 'follow', '--db', 'x.db'])
    expect(followed.stdout).toMatch(/: done \(Slurm COMPLETED\)/)
    expect(followed.code).toBe(0)
    // --on local runs it here despite the runner:.
    const local = await p4lab(['run', 'small.yaml', '--db', 'l.db', '--on', 'local', '--json'])
    expect(local.code).toBe(0)
    expect(JSON.parse(local.stdout).runs.map((r: { status: string }) => r.status)).toEqual(['done', 'done'])

    const rm = await p4lab(['cluster', 'rm', 'lab', '--db', 'x.db'])
    expect(rm.code).toBe(0)
    expect(JSON.parse((await p4lab(['cluster', 'list', '--db', 'x.db', '--json'])).stdout)).toEqual([])
    expect(readFileSync(join(lab.dir, 'home', 'secrets.json'), 'utf8')).not.toContain('slurm-cluster')
  })

  it('check looks at the work folder without making it, and names what is wrong with it', async () => {
    const login = `${lab.sshd.user}@127.0.0.1:${lab.sshd.port}`
    const folderItem = async (name: string, work: string) => {
      const added = await p4lab(['cluster', 'add', name, '--db', 'w.db', '--login', login, '--key', lab.sshd.plainKey, '--work', work])
      expect(added.code, added.stderr).toBe(0)
      let r = await p4lab(['cluster', 'check', name, '--db', 'w.db', '--json'])
      const c = JSON.parse(r.stdout) as { status: string; hostKey: { fingerprint: string } | null }
      if (c.status === 'unknown-key') r = await p4lab(['cluster', 'check', name, '--db', 'w.db', '--json', '--trust-host-key', c.hostKey!.fingerprint])
      const checked = JSON.parse(r.stdout) as { ready: boolean; items: Array<{ name: string; ok: boolean; detail: string }> }
      return { code: r.code, ready: checked.ready, item: checked.items.find((i) => i.name === 'shared work folder')! }
    }
    const work = lab.cluster.work
    const there = await folderItem('there', work)
    expect([there.code, there.ready, there.item.ok, there.item.detail]).toEqual([0, true, true, `${work} is writable`])

    // Two levels missing: a sweep's mkdir -p makes them; the check only says so.
    const deep = join(work, 'look', 'deep')
    const missing = await folderItem('missing', deep)
    expect([missing.code, missing.item.ok, missing.item.detail]).toEqual([0, true, `${deep}: does not exist yet; the first sweep makes it in ${work}, which is writable`])
    expect(existsSync(join(work, 'look'))).toBe(false)

    writeFileSync(join(work, 'notes.txt'), 'x\n')
    const file = await folderItem('file', join(work, 'notes.txt'))
    expect([file.code, file.ready, file.item.ok, file.item.detail]).toEqual([1, false, false, `${join(work, 'notes.txt')}: not a folder`])
    const under = await folderItem('under', join(work, 'notes.txt', 'w'))
    expect([under.code, under.item.ok, under.item.detail]).toEqual([1, false, `${join(work, 'notes.txt', 'w')}: does not exist, and cannot be made: ${join(work, 'notes.txt')} is not a folder`])
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('x\n')
  })
})

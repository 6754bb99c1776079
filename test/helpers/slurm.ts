import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { startSshd, type Sshd } from './sshd'

/**
 * A real one-node Slurm cluster on this machine for tests: its own munged (key and socket in a
 * temporary directory), slurmctld and slurmd with a temporary slurm.conf on free ports, two
 * CPUs, no cgroups (proctrack/linuxproc, task/none) and no accounting database (sacct then
 * says so, and the code under test must cope, as on clusters without slurmdbd). Needs root
 * (slurmd runs jobs as their user) and Debian's slurmctld, slurmd, munge and slurm-client,
 * which .ci/run installs. Missing tools are a failure, not a skip.
 */
export interface SlurmCluster {
  /** Temporary directory holding the config, state, spool, logs and a `work/` folder (the "shared file system"). */
  readonly dir: string
  /** The slurm.conf the client commands must read: pass `env` to them. */
  readonly conf: string
  /** Environment for sbatch/squeue/scancel: SLURM_CONF set. */
  readonly env: NodeJS.ProcessEnv
  /** A folder for sweeps (the nodes and the login node are this machine). */
  readonly work: string
  readonly partition: string
  /** Runs a client command (squeue, scontrol …) against this cluster and returns stdout. */
  run(argv: string[]): string
  /** Job ids (e.g. `12_3`) still in squeue. */
  queued(): string[]
  /** The daemons' logs, for failure messages. */
  logs(): string
  stop(): Promise<void>
}

const TOOLS = ['/usr/sbin/munged', '/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/bin/sbatch', '/usr/bin/squeue', '/usr/bin/scontrol', '/usr/bin/scancel']

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      s.close(() => resolve(port))
    })
  })
}

function pidIn(file: string): number | null {
  try {
    const n = Number(readFileSync(file, 'utf8').trim())
    return Number.isInteger(n) && n > 0 ? n : null
  } catch {
    return null
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(what: string, ok: () => boolean, tries = 150, logs: () => string = () => ''): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (ok()) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`slurm test cluster: ${what} did not happen\n${logs()}`)
}

export async function startSlurm(): Promise<SlurmCluster> {
  const missing = TOOLS.filter((t) => !existsSync(t))
  if (missing.length) {
    throw new Error(`${missing.join(', ')} not found: the Slurm tests need a real cluster. apt-get install -y slurmctld slurmd munge slurm-client (.ci/run installs them).`)
  }
  if (process.getuid?.() !== 0) throw new Error('the Slurm test cluster needs root: slurmd starts jobs as their user')
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-slurm-'))
  // munged refuses a socket directory others may write; the key must be readable by its owner only.
  chmodSync(dir, 0o755)
  const munge = join(dir, 'munge')
  mkdirSync(munge, { mode: 0o755 })
  for (const d of ['state', 'spool', 'work']) mkdirSync(join(dir, d))
  const key = join(munge, 'munge.key')
  writeFileSync(key, randomBytes(1024), { mode: 0o400 })
  const socket = join(munge, 'munge.sock')
  const mungePid = join(munge, 'munged.pid')
  execFileSync('/usr/sbin/munged', ['--force', `--socket=${socket}`, `--key-file=${key}`, `--pid-file=${mungePid}`, `--log-file=${join(munge, 'munged.log')}`, `--seed-file=${join(munge, 'munged.seed')}`])

  const node = hostname()
  const [ctldPort, slurmdPort] = [await freePort(), await freePort()]
  const conf = join(dir, 'slurm.conf')
  const partition = 'p4lab'
  writeFileSync(
    conf,
    [
      'ClusterName=p4labtest',
      `SlurmctldHost=${node}(127.0.0.1)`,
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${socket}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
      `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_CPU',
      'SchedulerType=sched/backfill',
      'JobAcctGatherType=jobacct_gather/none',
      'AccountingStorageType=accounting_storage/none',
      'JobCompType=jobcomp/none',
      'MpiDefault=none',
      'ReturnToService=2',
      // Finished jobs stay visible to `scontrol show job` for the whole test (no sacct here).
      'MinJobAge=3600',
      `NodeName=${node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN`,
      `PartitionName=${partition} Nodes=${node} Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  )
  const env = { ...process.env, SLURM_CONF: conf }
  const logs = () =>
    ['slurmctld.log', 'slurmd.log', 'munge/munged.log']
      .map((f) => {
        const p = join(dir, f)
        return existsSync(p) ? `--- ${f}\n${readFileSync(p, 'utf8').split('\n').slice(-30).join('\n')}` : ''
      })
      .join('\n')
  const run = (argv: string[]): string => {
    const r = spawnSync(argv[0], argv.slice(1), { env, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`)
    return r.stdout
  }
  const stopAll = async () => {
    const pids = [pidIn(join(dir, 'slurmctld.pid')), pidIn(join(dir, 'slurmd.pid'))].filter((p): p is number => p !== null)
    spawnSync('/usr/bin/scontrol', ['shutdown'], { env, encoding: 'utf8' })
    await until('the Slurm daemons stopping', () => pids.every((p) => !alive(p)), 50).catch(() => {
      for (const p of pids) if (alive(p)) process.kill(p, 'SIGKILL')
    })
    const m = pidIn(mungePid)
    spawnSync('/usr/sbin/munged', ['--stop', `--socket=${socket}`])
    if (m !== null) await until('munged stopping', () => !alive(m), 50).catch(() => alive(m) && process.kill(m, 'SIGKILL'))
  }
  try {
    execFileSync('/usr/sbin/slurmctld', ['-f', conf, '-i'], { env })
    execFileSync('/usr/sbin/slurmd', ['-f', conf], { env })
    await until('the node becoming idle', () => {
      const r = spawnSync('/usr/bin/sinfo', ['-h', '-o', '%t'], { env, encoding: 'utf8' })
      return r.status === 0 && r.stdout.trim() === 'idle'
    }, 150, logs)
  } catch (err) {
    await stopAll()
    throw err
  }

  return {
    dir,
    conf,
    env,
    work: join(dir, 'work'),
    partition,
    run,
    queued: () =>
      run(['/usr/bin/squeue', '-h', '-r', '-o', '%i'])
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    logs,
    async stop() {
      await stopAll()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** What {@link useSlurmLogin} sets up: the cluster, an sshd whose sessions find it (its login node), a scratch folder. */
export interface SlurmLogin {
  readonly cluster: SlurmCluster
  readonly sshd: Sshd
  readonly dir: string
}

/**
 * Registers beforeAll/afterAll hooks that start a cluster and a login sshd whose sessions find
 * it (SLURM_CONF set, as a site's profile would), and a scratch folder; the returned object's
 * fields are there once beforeAll has run.
 */
export function useSlurmLogin(prefix: string): SlurmLogin {
  const lab = {} as { cluster: SlurmCluster; sshd: Sshd; dir: string }
  beforeAll(async () => {
    lab.cluster = await startSlurm()
    lab.sshd = await startSshd({ config: [`SetEnv SLURM_CONF=${lab.cluster.conf}`] })
    lab.dir = mkdtempSync(join(tmpdir(), `p4lab-${prefix}-`))
  }, 90_000)
  afterAll(async () => {
    await lab.sshd?.stop()
    await lab.cluster?.stop()
    if (lab.dir) rmSync(lab.dir, { recursive: true, force: true })
  })
  return lab
}

// What the Tofino driver tests share: a real sshd on 127.0.0.1 whose host key is trusted, a
// SQLite store, a host of the testbed on that sshd in any role, and sessions of the real driver
// opened on an experiment (YAML) and a testbed. There is no SDE here: a test brings its own
// stand-in SDE folder when it needs one (tofino-bringup.test.ts).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { workloadsDir } from '../../src-main/core/paths'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { parseExperiment } from '../../src-main/core/spec'
import { KnownHosts } from '../../src-main/core/ssh'
import { openStore, type Store } from '../../src-main/core/store'
import { TofinoDriver, type TofinoDriverOptions, type TofinoSession } from '../../src-main/core/targets/tofino/driver'
import type { RunContext, RunTestbed, RunTestbedHost } from '../../src-main/core/targets/driver'
import { startSshd, type Sshd } from './sshd'

const ROOT = resolve(import.meta.dirname, '../..')

export interface TofinoLab {
  sshd: Sshd
  dir: string
  store: Store
  knownHosts: KnownHosts
}

export async function startTofinoLab(name: string): Promise<TofinoLab> {
  const sshd = await startSshd()
  const dir = mkdtempSync(join(tmpdir(), `p4lab-${name}-`))
  const knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
  const store = openStore(join(dir, 'p4lab.db'))
  return { sshd, dir, store, knownHosts }
}

export async function stopTofinoLab(lab: TofinoLab | undefined): Promise<void> {
  lab?.store.close()
  await lab?.sshd.stop()
  if (lab) rmSync(lab.dir, { recursive: true, force: true })
}

/** A testbed host on the lab's sshd, logged into with its key. */
export function labHost(lab: TofinoLab, id: number, name: string, role: string): RunTestbedHost {
  return { id, name, address: lab.sshd.host, port: lab.sshd.port, user: lab.sshd.user, auth: 'key', keyFile: lab.sshd.plainKey, role }
}

export interface TofinoLabSession {
  s: TofinoSession
  logs: string[]
  events: Array<{ kind: string; detail: unknown }>
}

/** A session of the real driver, run `runId` of the experiment in `yaml` (scheme ecmp, load 0.3, seed 1) on `tb`. */
export function tofinoSession(lab: TofinoLab, yaml: string, tb: RunTestbed, o: { runId: number; driver?: Partial<TofinoDriverOptions> }): TofinoLabSession {
  const parsed = parseExperiment(yaml, { file: 'x.yaml', baseDir: lab.dir, workloadsDir: workloadsDir(), testbeds: ['sim'] })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  const logs: string[] = []
  const events: Array<{ kind: string; detail: unknown }> = []
  const ctx: RunContext = {
    plan: { runId: o.runId, spec: parsed.spec, scheme: 'ecmp', load: 0.3, seed: 1 },
    signal: new AbortController().signal,
    log: (s, l) => logs.push(`${s}: ${l}`),
    event: (kind, detail) => events.push({ kind, detail }),
    testbed: tb,
  }
  const s = new TofinoDriver({
    artifacts: lab.store,
    knownHosts: lab.knownHosts,
    secrets: new MemorySecretStore(),
    dataDir: lab.dir,
    p4Dir: join(ROOT, 'p4'),
    agentFile: join(ROOT, 'resources/agent/p4lab_agent.py'),
    remoteBase: join(lab.dir, 'runs'),
    ...o.driver,
  }).open(ctx)
  return { s, logs, events }
}

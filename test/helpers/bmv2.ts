// What the BMv2 driver tests share: a real sshd on 127.0.0.1 whose host key is trusted, a
// SQLite store, a stand-in compiler (answers --version, logs its arguments, writes fixture.p4's
// real outputs: there is no p4c here), the one-host testbed on that sshd, and sessions of the
// real driver on all of it.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { workloadsDir } from '../../src-main/core/paths'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { parseExperiment } from '../../src-main/core/spec'
import { KnownHosts, q } from '../../src-main/core/ssh'
import { openStore, type Store } from '../../src-main/core/store'
import { Bmv2Driver, type Bmv2Session } from '../../src-main/core/targets/bmv2/driver'
import type { RunContext, RunTestbed } from '../../src-main/core/targets/driver'
import { netnsList } from './netns'
import { startSshd, type Sshd, type SshdImage } from './sshd'

export const ROOT = resolve(import.meta.dirname, '../..')
export const BMV2_FIXTURES = join(ROOT, 'test/fixtures/bmv2')

export interface Bmv2Lab {
  sshd: Sshd
  dir: string
  store: Store
  knownHosts: KnownHosts
  /** The stand-in p4c-bm2-ss. */
  stub: string
  /** Where the stand-in appends each call's arguments, a line per call. */
  argvLog: string
  /** Run ids handed out from here on (their namespaces are named after them: `p4<id in base 36>`). */
  firstRunId: number
}

export async function startBmv2Lab(name: string, firstRunId: number, o: { image?: SshdImage } = {}): Promise<Bmv2Lab> {
  const sshd = await startSshd(o)
  const dir = mkdtempSync(join(tmpdir(), `p4lab-${name}-`))
  const knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
  const store = openStore(join(dir, 'p4lab.db'))
  const stub = join(dir, 'bin', 'p4c-bm2-ss')
  const argvLog = join(dir, 'p4c-argv.log')
  mkdirSync(join(dir, 'bin'))
  writeFileSync(
    stub,
    `#!/bin/sh
if [ "$1" = "--version" ]; then echo p4c-bm2-ss; echo "Version 0.0.0 (p4lab test stand-in, not p4c)"; exit 0; fi
echo "$*" >> ${q([argvLog])}
out=; info=
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift ;; --p4runtime-files) info=$2; shift ;; esac; shift; done
cp ${q([join(BMV2_FIXTURES, 'fixture.bmv2.json')])} "$out" && cp ${q([join(BMV2_FIXTURES, 'fixture.p4info.txtpb')])} "$info"
`,
  )
  chmodSync(stub, 0o755)
  return { sshd, dir, store, knownHosts, stub, argvLog, firstRunId }
}

/** Closes the store, stops sshd, deletes the namespaces a failed test left of this lab's runs, and the folder. */
export async function stopBmv2Lab(lab: Bmv2Lab | undefined): Promise<void> {
  if (!lab) return
  lab.store.close()
  await lab.sshd.stop()
  const prefix = 'p4' + lab.firstRunId.toString(36).slice(0, 2)
  for (const ns of netnsList()) if (/^p4[0-9a-z]+-/.test(ns) && ns.startsWith(prefix)) spawnSync('ip', ['netns', 'del', ns])
  rmSync(lab.dir, { recursive: true, force: true })
}

/** One switch host: the lab's sshd, bringing the fabric up in namespaces. */
export function labTestbed(lab: Bmv2Lab, name = 'lab'): RunTestbed {
  const { sshd } = lab
  return {
    name,
    kind: 'bmv2',
    settings: { bringUp: 'netns', rateCeilingBps: 1e9 },
    hosts: [{ id: 1, name: 'sw1', address: sshd.host, port: sshd.port, user: sshd.user, auth: 'key', keyFile: sshd.plainKey, role: 'switch-host' }],
  }
}

export interface LabSession {
  session: Bmv2Session
  ctx: RunContext
  abort: AbortController
  logs: string[]
  events: Array<{ kind: string; detail: unknown }>
  runDirBase: string
}

const nextRun = new Map<Bmv2Lab, number>()

/** A session of the real BMv2 driver for the experiment `yaml`, its log and events collected. */
export function labSession(lab: Bmv2Lab, yaml: string, o: { tb?: RunTestbed; remoteBase?: string; runId?: number; dataDir?: string } = {}): LabSession {
  const parsed = parseExperiment(yaml, { file: 'x.yaml', baseDir: lab.dir, workloadsDir: workloadsDir(), testbeds: ['sim'] })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors))
  const spec = parsed.spec
  const abort = new AbortController()
  const logs: string[] = []
  const events: Array<{ kind: string; detail: unknown }> = []
  let runId = o.runId
  if (runId === undefined) {
    runId = nextRun.get(lab) ?? lab.firstRunId
    nextRun.set(lab, runId + 1)
  }
  const ctx: RunContext = {
    plan: { runId, spec, scheme: spec.schemes[0], load: spec.workload.loads[0], seed: 1 },
    signal: abort.signal,
    log: (s, l) => logs.push(`${s}: ${l}`),
    event: (kind, detail) => events.push({ kind, detail }),
    testbed: o.tb ?? labTestbed(lab),
  }
  const runDirBase = o.remoteBase ?? join(lab.dir, 'runs')
  const driver = new Bmv2Driver({
    store: lab.store,
    knownHosts: lab.knownHosts,
    secrets: new MemorySecretStore(),
    dataDir: o.dataDir ?? lab.dir,
    p4Dir: join(ROOT, 'p4'),
    agentFile: join(ROOT, 'resources/agent/p4lab_agent.py'),
    localRunner: null,
    compilerPaths: { 'p4c-bm2-ss': lab.stub },
    remoteBase: runDirBase,
    graceMs: 1000,
  })
  return { session: driver.open(ctx), ctx, abort, logs, events, runDirBase }
}

// What the BMv2 driver tests share: a real sshd on 127.0.0.1 whose host key is trusted, a
// SQLite store, a stand-in compiler (answers --version, logs its arguments, writes fixture.p4's
// real outputs: there is no p4c here), the one-host testbed on that sshd, and sessions of the
// real driver on all of it. On request, stand-ins for simple_switch and simple_switch_CLI too
// (see SWITCH_STAND_IN), so that a run can deploy.
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
  /** The switches are stand-ins that forward nothing (Bmv2LabOptions.switchStandIn). */
  standIn: boolean
}

/**
 * There is no BMv2 here. With `switchStandIn`, the sshd's sessions find these two first on
 * their PATH (sshd_config SetEnv), so a run's deploy gets past "start the switches" and
 * "configure them", and the processes a real run has are there to stop at teardown:
 * - simple_switch: checks what the real one needs (its interfaces exist in its namespace,
 *   the JSON is there), listens on its thrift port and stays up until signalled;
 * - simple_switch_CLI: reaches that port (or prints the real CLI's "Could not connect"
 *   text), then answers each command on its stdin in the format of the real transcripts
 *   (test/fixtures/bmv2/cli-session-ok.txt): a prompt before every answer, handles counted
 *   per table and per session, registers and counters read as 0.
 * It forwards nothing: traffic through it fails.
 * With P4LAB_STANDIN_LOG in their environment (a file), both append what they were asked to do
 * there: `switch DEVICE thrift PORT netns NS ifaces PORT@IF,...` as a switch starts (NS: the
 * network namespace it runs in, found as `ip netns identify` does), and `cli thrift PORT netns
 * NS commands N table_add M` per CLI session. A test reads it to see which host ran what.
 */
export const SWITCH_STAND_IN = `#!/usr/bin/python3
import os, signal, socket, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("0.0.0 (p4lab test stand-in, not BMv2)")
    sys.exit(0)
port, ifaces, i = None, [], 0
while i < len(args) - 1:
    if args[i] == "--thrift-port":
        port = int(args[i + 1])
    elif args[i] == "-i":
        ifaces.append(args[i + 1].split("@", 1)[1])
    i += 1
missing = [n for n in ifaces if not os.path.exists("/sys/class/net/" + n)]
if port is None or not os.path.isfile(args[-1]) or missing:
    print("simple_switch stand-in: bad arguments or missing interfaces %s" % missing, file=sys.stderr)
    sys.exit(1)
def netns():
    me = os.stat("/proc/self/ns/net")
    names = sorted(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else []
    for n in names:
        try:
            st = os.stat("/run/netns/" + n)
        except OSError:
            continue
        if (st.st_ino, st.st_dev) == (me.st_ino, me.st_dev):
            return n
    return "-"
if os.environ.get("P4LAB_STANDIN_LOG"):
    with open(os.environ["P4LAB_STANDIN_LOG"], "a") as f:
        f.write("switch %s thrift %d netns %s ifaces %s\\n" % (args[args.index("--device-id") + 1], port, netns(), ",".join(a for a in args if "@" in a and not a.startswith("ipc:"))))
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", port))
srv.listen(16)
print("Thrift server was started", flush=True)
while True:
    c, _ = srv.accept()
    c.close()
`

export const CLI_STAND_IN = `#!/usr/bin/python3
import os, socket, sys
args = sys.argv[1:]
port = int(args[args.index("--thrift-port") + 1])
try:
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
except OSError:
    print("Could not connect to any of [('127.0.0.1', %d)]" % port)
    print("Could not connect to thrift client on port %d" % port)
    print("Make sure the switch is running and that you have the right port")
    sys.exit(1)
print("Obtaining JSON from switch...\\nDone\\nControl utility for runtime P4 table manipulation")
handles, nodes = {}, 0
out = []
for line in sys.stdin:
    w = line.split()
    out.append("RuntimeCmd: ")
    if not w:
        continue
    if w[0] == "table_add":
        h = handles.get(w[1], 0)
        handles[w[1]] = h + 1
        out.append("Adding entry to match table %s\\naction:              %s\\nEntry has been added with handle %d\\n" % (w[1], w[2], h))
    elif w[0] == "table_set_default":
        out.append("Setting default action of %s\\naction:              %s\\n" % (w[1], w[2]))
    elif w[0] == "mc_mgrp_create":
        out.append("Creating multicast group %s\\n" % w[1])
    elif w[0] == "mc_node_create":
        out.append("Creating node with rid %s , port map and lag map \\nnode was created with handle %d\\n" % (w[1], nodes))
        nodes += 1
    elif w[0] == "mc_node_associate":
        out.append("Associating node %s to multicast group %s\\n" % (w[2], w[1]))
    elif w[0] == "register_read" and len(w) > 2:
        out.append("%s[%s]= 0\\n" % (w[1], w[2]))
    elif w[0] == "register_read":
        out.append("register index omitted, reading entire array\\n%s= 0, 0, 0, 0\\n" % w[1])
    elif w[0] == "counter_read":
        out.append("%s[%s]= (0 bytes, 0 packets)\\n" % (w[1], w[2]))
    elif w[0] == "table_num_entries":
        out.append("0\\n")
out.append("RuntimeCmd: ")
sys.stdout.write("".join(out))
if os.environ.get("P4LAB_STANDIN_LOG") and out.count("RuntimeCmd: ") > 1:
    me = os.stat("/proc/self/ns/net")
    ns = "-"
    for n in (sorted(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else []):
        st = os.stat("/run/netns/" + n)
        if (st.st_ino, st.st_dev) == (me.st_ino, me.st_dev):
            ns = n
    with open(os.environ["P4LAB_STANDIN_LOG"], "a") as f:
        f.write("cli thrift %d netns %s commands %d table_add %d\\n" % (port, ns, out.count("RuntimeCmd: ") - 1, sum(handles.values())))
`

export interface Bmv2LabOptions {
  /** Extra sshd_config lines (e.g. `MaxSessions 3`). */
  sshdConfig?: readonly string[]
  /** Stand-ins for simple_switch and simple_switch_CLI on the sessions' PATH (see SWITCH_STAND_IN). */
  switchStandIn?: boolean
  /** Tools hidden from, or added to, what the sshd's sessions see (SshdImage). */
  image?: SshdImage
}

/** The stand-in p4c-bm2-ss: answers --version, logs its arguments to argvLog, writes fixture.p4's real outputs. */
export function compilerStandIn(argvLog: string): string {
  return `#!/bin/sh
if [ "$1" = "--version" ]; then echo p4c-bm2-ss; echo "Version 0.0.0 (p4lab test stand-in, not p4c)"; exit 0; fi
echo "$*" >> ${q([argvLog])}
out=; info=
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift ;; --p4runtime-files) info=$2; shift ;; esac; shift; done
cp ${q([join(BMV2_FIXTURES, 'fixture.bmv2.json')])} "$out" && cp ${q([join(BMV2_FIXTURES, 'fixture.p4info.txtpb')])} "$info"
`
}

export async function startBmv2Lab(name: string, firstRunId: number, o: Bmv2LabOptions = {}): Promise<Bmv2Lab> {
  const dir = mkdtempSync(join(tmpdir(), `p4lab-${name}-`))
  const config = [...(o.sshdConfig ?? [])]
  if (o.switchStandIn) {
    const bin = join(dir, 'switch-bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'simple_switch'), SWITCH_STAND_IN, { mode: 0o755 })
    writeFileSync(join(bin, 'simple_switch_CLI'), CLI_STAND_IN, { mode: 0o755 })
    // The stand-in compiler too, for runs through the core (which look for p4c-bm2-ss on the host).
    config.push(`SetEnv PATH=${bin}:${join(dir, 'bin')}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`)
  }
  const sshd = await startSshd({ config, image: o.image })
  const knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
  const store = openStore(join(dir, 'p4lab.db'))
  const stub = join(dir, 'bin', 'p4c-bm2-ss')
  const argvLog = join(dir, 'p4c-argv.log')
  mkdirSync(join(dir, 'bin'))
  writeFileSync(stub, compilerStandIn(argvLog))
  chmodSync(stub, 0o755)
  return { sshd, dir, store, knownHosts, stub, argvLog, firstRunId, standIn: o.switchStandIn === true }
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
    // Stand-in switches forward nothing, so there is no capacity to measure: the rate
    // calibration (tested on a real forwarder in bmv2-calibrate-netns.test.ts) stays off.
    settings: { bringUp: 'netns', rateCeilingBps: 1e9, ...(lab.standIn ? { calibrate: false } : {}) },
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
    artifacts: lab.store,
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

// The BMv2 driver's remote steps, one function each so tests can drive them against the
// real sshd: topology bring-up (netns + veth), starting simple_switch, configuring it with
// its command file piped into simple_switch_CLI (the transcript parsed: the CLI exits 0 on
// errors), and telemetry poll rounds (one CLI process per switch per round).
import type { RunTestbedHost } from '../driver'
import { cliInput, parseCliSession, parsePollRound, pollCommands, type CliCommandResult, type PollRead, type PollRound } from './output'
import { collectorBatch, hostBatch, linksBatch, namespacesBatch, switchInterfaceArgs, switchNsIfnames, type NetnsPlan, type PlannedSwitch } from '../shared/netns'
import { FROM_FILE, PATH_PREFIX, WITH_PATH, sleep, type RemoteRun } from '../shared/remote'
import { CancelledError } from '../driver'

/**
 * Checksum offloads off on the veths named in "$@" (in namespace $ns). With them on, the kernel
 * leaves TCP checksums for the "hardware" to fill, simple_switch forwards the packets byte for
 * byte, and the receiver drops them: a real run lost 600 of 600 flows that way. So an `ethtool -K`
 * that fails (or an ethtool gone missing since bringUpTopology looked) fails the deploy step.
 */
const ETHTOOL_OFF = `for i; do e=$(ip netns exec "$ns" ethtool -K "$i" tx off rx off 2>&1) || { echo "p4lab: ethtool -K $i tx off rx off failed in $ns: $e" >&2; exit 1; }; done`

/** Configures one host namespace: its ip batch from stdin, then checksum offloads off on eth0. */
export const HOST_NS_SCRIPT = `${PATH_PREFIX}
ns=$1
ip -n "$ns" -batch - || exit 1
set -- eth0
${ETHTOOL_OFF}
exit 0`

/**
 * The switch namespace: IPv6 off (no router solicitations into the switches), then the links batch from stdin, then
 * offloads off on the interfaces named after the namespace. The INT collector's namespace too, with no interface named.
 */
export const SWITCH_NS_SCRIPT = `${PATH_PREFIX}
ns=$1; shift
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1 || echo "p4lab: could not turn IPv6 off in $ns" >&2
ip -n "$ns" -batch - || exit 1
[ "$#" -eq 0 ] && exit 0
${ETHTOOL_OFF}
exit 0`

/** Brings up the plan's namespaces and veths on the switch host. Throws on the first failure (teardown cleans up). */
export async function bringUpTopology(run: RemoteRun, h: RunTestbedHost, plan: NetnsPlan): Promise<void> {
  run.touched.add(h.id)
  const c = plan.collector
  const namespaces = 1 + plan.hosts.length + (c ? 1 : 0)
  const pairs = plan.links.length + (c?.links.length ?? 0)
  // Before anything is made: without ethtool the fabric would come up and drop every TCP flow.
  await run.requireTools(h, ['ip', 'ethtool'])
  run.ctx.log(h.name, `topology: ${namespaces} namespaces, ${pairs} veth pairs, prefix ${plan.prefix}${c ? ` (INT collector namespace ${c.ns}, ${c.links.length} of the pairs)` : ''}`)
  await run.script(h, 'p4lab-netns', WITH_PATH, ['ip', '-batch', '-'], { stdin: namespacesBatch(plan) })
  await run.script(h, 'p4lab-links', SWITCH_NS_SCRIPT, [plan.switchNs, ...switchNsIfnames(plan)], { stdin: linksBatch(plan) })
  for (const host of plan.hosts) {
    await run.script(h, 'p4lab-host', HOST_NS_SCRIPT, [host.ns], { stdin: hostBatch(host) })
  }
  if (c) await run.script(h, 'p4lab-collector', SWITCH_NS_SCRIPT, [c.ns], { stdin: collectorBatch(c) })
  run.ctx.event?.('deploy', { part: 'topology', prefix: plan.prefix, namespaces, links: pairs, ...(c ? { collectorNs: c.ns } : {}) })
}

/** `ip netns exec NS` (or nothing, for a CLI reached without a namespace). */
export function nsExec(ns: string | null): string[] {
  return ns ? ['ip', 'netns', 'exec', ns] : []
}

export interface SwitchFiles {
  /** Absolute path of the compiled BMv2 JSON on the host. */
  json: string
  /** Absolute path of the run directory (logs). */
  dir: string
}

export function simpleSwitchArgv(s: PlannedSwitch, plan: NetnsPlan, files: SwitchFiles, simpleSwitch = 'simple_switch'): string[] {
  return [
    ...nsExec(plan.switchNs),
    simpleSwitch,
    '--device-id',
    String(s.deviceId),
    '--thrift-port',
    String(s.thriftPort),
    '--log-file',
    `${files.dir}/${s.name}-bmv2`,
    '--log-level',
    'warn',
    '--log-flush',
    '--notifications-addr',
    `ipc:///tmp/${plan.prefix}${s.index}.ipc`,
    ...switchInterfaceArgs(s),
    files.json,
  ]
}

export interface CliTarget {
  /** The namespace the CLI runs in (the switch namespace), or null. */
  ns: string | null
  thriftPort: number
  /** The CLI program and any arguments before `--thrift-port` (default ['simple_switch_CLI']). */
  cli?: string[]
}

function cliArgv(t: CliTarget): string[] {
  return [...nsExec(t.ns), ...(t.cli ?? ['simple_switch_CLI']), '--thrift-port', String(t.thriftPort)]
}

/** Waits until the switch's thrift server answers (a CLI session with no command gets a prompt), or its process died. */
export async function waitSwitchReady(run: RemoteRun, h: RunTestbedHost, name: string, procName: string, t: CliTarget, timeoutMs = 20_000): Promise<void> {
  const procs = await run.processes(h)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    run.throwIfCancelled()
    const st = await procs.status(procName)
    if (!st.alive) {
      const log = (await procs.readLog(procName, 4096).catch(() => '')).trim()
      throw new Error(`simple_switch for ${name} exited right after it started${log ? `: ${log.split('\n').slice(-5).join(' / ')}` : ''}`)
    }
    const r = await run.script(h, 'p4lab-cli', WITH_PATH, cliArgv(t), { stdin: '', check: false, logOutput: false })
    const text = r.stdout.toString('utf8') + r.stderr.toString('utf8')
    if (text.includes('RuntimeCmd:')) return
    if (Date.now() > deadline) throw new Error(`simple_switch for ${name} did not answer on thrift port ${t.thriftPort} within ${timeoutMs / 1000} s: ${text.trim().split('\n').slice(-2).join(' / ')}`)
    await sleep(300, run.ctx.signal)
  }
}

export class CliConfigError extends Error {
  constructor(
    readonly switchName: string,
    readonly failures: CliCommandResult[],
    readonly connectError: string | null,
  ) {
    const first = failures.slice(0, 3).map((f) => `command ${f.index + 1} \`${f.command}\`: ${f.error?.message ?? 'failed'}`)
    super(
      connectError
        ? `configuring ${switchName}: simple_switch_CLI could not reach the switch: ${connectError}`
        : `configuring ${switchName}: ${failures.length} of its commands failed: ${first.join('; ')}${failures.length > 3 ? '; …' : ''}`,
    )
    this.name = 'CliConfigError'
  }
}

/**
 * Pipes the command file (already on the host; or `{ stdin }`, the commands themselves) into
 * simple_switch_CLI and reads the transcript: any failed command fails the step, naming the
 * command and the CLI's message. Multicast node handles are checked against the ones the file expects.
 */
export async function configureSwitch(run: RemoteRun, h: RunTestbedHost, name: string, file: string | { stdin: string }, commands: readonly string[], t: CliTarget): Promise<CliCommandResult[]> {
  const r =
    typeof file === 'string'
      ? await run.script(h, 'p4lab-configure', FROM_FILE, [file, ...cliArgv(t)], { check: false, logOutput: false })
      : await run.script(h, 'p4lab-configure', WITH_PATH, cliArgv(t), { stdin: file.stdin, check: false, logOutput: false })
  const transcript = r.stdout.toString('utf8') + r.stderr.toString('utf8')
  const session = parseCliSession(commands, transcript)
  const failures = [...session.failures]
  // The rendered file names the mc node handles it expects (0, 1, ... on a fresh switch): every
  // handle it associates must be one the switch printed for an mc_node_create before it.
  const created = new Set<number>()
  for (const res of session.results) {
    if (res.value?.type === 'mc-node-handle') created.add(res.value.handle)
    else if (res.ok && res.command.startsWith('mc_node_associate')) {
      const handle = Number(res.command.trim().split(/\s+/)[2])
      if (!created.has(handle)) {
        failures.push({ ...res, ok: false, error: { kind: 'unexpected-output', message: `associates node handle ${handle}, but the switch created ${[...created].join(', ') || 'none'}` } })
      }
    }
  }
  for (const f of failures.slice(0, 20)) run.ctx.log(h.name, `${name}: command ${f.index + 1} \`${f.command}\`: ${f.error?.message}`)
  if (failures.length || session.connectError) throw new CliConfigError(name, failures, session.connectError)
  run.ctx.log(h.name, `${name}: ${commands.length} commands applied`)
  return session.results
}

/** One telemetry poll round of one switch: one CLI process carrying every read. */
export async function pollSwitch(run: RemoteRun, h: RunTestbedHost, reads: readonly PollRead[], t: CliTarget): Promise<PollRound> {
  const r = await run.script(h, 'p4lab-poll', WITH_PATH, cliArgv(t), { stdin: cliInput(pollCommands(reads)), check: false, logOutput: false, retryOnLoss: true })
  if (run.ctx.signal.aborted) throw new CancelledError()
  return parsePollRound(reads, r.stdout.toString('utf8') + r.stderr.toString('utf8'))
}

// What the BMv2 and Tofino drivers share: logging in to a stored testbed's hosts, running
// argv lists there with every line in the run's log, a per-run directory and its detached
// processes (RemoteProcesses), the traffic agents, and the teardown check.
// Every remote command line is built from an argv by cmd()/q() or is a constant script
// taking its data as positional parameters (shScript).
import { randomBytes } from 'node:crypto'
import { buildFabric, destinationRule } from '../../../model/topology'
import type { SecretStore } from '../../secrets'
import type { ExperimentSpec } from '../../spec'
import { HostKeyUnknownError, RemoteProcesses, SshPool, isUnreachable, q, shScript, withoutKeyFile, type ExecResult, type KnownHosts, type SshHost, type SshTarget } from '../../ssh'
import { checkHost } from '../../testbeds/check'
import { passphraseSecretId } from '../../testbeds/service'
import { DEFAULT_RECONNECT_WINDOW_S, type HostCheck, type HostRole, type RemoteKind } from '../../../contract/schemas'
import { describeTool } from '../kinds'
import { CancelledError, TestbedUnreachableError, type RunContext, type RunTestbedHost } from '../driver'
import { AgentOutputCollector, type AgentOutput } from './agent'
import { cleanTestbedLeftovers, recordLeftover, type CleanupResult } from './leftovers'
import { describeLeftovers, parseLeftovers, TEARDOWN_SCRIPT, VERIFY_SCRIPT, type Leftovers } from './netns'

export interface RemoteDeps {
  knownHosts: KnownHosts
  secrets: SecretStore
  /** ms for TCP connect + handshake + login. Default 15 000. */
  connectTimeoutMs?: number
  /** Parent of the per-run directories on the hosts (relative: the login directory). Default `.p4lab/runs`. */
  remoteBase?: string
  /** ms between TERM and KILL when stopping a process group. Default 3000. */
  graceMs?: number
  env?: NodeJS.ProcessEnv
  /**
   * Where a teardown that could not finish records what it left on a host, for the cleanup at
   * the next run on the testbed or `p4lab testbed clean` (./leftovers.ts). Without it nothing is recorded.
   */
  dataDir?: string
}

/** A widened PATH for tools in sbin or /usr/local (a non-login shell may lack them). */
export const PATH_PREFIX = 'PATH="$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin"; export PATH'

/** Prints the tools ($@) that are not on PATH, one per line. */
const MISSING_TOOLS = `${PATH_PREFIX}
for t; do command -v "$t" >/dev/null 2>&1 || printf '%s\\n' "$t"; done
exit 0`

/** Runs stdin through `"$@"` reading from the file $1: `CMD… < FILE`. */
export const FROM_FILE = `f=$1; shift
${PATH_PREFIX}
exec "$@" < "$f"`

/** Runs "$@" with the widened PATH (for tools in sbin). */
export const WITH_PATH = `${PATH_PREFIX}
exec "$@"`

/** A tool a host lacks; with Check's findings when it came from there (why the run needs it, where to get it). */
export interface MissingTool {
  name: string
  /** Check's detail: `not found on PATH`, or why a tool on PATH does not run. */
  detail?: string | null
  why?: string
  install?: string
}

const NOT_FOUND = 'not found on PATH'
const DOES_NOT_RUN = 'on PATH but does not run'

export class ToolMissingError extends Error {
  readonly tools: string[]

  constructor(
    missing: ReadonlyArray<string | MissingTool>,
    readonly host: string,
  ) {
    const list = missing.map((t) => (typeof t === 'string' ? { name: t } : t))
    const runs = (t: MissingTool) => !t.detail?.startsWith(DOES_NOT_RUN)
    const absent = list.filter(runs).map((t) => t.name)
    const parts: string[] = []
    if (absent.length) parts.push(`${absent.join(', ')} ${absent.length === 1 ? 'is' : 'are'} not installed on ${host} (${NOT_FOUND})`)
    for (const t of list) if (!runs(t)) parts.push(`${t.name} is on PATH on ${host} but does not run (${t.detail!.slice(DOES_NOT_RUN.length + 2)})`)
    const why = list.filter((t) => t.why).map((t) => `${t.name} ${t.why}${t.install ? `; install: ${t.install}` : ''}`)
    super(`${parts.join('; ')}. ${why.map((w) => w + '. ').join('')}See docs/TESTBEDS.md for what a host needs`)
    this.name = 'ToolMissingError'
    this.tools = list.map((t) => t.name)
  }
}

export async function sshTarget(h: RunTestbedHost, secrets: SecretStore): Promise<SshTarget> {
  if (h.auth === 'agent') return { host: h.address, port: h.port, user: h.user, auth: { kind: 'agent' } }
  const id = passphraseSecretId(h.id)
  const has = (await secrets.get(id)) !== undefined
  return { host: h.address, port: h.port, user: h.user, auth: { kind: 'key', path: h.keyFile ?? '', ...(has ? { passphraseSecret: id } : {}) } }
}

/** Two random base-36 characters: makes a run's names unique on a host shared by several p4labs. */
export function nonce(): string {
  const b = randomBytes(2)
  const a = '0123456789abcdefghijklmnopqrstuvwxyz'
  return a[b[0] % 36] + a[b[1] % 36]
}

export interface ExecLogged {
  /** Written to the command's stdin. */
  stdin?: string
  /** Lines of output go to the run's log (default true); false keeps them out (poll rounds). */
  logOutput?: boolean
  /** Fails unless it exits 0 (default true). */
  check?: boolean
  /** Cancel with the run (default true; false for teardown, which must run after a cancel). */
  cancellable?: boolean
  /** Teardown's: a session before any other waiting command, another connection when all are busy. */
  priority?: boolean
  maxCapture?: number
  /** The command only reads: sent again when the connection drops under it and comes back (ExecOptions.retryOnLoss). */
  retryOnLoss?: boolean
}

/**
 * One run's remote side: the SSH connections to the testbed's hosts, the run directory on
 * each, and the processes started there. Created at open(), closed at teardown.
 */
export class RemoteRun {
  readonly pool: SshPool
  /** Unique on every host: `run-<id>-<nonce>` (a safe name for RemoteProcesses). */
  readonly key: string
  private readonly hosts = new Map<number, SshHost>()
  private readonly procs = new Map<number, RemoteProcesses>()
  private readonly teardownProcs = new Map<number, RemoteProcesses>()
  private readonly homes = new Map<number, string>()
  /** Hosts on which this run made a directory or started something (teardown visits them). */
  readonly touched = new Set<number>()

  constructor(
    readonly ctx: RunContext,
    readonly deps: RemoteDeps,
    readonly nonceText: string,
  ) {
    this.key = `run-${ctx.plan.runId}-${nonceText}`
    this.pool = new SshPool({
      knownHosts: deps.knownHosts,
      secrets: deps.secrets,
      readyTimeout: deps.connectTimeoutMs ?? 15_000,
      env: deps.env,
      // A dropped connection is retried for the testbed's reconnect window (read-only
      // commands in flight are sent again once it is back); past it the run fails.
      backoff: { windowMs: reconnectWindowMs(ctx.testbed?.settings), initialMs: 500, maxMs: 5000 },
      log: (line) => ctx.log('ssh', line),
    })
  }

  get base(): string {
    return (this.deps.remoteBase ?? '.p4lab/runs').replace(/\/+$/, '')
  }

  throwIfCancelled(): void {
    if (this.ctx.signal.aborted) throw new CancelledError()
  }

  async host(h: RunTestbedHost): Promise<SshHost> {
    let s = this.hosts.get(h.id)
    if (!s) {
      s = this.pool.host(await sshTarget(h, this.deps.secrets))
      this.hosts.set(h.id, s)
    }
    return s
  }

  /** The run's processes on the host; `teardown`: the same processes, every command with priority. */
  async processes(h: RunTestbedHost, o: { teardown?: boolean } = {}): Promise<RemoteProcesses> {
    const map = o.teardown ? this.teardownProcs : this.procs
    let p = map.get(h.id)
    if (!p) {
      p = new RemoteProcesses(await this.host(h), this.key, { baseDir: this.base, graceMs: this.deps.graceMs ?? 3000, priority: !!o.teardown })
      map.set(h.id, p)
    }
    return p
  }

  /** The run directory on the host, absolute (`$HOME/<base>/<key>` for a relative base). */
  async runDir(h: RunTestbedHost, o: { priority?: boolean } = {}): Promise<string> {
    let home = this.homes.get(h.id)
    if (home === undefined) {
      const s = await this.host(h)
      const r = await s.exec(shScript('printf "%s" "$HOME"', 'p4lab-home'), o.priority ? { priority: true } : {})
      home = r.stdout.toString('utf8')
      this.homes.set(h.id, home)
    }
    return this.base.startsWith('/') ? `${this.base}/${this.key}` : `${home}/${this.base}/${this.key}`
  }

  /** Runs argv on the host (or a constant script via shScript when `line` is given), logging the command and its output. */
  async run(h: RunTestbedHost, argv: readonly string[], opts: ExecLogged & { line?: string } = {}): Promise<ExecResult> {
    if (opts.cancellable !== false) this.throwIfCancelled()
    const s = await this.host(h)
    const line = opts.line ?? q(argv)
    const shown = argv.length ? q(argv) : line
    this.ctx.log(h.name, `$ ${shown.length > 400 ? shown.slice(0, 400) + '…' : shown}`)
    let r: ExecResult
    try {
      r = await s.exec(line, {
        ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
        ...(opts.cancellable !== false ? { signal: this.ctx.signal } : {}),
        ...(opts.priority ? { priority: true } : {}),
        ...(opts.retryOnLoss ? { retryOnLoss: true } : {}),
        maxCapture: opts.maxCapture ?? 16 << 20,
        ...(opts.logOutput === false ? {} : { onLine: (l: string, stream: string) => this.ctx.log(h.name, stream === 'stderr' ? `! ${l}` : l) }),
      })
    } catch (e) {
      if (opts.cancellable !== false && this.ctx.signal.aborted) throw new CancelledError()
      throw e
    }
    if ((opts.check ?? true) && r.code !== 0) {
      const tail = (r.stderr.toString('utf8') || r.stdout.toString('utf8')).trim().split('\n').slice(-5).join(' / ')
      const why = r.code === null ? `was killed by ${r.signal ?? 'a signal'}` : `exited with ${r.code}`
      throw new Error(`${h.name}: ${argv[0] ?? 'a command'} ${why}${tail ? `: ${tail}` : ''}`)
    }
    return r
  }

  /** A constant script with positional data (shScript): the only shell text this run sends. */
  script(h: RunTestbedHost, name: string, script: string, args: readonly string[], opts: ExecLogged = {}): Promise<ExecResult> {
    return this.run(h, ['sh', '-c', `<${name}>`, ...args], { ...opts, line: shScript(script, name, args) })
  }

  /** The tools of `tools` that the host lacks. */
  async missingTools(h: RunTestbedHost, tools: readonly string[]): Promise<string[]> {
    const r = await this.script(h, 'p4lab-tools', MISSING_TOOLS, tools, { logOutput: false })
    return r.stdout.toString('utf8').split('\n').filter(Boolean)
  }

  async requireTools(h: RunTestbedHost, tools: readonly string[]): Promise<void> {
    const missing = await this.missingTools(h, tools)
    if (missing.length) throw new ToolMissingError(missing.map((name) => ({ name, ...describeTool(name) })), `${h.name} (${h.user}@${h.address})`)
  }

  /** Logs in to the host and looks for the tools of its role (the testbeds' Check), failing on a missing required one. */
  async checkHost(kind: RemoteKind, settings: Record<string, unknown>, h: RunTestbedHost, ignore: readonly string[] = []): Promise<HostCheck> {
    this.throwIfCancelled()
    // Logged in first, apart from the tools: a host this run cannot reach is the testbed's
    // failure (the orchestrator holds the runs queued behind it), a missing tool is the run's.
    await this.reach(h)
    const target = await sshTarget(h, this.deps.secrets)
    const r = await checkHost(this.pool, kind, settings, { name: h.name, role: h.role as HostRole, target }, { signal: this.ctx.signal })
    if (this.ctx.signal.aborted) throw new CancelledError()
    for (const t of r.tools) {
      this.ctx.log(h.name, `check: ${t.name}: ${t.found ? `${t.version ?? 'found'}${t.path ? ` (${t.path})` : ''}` : `missing${t.required ? ' (required)' : ''}: ${t.detail ?? ''}`}`)
    }
    if (r.status === 'unknown-key') {
      throw new Error(`${h.name}: the host key ${r.hostKey?.fingerprint ?? ''} is not trusted yet; compare it and run: p4lab testbed trust ${this.ctx.testbed?.name ?? 'TESTBED'}`)
    }
    if (r.status !== 'ok') throw new Error(`${h.name}: ${r.message ?? r.status}`)
    const missing = r.tools.filter((t) => r.missing.includes(t.name) && !ignore.includes(t.name))
    if (missing.length) throw new ToolMissingError(missing, `${h.name} (${h.user}@${h.address})`)
    return r
  }

  /** Logs in to the host, or throws TestbedUnreachableError saying why it cannot. */
  async reach(h: RunTestbedHost): Promise<void> {
    try {
      await (await this.host(h)).connect()
    } catch (e) {
      if (this.ctx.signal.aborted) throw new CancelledError()
      if (!isUnreachable(e)) throw e
      const testbed = this.ctx.testbed?.name ?? '?'
      // The reason becomes this run's error and that of every run held behind it: the local
      // key file is named by its host there, and by its path in this run's log alone.
      const why = e instanceof HostKeyUnknownError ? `the host key ${e.fingerprint} is not trusted yet; compare it and run: p4lab testbed trust ${testbed}` : withoutKeyFile(e, `of host ${h.name}`)
      if (why !== e.message) this.ctx.log(h.name, e.message)
      throw new TestbedUnreachableError(testbed, h.name, why, { cause: e })
    }
  }

  /** Fails unless the login user is root (namespaces, veths and raw sockets need it). */
  async requireRoot(h: RunTestbedHost): Promise<void> {
    const r = await this.run(h, ['id', '-u'], { logOutput: false })
    if (r.stdout.toString('utf8').trim() !== '0') {
      throw new Error(`${h.name}: p4lab logs in as ${h.user}, but network namespaces, veth pairs and simple_switch need root; add the host with user root (see docs/TESTBEDS.md)`)
    }
  }

  /** Stops every process of this run on the host (by process group) and logs what was signalled. Teardown's: with priority. */
  async stopAll(h: RunTestbedHost): Promise<void> {
    const p = await this.processes(h, { teardown: true })
    const stopped = await p.stopAll()
    for (const s of stopped) if (s.signalled !== 'none') this.ctx.log(h.name, `stopped ${s.name} (group ${s.pid}) with ${s.signalled}`)
  }

  /**
   * Removes everything named with the run's prefix (when it made namespaces) and returns what is
   * left: namespaces, interfaces, processes in them, and live members of the run's process groups.
   */
  async cleanAndVerify(h: RunTestbedHost, prefix: string | null): Promise<Leftovers> {
    const opts = { cancellable: false, check: false, priority: true } as const
    if (prefix) await this.script(h, 'p4lab-teardown', TEARDOWN_SCRIPT, [prefix], opts)
    const found = prefix ? parseLeftovers((await this.script(h, 'p4lab-verify', VERIFY_SCRIPT, [prefix], { ...opts, logOutput: false })).stdout.toString('utf8')) : { namespaces: [], links: [], pids: [], files: [] }
    const p = await this.processes(h, { teardown: true })
    const processes: Leftovers['processes'] = []
    for (const name of await p.list()) {
      const st = await p.status(name)
      if (st.members.length) processes.push({ name, pids: st.members })
    }
    return { ...found, processes }
  }

  async removeRunDir(h: RunTestbedHost): Promise<void> {
    const dir = await this.runDir(h, { priority: true })
    await this.run(h, ['rm', '-rf', '--', dir], { cancellable: false, check: false, logOutput: false, priority: true })
  }

  /** Records that this run's teardown did not finish on the host (./leftovers.ts); returns the record's file, if one was written. */
  recordLeftover(h: RunTestbedHost, prefix: string | null, reason: string): string | null {
    const tb = this.ctx.testbed
    if (!this.deps.dataDir || !tb) return null
    try {
      return recordLeftover(this.deps.dataDir, {
        testbed: tb.name,
        runId: this.ctx.plan.runId,
        runKey: this.key,
        base: this.base,
        prefix,
        host: { id: h.id, name: h.name, address: h.address, port: h.port, user: h.user },
        reason,
        at: new Date().toISOString(),
      })
    } catch (e) {
      this.ctx.log(h.name, `teardown: cannot record what is left for a later cleanup: ${(e as Error).message}`)
      return null
    }
  }

  /** Cleans what earlier runs left on this testbed's hosts (./leftovers.ts), through this run's connections and log. */
  async cleanLeftovers(): Promise<CleanupResult[]> {
    const tb = this.ctx.testbed
    if (!this.deps.dataDir || !tb) return []
    const results = await cleanTestbedLeftovers(this.deps.dataDir, tb, (h) => this.host(h), (l) => this.ctx.log('cleanup', l))
    if (results.length) this.ctx.event?.('cleanup', { results })
    return results
  }

  close(): void {
    this.pool.closeAll()
  }
}

/** The testbed's reconnect window (settings.reconnectWindowS), in ms. */
export function reconnectWindowMs(settings: Record<string, unknown> | undefined): number {
  const s = settings?.reconnectWindowS
  return (typeof s === 'number' && Number.isFinite(s) && s >= 0 ? s : DEFAULT_RECONNECT_WINDOW_S) * 1000
}

/** Teardown of one host: stop the run's processes, delete what it made, verify, remove its directory. */
export async function teardownHost(run: RemoteRun, h: RunTestbedHost, prefix: string | null, opts: { keepRunDir?: boolean } = {}): Promise<string | null> {
  const problems: string[] = []
  try {
    await run.stopAll(h)
  } catch (e) {
    problems.push(`stopping the run's processes: ${(e as Error).message}`)
  }
  let left: Leftovers | undefined
  try {
    left = await run.cleanAndVerify(h, prefix)
  } catch (e) {
    problems.push(`cleaning up: ${(e as Error).message}`)
  }
  const what = left ? describeLeftovers(left) : null
  if (what) problems.push(`left behind: ${what}`)
  // A teardown that could not run its commands is not clean, whatever it did not get to see.
  run.ctx.event?.('teardown', { host: h.name, clean: problems.length === 0, ...(left ? { leftovers: left } : {}) })
  if (problems.length === 0) {
    run.ctx.log(h.name, `teardown: verified, nothing of ${run.key}${prefix ? ` (prefix ${prefix})` : ''} is left`)
    if (!opts.keepRunDir) await run.removeRunDir(h).catch(() => undefined)
    return null
  }
  for (const p of problems) run.ctx.log(h.name, `teardown ERROR: ${p}`)
  const file = run.recordLeftover(h, prefix, problems.join('; '))
  if (file) run.ctx.log(h.name, `teardown: recorded in ${file}; what is left is removed at the next run on testbed ${run.ctx.testbed?.name ?? '?'} or by: p4lab testbed clean ${run.ctx.testbed?.name ?? 'TESTBED'}`)
  return `${h.name}: ${problems.join('; ')}`
}

/** Splits `total` flows over `n` hosts as evenly as possible (the first ones get one more). */
export function splitFlows(total: number, n: number): number[] {
  const base = Math.floor(total / n)
  return Array.from({ length: n }, (_, i) => base + (i < total % n ? 1 : 0))
}

/**
 * Whether fabric host `dst` is a destination of host `src` under the workload's
 * `destinations` (other racks by default; other pods), by fabric host index: the rule the
 * simulator draws with, so a testbed's agents pick from the same hosts.
 */
export function destinationRuleOf(spec: ExperimentSpec): (src: number, dst: number) => boolean {
  const w = spec.workload
  return destinationRule(buildFabric(spec.topology), 'destinations' in w && w.destinations ? w.destinations : 'other-racks')
}

/** Agent output files → flows, with per-host sources. */
export function collectAgentFlows(files: Array<{ hostIndex: number; source: string; text: string }>, hostOf: (ip: string) => number | undefined): AgentOutput {
  const c = new AgentOutputCollector({ hostOf })
  for (const f of files) c.addText(f.text, f.source, f.hostIndex)
  return c.result()
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(done, ms)
    function done() {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })

/**
 * Tears down every host the run touched, then closes the run's connections. Whatever a
 * host could not clean up is collected, so one stuck host does not hide another's state.
 * `prefixOf` gives the interface/namespace prefix to remove on hosts that carried the fabric.
 */
export async function teardownTouchedHosts(
  run: RemoteRun,
  hosts: readonly RunTestbedHost[],
  prefixOf: (h: RunTestbedHost) => string | null,
  opts: { keepRunDir?: boolean } = {},
): Promise<void> {
  const problems: string[] = []
  try {
    for (const h of hosts) {
      if (!run.touched.has(h.id)) continue
      const p = await teardownHost(run, h, prefixOf(h), opts)
      if (p) problems.push(p)
    }
  } finally {
    run.close()
  }
  if (problems.length) throw new Error(`teardown left things behind: ${problems.join(' | ')}`)
}

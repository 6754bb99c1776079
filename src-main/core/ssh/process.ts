import { cmd, shScript } from './cmd'
import { SshError } from './errors'
import type { SshHost } from './pool'

/**
 * Long-lived remote processes (simple_switch, traffic agents, tofino-model…), detached
 * from the SSH session so a dropped connection does not kill them, and stoppable as a
 * whole process group so teardown leaves nothing behind.
 *
 * - Start: `setsid` makes the process the leader of a new session and process group
 *   (pgid = sid = pid); it writes its own pid (`$$`, after setsid, before exec) to
 *   `<runDir>/<name>.pid` and its stdout and stderr go to `<runDir>/<name>.log`.
 *   The run directory is `~/.p4lab/runs/<runId>` unless told otherwise.
 * - Status: the leader's `/proc/<pid>/stat`. A zombie (state Z) or a dead task (X) is not
 *   alive. The group's other members are reported too.
 * - Stop: `kill -TERM -- -<pgid>`, wait up to the grace period, then `kill -KILL -- -<pgid>`,
 *   then check in /proc that no live process of the group (or of the session the leader
 *   made, which catches children that moved to their own group) remains.
 *
 * Every command line is built with shell-quote (./cmd); the shell scripts are constants
 * that take all data as positional parameters.
 */

export interface ProcStat {
  pid: number
  comm: string
  state: string
  ppid: number
  pgrp: number
  session: number
}

/** Parse one `/proc/<pid>/stat` line. `comm` may hold spaces and parentheses: it ends at the last `)`. */
export function parseProcStat(line: string): ProcStat | undefined {
  const open = line.indexOf(' (')
  const close = line.lastIndexOf(')')
  if (open < 0 || close < open) return undefined
  const pid = Number(line.slice(0, open))
  const rest = line.slice(close + 2).split(' ')
  if (!Number.isInteger(pid) || rest.length < 4) return undefined
  return {
    pid,
    comm: line.slice(open + 2, close),
    state: rest[0],
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    session: Number(rest[3]),
  }
}

/** A task in state Z (zombie) or X/x (dead) is not alive. */
export function isAliveState(state: string): boolean {
  return state !== 'Z' && state !== 'X' && state !== 'x'
}

export interface ProcessInfo {
  name: string
  pid: number
  /** = pid: the process leads its own group. */
  pgid: number
  pidFile: string
  logFile: string
}

export interface ProcessStatus {
  name: string
  /** From the pid file; undefined when there is none. */
  pid?: number
  /** The leader is running (not a zombie, not gone) and still leads its group. */
  alive: boolean
  /** The leader's /proc state letter, when it still has an entry (`Z` for a zombie). */
  state?: string
  /**
   * The process leads its own group, as every process started here does. False for a pid
   * that was reused by an unrelated process (or a pid file written by something else).
   */
  leadsGroup: boolean
  /** Live processes of the group or session (leader included), sorted. */
  members: number[]
  /** Zombies of the group or session. They hold no resources; their parent or init reaps them. */
  zombies: number[]
}

export interface StopResult {
  name: string
  pid?: number
  /** The strongest signal sent: 'none' when nothing was running. */
  signalled: 'none' | 'TERM' | 'KILL'
  zombies: number[]
}

export interface RemoteProcessesOptions {
  /** Parent of the run directories; relative to the remote home. Default `.p4lab/runs`. */
  baseDir?: string
  /** ms to wait after TERM before KILL. Default 5000. */
  graceMs?: number
  /** ms between checks while waiting. Default 100. */
  pollMs?: number
  /** ms to wait after KILL before reporting failure. Default 5000. */
  killWaitMs?: number
  /** Every command with priority for a session (teardown's processes: see SshHost). */
  priority?: boolean
}

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/

function checkName(what: string, v: string): void {
  if (!SAFE_NAME.test(v)) throw new SshError('usage', `${what} ${JSON.stringify(v)} must be letters, digits, '.', '_' or '-' (and not start with '.' or '-')`)
}

// $1 run dir, $2 name, $3 cwd ('' = home), $4… the command. Prints the pid, then the absolute run dir.
const START_SCRIPT = `set -e
d=$1; n=$2; c=$3; shift 3
case $d in /*) ;; *) d=$HOME/$d ;; esac
mkdir -p -- "$d"
p=$d/$n.pid; l=$d/$n.log
rm -f -- "$p" "$p.tmp"
if [ -n "$c" ]; then cd -- "$c"; fi
setsid sh -c 'echo $$ > "$0.tmp" && mv -f -- "$0.tmp" "$0" && exec "$@"' "$p" "$@" </dev/null >>"$l" 2>&1 &
i=0
while [ ! -s "$p" ]; do
  i=$((i+1))
  if [ $i -gt 400 ]; then echo "p4lab: $n did not write its pid file $p" >&2; exit 1; fi
  sleep 0.05
done
cat -- "$p"
printf '%s\\n' "$d"`

// $1 pid file (relative: under $HOME, as START_SCRIPT made it). Prints "pid N" (or "nopid"), then every /proc/<pid>/stat line.
const STATUS_SCRIPT = `f=$1
case $f in /*) ;; *) f=$HOME/$f ;; esac
if [ -s "$f" ]; then printf 'pid %s\\n' "$(head -c 32 -- "$f")"; else echo nopid; fi
cat /proc/[0-9]*/stat 2>/dev/null || true`

// $1 run dir. Prints the names (without .pid) NUL-separated.
const LIST_SCRIPT = `d=$1
case $d in /*) ;; *) d=$HOME/$d ;; esac
cd -- "$d" 2>/dev/null || exit 0
for f in *.pid; do [ -f "$f" ] && printf '%s\\0' "\${f%.pid}"; done
exit 0`

// $1 log file, $2 first byte (1-based), $3 bytes at most. Prints that part of the file; nothing when it does not exist yet.
const READ_FROM_SCRIPT = `f=$1; n=$2; m=$3
case $f in /*) ;; *) f=$HOME/$f ;; esac
[ -e "$f" ] || exit 0
tail -c +"$n" -- "$f" | head -c "$m"`

// $1 log file, $2 bytes at most. Prints the file's last bytes; nothing when it does not exist yet.
const READ_TAIL_SCRIPT = `f=$1
case $f in /*) ;; *) f=$HOME/$f ;; esac
[ -e "$f" ] || exit 0
tail -c "$2" -- "$f"`

/** Status, list and log reads change nothing: sent again when the connection drops under them (SshHost reconnects). */
const READS = { retryOnLoss: true } as const

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export class RemoteProcesses {
  readonly runDir: string
  private readonly opts: Required<Omit<RemoteProcessesOptions, 'baseDir' | 'priority'>>
  private readonly prio: { priority?: true }

  constructor(
    readonly host: SshHost,
    readonly runId: string,
    opts: RemoteProcessesOptions = {},
  ) {
    checkName('run id', runId)
    const base = (opts.baseDir ?? '.p4lab/runs').replace(/\/+$/, '')
    this.runDir = `${base}/${runId}`
    this.opts = { graceMs: opts.graceMs ?? 5000, pollMs: opts.pollMs ?? 100, killWaitMs: opts.killWaitMs ?? 5000 }
    this.prio = opts.priority ? { priority: true } : {}
  }

  pidFile(name: string): string {
    checkName('process name', name)
    return `${this.runDir}/${name}.pid`
  }

  logFile(name: string): string {
    checkName('process name', name)
    return `${this.runDir}/${name}.log`
  }

  /**
   * Start `argv` detached, in `cwd` (default: the remote home), with `env` added.
   * Refuses when a process of that name is still running in this run.
   */
  async start(name: string, argv: readonly string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<ProcessInfo> {
    checkName('process name', name)
    if (argv.length === 0) throw new SshError('usage', `start ${name}: empty command`)
    const before = await this.status(name)
    if (before.alive || before.members.length) {
      throw new SshError('process', `${this.host.label}: ${name} of run ${this.runId} is already running (pid ${before.pid})`)
    }
    let full = [...argv]
    if (opts.env && Object.keys(opts.env).length) {
      const pairs = Object.entries(opts.env).map(([k, v]) => {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new SshError('usage', `start ${name}: ${JSON.stringify(k)} is not a valid environment variable name`)
        return `${k}=${v}`
      })
      if (argv[0].includes('=')) throw new SshError('usage', `start ${name}: with env, the program name cannot contain '='`)
      full = ['env', ...pairs, ...argv]
    }
    const line = shScript(START_SCRIPT, 'p4lab-start', [this.runDir, name, opts.cwd ?? '', ...full])
    const r = await this.host.exec(line, this.prio)
    const outLines = r.stdout.toString('utf8').split('\n')
    const pid = Number(outLines[0])
    if (r.code !== 0 || !Number.isInteger(pid) || pid <= 1) {
      throw new SshError('process', `${this.host.label}: cannot start ${name}: ${r.stderr.toString('utf8').trim() || `exit ${r.code ?? r.signal}`}`)
    }
    const dir = outLines[1] || this.runDir
    return { name, pid, pgid: pid, pidFile: `${dir}/${name}.pid`, logFile: `${dir}/${name}.log` }
  }

  async status(name: string): Promise<ProcessStatus> {
    const r = await this.host.exec(shScript(STATUS_SCRIPT, 'p4lab-status', [this.pidFile(name)]), { ...this.prio, ...READS, maxCapture: 64 << 20 })
    if (r.code !== 0) throw new SshError('process', `${this.host.label}: cannot read the status of ${name}: ${r.stderr.toString('utf8').trim()}`)
    const lines = r.stdout.toString('utf8').split('\n')
    const head = lines.shift() ?? ''
    const m = /^pid (\d+)\s*$/.exec(head)
    if (!m) return { name, alive: false, leadsGroup: false, members: [], zombies: [] }
    const pid = Number(m[1])
    if (pid <= 1) throw new SshError('process', `${this.host.label}: the pid file of ${name} holds ${pid}, which p4lab will not touch`)
    let leader: ProcStat | undefined
    const members: number[] = []
    const zombies: number[] = []
    for (const l of lines) {
      const st = parseProcStat(l)
      if (!st) continue
      if (st.pid === pid) leader = st
      if (st.pgrp === pid || st.session === pid) (isAliveState(st.state) ? members : zombies).push(st.pid)
    }
    return {
      name,
      pid,
      // A recycled pid (an unrelated process that does not lead group `pid`) is not ours.
      alive: !!leader && leader.pgrp === pid && isAliveState(leader.state),
      state: leader?.state,
      leadsGroup: !!leader && leader.pgrp === pid,
      members: members.sort((a, b) => a - b),
      zombies: zombies.sort((a, b) => a - b),
    }
  }

  /** Names of the processes this run has started (those with a pid file). */
  async list(): Promise<string[]> {
    const r = await this.host.exec(shScript(LIST_SCRIPT, 'p4lab-list', [this.runDir]), { ...this.prio, ...READS })
    return r.stdout
      .toString('utf8')
      .split('\0')
      .filter((n) => SAFE_NAME.test(n))
      .sort()
  }

  /** TERM the group, wait, KILL, and verify that no live process of it is left. */
  async stop(name: string, opts: { graceMs?: number } = {}): Promise<StopResult> {
    let s = await this.status(name)
    if (s.pid === undefined || s.members.length === 0) return { name, pid: s.pid, signalled: 'none', zombies: s.zombies }
    const pgid = s.pid
    await this.signalGroup(pgid, 'TERM', s.members)
    s = await this.waitGone(name, opts.graceMs ?? this.opts.graceMs)
    if (s.members.length === 0) return { name, pid: pgid, signalled: 'TERM', zombies: s.zombies }
    await this.signalGroup(pgid, 'KILL', s.members)
    s = await this.waitGone(name, this.opts.killWaitMs)
    if (s.members.length) {
      throw new SshError('process', `${this.host.label}: ${name} (group ${pgid}) survived SIGKILL: pids ${s.members.join(', ')} are still alive`)
    }
    return { name, pid: pgid, signalled: 'KILL', zombies: s.zombies }
  }

  /** Stop every process of the run (teardown). Every one is tried; the first failure is thrown after. */
  async stopAll(opts: { graceMs?: number } = {}): Promise<StopResult[]> {
    const names = await this.list()
    const results = await Promise.allSettled(names.map((n) => this.stop(n, opts)))
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined
    if (failed) throw failed.reason
    return results.map((r) => (r as PromiseFulfilledResult<StopResult>).value)
  }

  /** The last `maxBytes` of a process's log. */
  async readLog(name: string, maxBytes = 64 * 1024): Promise<string> {
    // Relative paths are under $HOME, where START_SCRIPT put them (a login's $HOME need not be where it starts).
    const r = await this.host.exec(shScript(READ_TAIL_SCRIPT, 'p4lab-read-tail', [this.logFile(name), String(Math.max(1, Math.floor(maxBytes)))]), { ...this.prio, ...READS })
    return r.stdout.toString('utf8')
  }

  /**
   * At most `maxBytes` of a process's log from byte `offset` (0-based): empty when the log does not
   * exist yet or has no more. Unlike readLog, a failed read throws (the caller reads again from
   * the same offset).
   */
  async readLogFrom(name: string, offset: number, maxBytes: number, opts: { signal?: AbortSignal } = {}): Promise<Buffer> {
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      throw new SshError('usage', `readLogFrom ${name}: offset ${offset} and maxBytes ${maxBytes} must be integers, offset >= 0, maxBytes >= 1`)
    }
    const r = await this.host.exec(shScript(READ_FROM_SCRIPT, 'p4lab-read-log', [this.logFile(name), String(offset + 1), String(maxBytes)]), {
      ...this.prio,
      ...READS,
      ...(opts.signal ? { signal: opts.signal } : {}),
      maxCapture: maxBytes + 1,
    })
    if (r.code !== 0) throw new SshError('process', `${this.host.label}: cannot read the log of ${name} from byte ${offset}: exit ${r.code ?? r.signal}: ${r.stderr.toString('utf8').trim()}`)
    return r.stdout
  }

  private async signalGroup(pgid: number, sig: 'TERM' | 'KILL', members: number[]): Promise<void> {
    if (!Number.isInteger(pgid) || pgid <= 1) throw new SshError('process', `refusing to signal process group ${pgid}`)
    // The group, and by pid any process of the session that moved to a group of its own.
    const strays = members.filter((p) => p !== pgid && p > 1).map(String)
    const kills = [cmd(['kill', `-${sig}`, '--', `-${pgid}`])]
    if (strays.length) kills.push(cmd(['kill', `-${sig}`, '--', ...strays]))
    // Exit codes are ignored: some of them may already be gone (ESRCH).
    await this.host.exec(kills.map((k) => `${k} 2>/dev/null`).join('; ') + '; true', this.prio)
  }

  private async waitGone(name: string, ms: number): Promise<ProcessStatus> {
    const deadline = Date.now() + ms
    for (;;) {
      const s = await this.status(name)
      if (s.members.length === 0 || Date.now() >= deadline) return s
      await sleep(this.opts.pollMs)
    }
  }
}

// A command in a terminal of its own (a pty: the command leads its session, the terminal is its
// controlling one), and the terminal closed on demand: the kernel then sends the command SIGHUP
// and its writes to the terminal fail (EIO), as when a user closes the window it runs in. And a
// child killed for a signal, or run to its end, that says how it ended.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { withDb } from './cli'

// Runs argv (JSON) in a pty and copies what it writes there to stdout as it comes. It closes the
// terminal once a line arrives on stdin or, given FIFOs argv[2] and argv[3], on argv[2]; then, in
// the FIFO case, once the kernel's SIGHUP is no longer pending (a thread of the command has taken
// it, so Node hears of it before of anything that follows), writes a line to argv[3] to let the
// writer go on. Prints the command's pid first and, once it has ended, its exit status as JSON,
// each a line on stderr.
const IN_TERMINAL = `
import json, os, pty, re, select, signal, sys, time
argv = json.loads(sys.argv[1])
hup, go = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else (None, None)

def hup_pending(pid):
    # The process's pending set and each thread's: SIGHUP is bit 0.
    try:
        files = ['/proc/%d/status' % pid] + ['/proc/%d/task/%s/status' % (pid, t) for t in os.listdir('/proc/%d/task' % pid)]
    except OSError:
        return False
    for f in files:
        try:
            text = open(f).read()
        except OSError:
            continue
        for m in re.finditer(r'^(?:ShdPnd|SigPnd):\\s*([0-9a-f]+)$', text, re.M):
            if int(m.group(1), 16) & 1:
                return True
    return False

pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
sys.stderr.write('%d\\n' % pid)
sys.stderr.flush()
line = os.open(hup, os.O_RDWR) if hup else sys.stdin.fileno()
while fd is not None:
    ready, _, _ = select.select([fd, line], [], [])
    if line in ready:
        os.read(line, 4096)
        os.close(fd)
        fd = None
        if go:
            while hup_pending(pid):
                time.sleep(0.01)
            with open(go, 'w') as f:
                f.write('go\\n')
        break
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        chunk = b''
    if not chunk:
        break
    os.write(1, chunk)
_, status = os.waitpid(pid, 0)
sys.stderr.write(json.dumps({
    'code': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
    'signal': signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else None,
}) + '\\n')
`

/**
 * The program and arguments that run `argv` in a terminal of its own (IN_TERMINAL): closed on a
 * line on stdin, or with `fifos` on a line through `fifos.hup`, the writer let go through `fifos.go`.
 * Its stderr starts with the command's pid (inTerminalPid); terminalEnded reads how it ended.
 */
export function inTerminal(argv: string[], fifos?: { hup: string; go: string }): [string, string[]] {
  return ['python3', ['-c', IN_TERMINAL, JSON.stringify(argv), ...(fifos ? [fifos.hup, fifos.go] : [])]]
}

/** The pid of the command in the terminal, once the driver has printed it. */
export function inTerminalPid(stderr: string): number | undefined {
  return Number(/^(\d+)\n/.exec(stderr)?.[1]) || undefined
}

/** How the command in the terminal ended, from the driver's stderr (`exit`: the driver's own exit code, for when it failed). */
export function terminalEnded(stderr: string, exit: number | null): { code: number | null; signal: string | null } {
  const status = /\n(\{.*\})\n$/.exec(stderr)?.[1]
  return status ? (JSON.parse(status) as { code: number | null; signal: string | null }) : { code: null, signal: `python3 exited ${exit}: ${stderr}` }
}

export interface Ended {
  code: number | null
  signal: string | null
  /** What it wrote: to the terminal (stdout and stderr as one), or its stderr. */
  output: string
}

export interface Started {
  /** What it wrote so far. */
  output: () => string
  /** Resolves once `pattern` is in the output (rejects when the command ends first). */
  printed: (pattern: RegExp) => Promise<void>
  /** Closes its terminal (in a terminal), or sends it `signal`. */
  hangUp: () => void
  kill: (signal: NodeJS.Signals) => void
  ended: Promise<Ended>
}

/**
 * Starts `argv` (argv[0] the program) with `env`, in a terminal of its own when `terminal`, else
 * with pipes; a command still there after `maxMs` is killed with SIGKILL (a hang ends the test
 * with what it printed, not the suite's timeout).
 */
export function start(argv: string[], o: { cwd: string; env: NodeJS.ProcessEnv; terminal?: boolean; maxMs?: number }): Started {
  const child: ChildProcess = o.terminal
    ? spawn(...inTerminal(argv), { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(argv[0], argv.slice(1), { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  let done = false
  const waiting = new Set<() => void>()
  const wake = () => {
    for (const w of [...waiting]) w()
  }
  child.stdout!.on('data', (b: Buffer) => ((out += b.toString()), wake()))
  child.stderr!.on('data', (b: Buffer) => ((err += b.toString()), wake()))
  const pid = () => (o.terminal ? inTerminalPid(err) : child.pid)
  const hung = setTimeout(() => {
    const p = pid()
    if (p) process.kill(p, 'SIGKILL')
    child.kill('SIGKILL')
  }, o.maxMs ?? 240_000)
  const ended = new Promise<Ended>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(hung)
      done = true
      wake()
      if (!o.terminal) return resolve({ code, signal, output: err })
      resolve({ ...terminalEnded(err, code), output: out })
    }),
  )
  const output = () => (o.terminal ? out : err)
  return {
    output,
    printed: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(output())) {
            waiting.delete(check)
            resolve()
          } else if (done) {
            waiting.delete(check)
            reject(new Error(`ended before printing ${pattern}:\n${output()}`))
          }
        }
        waiting.add(check)
        check()
      }),
    hangUp: () => {
      if (!o.terminal) throw new Error('not in a terminal')
      child.stdin!.write('\n')
    },
    kill: (signal) => {
      const p = pid()
      if (!p) throw new Error('no pid yet')
      process.kill(p, signal)
    },
    ended,
  }
}

/**
 * Resolves once `ready` holds on the database at `file` (opened read-only each look), or rejects
 * once `ended` resolves first: a state waited on, not a time.
 */
export async function stateReached(file: string, ready: (d: Database.Database) => boolean, ended: Promise<unknown>): Promise<void> {
  let over = false
  void ended.then(() => (over = true))
  const holds = () => {
    if (!existsSync(file)) return false
    try {
      return withDb(file, ready)
    } catch {
      return false // not created yet, or without its schema yet
    }
  }
  while (!holds()) {
    if (over) throw new Error(`${file}: the command ended before the state waited for`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

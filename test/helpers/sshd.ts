import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

/**
 * A real OpenSSH sshd for tests: 127.0.0.1, a free port, a temporary config, host key and
 * authorized keys, as the current user (root included). No mocks.
 *
 * sshd missing is a failure, not a skip: CI installs openssh-server (.ci/run).
 */
export const SSHD = '/usr/sbin/sshd'

export interface Sshd {
  readonly port: number
  /** 127.0.0.1, or the address given with `netns`. */
  readonly host: string
  readonly user: string
  /** Temporary directory holding everything (removed by stop()). */
  readonly dir: string
  /** A key without passphrase, authorized for `user`. */
  readonly plainKey: string
  /** A key encrypted with `keyPassphrase`, authorized for `user`. */
  readonly secretKey: string
  readonly keyPassphrase: string
  /** The current host key's public line (`ssh-ed25519 AAAA… comment`) and raw wire form. */
  hostPublicLine(): string
  hostKey(): Buffer
  /** The pid of the listening sshd. */
  pid(): number
  /** Kill every process serving a connection (the listener stays): clients see the connection drop. */
  dropConnections(): void
  /** Stop the server and the connections it served (clients see them drop, new ones are refused) until up(); the commands they ran end on their own. */
  down(): Promise<void>
  /** Start the server again on the same port, after down(). */
  up(): Promise<void>
  /** Stop and start again on the same port; `newHostKey` generates a fresh host key first. */
  restart(opts?: { newHostKey?: boolean }): Promise<void>
  stop(): Promise<void>
  /** sshd's stderr so far (for failure messages). */
  log(): string
}

function requireSshd(): void {
  if (!existsSync(SSHD)) {
    throw new Error(
      `${SSHD} not found: the SSH tests need a real OpenSSH server. Install openssh-server ` +
        `(Debian/Ubuntu: apt-get install -y openssh-server); CI installs it in .ci/run.`,
    )
  }
  for (const tool of ['ssh-keygen']) {
    try {
      execFileSync(tool, ['-?'], { stdio: 'ignore' })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${tool} not found: install openssh-client`, { cause: e })
    }
  }
}

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

function keygen(path: string, passphrase: string, comment: string): void {
  rmSync(path, { force: true })
  rmSync(path + '.pub', { force: true })
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', comment, '-f', path], { stdio: 'ignore' })
}

/** Raw wire-format key from a `type base64 comment` line. */
export function wireKey(publicLine: string): Buffer {
  return Buffer.from(publicLine.trim().split(/\s+/)[1], 'base64')
}

/** All descendants of `pid`, from /proc. */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>()
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      parent.set(Number(d), Number(rest[1]))
    } catch {
      /* gone */
    }
  }
  const out: number[] = []
  const todo = [pid]
  while (todo.length) {
    const p = todo.pop()!
    for (const [c, pp] of parent) {
      if (pp === p) {
        out.push(c)
        todo.push(c)
      }
    }
  }
  return out
}

/**
 * What the sshd's sessions see of this machine's commands, to make a host that lacks a tool
 * or has one this machine does not: sshd runs in a private mount namespace (nothing of it is
 * seen outside) where each PATH folder holding a `hide` tool is overlaid with that tool
 * removed, and /usr/local/bin gets the `add` scripts. Needs root (mounts).
 */
export interface SshdImage {
  hide?: string[]
  /** name → script text, installed executable in /usr/local/bin. */
  add?: Record<string, string>
}

/** Runs "$@" (sshd) in a private mount namespace with the image applied; data in positional parameters. */
const IMAGE_SCRIPT = `set -e
w=$1; hide=$2; add=$3; shift 3
mount -t tmpfs p4lab-image "$w"
n=0
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
  [ -d "$d" ] && [ ! -L "$d" ] || continue
  touch=
  for t in $hide; do if [ -e "$d/$t" ] || [ -L "$d/$t" ]; then touch=1; fi; done
  if [ "$d" = /usr/local/bin ] && [ -n "$add" ]; then touch=1; fi
  [ -n "$touch" ] || continue
  n=$((n + 1)); mkdir "$w/u$n" "$w/w$n"
  mount -t overlay p4lab-image -o "lowerdir=$d,upperdir=$w/u$n,workdir=$w/w$n" "$d"
  for t in $hide; do rm -f "$d/$t"; done
  if [ "$d" = /usr/local/bin ] && [ -n "$add" ]; then cp -p "$add"/* "$d"/; fi
done
for t in $hide; do
  if PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v "$t" >/dev/null 2>&1; then echo "p4lab test image: could not hide $t" >&2; exit 1; fi
done
exec "$@"`

export interface SshdOptions {
  /** Extra sshd_config lines (e.g. `MaxSessions 3`), after the helper's own: sshd takes the first value of a keyword, so they cannot change one the helper sets. */
  config?: readonly string[]
  image?: SshdImage
  /**
   * Run sshd inside this network namespace (as a separate machine would be), listening on
   * `address` there, with a /run/netns of its own: namespaces its sessions make are seen by
   * them only, and go when the sshd is stopped. Needs root.
   */
  netns?: { ns: string; address: string }
}

export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  requireSshd()
  const user = userInfo().username
  const root = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-sshd-'))
  chmodSync(dir, 0o700)
  const hostKeyPath = join(dir, 'host_ed25519')
  keygen(hostKeyPath, '', 'p4lab-test-host')
  const plainKey = join(dir, 'id_plain')
  const secretKey = join(dir, 'id_secret')
  const keyPassphrase = 'correct horse $(battery) staple'
  keygen(plainKey, '', 'p4lab-test-plain')
  keygen(secretKey, keyPassphrase, 'p4lab-test-secret')
  const authorized = join(dir, 'authorized_keys')
  writeFileSync(authorized, readFileSync(plainKey + '.pub', 'utf8') + readFileSync(secretKey + '.pub', 'utf8'), { mode: 0o600 })
  // As root, sshd wants its privilege-separation directory (Debian makes it at boot).
  if (root && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })

  const port = await freePort()
  const listen = opts.netns?.address ?? '127.0.0.1'
  const config = join(dir, 'sshd_config')
  writeFileSync(
    config,
    [
      `Port ${port}`,
      `ListenAddress ${listen}`,
      `HostKey ${hostKeyPath}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'StrictModes no',
      'UsePAM no',
      root ? 'PermitRootLogin prohibit-password' : 'PermitRootLogin no',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PrintMotd no',
      'PrintLastLog no',
      'Subsystem sftp internal-sftp',
      'LogLevel VERBOSE',
      // Keep the tests' sessions short-lived if a client vanishes.
      'ClientAliveInterval 30',
      ...(opts.config ?? []),
      '',
    ].join('\n'),
  )

  let argv = [SSHD, '-D', '-e', '-f', config]
  if (opts.image) {
    if (!root) throw new Error('a test sshd with an image (tools hidden or added) needs root: it mounts in its own mount namespace')
    const work = join(dir, 'image')
    const add = join(dir, 'image-add')
    mkdirSync(work)
    mkdirSync(add)
    for (const [name, text] of Object.entries(opts.image.add ?? {})) writeFileSync(join(add, name), text, { mode: 0o755 })
    const hide = opts.image.hide ?? []
    for (const t of hide) if (!/^[\w.+-]+$/.test(t)) throw new Error(`not a tool name: ${t}`)
    argv = ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', IMAGE_SCRIPT, 'p4lab-image', work, hide.join(' '), Object.keys(opts.image.add ?? {}).length ? add : '', ...argv]
  }

  if (opts.netns) {
    if (!root) throw new Error('a test sshd in a network namespace needs root')
    argv = ['ip', 'netns', 'exec', opts.netns.ns, 'sh', '-c', 'mount -t tmpfs p4lab-host-netns /run/netns && exec "$@"', 'p4lab-host', ...argv]
  }

  let child: ChildProcess | undefined
  let stderr = ''

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const c = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] })
      child = c
      let ready = false
      c.stderr!.setEncoding('utf8')
      c.stderr!.on('data', (s: string) => {
        stderr += s
        if (!ready && stderr.includes(`Server listening on ${listen} port ${port}`)) {
          ready = true
          resolve()
        }
      })
      c.once('error', reject)
      c.once('exit', (code, sig) => {
        if (!ready) reject(new Error(`sshd exited (${code ?? sig}) before listening:\n${stderr}`))
      })
    })

  const kill = async () => {
    const c = child
    if (!c || c.exitCode !== null || c.signalCode !== null) return
    const gone = new Promise((r) => c.once('exit', r))
    c.kill('SIGKILL')
    await gone
  }

  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig)
    } catch {
      /* already gone */
    }
  }

  /** Freeze the whole tree under the listener (so nothing forks behind our back), then kill it. */
  const dropConnections = () => {
    if (!child?.pid) return
    const frozen = new Set<number>()
    for (;;) {
      const fresh = descendants(child.pid).filter((p) => !frozen.has(p))
      if (!fresh.length) break
      for (const p of fresh) {
        signal(p, 'SIGSTOP')
        frozen.add(p)
      }
    }
    for (const p of frozen) signal(p, 'SIGKILL')
  }

  /**
   * Stop the listener from accepting (SIGSTOP: it forks no new session), kill every session
   * it served, then the listener. Dropping the sessions while the listener still ran let a
   * client reconnect to the old server in between, and that session outlived it.
   */
  const shutdown = async () => {
    const c = child
    if (c?.pid && c.exitCode === null && c.signalCode === null) signal(c.pid, 'SIGSTOP')
    dropConnections()
    await kill()
  }

  await launch()

  return {
    port,
    host: listen,
    user,
    dir,
    plainKey,
    secretKey,
    keyPassphrase,
    hostPublicLine: () => readFileSync(hostKeyPath + '.pub', 'utf8').trim(),
    hostKey: () => wireKey(readFileSync(hostKeyPath + '.pub', 'utf8')),
    pid: () => child?.pid ?? 0,
    dropConnections,
    log: () => stderr,
    async down() {
      // Only the sshd processes (the listener and each connection's): the commands they ran
      // are left to end on their own, as when a network or the server goes away. Killing
      // those too (dropConnections) can catch a login shell inside `pyenv rehash`, whose
      // lock file then stays and stalls every later login on this machine.
      const c = child
      if (!c?.pid || c.exitCode !== null || c.signalCode !== null) return
      signal(c.pid, 'SIGSTOP')
      for (const p of descendants(c.pid)) {
        let comm: string
        try {
          comm = readFileSync(`/proc/${p}/comm`, 'utf8').trim()
        } catch {
          continue // gone
        }
        if (comm === 'sshd' || comm.startsWith('sshd-')) signal(p, 'SIGKILL')
      }
      await kill()
    },
    async up() {
      // Already up: a second listener could not bind, and would take the place of the running one here.
      if (child && child.exitCode === null && child.signalCode === null) return
      await launch()
    },
    async restart(opts = {}) {
      await shutdown()
      if (opts.newHostKey) keygen(hostKeyPath, '', 'p4lab-test-host-2')
      await launch()
    },
    async stop() {
      await shutdown()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Local processes (the sshd is local) whose command line contains `needle` and that are not zombies. */
export function liveProcessesMatching(needle: string): number[] {
  const out: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue
    try {
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ')
      if (!cmdline.includes(needle)) continue
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
      if (state !== 'Z' && state !== 'X') out.push(Number(d))
    } catch {
      /* gone */
    }
  }
  return out
}

/** Local processes of process group `pgid` (or session `pgid`), with their state. */
export function groupMembers(pgid: number): { pid: number; state: string }[] {
  const out: { pid: number; state: string }[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(f[2]) === pgid || Number(f[3]) === pgid) out.push({ pid: Number(d), state: f[0] })
    } catch {
      /* gone */
    }
  }
  return out
}

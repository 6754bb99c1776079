import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'

/**
 * Two real network namespaces joined by a veth pair, for tests that run real traffic
 * (`ip netns exec`). Names are unique per test process (`p4lab-<pid>-<tag>-a/b`), and
 * `destroy()` kills every process still inside, deletes the namespaces (which removes the
 * veth pair) and reports what, if anything, was left.
 */

export interface NetnsProbe {
  ok: boolean
  /** Why namespaces cannot be made here (for the skip message). */
  reason: string
}

function run(argv: string[]): { code: number; out: string } {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' })
  if (r.error) return { code: -1, out: String(r.error.message) }
  return { code: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() }
}

/**
 * Can this machine make namespaces? Tries `ip netns add` for real and reads the error:
 * not root / no CAP_SYS_ADMIN ("Operation not permitted", "Permission denied"), or no `ip`.
 */
export function probeNetns(): NetnsProbe {
  const name = `p4lab-${process.pid}-probe`
  const add = run(['ip', 'netns', 'add', name])
  if (add.code === -1) return { ok: false, reason: `cannot run ip (iproute2): ${add.out}` }
  if (add.code !== 0) {
    const why = /not permitted|permission denied/i.test(add.out) ? 'not root / no CAP_SYS_ADMIN' : 'ip netns add failed'
    return { ok: false, reason: `this machine cannot make network namespaces (${why}): ${add.out}` }
  }
  const veth = run(['ip', 'link', 'add', `p4p${process.pid}`, 'type', 'veth', 'peer', 'name', `p4q${process.pid}`])
  run(['ip', 'link', 'del', `p4p${process.pid}`])
  run(['ip', 'netns', 'del', name])
  if (veth.code !== 0) return { ok: false, reason: `this machine cannot make veth pairs: ${veth.out}` }
  return { ok: true, reason: '' }
}

export function netnsList(): string[] {
  const r = run(['ip', 'netns', 'list'])
  return r.out === '' ? [] : r.out.split('\n').map((l) => l.split(/\s+/)[0])
}

export function netnsPids(ns: string): number[] {
  const r = run(['ip', 'netns', 'pids', ns])
  if (r.code !== 0) return []
  return r.out.split(/\s+/).filter(Boolean).map(Number)
}

/** Processes whose command line contains marker (a unique temp dir, a namespace name). */
export function processesMatching(marker: string): Array<{ pid: number; cmdline: string }> {
  const out: Array<{ pid: number; cmdline: string }> = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue
    let cmdline: string
    let state: string
    try {
      cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').trim()
      state = readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /s, '')[0]
    } catch {
      continue
    }
    if (state === 'Z' || state === 'X') continue
    if (cmdline.includes(marker)) out.push({ pid: Number(d), cmdline })
  }
  return out
}

export interface VethPairOptions {
  tag: string
  /** CIDR addresses of each end, e.g. 10.0.0.1/16 and 10.0.1.1/16. */
  addrA: string
  addrB: string
  /** Shape both directions with tbf at this rate (tc syntax, e.g. '100mbit'). */
  rate?: string
  /** tbf bucket, bytes (default 65536): the most that can leave at line rate in one burst. */
  burstBytes?: number
}

export interface NetnsPair {
  nsA: string
  nsB: string
  ifA: string
  ifB: string
  ipA: string
  ipB: string
  burstBytes: number
  /** `ip netns exec NS argv…`, spawned; the child is tracked and killed by destroy(). */
  spawnIn(ns: string, argv: string[]): ChildProcess
  /** Runs to completion; throws with its output on a non-zero exit. */
  execIn(ns: string, argv: string[]): string
  /** Kills what runs inside, deletes both namespaces, returns what was still left after. */
  destroy(): Promise<{ namespaces: string[]; pids: number[] }>
}

export function makeNetnsPair(o: VethPairOptions): NetnsPair {
  const base = `p4lab-${process.pid}-${o.tag}`
  const nsA = `${base}-a`
  const nsB = `${base}-b`
  // Interface names: at most 15 characters.
  const short = `${process.pid.toString(36)}${o.tag.slice(0, 3)}`
  const ifA = `p4${short}a`.slice(0, 15)
  const ifB = `p4${short}b`.slice(0, 15)
  const burstBytes = o.burstBytes ?? 65536
  const children: ChildProcess[] = []
  const sh = (argv: string[]) => execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

  const destroy = async (): Promise<{ namespaces: string[]; pids: number[] }> => {
    for (const ns of [nsA, nsB]) for (const pid of netnsPids(ns)) try { process.kill(pid, 'SIGKILL') } catch { /* gone */ }
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
    await Promise.all(
      children.map((c) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)))),
    )
    const pids = [...netnsPids(nsA), ...netnsPids(nsB)]
    for (const ns of [nsA, nsB]) run(['ip', 'netns', 'del', ns])
    run(['ip', 'link', 'del', ifA]) // only there if set-up failed half-way
    const namespaces = netnsList().filter((n) => n === nsA || n === nsB)
    return { namespaces, pids }
  }

  try {
    sh(['ip', 'netns', 'add', nsA])
    sh(['ip', 'netns', 'add', nsB])
    sh(['ip', 'link', 'add', ifA, 'type', 'veth', 'peer', 'name', ifB])
    sh(['ip', 'link', 'set', ifA, 'netns', nsA])
    sh(['ip', 'link', 'set', ifB, 'netns', nsB])
    for (const [ns, ifc, addr] of [
      [nsA, ifA, o.addrA],
      [nsB, ifB, o.addrB],
    ] as const) {
      sh(['ip', '-n', ns, 'addr', 'add', addr, 'dev', ifc])
      sh(['ip', '-n', ns, 'link', 'set', ifc, 'up'])
      sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up'])
      if (o.rate) {
        sh(['ip', 'netns', 'exec', ns, 'tc', 'qdisc', 'add', 'dev', ifc, 'root', 'tbf', 'rate', o.rate, 'burst', String(burstBytes), 'latency', '100ms'])
      }
    }
  } catch (e) {
    void destroy()
    throw e
  }

  return {
    nsA,
    nsB,
    ifA,
    ifB,
    ipA: o.addrA.split('/')[0],
    ipB: o.addrB.split('/')[0],
    burstBytes,
    spawnIn(ns, argv) {
      const c = spawn('ip', ['netns', 'exec', ns, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] })
      children.push(c)
      return c
    },
    execIn(ns, argv) {
      const r = spawnSync('ip', ['netns', 'exec', ns, ...argv], { encoding: 'utf8', timeout: 120_000 })
      if (r.status !== 0) throw new Error(`${argv.join(' ')} in ${ns} exited ${r.status ?? r.signal}: ${r.stdout}${r.stderr}`)
      return r.stdout
    },
    destroy,
  }
}

/** Collects a child's stdout/stderr and resolves on exit. */
export function collect(c: ChildProcess): { stdout: () => string; stderr: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  let out = ''
  let err = ''
  c.stdout?.on('data', (d: Buffer) => (out += d.toString()))
  c.stderr?.on('data', (d: Buffer) => (err += d.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    c.once('exit', (code, signal) => resolve({ code, signal })),
  )
  return { stdout: () => out, stderr: () => err, exited }
}

/** Resolves when the child's stdout contains `text`; rejects on exit or after timeoutMs. */
export function waitForOutput(c: ChildProcess, text: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = ''
    let errBuf = ''
    const done = (f: () => void) => {
      clearTimeout(timer)
      c.stdout?.off('data', onData)
      c.off('exit', onExit)
      f()
    }
    const onData = (d: Buffer) => {
      buf += d.toString()
      if (buf.includes(text)) done(resolve)
    }
    const onExit = (code: number | null) => done(() => reject(new Error(`exited (${code}) before printing ${text}: ${buf}${errBuf}`)))
    c.stderr?.on('data', (d: Buffer) => (errBuf += d.toString()))
    const timer = setTimeout(() => done(() => reject(new Error(`no "${text}" within ${timeoutMs} ms: ${buf}${errBuf}`))), timeoutMs)
    c.stdout?.on('data', onData)
    c.once('exit', onExit)
  })
}

// Sessions per connection against real sshds with a small MaxSessions (and one with 0): the
// pool never opens more channels on a connection than the server allows, a refusal is retried
// and never becomes the command's failure, priority calls go first and get another connection
// when every session is busy, and detached processes give their session back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { KnownHosts, RemoteProcesses, SshPool, type ExecResult, type PoolOptions, type SshHost, type SshTarget } from '../../src-main/core/ssh'
import { liveProcessesMatching, startSshd, type Sshd } from '../helpers/sshd'

let sshd: Sshd
let dir: string
let knownHosts: KnownHosts
const pools: SshPool[] = []

beforeAll(async () => {
  sshd = await startSshd({ config: ['MaxSessions 3'] })
  dir = mkdtempSync(join(tmpdir(), 'p4lab-sessions-'))
  knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
})
afterAll(async () => {
  for (const p of pools) p.closeAll()
  await sshd?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const target = (s: Sshd = sshd, extra: Partial<SshTarget> = {}): SshTarget => ({ host: s.host, port: s.port, user: s.user, auth: { kind: 'key', path: s.plainKey }, ...extra })

function pool(opts: Partial<PoolOptions> = {}, logs: string[] = []): SshPool {
  const p = new SshPool({ knownHosts, secrets: new MemorySecretStore(), log: (l) => logs.push(l), ...opts })
  pools.push(p)
  return p
}

async function waitFor(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Counts on the server side how many of these commands run at once: each one adds itself to
 * a counter (under flock) when it starts, records the highest count, sleeps, and takes itself
 * off again. A running command holds its session, so the highest count is what the server had open.
 */
const GAUGE = `g=$0; i=$1
flock "$g.lock" sh -c 'n=$(( $(cat "$0.n" 2>/dev/null || echo 0) + 1 )); echo $n > "$0.n"; m=$(cat "$0.max" 2>/dev/null || echo 0); if [ $n -gt $m ]; then echo $n > "$0.max"; fi' "$g"
sleep 1
flock "$g.lock" sh -c 'echo $(( $(cat "$0.n") - 1 )) > "$0.n"' "$g"
echo "done $i"`

/** A command that holds its session until `release()`. */
function hold(h: SshHost, name: string, opts: { signal?: AbortSignal } = {}) {
  const file = join(dir, `release-${name}-${Date.now()}`)
  let settled = false
  const done = h.run(['sh', '-c', 'while [ ! -e "$0" ]; do sleep 0.05; done; echo released', file], opts).finally(() => (settled = true))
  done.catch(() => undefined)
  return { done, release: () => writeFileSync(file, ''), get settled() { return settled } }
}

describe('sessions per connection (sshd MaxSessions 3)', () => {
  it('12 commands at once all succeed, the limit is learned from the first refusal, and never more than 3 are open at once', async () => {
    const logs: string[] = []
    // One connection only: everything has to fit in its 3 sessions.
    const h = pool({ maxConnections: 1 }, logs).host(target())
    const gauge = join(dir, 'gauge-a')
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => h.run(['sh', '-c', GAUGE, gauge, String(i)])))
    for (const [i, r] of results.entries()) {
      expect(r.code).toBe(0)
      expect(r.stdout.toString()).toBe(`done ${i}\n`)
    }
    const s = h.sessionStats
    expect(s.configured).toBe(10)
    // The first burst asked for 10: the server took 3 and refused the rest, so the limit became 3.
    expect(s.limit).toBe(3)
    expect(s.refusals).toBeGreaterThanOrEqual(7)
    expect(s.peak).toBeLessThanOrEqual(3)
    expect(s.peakTotal).toBeLessThanOrEqual(3)
    expect(s.connections).toBe(1)
    expect(s.open).toBe(0)
    expect(Number(readFileSync(`${gauge}.max`, 'utf8'))).toBeLessThanOrEqual(3)
    expect(readFileSync(`${gauge}.n`, 'utf8').trim()).toBe('0')
    expect(logs.some((l) => /the server refused a session with 3 open; using at most 3 at once per connection/.test(l))).toBe(true)
  }, 60_000)

  it('with the limit configured (maxSessions 3) it keeps to it; a real failure among the queued commands is still reported as one', async () => {
    const h = pool({ maxConnections: 1 }).host(target(sshd, { maxSessions: 3 }))
    const gauge = join(dir, 'gauge-b')
    const runs: Promise<ExecResult>[] = Array.from({ length: 8 }, (_, i) => h.run(['sh', '-c', GAUGE, gauge, String(i)]))
    const failing = h.run(['sh', '-c', 'echo boom >&2; exit 7'])
    const checked = h.check(['sh', '-c', 'echo bang >&2; exit 9']).then(
      () => null,
      (e: Error) => e,
    )
    for (const r of await Promise.all(runs)) expect(r.code).toBe(0)
    const f = await failing
    expect(f.code).toBe(7)
    expect(f.stderr.toString()).toBe('boom\n')
    expect((await checked)?.message).toMatch(/sh exited with 9: bang$/)
    const s = h.sessionStats
    expect(s.limit).toBe(3)
    expect(s.peak).toBeLessThanOrEqual(3)
    expect(Number(readFileSync(`${gauge}.max`, 'utf8'))).toBeLessThanOrEqual(3)
  }, 60_000)

  it('a priority call goes before the calls already waiting', async () => {
    const h = pool({ maxConnections: 1 }).host(target(sshd, { maxSessions: 3 }))
    const order = join(dir, 'order')
    const holders = [hold(h, 'p1'), hold(h, 'p2'), hold(h, 'p3')]
    await waitFor('the 3 holders to hold their sessions', () => h.sessionStats.open === 3)
    const normal = [h.run(['sh', '-c', 'echo n1 >> "$0"', order]), h.run(['sh', '-c', 'echo n2 >> "$0"', order])]
    await waitFor('2 waiting', () => h.sessionStats.waiting === 2)
    const prio = h.run(['sh', '-c', 'echo p >> "$0"', order], { priority: true })
    await waitFor('3 waiting', () => h.sessionStats.waiting === 3)
    holders[0].release()
    expect((await prio).code).toBe(0)
    // Only the priority call got the freed session.
    expect(readFileSync(order, 'utf8')).toBe('p\n')
    holders[1].release()
    holders[2].release()
    await Promise.all([...normal, ...holders.map((x) => x.done)])
    expect(readFileSync(order, 'utf8').split('\n').slice(0, 1)).toEqual(['p'])
    expect(readFileSync(order, 'utf8').trim().split('\n').sort()).toEqual(['n1', 'n2', 'p'])
  }, 60_000)

  it('when every session is busy, a priority call gets another connection at once, and other calls after overflowAfterMs; the extra connection closes when unused', async () => {
    const logs: string[] = []
    const h = pool({ overflowAfterMs: 300, overflowIdleMs: 1000 }, logs).host(target(sshd, { maxSessions: 3 }))
    const holders = [hold(h, 'o1'), hold(h, 'o2'), hold(h, 'o3')]
    await waitFor('the 3 holders to hold their sessions', () => h.sessionStats.open === 3)
    expect(await h.check(['echo', 'teardown'], { priority: true })).toBe('teardown\n')
    expect(holders.some((x) => x.settled)).toBe(false)
    expect(h.sessionStats.overflowOpened).toBe(1)
    expect(h.sessionStats.connections).toBe(2)
    // Fill the extra connection too: a normal call then waits, and gets a third connection.
    const more = [hold(h, 'o4'), hold(h, 'o5'), hold(h, 'o6')]
    await waitFor('6 sessions held', () => h.sessionStats.open === 6)
    expect(await h.check(['echo', 'normal'])).toBe('normal\n')
    expect(h.sessionStats.overflowOpened).toBe(2)
    expect(logs.some((l) => /all 6 sessions busy \(1 waiting\): opening another connection/.test(l))).toBe(true)
    for (const x of [...holders, ...more]) x.release()
    for (const r of await Promise.all([...holders, ...more].map((x) => x.done))) expect(r.stdout.toString()).toBe('released\n')
    await waitFor('the extra connections to close', () => h.sessionStats.connections === 1)
    expect(h.sessionStats.peak).toBeLessThanOrEqual(3)
    expect(await h.check(['echo', 'after'])).toBe('after\n')
  }, 60_000)

  it('a command cancelled while every session is busy is still killed (the kill gets a session of its own)', async () => {
    const h = pool().host(target(sshd, { maxSessions: 3 }))
    const holders = [hold(h, 'c1'), hold(h, 'c2')]
    const marker = `${Date.now() % 100000}.7`
    const ac = new AbortController()
    const p = h.run(['sh', '-c', 'echo started; exec sleep "$0"', marker], { signal: ac.signal, onLine: (l) => l === 'started' && ac.abort() })
    await expect(p).rejects.toMatchObject({ code: 'aborted' })
    for (let i = 0; i < 100 && liveProcessesMatching(`sleep ${marker}`).length; i++) await new Promise((r) => setTimeout(r, 100))
    expect(liveProcessesMatching(`sleep ${marker}`)).toEqual([])
    for (const x of holders) x.release()
    await Promise.all(holders.map((x) => x.done))
  }, 60_000)

  it('detached processes give their session back: four of them, then three commands at once, on one connection', async () => {
    const h = pool({ maxConnections: 1 }).host(target(sshd, { maxSessions: 3 }))
    const procs = new RemoteProcesses(h, 'sessions-detached', { baseDir: join(dir, 'runs'), graceMs: 500 })
    try {
      for (const n of ['d1', 'd2', 'd3', 'd4']) await procs.start(n, ['sleep', '120'])
      for (const n of ['d1', 'd2', 'd3', 'd4']) expect((await procs.status(n)).alive).toBe(true)
      expect(h.sessionStats.open).toBe(0)
      const gauge = join(dir, 'gauge-d')
      const rs = await Promise.all([0, 1, 2].map((i) => h.run(['sh', '-c', GAUGE, gauge, String(i)])))
      for (const r of rs) expect(r.code).toBe(0)
      // They were running all along.
      expect((await procs.stopAll()).map((x) => `${x.name}:${x.signalled}`)).toEqual(['d1:TERM', 'd2:TERM', 'd3:TERM', 'd4:TERM'])
    } finally {
      await procs.stopAll()
    }
  }, 60_000)
})

describe('a server that allows no session (MaxSessions 0)', () => {
  let none: Sshd
  beforeAll(async () => {
    none = await startSshd({ config: ['MaxSessions 0'] })
    await knownHosts.trust(none.host, none.port, none.hostKey())
  })
  afterAll(() => none?.stop())

  it('fails with a clear message instead of waiting forever', async () => {
    const h = pool().host(target(none))
    await expect(h.run(['true'])).rejects.toThrow(/refused to open a session 5 times with no other session of p4lab open on the connection \(\(SSH\) Channel open failure: open failed\); is MaxSessions 0/)
  }, 30_000)
})

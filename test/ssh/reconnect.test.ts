import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../src-main/core/secrets'
import { ConnectionLostError, KnownHosts, SshPool, type PoolEvent, type SshHost } from '../../src-main/core/ssh'
import { startSshd, type Sshd } from '../helpers/sshd'

let sshd: Sshd
let pool: SshPool
let h: SshHost
const events: PoolEvent[] = []

/** A deterministic jitter source. */
function seeded(seed: number): () => number {
  let s = seed >>> 0
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
}

beforeAll(async () => {
  sshd = await startSshd()
  const dir = mkdtempSync(join(tmpdir(), 'p4lab-rc-'))
  const knownHosts = new KnownHosts({ file: join(dir, 'known_hosts') })
  await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
  pool = new SshPool({
    knownHosts,
    secrets: new MemorySecretStore(),
    keepaliveInterval: 1000,
    backoff: { initialMs: 50, maxMs: 400, maxAttempts: 50 },
    random: seeded(1),
  })
  pool.on('event', (e) => events.push(e))
  h = pool.host({ host: sshd.host, port: sshd.port, user: sshd.user, auth: { kind: 'key', path: sshd.plainKey } })
})
afterAll(async () => {
  pool?.closeAll()
  await sshd?.stop()
})

function nextEvent(type: PoolEvent['type'], pred: (e: PoolEvent) => boolean = () => true): Promise<PoolEvent> {
  const seen = events.length
  return new Promise((resolve) => {
    const check = (e: PoolEvent) => {
      if (e.type === type && pred(e)) {
        pool.off('event', check)
        resolve(e)
      }
    }
    // Events already emitted since `seen` count too.
    const early = events.slice(seen).find((e) => e.type === type && pred(e))
    if (early) resolve(early)
    else pool.on('event', check)
  })
}

describe('reconnect', () => {
  it('fails the call in flight clearly, reconnects, and the next exec succeeds', async () => {
    expect(await h.check(['echo', 'before'])).toBe('before\n')
    expect(h.connected).toBe(true)

    // A long command is running when the server drops the connection.
    const lines: string[] = []
    let started!: () => void
    const isStarted = new Promise<void>((r) => (started = r))
    const inflight = h.run(['sh', '-c', 'echo running; exec sleep 1000'], {
      onLine: (l) => {
        lines.push(l)
        if (l === 'running') started()
      },
    })
    await isStarted
    const disconnected = nextEvent('disconnected')
    sshd.dropConnections()
    const err = await inflight.catch((e) => e)
    expect(err).toBeInstanceOf(ConnectionLostError)
    expect(err.code).toBe('connection-lost')
    expect(err.notStarted).toBe(false)
    expect(err.message).toMatch(/was lost while a command was running; it may or may not have completed/)
    await disconnected

    // A new call waits for the reconnect and then runs.
    expect(await h.check(['echo', 'after'])).toBe('after\n')
    expect(events.filter((e) => e.type === 'connected').length).toBe(2)
  })

  it('waits through a server restart on the same port, with backoff', async () => {
    expect(await h.check(['echo', 'one'])).toBe('one\n')
    const disconnected = nextEvent('disconnected')
    const restarted = sshd.restart()
    await disconnected
    // Called while the server is down or coming back: it waits for the reconnect.
    const p = h.check(['echo', 'two'])
    await restarted
    expect(await p).toBe('two\n')
  })

  it('stops retrying a host whose key changed', async () => {
    const disconnected = nextEvent('disconnected')
    const failed = nextEvent('reconnect-failed', (e) => 'error' in e && /has changed/.test(e.error))
    await sshd.restart({ newHostKey: true })
    await disconnected
    const e = (await failed) as Extract<PoolEvent, { type: 'reconnect-failed' }>
    expect(e.error).toMatch(/has changed/)
    await expect(h.run(['true'])).rejects.toMatchObject({ code: 'host-key-changed' })
  })
})

describe('the reconnect window', () => {
  let knownHosts: KnownHosts
  const opened: SshPool[] = []
  beforeAll(async () => {
    knownHosts = new KnownHosts({ file: join(mkdtempSync(join(tmpdir(), 'p4lab-rcw-')), 'known_hosts') })
    await knownHosts.trust(sshd.host, sshd.port, sshd.hostKey())
  })
  afterAll(async () => {
    for (const p of opened) p.closeAll()
    await sshd.up()
  })
  const hostWith = (windowMs: number, seen: PoolEvent[]) => {
    const p = new SshPool({ knownHosts, secrets: new MemorySecretStore(), keepaliveInterval: 1000, backoff: { initialMs: 50, maxMs: 400, windowMs }, random: seeded(2) })
    p.on('event', (e) => seen.push(e))
    opened.push(p)
    return p.host({ host: sshd.host, port: sshd.port, user: sshd.user, auth: { kind: 'key', path: sshd.plainKey } })
  }
  const until = async (what: string, cond: () => boolean) => {
    const deadline = Date.now() + 30_000
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  it('sends a read-only command again once the server is back within the window', async () => {
    const seen: PoolEvent[] = []
    const host = hostWith(60_000, seen)
    const marker = join(mkdtempSync(join(tmpdir(), 'p4lab-rcw-')), 'runs')
    await host.connect()
    const call = host.exec(`echo run >> ${marker}; sleep 1; echo done`, { retryOnLoss: true })
    await until('the command to start', () => existsSync(marker))
    await sshd.down()
    await until('a failed reconnect attempt', () => seen.some((e) => e.type === 'reconnect-failed'))
    await sshd.up()
    const r = await call
    expect(r.stdout.toString()).toBe('done\n')
    expect(seen.some((e) => e.type === 'reconnected')).toBe(true)
    await until('the first run to write its line too', () => readFileSync(marker, 'utf8').split('\n').filter(Boolean).length === 2)
  }, 60_000)

  it('gives up once the window is over, naming the host and the window', async () => {
    const seen: PoolEvent[] = []
    const host = hostWith(500, seen)
    await host.connect()
    await sshd.down()
    try {
      const err = await host.exec('echo hi', { retryOnLoss: true }).catch((e: Error) => e)
      expect(err).toBeInstanceOf(Error)
      expect((err as Error).message).toMatch(new RegExp(`^lost the connection to ${sshd.user}@\\[127\\.0\\.0\\.1\\]:${sshd.port} and could not reconnect within the reconnect window of 0\\.5 s \\(\\d+ attempts\\)`))
      expect(seen.filter((e) => e.type === 'gave-up')).toHaveLength(1)
    } finally {
      await sshd.up()
    }
    // Back: the next call connects again.
    expect(await host.check(['echo', 'back'])).toBe('back\n')
  }, 60_000)
})

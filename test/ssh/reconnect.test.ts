import { mkdtempSync } from 'node:fs'
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

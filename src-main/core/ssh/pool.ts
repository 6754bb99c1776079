import { EventEmitter } from 'node:events'
import type { Client, SFTPWrapper } from 'ssh2'
import { cmd, type CmdOptions } from './cmd'
import { connect, targetLabel, type ConnectOptions, type SshTarget } from './connect'
import { SshError } from './errors'
import { ConnectionLostError, execOn, type ExecChannelHost, type ExecOptions, type ExecResult } from './exec'
import { hostLabel } from './known-hosts'
import { ChannelRefusedError, SessionScheduler, type SessionOptions, type SessionSlot, type SessionStats } from './sessions'

export interface BackoffOptions {
  /** First retry delay, ms. Default 500. */
  initialMs?: number
  /** Cap, ms. Default 30 000. */
  maxMs?: number
  /** Growth per attempt. Default 2. */
  factor?: number
  /** Give up after this many failed attempts in a row (waiting calls then fail). Default 10, or no limit with `windowMs`. */
  maxAttempts?: number
  /**
   * The retry window: give up once this many ms have passed since the connection dropped
   * (the last attempt starts at the window's end at the latest). Unset: only `maxAttempts` bounds it.
   */
  windowMs?: number
}

/**
 * Delay before reconnect attempt `attempt` (1-based): exponential, capped, with "equal
 * jitter" (half fixed, half random) so many hosts dropped at once do not retry in step.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = {}, random: () => number = Math.random): number {
  const initial = opts.initialMs ?? 500
  const max = opts.maxMs ?? 30_000
  const factor = opts.factor ?? 2
  const base = Math.min(max, initial * Math.pow(factor, Math.max(0, attempt - 1)))
  const r = Math.min(1, Math.max(0, random()))
  return Math.round(base / 2 + (base / 2) * r)
}

export interface PoolOptions extends ConnectOptions, SessionOptions {
  backoff?: BackoffOptions
  /** Jitter source (tests pass a seeded one). Default Math.random. */
  random?: () => number
  /** One line per connection event (never a secret). */
  log?: (line: string) => void
}

export type PoolEvent =
  | { type: 'connected'; host: string; hostKey: string }
  | { type: 'disconnected'; host: string; reason: string }
  | { type: 'reconnect-scheduled'; host: string; attempt: number; delayMs: number }
  | { type: 'reconnect-failed'; host: string; attempt: number; error: string }
  | { type: 'reconnected'; host: string; attempt: number; downMs: number }
  | { type: 'gave-up'; host: string; error: string }

interface Conn extends ExecChannelHost {
  lost: boolean
  inflight: Set<(err: Error) => void>
  hostKey: string
  /** An extra connection for when every session of the first one is busy (./sessions.ts). */
  overflow: boolean
}

/** Times a read-only command (ExecOptions.retryOnLoss) is sent again after losing its connection. */
const MAX_LOSS_RETRIES = 5

function isFatal(e: unknown): boolean {
  // Retrying cannot fix these: the user must act.
  return e instanceof SshError && (e.code === 'auth' || e.code.startsWith('host-key'))
}

/**
 * One connection to one (host, port, user), shared by every call to it. It connects on
 * first use. When an established connection drops, calls in flight fail with
 * {@link ConnectionLostError} and it reconnects with backoff; calls made meanwhile wait
 * for the new connection (or fail when it gives up). A host-key or login failure is
 * never retried.
 *
 * Every channel (exec, SFTP) waits for a session slot first, so no more are open on a
 * connection than the server allows; when all are busy, extra connections carry the
 * overflow (./sessions.ts).
 */
export class SshHost {
  readonly label: string
  private readonly sessions: SessionScheduler<Conn>
  private readonly extra = new Set<Conn>()
  private conn: Conn | undefined
  private connecting: Promise<Conn> | undefined
  private closed = false
  private sleepTimer: NodeJS.Timeout | undefined
  /** Why the last reconnect gave up (until a connection is up again). */
  private gaveUp: string | undefined
  private wake: (() => void) | undefined

  constructor(
    readonly target: SshTarget,
    private readonly opts: PoolOptions,
    private readonly emit: (e: PoolEvent) => void,
  ) {
    this.label = targetLabel(target)
    this.sessions = new SessionScheduler<Conn>({ ...opts, maxSessions: target.maxSessions ?? opts.maxSessions }, this.label, {
      openOverflow: () => this.openOverflow(),
      closeConn: (c) => this.closeConn(c, 'unused'),
      log: opts.log,
    })
  }

  /** Sessions open, waiting and learned (for tests and diagnostics). */
  get sessionStats(): SessionStats {
    return this.sessions.stats
  }

  /** Whether a connection is up right now. */
  get connected(): boolean {
    return !!this.conn && !this.conn.lost
  }

  /** Fingerprint of the verified host key of the current connection. */
  get hostKey(): string | undefined {
    return this.conn?.hostKey
  }

  /** Connect now (e.g. for a Check button); resolves once logged in. */
  async connect(): Promise<void> {
    await this.getConn()
  }

  async exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return this.onChannel(opts, (conn, slot) => execOn(conn, command, opts, slot))
  }

  /**
   * Opens a channel with `open` once a session is free, and again after a refusal (the
   * server's session limit) or a connection lost before anything was sent.
   */
  private async onChannel<T>(opts: { priority?: boolean; signal?: AbortSignal; retryOnLoss?: boolean }, open: (conn: Conn, slot: SessionSlot) => Promise<T>): Promise<T> {
    let refusals = 0
    let losses = 0
    for (let tries = 0; ; ) {
      await this.getConn(opts.signal)
      const lease = await this.sessions.acquire({ priority: opts.priority, signal: opts.signal, refusals })
      try {
        return await open(lease.conn, lease)
      } catch (e) {
        if (e instanceof ChannelRefusedError && e.retry) {
          refusals++
          continue
        }
        // The command never reached the server: safe to send it again on the new connection.
        // (A turn of the event loop first, so a socket that closed under it is seen as dropped.)
        if (e instanceof ConnectionLostError && e.notStarted && tries++ < 2) {
          await new Promise((r) => setImmediate(r))
          continue
        }
        // A read-only command: sent again once the host is back (getConn waits for the
        // reconnect, and fails when the retry window is over). Bounded, in case the command
        // itself is what brings the connection down.
        if (e instanceof ConnectionLostError && opts.retryOnLoss && !opts.signal?.aborted && losses++ < MAX_LOSS_RETRIES) {
          this.opts.log?.(`ssh ${this.label}: the connection dropped under a read-only command; sending it again once reconnected`)
          continue
        }
        throw e
      }
    }
  }

  /** exec of an argument list: `cmd(argv, {cwd, env})`, then {@link exec}. */
  run(argv: readonly string[], opts: ExecOptions & CmdOptions = {}): Promise<ExecResult> {
    return this.exec(cmd(argv, { cwd: opts.cwd, env: opts.env }), opts)
  }

  /** {@link run}, failing with the command's stderr unless it exits 0. Returns stdout as text. */
  async check(argv: readonly string[], opts: ExecOptions & CmdOptions = {}): Promise<string> {
    const r = await this.run(argv, opts)
    if (r.code !== 0) {
      const why = r.code === null ? `was killed by ${r.signal ?? 'an unknown signal'}` : `exited with ${r.code}`
      const tail = r.stderr.toString('utf8').trim().split('\n').slice(-5).join('\n')
      throw new SshError('remote', `${this.label}: ${argv[0]} ${why}${tail ? `: ${tail}` : ''}`)
    }
    return r.stdout.toString('utf8')
  }

  /** Open an SFTP session for `fn`, closed afterwards. Fails like exec if the connection drops. */
  async withSftp<T>(fn: (sftp: SFTPWrapper) => Promise<T>, opts: { priority?: boolean; signal?: AbortSignal } = {}): Promise<T> {
    const { sftp, conn } = await this.onChannel(opts, (c, slot) => this.openSftp(c, slot))
    let untrack = () => {}
    const lost = new Promise<never>((_, reject) => {
      untrack = conn.track(reject)
    })
    lost.catch(() => undefined)
    try {
      return await Promise.race([fn(sftp), lost])
    } finally {
      sftp.end()
      untrack()
    }
  }

  private openSftp(conn: Conn, slot: SessionSlot): Promise<{ sftp: SFTPWrapper; conn: Conn }> {
    return new Promise((resolve, reject) => {
      let done = false
      const untrack = conn.track((e) => {
        if (done) return
        done = true
        reject(e)
      })
      try {
        conn.client.sftp((e, sftp) => {
          untrack()
          if (!e) {
            slot.opened()
            sftp.once('close', () => slot.closed())
          }
          if (done) {
            if (!e) sftp.end()
            else slot.closed()
            return
          }
          done = true
          if (!e) return resolve({ sftp, conn })
          if (conn.lost) {
            slot.closed()
            return reject(new ConnectionLostError(this.label, false, false))
          }
          const why = slot.openFailed(e)
          reject(why instanceof ChannelRefusedError ? why : new SshError('remote', `${this.label}: cannot start SFTP: ${e.message}`))
        })
      } catch (e) {
        untrack()
        slot.openFailed(e as Error)
        if (done) return
        done = true
        reject(conn.lost ? new ConnectionLostError(this.label, true) : new SshError('remote', `${this.label}: cannot start SFTP: ${(e as Error).message}`))
      }
    })
  }

  /** Close the connection; calls in flight fail, later calls fail. */
  close(): void {
    this.closed = true
    if (this.sleepTimer) clearTimeout(this.sleepTimer)
    this.wake?.()
    this.sessions.close(new SshError('closed', `the connection to ${this.label} was closed`))
    const c = this.conn
    this.conn = undefined
    for (const x of [...(c ? [c] : []), ...this.extra]) this.closeConn(x, 'closed')
  }

  /** Closes one connection on purpose: its calls in flight fail. */
  private closeConn(c: Conn, why: 'closed' | 'unused'): void {
    this.extra.delete(c)
    if (c.lost) return
    c.lost = true
    this.sessions.remove(c)
    for (const f of [...c.inflight]) f(new SshError('closed', `the connection to ${this.label} was closed`))
    c.inflight.clear()
    if (why === 'unused') this.opts.log?.(`ssh ${this.label}: closing the extra connection (unused)`)
    c.client.end()
  }

  /** Another connection to the host, for the overflow (not reconnected when it drops). */
  private async openOverflow(): Promise<Conn> {
    const { client, hostKey } = await connect(this.target, this.opts)
    if (this.closed) {
      client.end()
      throw new SshError('closed', `the connection to ${this.label} is closed`)
    }
    const conn = this.makeConn(client, hostKey, true)
    this.extra.add(conn)
    let lastError = ''
    client.on('error', (e: Error) => {
      lastError = e.message
      if (!conn.lost) this.opts.log?.(`ssh ${this.label} (extra connection): ${e.message}`)
    })
    client.on('close', () => {
      this.extra.delete(conn)
      if (conn.lost) return
      conn.lost = true
      this.sessions.remove(conn)
      for (const f of [...conn.inflight]) f(new ConnectionLostError(this.label, false))
      conn.inflight.clear()
      this.opts.log?.(`ssh ${this.label}: the extra connection closed (${lastError || 'by the server'})`)
    })
    this.opts.log?.(`ssh ${this.label}: extra connection up (host key ${hostKey})`)
    return conn
  }

  private makeConn(client: Client, hostKey: string, overflow: boolean): Conn {
    const conn: Conn = {
      client,
      label: this.label,
      lost: false,
      hostKey,
      overflow,
      inflight: new Set(),
      track(fail) {
        if (conn.lost) {
          fail(new ConnectionLostError(conn.label, true))
          return () => {}
        }
        conn.inflight.add(fail)
        return () => conn.inflight.delete(fail)
      },
      side: (command) => this.exec(command, { priority: true }),
    }
    return conn
  }

  private getConn(signal?: AbortSignal): Promise<Conn> {
    if (this.closed) return Promise.reject(new SshError('closed', `the connection to ${this.label} is closed`))
    if (this.conn && !this.conn.lost) return Promise.resolve(this.conn)
    if (!this.connecting) {
      const p = this.open()
        .catch((e: unknown) => {
          // The host already stayed away past the reconnect window: say so, not just this attempt's error.
          if (this.gaveUp && e instanceof SshError && e.code === 'connect') throw new SshError('connect', `${this.gaveUp}; a new attempt failed too: ${e.message}`, { cause: e })
          throw e
        })
        .finally(() => {
          if (this.connecting === p) this.connecting = undefined
        })
      this.connecting = p
    }
    const p = this.connecting
    if (!signal) return p
    if (signal.aborted) return Promise.reject(new SshError('aborted', `cancelled while connecting to ${this.label}`))
    return new Promise<Conn>((resolve, reject) => {
      const onAbort = () => reject(new SshError('aborted', `cancelled while connecting to ${this.label}`))
      signal.addEventListener('abort', onAbort, { once: true })
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
    })
  }

  private async open(): Promise<Conn> {
    const { client, hostKey } = await connect(this.target, this.opts)
    if (this.closed) {
      client.end()
      throw new SshError('closed', `the connection to ${this.label} is closed`)
    }
    const conn = this.makeConn(client, hostKey, false)
    let lastError = ''
    client.on('error', (e: Error) => {
      lastError = e.message
      // A connection closed on purpose can still report its socket's end (ECONNRESET when the
      // server goes away first); that is not news, and whoever owned the log may be gone.
      if (!conn.lost) this.opts.log?.(`ssh ${this.label}: ${e.message}`)
    })
    client.on('close', () => this.onDrop(conn, client, lastError || 'the connection closed'))
    this.conn = conn
    this.gaveUp = undefined
    this.sessions.add(conn, false)
    this.emit({ type: 'connected', host: this.label, hostKey })
    this.opts.log?.(`ssh ${this.label}: connected (host key ${hostKey})`)
    return conn
  }

  private onDrop(conn: Conn, _client: Client, reason: string): void {
    if (conn.lost) return // closed on purpose
    conn.lost = true
    if (this.conn === conn) this.conn = undefined
    this.sessions.remove(conn)
    for (const f of [...conn.inflight]) f(new ConnectionLostError(this.label, false))
    conn.inflight.clear()
    this.emit({ type: 'disconnected', host: this.label, reason })
    this.opts.log?.(`ssh ${this.label}: disconnected (${reason}); reconnecting`)
    if (this.closed || this.connecting) return
    const p = this.reconnect().finally(() => {
      if (this.connecting === p) this.connecting = undefined
    })
    p.catch(() => undefined) // waiting calls see the error; nobody waiting is fine
    this.connecting = p
  }

  private async reconnect(): Promise<Conn> {
    const b = this.opts.backoff ?? {}
    const windowMs = b.windowMs
    const max = b.maxAttempts ?? (windowMs !== undefined ? Infinity : 10)
    const since = Date.now()
    const deadline = windowMs !== undefined ? since + windowMs : Infinity
    let last: unknown
    let attempt = 0
    for (;;) {
      attempt++
      // The first attempt is immediate: often only the session died, not the server.
      if (attempt > 1) {
        const delayMs = Math.max(0, Math.min(backoffDelay(attempt - 1, b, this.opts.random), deadline - Date.now()))
        this.emit({ type: 'reconnect-scheduled', host: this.label, attempt, delayMs })
        await new Promise<void>((r) => {
          this.wake = r
          this.sleepTimer = setTimeout(r, delayMs)
        })
        this.wake = undefined
      }
      if (this.closed) throw new SshError('closed', `the connection to ${this.label} is closed`)
      try {
        const conn = await this.open()
        const downMs = Date.now() - since
        this.emit({ type: 'reconnected', host: this.label, attempt, downMs })
        this.opts.log?.(`ssh ${this.label}: reconnected at attempt ${attempt}, ${(downMs / 1000).toFixed(1)} s after the connection dropped`)
        return conn
      } catch (e) {
        last = e
        const msg = (e as Error).message
        this.emit({ type: 'reconnect-failed', host: this.label, attempt, error: msg })
        this.opts.log?.(`ssh ${this.label}: reconnect attempt ${attempt} failed: ${msg}`)
        if (isFatal(e) || this.closed) {
          this.sessions.failWaiting(e as Error)
          throw e
        }
      }
      if (attempt >= max || Date.now() >= deadline) break
    }
    const within = windowMs !== undefined ? `within the reconnect window of ${fmtSeconds(windowMs)} (${attempt} attempts)` : `after ${attempt} attempts`
    const msg = `lost the connection to ${this.label} and could not reconnect ${within}: ${(last as Error)?.message}`
    this.emit({ type: 'gave-up', host: this.label, error: msg })
    this.gaveUp = msg
    const err = new SshError('connect', msg, { cause: last })
    this.sessions.failWaiting(err)
    throw err
  }
}

function fmtSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`
}

/**
 * One {@link SshHost} per (host, port, user). `host()` returns the same object for the
 * same target; asked for it with a different auth, it closes the old one (its calls in
 * flight fail) and returns a new one. Events from every host go to the pool's 'event'.
 */
export class SshPool extends EventEmitter<{ event: [PoolEvent] }> {
  private readonly hosts = new Map<string, SshHost>()

  constructor(private readonly opts: PoolOptions) {
    super()
  }

  host(target: SshTarget): SshHost {
    const key = `${target.user}@${hostLabel(target.host, target.port ?? 22)}`
    let h = this.hosts.get(key)
    if (h && JSON.stringify(h.target.auth) !== JSON.stringify(target.auth)) {
      // The login changed (a new key, another secret): never reuse a connection made with the old one.
      h.close()
      h = undefined
    }
    if (!h) {
      h = new SshHost(target, this.opts, (e) => this.emit('event', e))
      this.hosts.set(key, h)
    }
    return h
  }

  /** Close every connection (teardown, app exit). */
  closeAll(): void {
    for (const h of this.hosts.values()) h.close()
    this.hosts.clear()
  }
}
